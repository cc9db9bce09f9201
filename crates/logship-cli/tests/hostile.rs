//! `logship ship` against hostile intakes: one test per fault mode of the test intake
//! (`logship_intake::WireFault` and `Fault`), each driving the real binary over loopback
//! and asserting what every run must guarantee (see `common::hostile::check`): it ends
//! within the bound stated in the test, its exit code tells the truth, every line is
//! delivered, spilled or lost, no secret and no raw control character is printed, and its
//! peak RSS stays under the byte budget plus a fixed margin.
//!
//! Each test prints its row of the fault-mode matrix; to see them all:
//! `cargo test -p logship-cli --test hostile -- --test-threads=1 --nocapture 2>&1 | grep '^| '`

mod common;

use std::time::{Duration, Instant};

use common::hostile::{check, lines, ship, Exit, Run, API_KEY, HEADER_SECRET, QUERY_SECRET};
use logship_intake::{Fault, Intake, IntakeConfig, WireFault};

/// Lines every generic run ships.
const LINES: u64 = 500;

/// Options every run gets: few retries, short backoffs, a short shutdown.
const COMMON: &[&str] = &["--max-retries", "2"];

/// Environment every run gets: backoffs capped at 1 s (Retry-After included).
const ENV: &[(&str, &str)] = &[("LOGSHIP_RETRY_MAX_BACKOFF_MS", "1000")];

fn new_intake() -> Intake {
    Intake::start(IntakeConfig::default()).expect("intake")
}

/// The generic endpoint, with the query secret.
fn endpoint(intake: &Intake) -> String {
    intake.url(&format!("/logs?token={QUERY_SECRET}"))
}

/// Ships `LINES` lines to `intake`, whose every request gets `fault`.
fn run_generic(intake: &Intake, fault: Fault, extra: &[&str], env: &[(&str, &str)]) -> Run {
    intake.fail_next(usize::MAX, fault);
    let url = endpoint(intake);
    let mut args = vec!["--endpoint", url.as_str()];
    args.extend_from_slice(COMMON);
    if !extra.contains(&"--max-batch-records") {
        args.extend_from_slice(&["--max-batch-records", "100"]);
    }
    args.extend_from_slice(extra);
    let mut all_env = ENV.to_vec();
    all_env.extend_from_slice(env);
    ship(&args, &all_env, &lines(LINES as usize, 120))
}

fn report(run: &Run, mode: &str) {
    println!("{}", run.row(mode));
}

fn wire(mode: &str, params: &[(&str, &str)]) -> Fault {
    let lookup = |name: &str| {
        params
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| (*v).to_owned())
    };
    Fault::Wire(WireFault::parse(mode, &lookup).expect("fault mode"))
}

#[test]
fn an_intake_that_never_answers_is_given_up_on_per_request_timeout() {
    let intake = new_intake();
    let run = run_generic(
        &intake,
        wire("never-answer", &[]),
        &[],
        &[("LOGSHIP_REQUEST_TIMEOUT_MS", "1000")],
    );
    report(&run, "never-answer");
    check(
        &run,
        "never-answer",
        LINES,
        Exit::Spilled,
        Duration::from_secs(40),
    );
}

#[test]
fn a_503_that_drips_its_body_is_read_for_two_seconds_not_the_request_timeout() {
    // The request timeout stays at its 30 s default: three attempts that each waited
    // for it would take 90 s.
    let intake = new_intake();
    let run = run_generic(
        &intake,
        wire("drip", &[("status", "503"), ("ms", "50")]),
        &["--max-batch-records", "1000"],
        &[],
    );
    report(&run, "drip 503");
    check(
        &run,
        "drip 503",
        LINES,
        Exit::Spilled,
        Duration::from_secs(25),
    );
    assert!(run.stderr.contains("503"), "{}", run.stderr);
}

