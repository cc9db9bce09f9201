//! End-to-end tests of the `logship` binary: each runs the real executable and talks real
//! HTTP on 127.0.0.1 to a `logship_intake::Intake` started in the test process (or to the
//! binary's own intake). Synchronisation is by process exit, pipes and the intake's
//! condition variable; nothing sleeps to wait. Every child has a generous watchdog so a
//! hang fails the test instead of stalling the run.

mod common;

use std::io::{BufRead, Read, Write};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use common::{http, logship, row, run_with_stdin, start_intake, temp_path};
use logship_intake::{Fault, Intake, IntakeConfig};
use serde_json::Value;

/// Longest any child may run before the watchdog kills it.
const WATCHDOG: Duration = Duration::from_secs(120);

/// Runs `logship args...` with `stdin` as its standard input and collects its output.
fn run(args: &[&str], stdin: &[u8]) -> Output {
    run_with_stdin(logship().args(args), stdin, WATCHDOG)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn messages(intake: &Intake) -> Vec<String> {
    let mut m: Vec<String> = intake
        .events()
        .iter()
        .map(|e| e.value["message"].as_str().unwrap_or("<none>").to_owned())
        .collect();
    m.sort();
    m
}

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

#[test]
fn intake_command_accepts_ndjson_and_prints_a_summary() {
    let (child, mut out, port) = start_intake(&["--duration", "3"]);
    let done = common::watchdog(&child, WATCHDOG);
    let response = http(
        port,
        "POST /logs HTTP/1.1\r\nContent-Type: application/x-ndjson",
        b"{\"message\":\"hello from a raw socket\",\"level\":\"INFO\"}\n",
    );
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    let stats = http(port, "GET /_intake/stats HTTP/1.1", b"");
    let body = stats.split("\r\n\r\n").nth(1).unwrap_or_default();
    let stats: Value = serde_json::from_str(body).expect("stats JSON");
    assert_eq!(stats["events"], 1);

    let output = child.wait_with_output().expect("wait");
    let _ = done.send(());
    assert!(output.status.success(), "stderr: {}", stderr(&output));
    let mut rest = String::new();
    out.read_to_string(&mut rest).expect("rest of stdout");
    assert!(rest.contains("carried 1 event;"), "stdout: {rest}");
}

#[test]
fn intake_command_prints_events_serves_the_last_ones_and_refuses_unknown_vendor_paths() {
    let (child, mut out, port) = start_intake(&["--print", "--duration", "5"]);
    let done = common::watchdog(&child, WATCHDOG);
    let head = "POST /logs HTTP/1.1\r\nContent-Type: application/x-ndjson";
    let response = http(
        port,
        head,
        b"{\"message\":\"first\",\"n\":{\"k\":1}}\n{\"message\":\"second\"}\n",
    );
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    // --print: one line of JSON per event, as decoded, after the listening line.
    let mut printed = Vec::new();
    for _ in 0..2 {
        let mut line = String::new();
        out.read_line(&mut line).expect("a printed event");
        printed.push(serde_json::from_str::<Value>(line.trim_end()).expect("one JSON line"));
    }
    assert_eq!(printed[0]["message"], "first");
    assert_eq!(printed[0]["n"]["k"], 1);
    assert_eq!(printed[1]["message"], "second");

    // GET /_intake/events: the last N, oldest first, with the vendor that decoded them.
    let last = http(port, "GET /_intake/events?n=1 HTTP/1.1", b"");
    let body = last.split("\r\n\r\n").nth(1).unwrap_or_default();
    let last: Value = serde_json::from_str(body).expect("events JSON");
    assert_eq!(
        last,
        serde_json::json!([{"vendor": "generic", "event": {"message": "second"}}])
    );
    let all = http(port, "GET /_intake/events HTTP/1.1", b"");
    let all: Value = serde_json::from_str(all.split("\r\n\r\n").nth(1).unwrap_or_default())
        .expect("events JSON");
    assert_eq!(all.as_array().map(Vec::len), Some(2));
    let bad = http(port, "GET /_intake/events?n=lots HTTP/1.1", b"");
    assert!(bad.starts_with("HTTP/1.1 400"), "{bad}");

    // A typo under a vendor's prefix is a 404 naming the served paths, as Datadog answers.
    let typo = http(
        port,
        "POST /api/v2/lgos HTTP/1.1\r\nContent-Type: application/json\r\nDD-API-KEY: k",
        b"[{\"message\":\"lost\"}]",
    );
    assert!(typo.starts_with("HTTP/1.1 404"), "{typo}");
    assert!(typo.contains("/api/v2/logs (datadog)"), "{typo}");
    for path in [
        "/services/collector/evnt",
        "/_blk",
        "/logs-x/_bulkk",
        "/v1/log",
    ] {
        let r = http(
            port,
            &format!("POST {path} HTTP/1.1\r\nContent-Type: application/json"),
            b"[]",
        );
        assert!(r.starts_with("HTTP/1.1 404"), "{path}: {r}");
    }

    let output = child.wait_with_output().expect("wait");
    let _ = done.send(());
    assert!(output.status.success(), "stderr: {}", stderr(&output));
    let mut rest = String::new();
    out.read_to_string(&mut rest).expect("rest of stdout");
    assert!(
        !rest.contains("lost"),
        "a refused event was printed: {rest}"
    );
    assert!(rest.contains("carried 2 events;"), "stdout: {rest}");
}

#[test]
fn intake_command_serves_injected_failures_then_stops_on_sigterm() {
    let (child, mut out, port) = start_intake(&["--fail-status", "503", "--fail-count", "1"]);
    let done = common::watchdog(&child, WATCHDOG);
    let body = b"{\"message\":\"m\"}\n";
    let head = "POST /logs HTTP/1.1\r\nContent-Type: application/x-ndjson";
    let first = http(port, head, body);
    assert!(first.starts_with("HTTP/1.1 503"), "{first}");
    let second = http(port, head, body);
    assert!(second.starts_with("HTTP/1.1 200"), "{second}");

    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill");
    assert!(killed.success());
    let output = child.wait_with_output().expect("wait");
    let _ = done.send(());
    assert!(output.status.success(), "status {:?}", output.status);
    let mut rest = String::new();
    out.read_to_string(&mut rest).expect("rest of stdout");
    assert!(rest.contains("2 requests (1 rejected)"), "stdout: {rest}");
    assert!(rest.contains("carried 1 event;"), "stdout: {rest}");
}

#[test]
fn demo_delivers_everything_it_logs() {
    let json_path = temp_path("demo.json");
    let json_arg = json_path.to_string_lossy().into_owned();
    let out = run(
        &[
            "demo",
            "--duration",
            "2",
            "--rate",
            "2000",
            "--threads",
            "2",
            "--json",
            &json_arg,
        ],
        b"",
    );
    let table = stdout(&out);
    assert!(
        out.status.success(),
        "stdout: {table}\nstderr: {}",
        stderr(&out)
    );
    assert!(table.starts_with("logship demo: 2 threads, 2 s, local intake on 127.0.0.1:"));
    let logged = row(&table, "events logged");
    assert_eq!(logged, 4000, "{table}");
    assert_eq!(row(&table, "events delivered"), logged, "{table}");
    assert_eq!(row(&table, "events dropped"), 0, "{table}");
    assert!(table.contains("log call -> intake    p50 "), "{table}");
    assert!(table.contains("log call cost         p50 "), "{table}");

    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).expect("json file"))
            .expect("demo JSON");
    assert_eq!(report["events_logged"], 4000);
    assert_eq!(report["events_delivered"], 4000);
    assert_eq!(report["latency_samples"], 4000);
    assert_eq!(report["stats"]["events_delivered"], 4000);
}

