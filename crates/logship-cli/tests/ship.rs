//! `logship ship` reading stdin and `--input` files: every line delivered to a real
//! intake over loopback, backpressure instead of drops, JSON lines mapped to events, and
//! bad options refused with exit code 2 naming the field. Synchronisation is by process
//! exit, pipes and the intake's condition variable; nothing sleeps to wait.

mod common;

use std::time::Duration;

use common::{messages, run, stderr, temp_path};
use logship_intake::{Fault, Intake, IntakeConfig};
use serde_json::Value;

#[test]
fn ship_text_from_stdin_delivers_every_line() {
    let intake = Intake::start(IntakeConfig::default()).expect("intake");
    let n = 1000;
    let mut input = String::new();
    let mut expected = Vec::new();
    for i in 0..n {
        let line = format!("request {i} handled in {} ms", i % 97);
        input.push_str(&line);
        input.push_str(if i % 3 == 0 { "\r\n" } else { "\n" });
        if i % 100 == 0 {
            input.push('\n'); // empty lines are skipped
        }
        expected.push(line);
    }
    expected.sort();
    let stats_path = temp_path("stats.json");
    let stats_arg = stats_path.to_string_lossy().into_owned();
    let out = run(
        &[
            "ship",
            "--endpoint",
            &intake.url("/logs"),
            "--max-batch-records",
            "100",
            "--stats-json",
            &stats_arg,
        ],
        input.as_bytes(),
    );
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    assert!(
        stderr(&out).contains(&format!("shipped {n} of {n} events")),
        "stderr: {}",
        stderr(&out)
    );
    assert_eq!(stderr(&out).lines().count(), 1, "one summary line");
    assert_eq!(messages(&intake), expected);
    for e in intake.events() {
        assert_eq!(e.value["level"], "INFO");
        // A text line names no logger: none is made up for it.
        assert!(e.value.get("target").is_none(), "{}", e.value);
    }
    let stats: Value =
        serde_json::from_str(&std::fs::read_to_string(&stats_path).expect("stats file"))
            .expect("stats JSON");
    assert_eq!(stats["events_delivered"], n);
    assert_eq!(stats["dropped_queue_full"], 0);
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
}

#[test]
fn ship_applies_backpressure_instead_of_dropping() {
    // A slow intake and a tiny queue: the reader must wait for room, never drop.
    let intake = Intake::start(IntakeConfig {
        delay: Duration::from_millis(2),
        ..IntakeConfig::default()
    })
    .expect("intake");
    let n = 20_000;
    let input: String = (0..n).map(|i| format!("event number {i}\n")).collect();
    let stats_path = temp_path("backpressure-stats.json");
    let stats_arg = stats_path.to_string_lossy().into_owned();
    let out = run(
        &[
            "ship",
            "--endpoint",
            &intake.url("/logs"),
            "--queue-capacity",
            "50",
            "--max-batch-records",
            "100",
            "--stats-json",
            &stats_arg,
        ],
        input.as_bytes(),
    );
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    assert_eq!(intake.stats().events, n);
    let stats: Value =
        serde_json::from_str(&std::fs::read_to_string(&stats_path).expect("stats file"))
            .expect("stats JSON");
    assert_eq!(stats["events_delivered"], n);
    assert_eq!(stats["dropped_queue_full"], 0);
}

#[test]
fn ship_with_fixed_concurrency_reports_its_limit() {
    let intake = Intake::start(IntakeConfig::default()).expect("intake");
    let stats_path = temp_path("fixed-concurrency-stats.json");
    let stats_arg = stats_path.to_string_lossy().into_owned();
    let input: String = (0..500).map(|i| format!("event {i}\n")).collect();
    let out = run(
        &[
            "ship",
            "--endpoint",
            &intake.url("/logs"),
            "--max-in-flight",
            "3",
            "--no-adaptive-concurrency",
            "--stats-json",
            &stats_arg,
        ],
        input.as_bytes(),
    );
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    let stats: Value =
        serde_json::from_str(&std::fs::read_to_string(&stats_path).expect("stats file"))
            .expect("stats JSON");
    assert_eq!(stats["events_delivered"], 500);
    assert_eq!(stats["concurrency_limit"], 3);
    assert_eq!(stats["concurrency_peak"], 3);
}

