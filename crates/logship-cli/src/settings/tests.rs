//! Every surface of the command has every key: each row of `logship::keys()` is a flag of
//! `ship` that sets its key (through the real clap command and the library's layers), each
//! pipeline row a flag of `demo` and `spill replay`, and every flag the command had before
//! its flags were generated still exists.

use clap::Parser;
use logship::{CliFlag, Config, KeySpec, Origin};

use super::defaults::Use;
use super::resolve::{resolve, ship_run, Settings};
use crate::{Cli, Command};

/// Resolves `logship ARGS` with an empty environment; returns the settings of its
/// command (`ship`, `demo` or `spill replay`).
fn settings(args: &[&str]) -> Result<Settings, String> {
    let cli = Cli::try_parse_from(std::iter::once("logship").chain(args.iter().copied()))
        .map_err(|e| e.to_string())?;
    let empty = || -> Option<super::resolve::Env> { Some(Box::new(|_| None)) };
    let out = match cli.command {
        Command::Ship(ship) => resolve(&ship.settings, empty(), ship_run(!ship.inputs.is_empty())),
        Command::Demo(demo) => resolve(&demo.settings, empty(), |_| Use::Pipeline),
        Command::Spill(crate::spill::SpillCommand::Replay(replay)) => {
            resolve(&replay.settings, empty(), |_| Use::Pipeline)
        }
        other => panic!("not a command with settings: {other:?}"),
    };
    out.map_err(|f| f.message)
}

/// A value of `key`'s type that the library reads without complaint.
fn example(key: &KeySpec) -> String {
    let kind = key.type_name();
    if let Some(range) = kind.strip_prefix("integer ") {
        return range.split("..=").next().unwrap_or("1").to_owned();
    }
    if let Some(choices) = key.choices() {
        return choices.last().copied().unwrap_or_default().to_owned();
    }
    if let Some(item) = kind.strip_prefix("list of \"") {
        return match item.trim_end_matches('"') {
            "listen URL" => "http://127.0.0.1:0".to_owned(),
            other => other.to_owned(),
        };
    }
    match kind.as_str() {
        "URL" => "http://127.0.0.1:9/logs".into(),
        "vendor name" => "datadog".into(),
        "path" | "path, or false" => "/tmp/logship-example".into(),
        k if k.starts_with("table of header") => "X-Example: 1".into(),
        _ => "example".into(),
    }
}

/// `key`'s effective value in `config`, as `config check` shows it.
fn shown(config: &Config, key: &str) -> Option<String> {
    config
        .effective_values()
        .into_iter()
        .find(|(k, _)| *k == key)
        .and_then(|(_, v)| v)
}

/// What `key` is once set to `value` as its variable would set it.
fn expected(key: &str, value: &str) -> Option<String> {
    let mut config = Config::default();
    config
        .set(key, value)
        .unwrap_or_else(|e| panic!("{key} = {value}: {e}"));
    shown(&config, key)
}

/// The command-line arguments that set `key`, and the value they set it to.
fn flag_and_value(key: &KeySpec) -> (Vec<String>, String) {
    let flag = key.flag();
    match flag {
        CliFlag::On(f) => (vec![f.to_owned()], "true".into()),
        CliFlag::Off(f) => (vec![f.to_owned()], "false".into()),
        _ => (vec![flag.long().to_owned(), example(key)], example(key)),
    }
}

#[test]
fn ship_takes_every_keys_flag_and_sets_the_key() {
    let mut seen = 0;
    for key in logship::keys() {
        let (args, value) = flag_and_value(&key);
        let mut all = vec!["ship"];
        all.extend(args.iter().map(String::as_str));
        let s = settings(&all).unwrap_or_else(|e| panic!("ship {all:?}: {e}"));
        assert_eq!(s.origin(key.name()), Origin::Explicit, "{all:?}");
        assert_eq!(
            shown(&s.config, key.name()),
            expected(key.name(), &value),
            "{all:?}"
        );
        if let Some(off) = key.flag().off() {
            let s = settings(&["ship", off]).unwrap_or_else(|e| panic!("ship {off}: {e}"));
            assert_eq!(s.origin(key.name()), Origin::Explicit, "{off}");
            assert_eq!(shown(&s.config, key.name()), expected(key.name(), "false"));
        }
        if key.flag().repeatable() {
            let mut twice = all.clone();
            twice.extend(args.iter().map(String::as_str));
            settings(&twice).unwrap_or_else(|e| panic!("ship {twice:?}: {e}"));
        }
        seen += 1;
    }
    assert!(seen > 100, "only {seen} keys");
}