#[test]
fn demo_ships_over_https_to_its_own_sink_with_a_throwaway_ca() {
    let out = run(
        &[
            "demo",
            "--tls",
            "--duration",
            "1",
            "--rate",
            "500",
            "--threads",
            "1",
        ],
        b"",
    );
    let table = stdout(&out);
    assert!(out.status.success(), "{table}\n{}", stderr(&out));
    let first = table.lines().next().unwrap_or("");
    assert!(first.ends_with(" (HTTPS)"), "{table}");
    assert_eq!(row(&table, "events logged"), 500, "{table}");
    assert_eq!(row(&table, "events delivered"), 500, "{table}");
}

// ----- vendors ---------------------------------------------------------------------------

const VENDOR_KEY: &str = "cli-vendor-key-0123";

/// `logship ship --vendor V` to the intake's emulation of V: every line arrives, no
/// violation, exit 0, the key never printed.
fn ship_to_vendor(vendor: &str, extra: &[&str], message_at: &str) {
    let intake = Intake::start(IntakeConfig {
        api_key: Some(VENDOR_KEY.into()),
        ..IntakeConfig::default()
    })
    .expect("start intake");
    let n = 2500;
    let input: String = (0..n).map(|i| format!("{vendor} line {i}\n")).collect();
    let endpoint = intake.url("");
    let mut args = vec![
        "ship",
        "--vendor",
        vendor,
        "--endpoint",
        &endpoint,
        "--api-key",
        VENDOR_KEY,
        "--service",
        "cli-test",
        "--hostname",
        "host-1",
        "--tags",
        "env:ci,team:x",
    ];
    args.extend_from_slice(extra);
    let out = run(&args, input.as_bytes());
    let err = stderr(&out);
    assert!(out.status.success(), "{vendor}: {err}");
    assert!(err.contains(&format!("shipped {n} of {n} events")), "{err}");
    assert!(!err.contains(VENDOR_KEY) && !stdout(&out).contains(VENDOR_KEY));
    assert!(
        intake.violations().is_empty(),
        "{vendor}: {:?}",
        intake.violations()
    );
    assert_eq!(intake.stats().events, n as u64);
    let mut want: Vec<String> = (0..n).map(|i| format!("{vendor} line {i}")).collect();
    want.sort();
    assert_eq!(intake.sorted_strings_at(message_at), want);
    assert!(intake.requests().iter().all(|r| r.vendor == vendor));
}