#[test]
fn huge_and_endless_error_bodies_are_read_only_in_part() {
    for mode in ["huge", "huge-chunked", "endless", "endless-chunked"] {
        let intake = new_intake();
        let run = run_generic(&intake, wire(mode, &[("status", "503")]), &[], &[]);
        report(&run, mode);
        check(&run, mode, LINES, Exit::Spilled, Duration::from_secs(30));
    }
}

#[test]
fn a_huge_success_body_is_bounded_too() {
    let intake = new_intake();
    let run = run_generic(
        &intake,
        wire("huge", &[("status", "200"), ("bytes", "200000000")]),
        &[],
        &[],
    );
    report(&run, "huge 200");
    check(
        &run,
        "huge 200",
        LINES,
        Exit::Delivered,
        Duration::from_secs(30),
    );
}

#[test]
fn garbage_and_non_http_answers_are_network_errors_that_say_what_to_check() {
    for mode in ["garbage-status", "not-http"] {
        let intake = new_intake();
        let run = run_generic(&intake, wire(mode, &[]), &[], &[]);
        report(&run, mode);
        check(&run, mode, LINES, Exit::Spilled, Duration::from_secs(30));
    }
    // What a TLS port sends to plain HTTP: the advice names the scheme.
    let intake = new_intake();
    let run = run_generic(&intake, wire("not-http", &[]), &[], &[]);
    assert!(
        run.stderr.contains("https://") && run.stderr.contains("port"),
        "{}",
        run.stderr
    );
}

#[test]
fn resets_before_during_and_after_the_answer_are_counted() {
    for (mode, expect) in [
        ("reset-before", Exit::Spilled),
        // A 200 cut short confirms nothing (RFC 9112 section 8): sent again until the
        // retries are spent, then spilled, never taken as delivered.
        ("reset-mid", Exit::Spilled),
        // The whole answer came: delivered, whatever happens to the connection after.
        ("reset-after", Exit::Delivered),
    ] {
        let intake = new_intake();
        let run = run_generic(&intake, wire(mode, &[]), &[], &[]);
        report(&run, mode);
        check(&run, mode, LINES, expect, Duration::from_secs(30));
    }
}

#[test]
fn a_lying_content_length_ends_the_read_not_the_run() {
    // A 200 whose body ends before its Content-Length is incomplete, not an answer: its
    // batches are sent again, then spilled. One longer than it says is read as framed.
    for (mode, expect) in [
        ("short-length", Exit::Spilled),
        ("long-length", Exit::Delivered),
    ] {
        let intake = new_intake();
        let run = run_generic(&intake, wire(mode, &[]), &[], &[]);
        report(&run, mode);
        check(&run, mode, LINES, expect, Duration::from_secs(40));
    }
}

#[test]
fn a_success_answer_cut_short_is_sent_again_not_taken_as_delivered() {
    // Issue 32, the soak's unaccounted ids: an intake that answered `200 OK` and then
    // reset the connection mid-answer (or closed it before the length its header
    // promised) had kept nothing, and logship took the status line as delivered, so
    // those events were lost without a word. An incomplete answer confirms nothing
    // (RFC 9112 section 8): the batch is sent again.
    for mode in ["reset-mid", "short-length"] {
        let intake = new_intake();
        intake.fail_next(2, wire(mode, &[]));
        let url = endpoint(&intake);
        let mut args = vec!["--endpoint", url.as_str(), "--max-batch-records", "100"];
        args.extend_from_slice(COMMON);
        let run = ship(&args, ENV, &lines(LINES as usize, 120));
        report(&run, &format!("{mode} twice, then healthy"));
        check(&run, mode, LINES, Exit::Delivered, Duration::from_secs(30));
        assert_eq!(
            intake.stats().events,
            LINES,
            "{mode}: every line must reach the intake: {run:?}"
        );
        assert!(run.stderr.contains("cut short"), "{mode}: {}", run.stderr);
    }
}

