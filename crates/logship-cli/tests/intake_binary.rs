//! The test intake's own binary, `logship-intake` (the `logship` command's tests drive
//! it): it counts and prints what it accepts, serves its last events, refuses unknown
//! vendor paths as the vendors do, serves injected failures and stops on SIGTERM.

mod common;

use std::io::{BufRead, Read};

use common::{http, start_intake, stderr, WATCHDOG};
use serde_json::Value;

/// SIGTERM to the intake, then its exit (the watchdog `done` told).
fn sigterm(child: std::process::Child, done: std::sync::mpsc::Sender<()>) -> std::process::Output {
    common::signal(child.id(), "TERM");
    let output = child.wait_with_output().expect("wait");
    let _ = done.send(());
    output
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

    let output = sigterm(child, done);
    assert!(output.status.success(), "status {:?}", output.status);
    let mut rest = String::new();
    out.read_to_string(&mut rest).expect("rest of stdout");
    assert!(rest.contains("2 requests (1 rejected)"), "stdout: {rest}");
    assert!(rest.contains("carried 1 event;"), "stdout: {rest}");
}

#[test]
fn intake_command_records_marked_ids_and_keeps_them_on_sigterm() {
    let dir = common::temp_path("record-ids");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let record = dir.join("ids.bin");
    let (child, mut out, port) = start_intake(&[
        "--count-only",
        "--record-ids",
        record.to_str().expect("utf-8 path"),
        "--id-marker",
        "soak f=",
        "--id-marker",
        "soak t=",
        "--fail-status",
        "503",
        "--fail-count",
        "1",
    ]);
    let done = common::watchdog(&child, WATCHDOG);
    let head = "POST /logs HTTP/1.1\r\nContent-Type: application/x-ndjson";
    // A refused request records nothing; an accepted one records each marked line.
    let refused = http(port, head, b"{\"message\":\"soak f=99\"}\n");
    assert!(refused.starts_with("HTTP/1.1 503"), "{refused}");
    let body = b"{\"message\":\"soak f=3 fox\"}\n{\"message\":\"soak t=72057594037927935\"}\n{\"message\":\"no id\"}\n{\"message\":\"soak f=4\"}\n";
    let accepted = http(port, head, body);
    assert!(accepted.starts_with("HTTP/1.1 200"), "{accepted}");
    // SIGTERM right after the answer, well within the 250 ms flush period: the ids must
    // be on disk when the process has exited.
    let output = sigterm(child, done);
    assert!(output.status.success(), "stderr: {}", stderr(&output));
    let mut rest = String::new();
    out.read_to_string(&mut rest).expect("rest of stdout");
    assert!(rest.contains("carried 4 events;"), "stdout: {rest}");
    let bytes = std::fs::read(&record).expect("the record");
    let words: Vec<u64> = bytes
        .chunks_exact(8)
        .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")))
        .collect();
    assert_eq!(bytes.len() % 8, 0);
    assert_eq!(words, vec![3, (1 << 56) | ((1 << 56) - 1), 4]);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn intake_command_refuses_record_ids_without_count_only_or_a_marker() {
    for args in [
        &["--record-ids", "/tmp/x.ids", "--id-marker", "a="][..],
        &["--count-only", "--record-ids", "/tmp/x.ids"][..],
    ] {
        let output = common::intake_command()
            .args(args)
            .output()
            .expect("run logship-intake");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
    }
}
