//! `logship ship --listen http://127.0.0.1:0`, the listener's bounds: a full queue
//! answers 503 with Retry-After and everything sent again arrives; a slow client is
//! closed at the header timeout while others are served; connections over the limit get
//! 503; a request of more events than the queue holds is 413 on every route; ten MiB of
//! the smallest events cannot take the host's memory. The real binary, real sockets on
//! loopback, the in-process strict intake behind it (harness: `common/listen.rs`).

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use common::listen::*;

/// Posts `id`s on one keep-alive connection each, resending on 503 until accepted;
/// returns how many 503s it saw.
fn send_until_accepted(port: u16, ids: std::ops::Range<u64>) -> u64 {
    let mut busy = 0;
    for id in ids {
        loop {
            let body = format!("{{\"message\":\"id-{id:06}\"}}\n");
            let (status, text) = post(port, "/", &[], body.as_bytes());
            match status {
                200 => break,
                503 => {
                    assert!(text.contains("Retry-After: 1"), "{text}");
                    busy += 1;
                    if busy > 100_000 {
                        panic!("never accepted");
                    }
                }
                other => panic!("status {other}: {text}"),
            }
        }
    }
    busy
}

#[test]
fn a_full_queue_answers_503_with_retry_after_and_everything_sent_again_arrives() {
    let intake = intake();
    intake.pause(); // answers held: the pipeline's queue fills
    let stats_json = common::temp_path("listen-503-stats.json");
    let mut l = Listener::start(
        &intake,
        &[
            "--no-spill",
            "--queue-capacity",
            "8",
            "--max-batch-records",
            "4",
            "--shutdown-timeout-ms",
            "30000",
            "--stats-json",
            stats_json.to_str().unwrap(),
        ],
    );
    // Fill until the first 503.
    let mut sent = 0u64;
    let mut saw_busy = false;
    while !saw_busy {
        let body = format!("{{\"message\":\"id-{sent:06}\"}}\n");
        let (status, text) = post(l.port, "/", &[], body.as_bytes());
        match status {
            200 => sent += 1,
            503 => {
                assert!(text.contains("Retry-After: 1"), "{text}");
                saw_busy = true;
            }
            other => panic!("{other}: {text}"),
        }
        assert!(sent < 10_000, "the queue never filled");
    }
    intake.resume();
    // The refused one and more, resent until accepted.
    send_until_accepted(l.port, sent..sent + 50);
    let total = sent + 50;
    assert!(intake.wait_for_events(total as usize, WAIT));
    let (code, stderr) = l.stop();
    let got = ids(&intake);
    let missing: Vec<u64> = (0..total).filter(|i| !got.contains(i)).collect();
    assert!(missing.is_empty(), "missing {missing:?}");
    assert_eq!(code, Some(0), "a 503 is not a loss: {stderr:?}");
    let s = summary(&stderr);
    assert!(s.contains("refused with 503"), "{s}");
    assert!(
        s.contains("; 0 dropped,"),
        "a refused event is resent, not dropped: {s}"
    );
    // Not dropped on any surface: the pipeline handed the refusal back, uncounted as a drop.
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats_json).unwrap()).unwrap();
    assert_eq!(stats["dropped_queue_full"], 0, "{stats}");
    assert!(
        stats["queue_full_returned"].as_u64().unwrap() >= 1,
        "{stats}"
    );
}

