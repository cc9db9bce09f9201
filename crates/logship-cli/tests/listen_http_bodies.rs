//! `logship ship --listen http://127.0.0.1:0`, every body shape arrives with its level,
//! logger, thread and message (NDJSON, JSON arrays and objects, Log4j2's JsonLayout,
//! text, deflate, `Expect: 100-continue`); malformed, oversized and unauthorized bodies
//! are refused with nothing lost; events without a logger reach the vendor without a
//! made-up one. The real binary, real sockets on loopback, the in-process strict intake
//! behind it (harness: `common/listen.rs`).

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use common::listen::*;
use common::ShipProcess;
use logship_intake::{Intake, IntakeConfig};

#[test]
fn every_body_shape_arrives_with_its_level_logger_thread_and_message() {
    let intake = intake();
    let mut l = Listener::start(&intake, &["--no-spill"]);
    let nd = b"{\"message\":\"nd-1\",\"level\":\"warn\",\"logger\":\"app.db\",\"thread\":\"t1\"}\n{\"message\":\"nd-2\"}\n";
    assert_eq!(
        post(l.port, "/", &[("Content-Type", "application/x-ndjson")], nd).0,
        200
    );
    let arr = b"[{\"msg\":\"arr-1\",\"severity\":\"DEBUG\"},{\"msg\":\"arr-2\"}]";
    let (status, text) = post(
        l.port,
        "/logs",
        &[("Content-Type", "application/json")],
        arr,
    );
    assert_eq!(status, 200);
    assert!(text.contains("{\"accepted\":2}"), "{text}");
    assert_eq!(
        post(
            l.port,
            "/",
            &[("Content-Type", "text/plain")],
            b"text-1\r\ntext-2\n"
        )
        .0,
        200
    );
    let (status, text) = post(
        l.port,
        "/",
        &[("Content-Type", "application/json; charset=UTF-8")],
        JSON_LAYOUT.as_bytes(),
    );
    assert_eq!(status, 200, "{text}");
    let compact: String = JSON_LAYOUT
        .replace("\r\n", "")
        .replace("payment failed", "compact one");
    assert_eq!(post(l.port, "/", &[], compact.as_bytes()).0, 200);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(b"{\"message\":\"gz-1\"}\n").unwrap();
    let gz = gz.finish().unwrap();
    assert_eq!(
        post(l.port, "/", &[("Content-Encoding", "gzip")], &gz).0,
        200
    );
    assert!(intake.wait_for_events(9, WAIT), "{}", intake.stats().events);
    let (code, stderr) = l.stop();
    assert_eq!(code, Some(0), "{stderr:?}");

    let nd1 = event(&intake, "nd-1");
    assert_eq!(nd1["level"], "WARN", "{nd1}");
    assert_eq!(nd1["target"], "app.db", "{nd1}");
    assert_eq!(nd1["thread"], "t1", "{nd1}");
    assert_eq!(event(&intake, "arr-1")["level"], "DEBUG");
    event(&intake, "text-1");
    event(&intake, "text-2");
    event(&intake, "gz-1");
    for m in ["payment failed", "compact one"] {
        let j = event(&intake, m);
        assert_eq!(j["level"], "ERROR", "{j}");
        assert_eq!(j["target"], "com.example.Hello", "{j}");
        assert_eq!(j["thread"], "http-nio-8080-exec-1", "{j}");
        assert_eq!(j["requestId"], "r-7", "{j}");
        assert!(
            j.get("loggerFqcn").is_none() && j.get("endOfBatch").is_none(),
            "{j}"
        );
        let text = j.to_string();
        assert!(
            text.contains("card declined") && text.contains("IllegalStateException"),
            "{j}"
        );
        assert!(text.contains("Hello.pay(Hello.java:42)"), "{j}");
        assert!(
            j["timestamp"]
                .as_str()
                .is_some_and(|t| t.starts_with("2025-12-01T14:40:00.123")),
            "{j}"
        );
    }
    assert_eq!(intake.stats().events, 9);
    let s = summary(&stderr);
    assert!(s.contains("shipped 9 of 9 events"), "{s}");
}

