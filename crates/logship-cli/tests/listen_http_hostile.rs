//! `ship --listen http://` under hostile clients (issue 32, items 2, 3, 4 and 9): the
//! real `logship` binary, raw bytes over loopback sockets, the in-process strict intake
//! behind it (harness: `common/listen.rs`).

mod common;

use std::io::{Read, Write};
use std::net::{TcpStream, UdpSocket};
use std::time::Duration;

use common::follow::wait_until;
use common::listen::{event, intake, post, Listener};

/// Sends `raw` on a fresh connection and reads until the server closes it (or 20 s).
fn exchange(port: u16, raw: &[u8]) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let _ = s.write_all(raw);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// A request that must never run: if any parser reads it as a second request on the
/// connection, its event reaches the intake.
const SMUGGLED: &str =
    "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 24\r\n\r\n{\"message\":\"smuggled\"}\r\n";

#[test]
fn smuggling_and_lax_framing_are_each_a_400_that_closes_the_connection() {
    let intake = intake();
    let mut l = Listener::start(&intake, &[]);
    let heads: &[&[u8]] = &[
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n0\r\n\r\n",
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: +2\r\n\r\n{}",
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: \x0b2\r\n\r\n{}",
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\x0c\r\n\r\n{}",
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: \xc2\xa02\r\n\r\n{}",
        b"POST / HTTP/1.1\r\nHost: x\rContent-Length: 2\r\n\r\n{}",
        b"POST / HTTP/1.1\r\nHost: x\x00y\r\nContent-Length: 2\r\n\r\n{}",
        b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity, chunked\r\n\r\n0\r\n\r\n",
        b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
        b"POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n0\r\n\r\n",
    ];
    for head in heads {
        let mut raw = head.to_vec();
        raw.extend_from_slice(SMUGGLED.as_bytes());
        let answer = exchange(l.port, &raw);
        let ctx = String::from_utf8_lossy(head);
        assert!(answer.starts_with("HTTP/1.1 400 "), "{ctx:?}: {answer:?}");
        assert_eq!(
            answer.matches("HTTP/1.1 ").count(),
            1,
            "{ctx:?}: one answer, then the connection is closed: {answer:?}"
        );
    }
    // The listener still serves, and nothing smuggled ran.
    let (status, _) = post(l.port, "/", &[], b"{\"message\":\"honest\"}");
    assert_eq!(status, 200);
    wait_until("the honest event", || {
        intake
            .events()
            .iter()
            .any(|e| e.value["message"] == "honest")
    });
    let (code, stderr) = l.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    assert!(
        !intake
            .events()
            .iter()
            .any(|e| e.value["message"] == "smuggled"),
        "a smuggled request ran"
    );
}