#[test]
fn redirects_are_not_followed_and_say_to_set_the_final_url() {
    for status in ["301", "302", "307", "308"] {
        let intake = new_intake();
        let run = run_generic(&intake, wire("redirect", &[("status", status)]), &[], &[]);
        let mode = format!("redirect {status}");
        report(&run, &mode);
        check(&run, &mode, LINES, Exit::Lost, Duration::from_secs(20));
        assert!(run.stderr.contains("final URL"), "{}", run.stderr);
        assert_eq!(run.stat("dead_lettered"), LINES, "{run:?}");
    }
}

#[test]
fn an_intake_echoing_the_request_headers_shows_no_secret() {
    let intake = new_intake();
    let run = run_generic(
        &intake,
        wire("echo-headers", &[("status", "401")]),
        &[],
        &[],
    );
    report(&run, "echo-headers 401");
    check(
        &run,
        "echo-headers 401",
        LINES,
        Exit::Lost,
        Duration::from_secs(20),
    );
    assert!(run.stderr.contains("[redacted]"), "{}", run.stderr);
    // The same through a vendor whose API key goes in a header of its own.
    let intake = new_intake();
    intake.fail_next(usize::MAX, wire("echo-headers", &[("status", "403")]));
    let url = intake.url("");
    let mut args = vec![
        "--vendor",
        "datadog",
        "--endpoint",
        &url,
        "--api-key",
        API_KEY,
    ];
    args.extend_from_slice(COMMON);
    let run = ship(&args, ENV, &lines(LINES as usize, 120));
    report(&run, "echo-headers 403 datadog");
    check(
        &run,
        "echo-headers datadog",
        LINES,
        Exit::Lost,
        Duration::from_secs(20),
    );
}

#[test]
fn a_proxy_refusing_the_tunnel_shows_neither_its_password_nor_its_basic_token() {
    const PROXY_PASSWORD: &str = "prx-Qz7Lw2Mn5Kd";
    // The intake plays a proxy that is not one: it refuses the `CONNECT` (sent with
    // `Proxy-Authorization: Basic ...`) and would echo what it got. The credentials are
    // redacted from every message whatever the proxy answers.
    let proxy = new_intake();
    proxy.fail_next(usize::MAX, wire("echo-headers", &[("status", "407")]));
    let proxy_url = format!(
        "http://prxuser:{PROXY_PASSWORD}@127.0.0.1:{}",
        proxy.addr().port()
    );
    let endpoint = format!("http://127.0.0.1:9/logs?token={QUERY_SECRET}");
    let mut args = vec!["--endpoint", &endpoint, "--proxy", &proxy_url];
    args.extend_from_slice(COMMON);
    let run = ship(&args, ENV, &lines(LINES as usize, 120));
    report(&run, "proxy refusing CONNECT");
    assert!(
        run.stderr.contains("proxy"),
        "the error names the proxy: {run:?}"
    );
    check(
        &run,
        "proxy refusing CONNECT",
        LINES,
        Exit::Spilled,
        Duration::from_secs(20),
    );
    let basic = "cHJ4dXNlcjpwcngtUXo3THcyTW41S2Q="; // base64("prxuser:prx-Qz7Lw2Mn5Kd")
    for secret in [PROXY_PASSWORD, basic] {
        assert!(!run.stderr.contains(secret), "{secret} printed: {run:?}");
        assert!(
            !run.stats.to_string().contains(secret),
            "{secret} in the stats: {run:?}"
        );
    }
    assert!(run.stderr.contains("[redacted]"), "{}", run.stderr);
}

#[test]
fn control_characters_in_an_answer_are_escaped_and_cannot_forge_a_line() {
    let intake = new_intake();
    let body = "\x1b]0;pwned\x07\x1b[2J\r\nlogship: shipped 500 of 500 events\0\u{202e}\u{9b}";
    let run = run_generic(&intake, Fault::json(400, body), &[], &[]);
    report(&run, "control characters 400");
    check(
        &run,
        "control characters",
        LINES,
        Exit::Lost,
        Duration::from_secs(20),
    );
    assert!(
        !run.stderr
            .lines()
            .any(|l| l.starts_with("logship: shipped 500")),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("\\x1b]0;pwned"), "{}", run.stderr);
}