#[test]
fn malformed_oversized_and_unauthorized_bodies_are_refused_and_nothing_is_lost() {
    let intake = intake();
    let mut l = Listener::start(
        &intake,
        &[
            "--no-spill",
            "--listen-token",
            "tok-s3cret",
            "--listen-max-body-bytes",
            "4096",
        ],
    );
    let auth = [("Authorization", "Bearer tok-s3cret")];
    let (status, text) = post(
        l.port,
        "/",
        &auth,
        b"{\"message\":\"ok-1\"}\n{\"message\": oops}\n",
    );
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("line 2"), "{text}");
    let (status, text) = post(
        l.port,
        "/",
        &[("Authorization", "Bearer tok-guess")],
        b"{\"message\":\"x\"}",
    );
    assert_eq!(status, 401, "{text}");
    assert!(
        !text.contains("tok-s3cret") && !text.contains("tok-guess"),
        "{text}"
    );
    assert_eq!(post(l.port, "/", &[], b"{\"message\":\"x\"}").0, 401);
    let big = vec![b'a'; 5000];
    assert_eq!(post(l.port, "/", &auth, &big).0, 413);
    // A gzip bomb: 64 KiB of zeros compressed far below the limit.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(&vec![b' '; 64 * 1024]).unwrap();
    let bomb = gz.finish().unwrap();
    assert!(bomb.len() < 4096);
    let (status, text) = post(l.port, "/", &[auth[0], ("Content-Encoding", "gzip")], &bomb);
    assert_eq!(status, 413, "{text}");
    assert_eq!(
        post(
            l.port,
            "/",
            &[("X-Logship-Token", "tok-s3cret")],
            b"{\"message\":\"ok-2\"}"
        )
        .0,
        200
    );
    assert!(intake.wait_for_events(1, WAIT));
    let (code, stderr) = l.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    assert_eq!(
        intake.stats().events,
        1,
        "only the good request's event arrives"
    );
    event(&intake, "ok-2");
    assert!(
        stderr.iter().all(|l| !l.contains("tok-s3cret")),
        "{stderr:?}"
    );
    let s = summary(&stderr);
    assert!(s.contains("shipped 1 of 1 events"), "{s}");
    assert!(
        s.contains("1 requests malformed (400)")
            && s.contains("2 requests too large: over the body limit, or of more events or bytes than the queue holds (413)"),
        "{s}"
    );
}

/// A request sent the way curl and the JDK send a large one: the head with
/// `Expect: 100-continue`, the body only once the server has answered `100 Continue`.
/// The interim answer and the final status.
fn post_expecting_continue(port: u16, body: &[u8]) -> (String, u16) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(WAIT)).expect("timeout");
    let head = format!(
        "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-ndjson\r\nContent-Length: {}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).expect("head");
    // Read the interim answer alone: the body is not sent until it has come.
    let mut interim = Vec::new();
    let mut byte = [0u8; 1];
    while !interim.ends_with(b"\r\n\r\n") {
        let n = s.read(&mut byte).expect("interim answer");
        assert_eq!(n, 1, "closed before 100 Continue: {interim:?}");
        interim.push(byte[0]);
    }
    s.write_all(body).expect("body");
    let mut rest = Vec::new();
    let _ = s.read_to_end(&mut rest);
    let text = String::from_utf8_lossy(&rest);
    let status = status_of(&text).unwrap_or_else(|| panic!("no final status in {text:?}"));
    (String::from_utf8_lossy(&interim).into_owned(), status)
}

#[test]
fn deflate_bodies_and_expect_100_continue_are_read_and_bad_encodings_refused() {
    use flate2::write::{DeflateEncoder, ZlibEncoder};
    let intake = intake();
    let mut l = Listener::start(&intake, &["--no-spill", "--listen-max-body-bytes", "65536"]);
    // RFC 9110's deflate (zlib), and the raw deflate some clients send under that name.
    let mut z = ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(b"{\"message\":\"zlib-1\",\"level\":\"error\"}\n")
        .unwrap();
    let zlib = z.finish().unwrap();
    let mut d = DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    d.write_all(b"{\"message\":\"raw-deflate-1\"}\n").unwrap();
    let raw = d.finish().unwrap();
    for body in [&zlib, &raw] {
        let (status, text) = post(l.port, "/", &[("Content-Encoding", "deflate")], body);
        assert_eq!(status, 200, "{text}");
    }
    let (interim, status) = post_expecting_continue(l.port, b"{\"message\":\"expect-1\"}\n");
    assert!(interim.starts_with("HTTP/1.1 100"), "{interim:?}");
    assert_eq!(status, 200);

    // Hostile: a deflate bomb (1 MiB of zeros in about 1 KiB) over the 64 KiB limit,
    // bytes that are no deflate stream, and an encoding nobody can read here.
    let mut bomb = ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    bomb.write_all(&vec![0u8; 1 << 20]).unwrap();
    let bomb = bomb.finish().unwrap();
    assert!(bomb.len() < 4096, "{}", bomb.len());
    let (status, text) = post(l.port, "/", &[("Content-Encoding", "deflate")], &bomb);
    assert_eq!(status, 413, "{text}");
    let (status, text) = post(
        l.port,
        "/",
        &[("Content-Encoding", "deflate")],
        b"\x78\x9c not deflate at all",
    );
    assert_eq!(status, 400, "{text}");
    let (status, text) = post(l.port, "/", &[("Content-Encoding", "br")], b"x");
    assert_eq!(status, 415, "{text}");
    assert!(text.contains("gzip, deflate or identity"), "{text}");

    assert!(intake.wait_for_events(3, WAIT), "{}", intake.stats().events);
    let (code, stderr) = l.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    assert_eq!(event(&intake, "zlib-1")["level"], "ERROR");
    event(&intake, "raw-deflate-1");
    event(&intake, "expect-1");
    assert_eq!(
        intake.stats().events,
        3,
        "nothing of the refused bodies shipped"
    );
    let s = summary(&stderr);
    assert!(s.contains("shipped 3 of 3 events"), "{s}");
}