#[test]
fn demo_and_spill_replay_take_every_pipeline_keys_flag_and_no_other() {
    for key in logship::keys() {
        let (args, value) = flag_and_value(&key);
        for command in [&["demo"][..], &["spill", "replay", "--dir", "/tmp/x"][..]] {
            let mut all = command.to_vec();
            all.extend(args.iter().map(String::as_str));
            match (key.section(), settings(&all)) {
                (None, Ok(s)) => assert_eq!(
                    shown(&s.config, key.name()),
                    expected(key.name(), &value),
                    "{all:?}"
                ),
                (None, Err(e)) => panic!("{all:?}: {e}"),
                (Some(_), Ok(_)) => panic!("{all:?}: a key of the ship command's sections"),
                (Some(_), Err(e)) => assert!(e.contains("unexpected argument"), "{e}"),
            }
        }
    }
}

/// Every flag `ship` had when its flags were written by hand (before the key table drove
/// them): each must still exist, as a key's flag or one of the command's own arguments.
const FLAGS_BEFORE: &[&str] = &[
    "--input",
    "--stats-json",
    "--config",
    "--vendor",
    "--endpoint",
    "--api-key",
    "--site",
    "--region",
    "--service",
    "--env",
    "--service-version",
    "--source",
    "--hostname",
    "--tags",
    "--span-fields",
    "--no-event-id",
    "--splunk-index",
    "--splunk-sourcetype",
    "--splunk-channel",
    "--splunk-ack",
    "--splunk-ack-timeout-ms",
    "--index",
    "--otlp-encoding",
    "--max-request-bytes",
    "--tenant-id",
    "--username",
    "--password",
    "--loki-labels",
    "--max-line-bytes",
    "--header",
    "--max-batch-records",
    "--max-batch-bytes",
    "--linger-ms",
    "--queue-capacity",
    "--queue-max-bytes",
    "--max-in-flight",
    "--no-adaptive-concurrency",
    "--max-retries",
    "--no-gzip",
    "--spill-dir",
    "--no-spill",
    "--spill-required",
    "--spill-max-bytes",
    "--shutdown-timeout-ms",
    "--tls-ca-file",
    "--tls-client-cert",
    "--tls-client-key",
    "--tls-no-verify",
    "--proxy",
    "--redact",
    "--redact-fields",
    "--redact-patterns",
    "--redact-regex",
    "--redact-action",
    "--redact-hash-key",
    "--burst-limits",
    "--burst-sites",
    "--burst-summary-interval-ms",
    "--sample-rates",
    "--no-sample-by-trace",
    "--drop-notices",
    "--budget-hour-bytes",
    "--budget-day-bytes",
    "--budget-hour-events",
    "--budget-day-events",
    "--budget-level-hour-bytes",
    "--budget-level-day-bytes",
    "--budget-overdraft-percent",
    "--budget-sample-percent",
    "--budget-state-file",
    "--stall-after-ms",
    "--metrics-interval-ms",
    "--follow",
    "--start-at",
    "--checkpoint",
    "--no-checkpoint",
    "--poll-interval-ms",
    "--checkpoint-interval-ms",
    "--rotate-wait-ms",
    "--max-open-files",
    "--multiline",
    "--multiline-max-lines",
    "--multiline-timeout-ms",
    "--format",
    "--listen",
    "--listen-token",
    "--listen-ack",
    "--listen-ack-timeout-ms",
    "--listen-max-body-bytes",
    "--listen-max-connections",
    "--listen-header-timeout-ms",
    "--listen-body-timeout-ms",
    "--listen-idle-timeout-ms",
];

#[test]
fn every_flag_of_before_still_exists() {
    use clap::CommandFactory;
    let cli = Cli::command();
    let ship = cli.find_subcommand("ship").expect("ship");
    for flag in FLAGS_BEFORE {
        let long = flag.trim_start_matches('-');
        assert!(
            ship.get_arguments().any(|a| a.get_long() == Some(long)),
            "ship lost {flag}"
        );
    }
}

