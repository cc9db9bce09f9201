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
    assert_eq!(
        stderr(&out).lines().count(),
        2,
        "one summary line and one outcome line"
    );
    assert!(stderr(&out).ends_with("logship: outcome: delivered: every event read was delivered\n"));
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

/// The stderr lines of `err` that contain `text`.
fn lines_with<'a>(err: &'a str, text: &str) -> Vec<&'a str> {
    err.lines().filter(|l| l.contains(text)).collect()
}

#[test]
fn an_outage_is_told_once_when_it_begins_and_once_when_it_ends_and_the_outcome_is_plain() {
    let intake = Intake::start(IntakeConfig::default()).expect("intake");
    // Four failed requests in a row, then the intake works again.
    intake.fail_next(4, Fault::json(503, "{\"error\":\"busy\"}"));
    let input: String = (0..50).map(|i| format!("line {i}\n")).collect();
    let out = run(
        &[
            "ship",
            "--endpoint",
            &intake.url("/logs"),
            "--no-spill",
            "--max-retries",
            "6",
            "--retry-initial-backoff-ms",
            "10",
            "--retry-max-backoff-ms",
            "20",
        ],
        input.as_bytes(),
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(intake.stats().events, 50, "{err}");
    assert_eq!(lines_with(&err, "delivery interrupted").len(), 1, "{err}");
    let recovered = lines_with(&err, "delivery recovered after");
    assert_eq!(recovered.len(), 1, "{err}");
    assert!(
        recovered[0].contains("4 requests failed meanwhile"),
        "{err}"
    );
    let outcome = lines_with(&err, "logship: outcome: ");
    assert_eq!(
        outcome,
        ["logship: outcome: delivered: every event read was delivered"],
        "{err}"
    );
}

#[test]
fn the_outcome_line_of_a_run_that_spilled_says_what_waits() {
    let dir = temp_path("outcome-spilled");
    let out = run(
        &[
            "ship",
            "--endpoint",
            "http://127.0.0.1:1/logs",
            "--spill-dir",
            dir.to_str().expect("utf-8"),
            "--max-retries",
            "0",
        ],
        b"one\ntwo\nthree\n",
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert_eq!(
        lines_with(&err, "logship: outcome: "),
        ["logship: outcome: spilled: nothing lost; 3 events of this run wait in the spill directory for the next run (or `logship spill replay`)"],
        "{err}"
    );
    assert!(!err.contains("gave up"), "spilled is not given up: {err}");
}

#[test]
fn an_answer_echoing_the_key_transformed_never_shows_it() {
    let key = "Zq8vW3nT+5sL/p9XyKm4";
    let intake = Intake::start(IntakeConfig::default()).expect("intake");
    let escaped: String = key
        .chars()
        .map(|c| format!("\\\\u{:04x}", c as u32))
        .collect();
    let body = format!(
        "{{\"errors\":[\"bad key {}\",\"url key=Zq8vW3nT%2B5sL%2Fp9XyKm4\",\"as sent: {escaped}\",\"key starts Zq8vW3nT\",\"part_a\":\"Zq8vW3nT+5\",\"part_b\":\"sL/p9XyKm4\"]}}",
        key.to_lowercase()
    );
    intake.fail_next(1, Fault::json(403, body));
    let out = run(
        &[
            "ship",
            "--vendor",
            "datadog",
            "--endpoint",
            &intake.url(""),
            "--api-key",
            key,
            "--no-spill",
        ],
        b"one line\n",
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("403"), "{err}");
    let lower = err.to_ascii_lowercase();
    for piece in ["zq8vw3nt", "5sl/p9xykm4", "p9xykm4", "%2b5sl", "\\u005a"] {
        assert!(!lower.contains(piece), "{piece} shown: {err}");
    }
}

#[test]
fn the_api_key_can_come_from_a_file_and_a_bad_file_fails_naming_the_key() {
    let intake = Intake::start(IntakeConfig {
        api_key: Some("key-in-a-file-7Hd2".into()),
        ..IntakeConfig::default()
    })
    .expect("intake");
    let file = temp_path("api-key");
    std::fs::write(&file, "key-in-a-file-7Hd2\n").expect("key file");
    let path = file.to_str().expect("utf-8");
    let url = intake.url("");
    let ship = |key_file: &str| {
        run(
            &[
                "ship",
                "--vendor",
                "datadog",
                "--endpoint",
                &url,
                "--api-key-file",
                key_file,
                "--no-spill",
            ],
            b"one line\n",
        )
    };
    let out = ship(path);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(intake.stats().events, 1);
    let empty = temp_path("api-key-empty");
    std::fs::write(&empty, "\n").expect("empty file");
    for bad in ["/nonexistent/key", empty.to_str().expect("utf-8")] {
        let out = ship(bad);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("api_key_file") && err.contains(bad), "{err}");
    }
}