#[test]
fn ship_json_from_file_maps_levels_messages_and_fields() {
    let intake = Intake::start(IntakeConfig::default()).expect("intake");
    let mut file: Vec<u8> = Vec::new();
    file.extend_from_slice(
        br#"{"level":"ERROR","message":"db down","code":500,"ratio":0.25,"ok":false,"tags":["a","b"],"ctx":{"k":"v"},"nothing":null}"#,
    );
    file.extend_from_slice(b"\r\n");
    file.extend_from_slice(br#"{"msg":"via msg","level":"Debug","user":"ann"}"#);
    file.extend_from_slice(b"\n\n");
    file.extend_from_slice(br#"{"level":"notice","message":"odd level"}"#);
    file.extend_from_slice(b"\nthis is not json\n");
    file.extend_from_slice(b"{\"message\":\"caf\xff\"}\n");
    file.extend_from_slice(b"\xff\xfe raw bytes"); // no trailing newline
    let path = temp_path("events.jsonl");
    std::fs::write(&path, &file).expect("write input");
    let path_arg = path.to_string_lossy().into_owned();

    let out = run(
        &[
            "ship",
            "--format",
            "json",
            "--input",
            &path_arg,
            "--endpoint",
            &intake.url("/logs"),
        ],
        b"",
    );
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    assert!(
        stderr(&out).contains("shipped 6 of 6 events"),
        "{}",
        stderr(&out)
    );
    assert!(
        stderr(&out).contains("2 lines were not a JSON object"),
        "{}",
        stderr(&out)
    );

    let events: Vec<Value> = intake.events().into_iter().map(|e| e.value).collect();
    assert_eq!(events.len(), 6, "{events:#?}");
    let find = |message: &str| {
        events
            .iter()
            .find(|e| e["message"] == message)
            .unwrap_or_else(|| panic!("no event {message:?} in {events:#?}"))
    };
    let e = find("db down");
    assert_eq!(e["level"], "ERROR");
    assert_eq!(e["code"], 500);
    assert_eq!(e["ratio"], 0.25);
    assert_eq!(e["ok"], false);
    assert_eq!(e["tags"], serde_json::json!(["a", "b"]));
    // Nested objects arrive as dotted names (structure, not a string); arrays as arrays.
    assert_eq!(e["ctx.k"], "v");
    assert!(e.get("ctx").is_none());
    assert_eq!(e["nothing"], serde_json::Value::Null);
    assert!(e.get("nothing").is_some(), "null is kept");
    assert!(e.get("logship.parse_error").is_none());

    let e = find("via msg");
    assert_eq!(e["level"], "DEBUG");
    assert_eq!(e["user"], "ann");

    let e = find("odd level");
    assert_eq!(e["level"], "INFO");
    assert_eq!(e["field.level"], "notice");

    let e = find("this is not json");
    assert_eq!(e["logship.parse_error"], true);
    assert_eq!(e["level"], "INFO");

    let e = find("caf\u{FFFD}");
    assert!(e.get("logship.parse_error").is_none());

    let e = find("\u{FFFD}\u{FFFD} raw bytes");
    assert_eq!(e["logship.parse_error"], true);
}

#[test]
fn ship_json_vendor_without_gzip_sends_plain_json_and_headers() {
    let intake = Intake::start(IntakeConfig::default()).expect("intake");
    let out = run(
        &[
            "ship",
            "--vendor",
            "json",
            "--no-gzip",
            "--header",
            "X-Api-Key: sk-test-123",
            "--endpoint",
            &intake.url("/logs"),
        ],
        b"one\ntwo\nthree\n",
    );
    assert!(out.status.success(), "stderr: {}", stderr(&out));
    assert_eq!(messages(&intake), ["one", "three", "two"]);
    let requests = intake.requests();
    assert!(!requests.is_empty());
    for r in &requests {
        assert_eq!(r.header("content-type"), Some("application/json"));
        assert_eq!(r.header("content-encoding"), None);
        assert_eq!(r.header("x-api-key"), Some("sk-test-123"));
    }
    assert!(!stderr(&out).contains("sk-test-123"));
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
}

#[test]
fn ship_to_an_intake_that_rejects_the_key_fails_and_says_401() {
    let intake = Intake::start(IntakeConfig::default()).expect("intake");
    intake.fail_next(
        1_000_000,
        Fault::Status {
            status: 401,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: r#"{"error":"invalid api key"}"#.into(),
        },
    );
    let out = run(
        &[
            "ship",
            "--endpoint",
            &intake.url("/logs"),
            "--max-retries",
            "0",
            "--shutdown-timeout-ms",
            "10000",
        ],
        b"a\nb\nc\n",
    );
    assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(&out));
    assert!(stderr(&out).contains("401"), "stderr: {}", stderr(&out));
    assert!(
        stderr(&out).contains("shipped 0 of 3 events"),
        "stderr: {}",
        stderr(&out)
    );
    assert!(intake.events().is_empty());
}

#[test]
fn ship_rejects_bad_options_with_exit_code_2_naming_the_field() {
    let cases: [(&[&str], &str); 5] = [
        (
            &[
                "ship",
                "--endpoint",
                "http://127.0.0.1:9/logs",
                "--linger-ms",
                "9999999",
            ],
            "linger_ms",
        ),
        (&["ship"], "endpoint"),
        (
            &["ship", "--endpoint", "ftp://example.invalid/x"],
            "endpoint",
        ),
        (
            &[
                "ship",
                "--endpoint",
                "http://127.0.0.1:9/logs",
                "--header",
                "sk-secret-value",
            ],
            "--header",
        ),
        (
            &[
                "ship",
                "--endpoint",
                "http://127.0.0.1:9/logs",
                "--input",
                "/nonexistent/logship-input",
            ],
            "/nonexistent/logship-input",
        ),
    ];
    for (args, needle) in cases {
        let out = run(args, b"");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(needle), "{args:?}: {}", stderr(&out));
        assert!(
            !stderr(&out).contains("sk-secret-value"),
            "{}",
            stderr(&out)
        );
    }
    let out = run(
        &[
            "ship",
            "--vendor",
            "nope",
            "--endpoint",
            "http://127.0.0.1:9/",
        ],
        b"",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("vendor"), "{}", stderr(&out));
}