#[test]
fn ship_to_datadog_delivers_with_zero_violations() {
    ship_to_vendor(
        "datadog",
        &[
            "--max-batch-records",
            "100000",
            "--max-batch-bytes",
            "100000000",
        ],
        "/message",
    );
}

#[test]
fn ship_to_splunk_delivers_with_zero_violations() {
    ship_to_vendor(
        "splunk",
        &["--splunk-channel", "auto", "--splunk-index", "main"],
        "/event/message",
    );
}

#[test]
fn ship_to_new_relic_delivers_with_zero_violations() {
    ship_to_vendor("newrelic", &["--region", "eu"], "/message");
}

#[test]
fn ship_to_dynatrace_delivers_with_zero_violations() {
    ship_to_vendor("dynatrace", &["--no-gzip"], "/content");
}

#[test]
fn ship_to_loki_delivers_with_zero_violations() {
    // The intake plays a gateway checking basic auth whose password is the key.
    ship_to_vendor(
        "loki",
        &[
            "--username",
            "123456",
            "--password",
            VENDOR_KEY,
            "--tenant-id",
            "team-a",
            "--loki-labels",
            "env=ci,team=x",
        ],
        "/line",
    );
}

#[test]
fn a_bad_loki_label_fails_at_start_naming_the_field() {
    let out = run(
        &[
            "ship",
            "--vendor",
            "loki",
            "--endpoint",
            "http://127.0.0.1:1",
            "--loki-labels",
            "env=ci,__x=1",
        ],
        b"",
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("loki_labels = __x=1: label name \"__x\" starts with \"__\", which Loki reserves (rename it, e.g. x)"),
        "{err}"
    );
}

#[test]
fn ship_to_otlp_delivers_with_zero_violations_in_both_encodings() {
    ship_to_vendor("otlp", &[], "/message");
    ship_to_vendor("otlp", &["--otlp-encoding", "json"], "/message");
}