#[test]
fn events_received_without_a_logger_reach_the_vendor_without_a_made_up_one() {
    // The strict Datadog emulation behind the listener: what it decodes is what Datadog
    // would index. Each input names a logger for one event and none for the other.
    let key = "no-logger-key-0123";
    let intake = Intake::start(IntakeConfig {
        api_key: Some(key.into()),
        ..IntakeConfig::default()
    })
    .expect("intake");
    let mut ship = ShipProcess::start(
        &intake.url(""),
        &[
            "--listen",
            "http://127.0.0.1:0",
            "--vendor",
            "datadog",
            "--api-key",
            key,
            "--no-spill",
        ],
        Duration::from_secs(120),
    );
    let port = ship.port("http");
    let json = [("Content-Type", "application/json")];
    let dd = br#"[{"message":"dd-none","service":"svc"},{"message":"dd-named","logger.name":"com.x.Dd"}]"#;
    assert_eq!(post(port, "/api/v2/logs", &json, dd).0, 202);
    let otlp = br#"{"resourceLogs":[{"resource":{},"scopeLogs":[{"logRecords":[{"body":{"stringValue":"otlp-none"}}]},{"scope":{"name":"com.x.Otlp"},"logRecords":[{"body":{"stringValue":"otlp-named"}}]}]}]}"#;
    assert_eq!(post(port, "/v1/logs", &json, otlp).0, 200);
    // Datadog refuses events more than 18 h old: a Loki entry of now.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_nanos();
    let loki =
        format!(r#"{{"streams":[{{"stream":{{"app":"a"}},"values":[["{now}","loki-none"]]}}]}}"#);
    assert_eq!(
        post(port, "/loki/api/v1/push", &json, loki.as_bytes()).0,
        204
    );
    let text = [("Content-Type", "text/plain")];
    assert_eq!(post(port, "/", &text, b"text-none\n").0, 200);
    let nd = b"{\"message\":\"nd-named\",\"logger\":\"com.x.Nd\"}\n{\"message\":\"nd-none\"}\n";
    assert_eq!(post(port, "/", &[], nd).0, 200);
    let arrived = intake.wait_for_events(8, WAIT);
    let (code, stderr) = ship.stop();
    assert!(arrived, "{} events: {stderr:?}", intake.stats().events);
    assert_eq!(code, Some(0), "{stderr:?}");
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
    assert!(intake.requests().iter().all(|r| r.vendor == "datadog"));

    for m in ["dd-none", "otlp-none", "loki-none", "text-none", "nd-none"] {
        let j = event(&intake, m);
        assert!(j.get("logger.name").is_none(), "{m}: {j}");
        assert!(!j.to_string().contains("logship::"), "{m}: {j}");
    }
    for (m, logger) in [
        ("dd-named", "com.x.Dd"),
        ("otlp-named", "com.x.Otlp"),
        ("nd-named", "com.x.Nd"),
    ] {
        let j = event(&intake, m);
        assert_eq!(j["logger.name"], logger, "{m}: {j}");
    }
    assert!(
        summary(&stderr).contains("shipped 8 of 8 events"),
        "{stderr:?}"
    );
}

#[test]
fn the_listen_token_can_come_from_a_file_and_never_shows_on_the_command_line() {
    let intake = intake();
    let file = common::temp_path("listen-token");
    std::fs::write(&file, "tok-from-file-9Xq\n").expect("token file");
    let mut l = Listener::start(
        &intake,
        &[
            "--no-spill",
            "--listen-token-file",
            file.to_str().expect("utf-8"),
        ],
    );
    let cmdline = std::fs::read(format!("/proc/{}/cmdline", l.ship.child.id())).expect("cmdline");
    assert!(!String::from_utf8_lossy(&cmdline).contains("tok-from-file-9Xq"));
    assert_eq!(post(l.port, "/", &[], b"{\"message\":\"x\"}").0, 401);
    let auth = [("Authorization", "Bearer tok-from-file-9Xq")];
    assert_eq!(post(l.port, "/", &auth, b"{\"message\":\"in\"}").0, 200);
    let (code, stderr) = l.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    assert_eq!(intake.stats().events, 1);
    assert!(
        !stderr.iter().any(|s| s.contains("tok-from-file")),
        "{stderr:?}"
    );
    // Unreadable, or given together with the token: refused at start-up, naming the key.
    for extra in [
        vec!["--listen-token-file", "/nonexistent/token"],
        vec![
            "--listen-token-file",
            file.to_str().expect("utf-8"),
            "--listen-token",
            "t2",
        ],
    ] {
        let mut args = vec![
            "ship",
            "--endpoint",
            "http://127.0.0.1:1/x",
            "--listen",
            "http://127.0.0.1:0",
        ];
        args.extend(extra);
        let out = common::run(&args, b"");
        let err = common::stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("listen.token_file"), "{err}");
        assert!(!err.contains("tok-from-file"), "{err}");
    }
}