/// A body that says it is over the limit is refused (413) as soon as its head is read;
/// a client that goes on sending it (most do: they write the whole request before they
/// read) meets no reset, and reads its answer and a clean end.
#[test]
fn a_client_still_sending_a_refused_body_reads_its_413_not_a_reset() {
    let intake = intake();
    let mut l = Listener::start(&intake, &["--listen-max-body-bytes", "65536"]);
    let mut s = TcpStream::connect(("127.0.0.1", l.port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let len = 256 << 10;
    // Head and body in one write (the kernel's buffers take it whole): the listener
    // answers after the head, so the body is unread when it does.
    let mut request =
        format!("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: {len}\r\n\r\n").into_bytes();
    request.resize(request.len() + len, b' ');
    s.write_all(&request).expect("the request, whole");
    let mut answer = Vec::new();
    s.read_to_end(&mut answer)
        .expect("the answer and a clean end, not a reset");
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.starts_with("HTTP/1.1 413 "), "{answer:?}");
    let (status, _) = post(l.port, "/", &[], b"{\"message\":\"after\"}");
    assert_eq!(status, 200);
    let (code, stderr) = l.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
}

/// A JSON body of `n` events of `bytes` bytes each.
fn big_events(n: usize, bytes: usize, tag: &str) -> Vec<u8> {
    let pad = "p".repeat(bytes);
    (0..n)
        .map(|i| format!("{{\"message\":\"{tag}-{i}\",\"pad\":\"{pad}\"}}\n"))
        .collect::<String>()
        .into_bytes()
}

#[test]
fn a_body_that_can_never_fit_the_queue_is_a_413_and_leaves_no_state() {
    let intake = intake();
    let mut l = Listener::start(
        &intake,
        &[
            "--queue-max-bytes",
            "262144",
            "--max-event-bytes",
            "1048576",
            "--listen",
            "syslog+udp://127.0.0.1:0",
        ],
    );
    let udp = l.ship.port("syslog+udp");
    // One event larger than the queue's byte bound, then many that are together.
    for body in [
        big_events(1, 300_000, "huge"),
        big_events(8, 60_000, "many"),
    ] {
        let (status, answer) = post(l.port, "/", &[], &body);
        assert_eq!(status, 413, "{answer}");
        assert!(answer.contains("queue_max_bytes"), "{answer}");
    }
    // Splunk HEC's own shape too.
    let hec = format!(
        "{{\"event\":{{\"message\":\"hec-huge\",\"pad\":\"{}\"}}}}",
        "p".repeat(300_000)
    );
    let (status, answer) = post(
        l.port,
        "/services/collector/event",
        &[("Authorization", "Splunk t")],
        hec.as_bytes(),
    );
    assert_eq!(status, 413, "{answer}");
    // Nothing stuck: HTTP and UDP are served at once.
    for i in 0..5 {
        let body = format!("{{\"message\":\"after-{i}\"}}");
        let (status, answer) = post(l.port, "/", &[], body.as_bytes());
        assert_eq!(status, 200, "request {i} after the refusal: {answer}");
    }
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    sock.send_to(b"<14>1 - h app - - - udp-after", ("127.0.0.1", udp))
        .unwrap();
    wait_until("every event after the refusals", || {
        (0..5).all(|i| {
            intake
                .events()
                .iter()
                .any(|e| e.value["message"] == format!("after-{i}"))
        }) && intake
            .events()
            .iter()
            .any(|e| e.value["message"] == "udp-after")
    });
    let (code, stderr) = l.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    let text = stderr.join("\n");
    assert!(text.contains("413") || text.contains("too large"), "{text}");
    assert!(!intake.events().iter().any(|e| e.value["message"]
        .as_str()
        .is_some_and(|m| m.starts_with("huge") || m.starts_with("many"))));
}

#[test]
fn splunk_hec_health_answers_without_the_token() {
    let intake = intake();
    let mut l = Listener::start(&intake, &["--listen-token", "s3cret-tok"]);
    let answer = exchange(
        l.port,
        b"GET /services/collector/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
    );
    assert!(answer.starts_with("HTTP/1.1 200 "), "{answer}");
    assert!(answer.contains("HEC is healthy"), "{answer}");
    // Events still need it.
    let (status, _) = post(
        l.port,
        "/services/collector/event",
        &[],
        b"{\"event\":\"no token\"}",
    );
    assert_eq!(status, 401);
    let _ = event;
    let (code, stderr) = l.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
}

#[test]
fn a_new_client_is_answered_while_a_thousand_connections_idle_or_drip() {
    let intake = intake();
    // Timeouts far beyond the test's own waits: only reclaiming can let a client in.
    let mut l = Listener::start(
        &intake,
        &[
            "--listen-header-timeout-ms",
            "600000",
            "--listen-idle-timeout-ms",
            "600000",
        ],
    );
    let mut held = Vec::new();
    for i in 0..1000 {
        let mut s = TcpStream::connect(("127.0.0.1", l.port)).expect("connect");
        if i % 3 == 0 {
            // A dripping client: a head begun, never finished.
            let _ = s.write_all(b"POST / HTTP/1.1\r\nHost: x\r\nX-Drip: a");
        }
        held.push(s);
    }
    for i in 0..3 {
        let body = format!("{{\"message\":\"through-{i}\"}}");
        let (status, answer) = post(l.port, "/", &[], body.as_bytes());
        assert_eq!(
            status, 200,
            "client {i} among 1,000 idle connections: {answer}"
        );
    }
    wait_until("the clients' events", || {
        (0..3).all(|i| {
            intake
                .events()
                .iter()
                .any(|e| e.value["message"] == format!("through-{i}"))
        })
    });
    let (code, stderr) = l.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    let text = stderr.join("\n");
    assert!(text.contains("closed to make room"), "{text}");
    drop(held);
}

#[test]
fn a_connection_that_sends_nothing_is_closed_at_the_head_timeout_from_accept() {
    let intake = intake();
    // The idle wait is long: only a head deadline from accept closes it in time.
    let mut l = Listener::start(
        &intake,
        &[
            "--listen-header-timeout-ms",
            "300",
            "--listen-idle-timeout-ms",
            "600000",
        ],
    );
    let mut s = TcpStream::connect(("127.0.0.1", l.port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut buf = [0u8; 64];
    let n = s
        .read(&mut buf)
        .expect("closed by the server, not our 30 s timeout");
    assert_eq!(n, 0, "closed without an answer");
    let (code, stderr) = l.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
}