#[test]
fn ship_to_otlp_reads_the_opentelemetry_sdk_variables() {
    let intake = Intake::start(IntakeConfig::default()).expect("start intake");
    let n = 300;
    let input: String = (0..n).map(|i| format!("otel line {i}\n")).collect();
    let out = run_with_stdin(
        logship()
            .args(["ship", "--vendor", "otlp"])
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", intake.url(""))
            .env("OTEL_EXPORTER_OTLP_HEADERS", "x-gateway-token=t0ken%3D1")
            .env("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
            .env("OTEL_SERVICE_NAME", "checkout")
            .env(
                "OTEL_RESOURCE_ATTRIBUTES",
                "deployment.environment=prod,k8s.pod.name=web-7",
            ),
        input.as_bytes(),
        WATCHDOG,
    );
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains(&format!("shipped {n} of {n} events")), "{err}");
    assert!(!err.contains("t0ken"), "{err}");
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
    let requests = intake.requests();
    assert!(!requests.is_empty());
    for r in &requests {
        assert_eq!(r.path, "/v1/logs");
        assert_eq!(r.header("content-type"), Some("application/json"));
        assert_eq!(r.header("x-gateway-token"), Some("t0ken=1"));
    }
    let events = intake.events();
    assert_eq!(events.len(), n);
    for e in &events {
        assert_eq!(e.value["service.name"], "checkout");
        assert_eq!(e.value["resource"]["deployment.environment"], "prod");
        assert_eq!(e.value["resource"]["k8s.pod.name"], "web-7");
    }
    // The same variables with a gRPC protocol fail at start naming the variable and fix.
    let out = run_with_stdin(
        logship()
            .args(["ship", "--vendor", "otlp"])
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4317")
            .env("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
        b"",
        WATCHDOG,
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("otlp_encoding = grpc") && err.contains("OTEL_EXPORTER_OTLP_PROTOCOL"),
        "{err}"
    );
}

#[test]
fn a_vendor_without_an_api_key_fails_at_start_naming_the_variable() {
    let mut child = logship()
        .args(["ship", "--vendor", "datadog"])
        .env_remove("DD_API_KEY")
        .env_remove("LOGSHIP_API_KEY")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let done = common::watchdog(&child, WATCHDOG);
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("read");
    let status = child.wait().expect("wait");
    let _ = done.send(());
    assert_eq!(status.code(), Some(2), "{err}");
    assert!(
        err.contains("api_key") && err.contains("DD_API_KEY"),
        "{err}"
    );
}

#[test]
fn the_api_key_can_come_from_the_vendors_own_variable() {
    let intake = Intake::start(IntakeConfig {
        api_key: Some(VENDOR_KEY.into()),
        ..IntakeConfig::default()
    })
    .expect("start intake");
    let endpoint = intake.url("");
    let mut child = logship()
        .args(["ship", "--vendor", "newrelic", "--endpoint", &endpoint])
        .env("NEW_RELIC_LICENSE_KEY", VENDOR_KEY)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let done = common::watchdog(&child, WATCHDOG);
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"one\ntwo\n")
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    let _ = done.send(());
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(intake.stats().events, 2);
    assert_eq!(intake.stats().auth_failures, 0);
}

#[test]
fn demo_runs_against_each_emulated_vendor() {
    for vendor in [
        "datadog",
        "splunk",
        "newrelic",
        "dynatrace",
        "loki",
        "otlp",
        "elasticsearch",
    ] {
        let out = run(
            &[
                "demo",
                "--vendor",
                vendor,
                "--duration",
                "1",
                "--rate",
                "1000",
                "--threads",
                "1",
            ],
            b"",
        );
        let table = stdout(&out);
        assert!(out.status.success(), "{vendor}: {table}\n{}", stderr(&out));
        assert_eq!(row(&table, "events logged"), 1000, "{table}");
        assert_eq!(row(&table, "events delivered"), 1000, "{table}");
    }
}