/// The time between the first two requests the intake got.
fn first_gap(intake: &Intake) -> Duration {
    let requests = intake.requests();
    assert!(requests.len() >= 2, "{requests:?}");
    requests[1].arrival_instant - requests[0].arrival_instant
}

#[test]
fn retry_after_zero_or_in_the_past_still_waits_the_initial_backoff() {
    for value in ["0", "Wed, 21 Oct 2015 07:28:00 GMT"] {
        let intake = new_intake();
        let fault = Fault::Status {
            status: 503,
            headers: vec![("Retry-After".into(), value.into())],
            body: "busy".into(),
        };
        intake.fail_next(3, fault);
        let url = endpoint(&intake);
        let mut args = vec!["--endpoint", url.as_str(), "--max-batch-records", "1000"];
        args.extend_from_slice(&["--max-retries", "3"]);
        let run = ship(&args, ENV, &lines(LINES as usize, 120));
        let mode = format!("Retry-After: {value}");
        report(&run, &mode);
        check(&run, &mode, LINES, Exit::Delivered, Duration::from_secs(20));
        let gap = first_gap(&intake);
        assert!(
            gap >= Duration::from_millis(190),
            "{value}: retried after {gap:?}"
        );
    }
}

#[test]
fn an_absurd_retry_after_is_capped_at_the_maximum_backoff() {
    let intake = new_intake();
    let fault = Fault::Status {
        status: 429,
        headers: vec![("Retry-After".into(), "99999999999999999999".into())],
        body: "slow down".into(),
    };
    intake.fail_next(1, fault);
    let started = Instant::now();
    let url = endpoint(&intake);
    let run = ship(
        &["--endpoint", &url, "--max-batch-records", "1000"],
        ENV,
        &lines(LINES as usize, 120),
    );
    report(&run, "Retry-After: 99999999999999999999");
    check(
        &run,
        "absurd Retry-After",
        LINES,
        Exit::Delivered,
        Duration::from_secs(20),
    );
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[test]
fn splunk_naming_an_invalid_event_in_every_answer_does_not_recurse_or_grow() {
    // Before: one nested resend per event, a copy of the rest at each level (1,500
    // events of 150 bytes: hundreds of MB, or a stack overflow).
    let n = 1500;
    let intake = new_intake();
    intake.fail_next(
        usize::MAX,
        Fault::json(
            400,
            r#"{"text":"Invalid data format","code":6,"invalid-event-number":0}"#,
        ),
    );
    let url = intake.url("");
    let mut args = vec![
        "--vendor",
        "splunk",
        "--endpoint",
        &url,
        "--api-key",
        API_KEY,
    ];
    args.extend_from_slice(&["--max-batch-records", "1500", "--no-gzip"]);
    let run = ship(&args, ENV, &lines(n, 150));
    report(&run, "splunk invalid-event-number 0");
    check(
        &run,
        "splunk invalid event",
        n as u64,
        Exit::Lost,
        Duration::from_secs(90),
    );
    // One request per event, in turn: on a loaded machine the shutdown budget may end
    // before all 1,500 are tried; those are spilled, never lost silently.
    let (dead, spilled) = (run.stat("dead_lettered"), run.stat("events_spilled"));
    assert!(dead > 0, "{run:?}");
    assert_eq!(dead + spilled, n as u64, "{run:?}");
}

/// Ships `LINES` lines to the Elasticsearch endpoint of `intake`, whose every answer is
/// `status` with `body`.
fn run_elasticsearch(intake: &Intake, body: String) -> Run {
    intake.fail_next(usize::MAX, Fault::json(200, body));
    let url = intake.url("");
    let mut args = vec![
        "--vendor",
        "elasticsearch",
        "--endpoint",
        &url,
        "--api-key",
        API_KEY,
    ];
    args.extend_from_slice(COMMON);
    ship(&args, ENV, &lines(LINES as usize, 120))
}

#[test]
fn elasticsearch_answers_that_are_not_bulk_results_are_never_counted_delivered() {
    let items = |n: usize, status: u16| {
        let item = format!(r#"{{"create":{{"status":{status}}}}}"#);
        format!(r#"{{"errors":true,"items":[{}]}}"#, vec![item; n].join(","))
    };
    let cases = [
        (
            "es 200 html",
            "<html><body>Welcome to nginx!</body></html>".to_owned(),
        ),
        ("es errors:true no items", r#"{"errors":true}"#.to_owned()),
        (
            "es items garbled",
            r#"{"errors":true,"items":[{"create":"what"}]}"#.to_owned(),
        ),
        ("es one item fewer", items(99, 429)),
        ("es 200k items", items(200_000, 201)),
        (
            "es 100k-deep items",
            format!(
                r#"{{"errors":true,"items":{}{}}}"#,
                "[".repeat(100_000),
                "]".repeat(100_000)
            ),
        ),
    ];
    for (mode, body) in cases {
        let intake = new_intake();
        let run = run_elasticsearch(&intake, body);
        report(&run, mode);
        check(&run, mode, LINES, Exit::Spilled, Duration::from_secs(30));
        assert_eq!(run.delivered(), 0, "{mode}: {run:?}");
        assert!(
            run.stderr.contains("not counted as delivered"),
            "{mode}: {}",
            run.stderr
        );
    }
}

#[test]
fn otlp_partial_success_counts_that_are_not_counts_are_not_success() {
    for (mode, body) in [
        (
            "otlp rejected -5",
            r#"{"partialSuccess":{"rejectedLogRecords":-5}}"#,
        ),
        (
            "otlp rejected overflow",
            r#"{"partialSuccess":{"rejectedLogRecords":"999999999999999999999999"}}"#,
        ),
    ] {
        let intake = new_intake();
        intake.fail_next(usize::MAX, Fault::json(200, body));
        let url = intake.url("");
        let mut args = vec![
            "--vendor",
            "otlp",
            "--endpoint",
            &url,
            "--otlp-encoding",
            "json",
        ];
        args.extend_from_slice(COMMON);
        let run = ship(&args, ENV, &lines(LINES as usize, 120));
        report(&run, mode);
        check(&run, mode, LINES, Exit::Spilled, Duration::from_secs(30));
        assert_eq!(run.delivered(), 0, "{mode}: {run:?}");
    }
}

#[test]
fn an_otlp_protobuf_error_is_shown_as_its_message() {
    let intake = new_intake();
    // google.rpc.Status { code: 3, message: "logs too old\x1b[31m" }
    let mut status = vec![0x08, 0x03, 0x12, 17];
    status.extend_from_slice(b"logs too old\x1b[31m");
    intake.fail_next(
        usize::MAX,
        Fault::Status {
            status: 400,
            headers: vec![("Content-Type".into(), "application/x-protobuf".into())],
            body: String::from_utf8(status).expect("ASCII"),
        },
    );
    let url = intake.url("");
    let mut args = vec![
        "--vendor",
        "otlp",
        "--endpoint",
        &url,
        "--otlp-encoding",
        "protobuf",
    ];
    args.extend_from_slice(COMMON);
    let run = ship(&args, ENV, &lines(LINES as usize, 120));
    report(&run, "otlp protobuf Status 400");
    check(
        &run,
        "otlp protobuf error",
        LINES,
        Exit::Lost,
        Duration::from_secs(20),
    );
    assert!(
        run.stderr.contains("code 3: logs too old\\x1b[31m"),
        "{}",
        run.stderr
    );
}

#[test]
fn https_to_a_plain_http_port_says_to_use_http() {
    let intake = new_intake();
    let url = intake.url("/logs").replacen("http://", "https://", 1);
    let mut args = vec!["--endpoint", url.as_str()];
    args.extend_from_slice(COMMON);
    let run = ship(&args, ENV, &lines(50, 50));
    report(&run, "https:// to plain HTTP");
    check(
        &run,
        "https to http",
        50,
        Exit::Spilled,
        Duration::from_secs(30),
    );
    assert!(
        run.stderr.contains("plain HTTP") && run.stderr.contains("use http://"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("InvalidContentType"), "{}", run.stderr);
}

#[test]
fn a_50_mb_line_keeps_its_real_size_and_the_summary_says_it_was_cut() {
    let intake = new_intake();
    let mut input = vec![b'z'; 50 * 1024 * 1024];
    input.push(b'\n');
    input.extend_from_slice(b"bad \xff\xfe utf-8\nfine\n");
    let url = endpoint(&intake);
    let run = ship(&["--endpoint", &url], ENV, &input);
    report(&run, "50 MB line + invalid UTF-8");
    check(
        &run,
        "50 MB line",
        3,
        Exit::Delivered,
        Duration::from_secs(60),
    );
    let events = intake.events();
    let big = events
        .iter()
        .find(|e| {
            e.value["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("zzz"))
        })
        .expect("the long line arrived");
    let original = big.value["logship.original_bytes"]
        .as_u64()
        .or_else(|| big.value["logship"]["original_bytes"].as_u64())
        .unwrap_or_else(|| {
            panic!(
                "no original_bytes in {}",
                &big.value.to_string()[..2000.min(big.value.to_string().len())]
            )
        });
    assert!(original >= 50 * 1024 * 1024, "original_bytes {original}");
    assert!(run.stderr.contains("truncated"), "{}", run.stderr);
    assert!(run.stderr.contains("invalid UTF-8"), "{}", run.stderr);
    assert_eq!(run.stat("invalid_utf8"), 1, "{run:?}");
    assert_eq!(run.stat("truncated"), 1, "{run:?}");
}

#[test]
fn the_secrets_never_reach_the_stats_file_either() {
    // The header secret, the query secret and the API key in one 401 echo, read back
    // from `--stats-json` (`last_error`).
    let intake = new_intake();
    let run = run_generic(
        &intake,
        wire("echo-headers", &[("status", "401")]),
        &[],
        &[],
    );
    let last = run.stats["last_error"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    assert!(last.contains("[redacted]"), "{last}");
    for secret in [API_KEY, HEADER_SECRET, QUERY_SECRET] {
        assert!(!last.contains(secret), "{last}");
    }
}

#[test]
fn the_intake_command_misbehaves_on_request() {
    use std::io::BufRead;
    let bad = common::run_with_stdin(
        common::intake_command().args(["--port", "0", "--misbehave", "teapot"]),
        b"",
        Duration::from_secs(30),
    );
    assert_eq!(
        bad.status.code(),
        Some(2),
        "a mode it does not know is a usage error"
    );
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown fault mode"));
    let mut child = common::intake_command()
        .args(["--port", "0", "--duration", "60"])
        .args(["--misbehave", "echo-headers,status=401"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("spawn intake");
    let _watchdog = common::watchdog(&child, Duration::from_secs(90));
    let mut out = std::io::BufReader::new(child.stdout.take().expect("stdout"));
    let mut first = String::new();
    out.read_line(&mut first).expect("listening line");
    let base = first
        .trim()
        .strip_prefix("listening on ")
        .expect("listening line")
        .to_owned();
    let url = format!("{base}/logs?token={QUERY_SECRET}");
    let mut args = vec!["--endpoint", url.as_str()];
    args.extend_from_slice(COMMON);
    let run = ship(&args, ENV, &lines(100, 80));
    let _ = child.kill();
    let _ = child.wait();
    check(
        &run,
        "intake --misbehave echo-headers",
        100,
        Exit::Lost,
        Duration::from_secs(20),
    );
    assert!(run.stderr.contains("[redacted]"), "{}", run.stderr);
}