#[test]
fn flags_keep_their_old_rules() {
    // --redact-fields, --redact-patterns and --redact-regex imply --redact.
    let s = settings(&["ship", "--redact-regex", "order-[0-9]+"]).expect("valid");
    assert!(s.config.redaction.enabled);
    assert_eq!(s.config.redaction.regexes, ["order-[0-9]+"]);
    // An Each flag's value is one item, never split at commas.
    let s = settings(&[
        "ship",
        "--follow",
        "/var/log/{a,b}.log",
        "--follow",
        "/x.log",
    ])
    .expect("valid");
    assert_eq!(s.config.follow.paths, ["/var/log/{a,b}.log", "/x.log"]);
    // A Many flag's values are joined and split as the variable's.
    let s = settings(&["ship", "--tags", "a:1,b:2", "--tags", "c:3"]).expect("valid");
    assert_eq!(s.config.tags, ["a:1", "b:2", "c:3"]);
    let s = settings(&["ship", "--header", "X-A: 1", "--header", "X-B: 2"]).expect("valid");
    assert_eq!(s.config.headers.len(), 2);
    // Contradictions are refused by clap, as before.
    for pair in [
        &["--spill-dir", "/tmp/x", "--no-spill"][..],
        &["--spill-required", "--no-spill"][..],
        &["--checkpoint", "/tmp/c", "--no-checkpoint"][..],
        &["--input", "a.log", "--follow", "/x/*.log"][..],
        &["--input", "a.log", "--listen", "http://127.0.0.1:0"][..],
    ] {
        let mut all = vec!["ship"];
        all.extend_from_slice(pair);
        let e = settings(&all)
            .err()
            .unwrap_or_else(|| panic!("{all:?} accepted"));
        assert!(e.contains("cannot be used with"), "{all:?}: {e}");
    }
}

#[test]
fn the_commands_defaults_apply_only_to_what_nobody_set() {
    let s = settings(&["ship"]).expect("valid");
    assert_eq!(s.run, Use::Ship);
    assert_eq!(
        s.config.shutdown_timeout,
        std::time::Duration::from_secs(30)
    );
    assert_eq!(
        s.config.overflow,
        logship::Overflow::Block(std::time::Duration::from_secs(60))
    );
    assert_eq!((s.config.max_batch_records, s.config.gzip_level), (200, 2));
    assert_eq!(s.origin_text("shutdown_timeout_ms"), "default (logship)");
    let s = settings(&["ship", "--follow", "/x/*.log"]).expect("valid");
    assert_eq!(s.run, Use::Service);
    assert_eq!((s.config.max_batch_records, s.config.gzip_level), (1000, 2));
    let s =
        settings(&["ship", "--listen", "tcp://127.0.0.1:0", "--gzip-level", "3"]).expect("valid");
    assert_eq!((s.config.max_batch_records, s.config.gzip_level), (1000, 3));
    let s = settings(&["ship", "--follow", "/x/*.log", "--input", "-"]);
    assert!(s.is_err(), "--input conflicts with --follow");
    let s = settings(&["demo", "--shutdown-timeout-ms", "5000"]).expect("valid");
    assert_eq!(s.config.shutdown_timeout, std::time::Duration::from_secs(5));
    assert_eq!(s.config.overflow, logship::Overflow::DropNewest);
}

#[test]
fn a_bad_flag_value_names_the_flag() {
    let e = settings(&["ship", "--linger-ms", "9999999"])
        .err()
        .expect("refused");
    assert!(
        e.contains("linger_ms = 9999999") && e.contains("[from flag --linger-ms]"),
        "{e}"
    );
    let e = settings(&["ship", "--start-at", "middle"])
        .err()
        .expect("refused");
    assert!(
        e.contains("follow.start_at") && e.contains("[from flag --start-at]"),
        "{e}"
    );
    let e = settings(&["ship", "--header", "sk-secret"])
        .err()
        .expect("refused");
    assert!(e.contains("--header") && !e.contains("sk-secret"), "{e}");
}

#[test]
fn sidecar_problems_are_all_reported_with_the_flag_they_came_from() {
    let s = settings(&[
        "ship",
        "--follow",
        "/x/[.log",
        "--listen",
        "htp://127.0.0.1:1",
    ])
    .expect("resolved");
    let e = s.sidecar().expect_err("refused").message;
    assert!(
        e.contains("follow.paths = [\"/x/[.log\"]: \"/x/[.log\" is not a valid glob pattern"),
        "{e}"
    );
    assert!(e.contains("[from flag --follow]"), "{e}");
    assert!(e.contains("\nlogship: invalid logship configuration: listen.inputs = \"htp://127.0.0.1:1\": unknown scheme"), "{e}");
}