// ----- spill ---------------------------------------------------------------------------------

#[test]
fn ship_spills_what_it_cannot_deliver_exits_3_and_spill_replay_ships_it() {
    let dir = temp_path("spill");
    let dir_arg = dir.to_string_lossy().into_owned();
    let n = 120;
    let input: String = (0..n).map(|i| format!("spilled line {i}\n")).collect();
    // The intake is down (nothing listens on port 1).
    let out = run(
        &[
            "ship",
            "--endpoint",
            "http://127.0.0.1:1/logs",
            "--spill-dir",
            &dir_arg,
            "--max-retries",
            "0",
            "--shutdown-timeout-ms",
            "10000",
        ],
        input.as_bytes(),
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains(&format!("{n} written to the spill directory")),
        "{err}"
    );

    let ls = run(&["spill", "ls", "--dir", &dir_arg], b"");
    assert!(ls.status.success());
    assert!(
        stdout(&ls).contains(&format!("{n} events waiting for replay")),
        "{}",
        stdout(&ls)
    );
    let verify = run(&["spill", "verify", "--dir", &dir_arg], b"");
    assert!(verify.status.success(), "{}", stdout(&verify));

    let intake = Intake::start(IntakeConfig::default()).expect("start intake");
    let endpoint = intake.url("/logs");
    let replay = run(
        &[
            "spill",
            "replay",
            "--dir",
            &dir_arg,
            "--endpoint",
            &endpoint,
        ],
        b"",
    );
    assert!(replay.status.success(), "{}", stderr(&replay));
    assert!(
        stderr(&replay).contains(&format!("replayed {n} events")),
        "{}",
        stderr(&replay)
    );
    let mut got = messages(&intake);
    got.sort();
    let mut want: Vec<String> = (0..n).map(|i| format!("spilled line {i}")).collect();
    want.sort();
    assert_eq!(got, want);

    let ls = run(&["spill", "ls", "--dir", &dir_arg], b"");
    assert!(
        stdout(&ls).contains("0 events waiting for replay"),
        "{}",
        stdout(&ls)
    );
    let rm = run(&["spill", "rm", "--dir", &dir_arg], b"");
    assert!(rm.status.success(), "{}", stderr(&rm));
}

