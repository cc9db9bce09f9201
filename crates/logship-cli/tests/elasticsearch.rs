//! `logship ship --vendor elasticsearch` end to end: the real binary ships to the intake's
//! `_bulk` emulation (in the test process) over loopback. Synchronisation is by process
//! exit; a watchdog kills a hung child.

mod common;

use std::process::Output;
use std::time::Duration;

use common::{logship, run_with_stdin};
use logship_intake::{Intake, IntakeConfig, ItemFault};

const PASSWORD: &str = "cli-es-password-0123";

/// Runs `logship args...` with `env` set and `stdin` as its input; kills it after 120 s.
fn run(args: &[&str], env: &[(&str, &str)], stdin: &[u8]) -> Output {
    let mut command = logship();
    command
        .env_remove("LOGSHIP_API_KEY")
        .envs(env.iter().copied())
        .args(args);
    run_with_stdin(&mut command, stdin, Duration::from_secs(120))
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn ship_to_elasticsearch_with_basic_auth_delivers_every_line_once() {
    let intake = Intake::start(IntakeConfig {
        api_key: Some(PASSWORD.into()),
        ..IntakeConfig::default()
    })
    .expect("start intake");
    let n = 2500;
    let input: String = (0..n).map(|i| format!("es line {i}\n")).collect();
    let endpoint = intake.url("");
    let out = run(
        &[
            "ship",
            "--vendor",
            "elasticsearch",
            "--endpoint",
            &endpoint,
            "--username",
            "elastic",
            "--index",
            "logs-cli-%Y.%m.%d",
            "--service",
            "cli-test",
            "--tags",
            "env:ci",
        ],
        &[("LOGSHIP_PASSWORD", PASSWORD)],
        input.as_bytes(),
    );
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains(&format!("shipped {n} of {n} events")), "{err}");
    assert!(!err.contains(PASSWORD) && !text(&out.stdout).contains(PASSWORD));
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
    let mut want: Vec<String> = (0..n).map(|i| format!("es line {i}")).collect();
    want.sort();
    assert_eq!(
        intake.sorted_strings_at("/message"),
        want,
        "every line once"
    );
    let events = intake.events();
    let index = events[0].value["_index"].as_str().unwrap();
    assert!(index.starts_with("logs-cli-20"), "{index}");
    assert_eq!(events[0].value["service.name"], "cli-test");
    for r in intake.requests() {
        assert_eq!(r.vendor, "elasticsearch");
        assert_eq!(
            r.path,
            "/_bulk?filter_path=errors,items.*.status,items.*.error.type,items.*.error.reason"
        );
        assert!(r.header("authorization").unwrap().starts_with("Basic "));
    }
}

#[test]
fn ship_resends_only_throttled_items_and_reports_mapping_errors() {
    let intake = Intake::start(IntakeConfig {
        api_key: Some(PASSWORD.into()),
        ..IntakeConfig::default()
    })
    .expect("start intake");
    intake.fail_items(ItemFault::containing("throttled", 3, 429));
    intake.fail_items(ItemFault::containing("unmappable", usize::MAX, 400));
    let input = "ok 1\nthrottled 2\nunmappable 3\nok 4\nthrottled 5\nthrottled 6\nok 7\n";
    let endpoint = intake.url("");
    let out = run(
        &[
            "ship",
            "--vendor",
            "es",
            "--endpoint",
            &endpoint,
            "--api-key",
            PASSWORD,
            "--no-spill",
        ],
        &[],
        input.as_bytes(),
    );
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "one event was lost: {err}");
    assert!(err.contains("shipped 6 of 7 events"), "{err}");
    assert!(err.contains("mapper_parsing_exception"), "{err}");
    assert!(!err.contains(PASSWORD));
    let requests = intake.requests();
    assert_eq!(
        requests.iter().map(|r| r.events).collect::<Vec<_>>(),
        vec![3, 3],
        "the retry carries the three throttled lines only"
    );
    assert_eq!(
        requests[0].header("authorization"),
        Some(format!("ApiKey {PASSWORD}").as_str())
    );
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
}