#[test]
fn a_slow_client_is_closed_at_the_header_timeout_while_others_are_served() {
    let intake = intake();
    let mut l = Listener::start(
        &intake,
        &["--no-spill", "--listen-header-timeout-ms", "500"],
    );
    let mut slow = TcpStream::connect(("127.0.0.1", l.port)).unwrap();
    slow.write_all(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Le")
        .unwrap();
    // Served meanwhile.
    assert_eq!(post(l.port, "/", &[], b"{\"message\":\"fast\"}").0, 200);
    slow.set_read_timeout(Some(WAIT)).unwrap();
    let started = std::time::Instant::now();
    let mut out = String::new();
    let _ = slow.read_to_string(&mut out);
    assert!(out.starts_with("HTTP/1.1 408"), "{out:?}");
    assert!(started.elapsed() < Duration::from_secs(30));
    let (code, stderr) = l.stop();
    assert_eq!(code, Some(0));
    assert!(
        summary(&stderr).contains("1 connections too slow, closed (408)"),
        "{stderr:?}"
    );
}

/// Connections busy with a request are never reclaimed: past the limit, a new one is
/// answered 503. (Idle ones make room: `listen_http_hostile.rs`.)
#[test]
fn connections_over_the_limit_are_answered_503_when_every_one_is_busy() {
    let intake = intake();
    let mut l = Listener::start(&intake, &["--no-spill", "--listen-max-connections", "2"]);
    let mut held: Vec<TcpStream> = Vec::new();
    for _ in 0..2 {
        let mut s = TcpStream::connect(("127.0.0.1", l.port)).unwrap();
        // Busy reading a body: the server says `100 Continue` once it has read the head
        // and waits for the body, which never comes.
        s.write_all(
            b"POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n",
        )
        .unwrap();
        let mut buf = [0u8; 25];
        s.read_exact(&mut buf).unwrap();
        assert_eq!(&buf, b"HTTP/1.1 100 Continue\r\n\r\n");
        held.push(s);
    }
    // A refused client whose request the listener never read: the refusal lingers, so
    // the client reads its answer and a clean end, not a reset.
    let mut late = TcpStream::connect(("127.0.0.1", l.port)).unwrap();
    late.set_read_timeout(Some(WAIT)).unwrap();
    late.write_all(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
        .unwrap();
    let mut answer = Vec::new();
    late.read_to_end(&mut answer)
        .expect("the answer and a clean end, not a reset");
    let text = String::from_utf8_lossy(&answer);
    assert!(text.starts_with("HTTP/1.1 503 "), "{text}");
    assert!(text.contains("Retry-After: 1"), "{text}");
    assert!(
        text.ends_with("too many connections\"}"),
        "nothing after the answer: {text}"
    );
    // A flood of refused clients that neither read nor close: the accept loop never
    // waits on them (were each refusal to linger in turn, 250 of them would hold the
    // next client back for more than two minutes).
    let silent: Vec<TcpStream> = (0..250)
        .map(|_| {
            let mut s = TcpStream::connect(("127.0.0.1", l.port)).unwrap();
            let _ = s.write_all(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}");
            s
        })
        .collect();
    // ... and a client after them is still answered (past the lingering limit, closed
    // at once after its answer).
    let (status, text) = post(l.port, "/", &[], b"{}");
    assert_eq!(status, 503, "{text}");
    drop(silent);
    drop(held);
    let (code, stderr) = l.stop();
    assert_eq!(code, Some(0));
    assert!(
        summary(&stderr).contains("connections over the limit"),
        "{stderr:?}"
    );
}

#[test]
fn a_request_of_more_events_than_the_queue_holds_is_answered_413_on_every_route_and_nothing_of_it_is_queued(
) {
    use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
    use opentelemetry_proto::tonic::logs::v1::{LogRecord, ResourceLogs, ScopeLogs};
    use prost::Message;

    let intake = intake();
    let mut l = Listener::start(&intake, &["--no-spill", "--queue-capacity", "100"]);
    let json = [("Content-Type", "application/json")];
    let nd = |n: usize, tag: &str| -> Vec<u8> {
        (0..n)
            .map(|i| format!("{{\"message\":\"{tag}-{i}\"}}\n"))
            .collect::<String>()
            .into_bytes()
    };
    let array = |n: usize| format!("[{}]", vec!["{\"message\":\"dd\"}"; n].join(","));
    let otlp = |n: usize| {
        ExportLogsServiceRequest {
            resource_logs: vec![ResourceLogs {
                scope_logs: vec![ScopeLogs {
                    log_records: vec![LogRecord::default(); n],
                    ..ScopeLogs::default()
                }],
                ..ResourceLogs::default()
            }],
        }
        .encode_to_vec()
    };
    let proto = [("Content-Type", "application/x-protobuf")];
    let text = [("Content-Type", "text/plain")];

    // One over the queue: 413, the fix named, in each route's own shape.
    let (status, answer) = post(l.port, "/", &[], &nd(101, "over"));
    assert_eq!(status, 413, "{answer}");
    assert!(answer.contains("more than 100 events") && answer.contains("queue_capacity"));
    let (status, answer) = post(l.port, "/api/v2/logs", &json, array(101).as_bytes());
    assert_eq!(status, 413, "{answer}");
    assert!(
        answer.contains("\"errors\""),
        "Datadog's error shape: {answer}"
    );
    let (status, answer) = post(l.port, "/v1/logs", &proto, &otlp(101));
    assert_eq!(status, 413, "{answer}");
    let raw = "x\n".repeat(101);
    let (status, answer) = post(l.port, "/services/collector/raw", &text, raw.as_bytes());
    assert_eq!(status, 413, "{answer}");
    assert!(
        answer.contains("\"code\":413"),
        "HEC's error shape: {answer}"
    );
    // A snappy block that says it holds 4 GiB: refused before anything is allocated.
    let claim = [0xff, 0xff, 0xff, 0xff, 0x0f, 0x00, b'a'];
    let (status, answer) = post(l.port, "/loki/api/v1/push", &proto, &claim);
    assert_eq!(status, 413, "{answer}");

    // At the limit: accepted.
    assert_eq!(post(l.port, "/", &[], &nd(100, "fits")).0, 200);
    assert!(
        intake.wait_for_events(100, WAIT),
        "{}",
        intake.stats().events
    );
    let (code, stderr) = l.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    assert_eq!(
        intake.stats().events,
        100,
        "nothing of a refused request queued"
    );
    assert!(intake.events().iter().all(|e| e.value["message"]
        .as_str()
        .is_some_and(|m| m.starts_with("fits-"))));
    let s = summary(&stderr);
    assert!(
        s.contains("shipped 100 of 100 events") && s.contains("5 requests too large"),
        "{s}"
    );
}

/// Peak resident memory of process `pid`, KiB (`VmHWM`).
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM")
}

#[test]
fn ten_mib_of_the_smallest_events_is_refused_without_taking_the_hosts_memory() {
    // 10 MiB of one-character lines is 5 million events: decoded whole, they took 838 MiB
    // (735 MiB for a JSON array of tiny objects, 2.6 GiB for empty OTLP records, 478 MiB
    // for a Loki push of tiny entries). Refused, they take under 100 MiB.
    let intake = intake();
    let mut l = Listener::start(&intake, &["--no-spill"]);
    let text = [("Content-Type", "text/plain")];
    // Each body just under the 10 MiB limit, so it is decoded, not refused for its size.
    let lines = "a\n".repeat((5 << 20) - 1024);
    assert_eq!(post(l.port, "/", &text, lines.as_bytes()).0, 413);
    let tiny = format!("[{}]", vec!["{\"a\":1}"; 1_300_000].join(","));
    assert_eq!(post(l.port, "/", &[], tiny.as_bytes()).0, 413);
    let empty_records: Vec<u8> = {
        let scope: Vec<u8> = [0x12, 0x00].repeat((5 << 20) - 1024);
        let mut scope_logs = vec![0x12];
        scope_logs.extend(varint(scope.len()));
        scope_logs.extend(scope);
        let mut body = vec![0x0a];
        body.extend(varint(scope_logs.len()));
        body.extend(scope_logs);
        body
    };
    let proto = [("Content-Type", "application/x-protobuf")];
    assert_eq!(post(l.port, "/v1/logs", &proto, &empty_records).0, 413);
    let entries = vec!["[\"1\",\"x\"]"; 1_000_000].join(",");
    let loki = format!(r#"{{"streams":[{{"stream":{{"a":"b"}},"values":[{entries}]}}]}}"#);
    let json = [("Content-Type", "application/json")];
    assert_eq!(
        post(l.port, "/loki/api/v1/push", &json, loki.as_bytes()).0,
        413
    );
    let peak = peak_rss_kib(l.ship.child.id());
    let (code, stderr) = l.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    assert!(
        peak < 200 * 1024,
        "peak RSS {} MiB while refusing four 10 MiB bodies",
        peak / 1024
    );
}

/// A protobuf base-128 varint.
fn varint(mut n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return out;
        }
        out.push(byte | 0x80);
    }
}