/// Ships `lines` to an intake that is down (nothing listens on port 1), so they all land
/// in the spill directory `dir`.
fn ship_into_spill(dir: &str, lines: std::ops::Range<u32>) {
    let input: String = lines.map(|i| format!("line {i}\n")).collect();
    let out = run(
        &[
            "ship",
            "--endpoint",
            "http://127.0.0.1:1/logs",
            "--spill-dir",
            dir,
            "--max-retries",
            "0",
        ],
        input.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
}

/// A segment file (`*.seg`) of the spill directory `dir`.
fn first_segment(dir: &std::path::Path) -> std::path::PathBuf {
    std::fs::read_dir(dir)
        .expect("spill dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "seg"))
        .expect("a segment")
}

/// Flips the bits of `mask` in the byte at `at(file length)` of the file `path`, and
/// returns the damaged bytes.
fn damage(path: &std::path::Path, at: fn(usize) -> usize, mask: u8) -> Vec<u8> {
    let mut bytes = std::fs::read(path).expect("read segment");
    let i = at(bytes.len());
    bytes[i] ^= mask;
    std::fs::write(path, &bytes).expect("write segment");
    bytes
}

#[test]
fn spill_verify_reports_damage_with_exit_1() {
    let dir = temp_path("spill-damaged");
    let dir_arg = dir.to_string_lossy().into_owned();
    ship_into_spill(&dir_arg, 0..50);
    damage(&first_segment(&dir), |len| len / 2, 0x5a);
    let verify = run(&["spill", "verify", "--dir", &dir_arg], b"");
    assert_eq!(verify.status.code(), Some(1), "{}", stdout(&verify));
    assert!(
        stdout(&verify).contains("damaged region"),
        "{}",
        stdout(&verify)
    );
}

#[test]
fn spill_ls_shows_quarantined_segments_and_spill_rm_deletes_them() {
    let dir = temp_path("spill-quarantine");
    let dir_arg = dir.to_string_lossy().into_owned();
    ship_into_spill(&dir_arg, 0..5);
    let seg = first_segment(&dir);
    // Damage the header's magic: the next process to open the directory quarantines
    // the segment.
    let bytes = damage(&seg, |_| 0, 0xff);
    ship_into_spill(&dir_arg, 5..8);
    let bad_name = format!("{}.bad", seg.file_name().expect("name").to_string_lossy());
    assert!(dir.join(&bad_name).exists(), "not quarantined");
    let size = bytes.len();
    assert!(size < 1024, "sized in plain bytes below: {size}");

    let ls = run(&["spill", "ls", "--dir", &dir_arg], b"");
    let table = stdout(&ls);
    assert!(ls.status.success(), "{}", stderr(&ls));
    let row = table
        .lines()
        .find(|l| l.starts_with(&bad_name))
        .unwrap_or_else(|| panic!("no row for {bad_name}:\n{table}"));
    assert!(row.contains("quarantined"), "{row}");
    assert!(row.ends_with(&format!(" {size} B")), "{row}");
    // The live segment is listed as before and only its events wait for replay.
    assert!(
        table.contains("1 segments, 3 events waiting for replay"),
        "{table}"
    );
    assert!(
        table.contains(&format!(
            "1 quarantined segment(s), {size} B on disk: header damaged, never replayed"
        )),
        "{table}"
    );
    assert!(
        table.contains(&format!("logship spill rm --dir {dir_arg}")),
        "{table}"
    );

    // verify names it and fails: its header is damage nobody has dealt with yet.
    let verify = run(&["spill", "verify", "--dir", &dir_arg], b"");
    let report = stdout(&verify);
    assert_eq!(verify.status.code(), Some(1), "{report}");
    assert!(
        report.contains(&format!(
            "{bad_name}: quarantined (header damaged), never replayed"
        )),
        "{report}"
    );
    assert!(report.contains("1 quarantined segment(s)"), "{report}");

    let rm = run(&["spill", "rm", "--dir", &dir_arg], b"");
    assert!(rm.status.success(), "{}", stderr(&rm));
    let verify = run(&["spill", "verify", "--dir", &dir_arg], b"");
    assert!(verify.status.success(), "{}", stdout(&verify));
    assert!(
        !dir.join(&bad_name).exists(),
        "rm left the quarantined segment"
    );
    let ls = run(&["spill", "ls", "--dir", &dir_arg], b"");
    assert!(!stdout(&ls).contains("quarantined"), "{}", stdout(&ls));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn no_spill_counts_undelivered_events_as_failed_with_exit_1() {
    let out = run(
        &[
            "ship",
            "--endpoint",
            "http://127.0.0.1:1/logs",
            "--no-spill",
            "--max-retries",
            "0",
        ],
        b"a\nb\n",
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("shipped 0 of 2 events"), "{err}");
}

#[test]
fn demo_survives_a_staged_outage_without_losing_events() {
    // logship's own format, and a vendor's (its sink reads the request ids elsewhere).
    for vendor in ["ndjson", "splunk"] {
        let out = run(
            &[
                "demo",
                "--vendor",
                vendor,
                "--duration",
                "3",
                "--rate",
                "1000",
                "--threads",
                "2",
                "--outage-after",
                "0.5",
                "--outage-for",
                "1.5",
            ],
            b"",
        );
        let table = stdout(&out);
        assert!(out.status.success(), "{vendor}: {table}\n{}", stderr(&out));
        assert!(
            table.contains("outage: intake down from 0.5 s for 1.5 s"),
            "{table}"
        );
        assert_eq!(row(&table, "events logged"), 3000, "{table}");
        assert_eq!(row(&table, "unique delivered"), 3000, "{table}");
        assert_eq!(row(&table, "lost"), 0, "{table}");
    }
}
