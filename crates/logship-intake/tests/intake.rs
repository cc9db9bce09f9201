//! End-to-end tests of the intake through raw HTTP/1.1 over `TcpStream`: what it records,
//! decodes and refuses (the faults it serves on request are `intake_faults.rs`).
//!
//! No HTTP client crate is used, so the tests control every byte on the wire
//! (framing mistakes included). Synchronisation uses the intake's condvar
//! waits, barriers and channels, never sleeps.

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{gzip, ndjson, start, Client};
use logship_intake::{Fault, Intake, IntakeConfig};
use serde_json::{json, Value};

/// Generous bound for waits that should succeed almost immediately.
const WAIT: Duration = Duration::from_secs(10);

#[test]
fn binds_loopback_and_builds_urls() {
    let intake = start();
    assert!(intake.addr().ip().is_loopback());
    assert_ne!(intake.addr().port(), 0);
    assert_eq!(
        intake.url("/v1/logs"),
        format!("http://127.0.0.1:{}/v1/logs", intake.addr().port())
    );
}

#[test]
fn ndjson_events_are_recorded_with_fields_intact() {
    let intake = start();
    let sent = vec![
        json!({"message": "hello", "level": "info", "n": 1, "nested": {"k": [1, 2]}}),
        json!({"message": "wörld \u{1F600}", "level": "error", "n": 2}),
        json!({"message": "three", "n": 3}),
    ];
    let mut c = Client::connect(&intake);
    let resp = c.post_typed("/logs?tag=x", "application/x-ndjson", &ndjson(&sent));
    assert_eq!(resp.status, 200);
    assert_eq!(resp.header("content-type"), Some("application/json"));
    assert_eq!(resp.json(), json!({"accepted": 3}));

    let events = intake.events();
    let values: Vec<Value> = events.iter().map(|e| e.value.clone()).collect();
    assert_eq!(values, sent);
    let requests = intake.requests();
    assert_eq!(requests.len(), 1);
    let r = &requests[0];
    assert!(events.iter().all(|e| e.request_id == r.id));
    assert_eq!(r.method, "POST");
    assert_eq!(r.path, "/logs?tag=x");
    assert_eq!(r.status, 200);
    assert_eq!(r.events, 3);
    assert_eq!(r.header("Content-Type"), Some("application/x-ndjson"));
    assert_eq!(r.header("host"), Some("127.0.0.1"));
    assert_eq!(r.body_bytes, ndjson(&sent).len());
    assert_eq!(r.decoded_bytes, r.body_bytes);
    assert!(intake.violations().is_empty());
    let stats = intake.stats();
    assert_eq!(
        (stats.requests, stats.events, stats.rejected_requests),
        (1, 3, 0)
    );
}

#[test]
fn json_array_and_single_object_are_accepted() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let resp = c.post_typed("/ingest", "application/json", br#"[{"a":1},{"b":"two"}]"#);
    assert_eq!((resp.status, resp.json()), (200, json!({"accepted": 2})));
    let resp = c.post_typed(
        "/ingest",
        "application/json; charset=utf-8",
        br#"{"single":true}"#,
    );
    assert_eq!((resp.status, resp.json()), (200, json!({"accepted": 1})));
    let values: Vec<Value> = intake.events().into_iter().map(|e| e.value).collect();
    assert_eq!(
        values,
        vec![json!({"a":1}), json!({"b":"two"}), json!({"single":true})]
    );
    assert!(intake.violations().is_empty());
}

#[test]
fn gzip_body_is_decoded_and_sizes_recorded() {
    let intake = start();
    let events: Vec<Value> = (0..200)
        .map(|i| json!({"message": "the same message again and again", "i": i}))
        .collect();
    let plain = ndjson(&events);
    let compressed = gzip(&plain);
    let mut c = Client::connect(&intake);
    let resp = c.request(
        "POST",
        "/logs",
        &[
            ("Content-Type", "application/x-ndjson"),
            ("Content-Encoding", "gzip"),
        ],
        &compressed,
    );
    assert_eq!((resp.status, resp.json()), (200, json!({"accepted": 200})));
    let received: Vec<Value> = intake.events().into_iter().map(|e| e.value).collect();
    assert_eq!(received, events);
    let r = &intake.requests()[0];
    assert_eq!(r.body_bytes, compressed.len());
    assert_eq!(r.decoded_bytes, plain.len());
    let stats = intake.stats();
    assert_eq!(stats.bytes_wire, compressed.len() as u64);
    assert_eq!(stats.bytes_decoded, plain.len() as u64);
    assert!(
        intake.summary().contains("compression ratio"),
        "{}",
        intake.summary()
    );
}

#[test]
fn chunked_body_is_rejected_with_411_and_connection_stays_usable() {
    let intake = start();
    let mut c = Client::connect(&intake);
    c.send_raw(
        b"POST /logs HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-ndjson\r\n\
          Transfer-Encoding: chunked\r\n\r\n9\r\n{\"a\":1}\n\r\n0\r\n\r\n",
    );
    let resp = c.try_read_response().expect("411 response");
    assert_eq!(resp.status, 411);
    let violations = intake.violations();
    assert_eq!(violations.len(), 1);
    assert!(
        violations[0].contains("chunked body; logship must always send Content-Length"),
        "{violations:?}"
    );
    assert!(intake.events().is_empty());
    // The chunked body was consumed, so the same connection still works.
    let resp = c.post_typed("/logs", "application/x-ndjson", b"{\"b\":2}\n");
    assert_eq!(resp.status, 200);
    let requests = intake.requests();
    assert_eq!(
        requests.iter().map(|r| r.status).collect::<Vec<_>>(),
        vec![411, 200]
    );
    assert_eq!(requests[0].connection_id, requests[1].connection_id);
    assert_eq!(intake.stats().rejected_requests, 1);
}

#[test]
fn invalid_json_is_rejected_with_400_and_nothing_recorded() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let resp = c.post_typed("/logs", "application/x-ndjson", b"{\"ok\":1}\n{not json}\n");
    assert_eq!(resp.status, 400);
    assert!(resp.json()["error"].as_str().unwrap().contains("line 2"));
    let resp = c.post_typed("/logs", "application/x-ndjson", b"[1,2]\n");
    assert_eq!(resp.status, 400);
    let resp = c.post_typed("/logs", "application/json", br#"[{"a":1}, "str"]"#);
    assert_eq!(resp.status, 400);
    let resp = c.post_typed("/logs", "application/json", b"42");
    assert_eq!(resp.status, 400);
    assert!(
        intake.events().is_empty(),
        "a rejected batch must not be half-accepted"
    );
    let violations = intake.violations();
    assert_eq!(violations.len(), 4, "{violations:?}");
    assert!(violations[0].starts_with("POST /logs: "), "{violations:?}");
    assert!(violations[0].contains("line 2"), "{violations:?}");
    let stats = intake.stats();
    assert_eq!(
        (stats.violations, stats.rejected_requests, stats.events),
        (4, 4, 0)
    );
}

/// One request that breaks the generic protocol, and what the intake must say.
struct Case {
    method: &'static str,
    headers: &'static [(&'static str, &'static str)],
    body: &'static [u8],
    status: u16,
    violation: &'static str,
}

#[test]
fn protocol_violations_get_their_status_codes() {
    let intake = start();
    const NDJSON: (&str, &str) = ("Content-Type", "application/x-ndjson");
    let body: &[u8] = b"{\"a\":1}\n";
    let cases = [
        Case {
            method: "GET",
            headers: &[],
            body: b"",
            status: 405,
            violation: "method GET",
        },
        Case {
            method: "PUT",
            headers: &[NDJSON],
            body,
            status: 405,
            violation: "method PUT",
        },
        Case {
            method: "POST",
            headers: &[("Content-Type", "text/plain")],
            body,
            status: 415,
            violation: "unsupported Content-Type",
        },
        Case {
            method: "POST",
            headers: &[],
            body,
            status: 415,
            violation: "missing Content-Type",
        },
        Case {
            method: "POST",
            headers: &[NDJSON, ("Content-Encoding", "br")],
            body,
            status: 415,
            violation: "Content-Encoding",
        },
        Case {
            method: "POST",
            headers: &[NDJSON, ("Content-Encoding", "gzip")],
            body,
            status: 400,
            violation: "invalid gzip",
        },
    ];
    let mut c = Client::connect(&intake);
    for (i, case) in cases.iter().enumerate() {
        let resp = c.request(case.method, "/p", case.headers, case.body);
        assert_eq!(resp.status, case.status, "case {i}");
        let violations = intake.violations();
        assert_eq!(violations.len(), i + 1, "case {i}: {violations:?}");
        assert!(
            violations[i].contains(case.violation),
            "case {i}: {violations:?}"
        );
    }
    // A POST without Content-Length (and without a body) is a 411.
    c.send_raw(b"POST /p HTTP/1.1\r\nContent-Type: application/x-ndjson\r\n\r\n");
    let resp = c.try_read_response().unwrap();
    assert_eq!(resp.status, 411);
    assert!(intake
        .violations()
        .last()
        .unwrap()
        .contains("missing Content-Length"));
    assert!(intake.events().is_empty());
}

#[test]
fn oversized_body_is_rejected_with_413_without_reading_it() {
    let intake = start();
    let mut c = Client::connect(&intake);
    c.send_raw(
        b"POST /logs HTTP/1.1\r\nContent-Type: application/x-ndjson\r\nContent-Length: 67108865\r\n\r\n",
    );
    let resp = c.try_read_response().expect("413 response");
    assert_eq!(resp.status, 413);
    assert_eq!(resp.header("connection"), Some("close"));
    assert_eq!(intake.stats().violations, 1);
    assert_eq!(intake.requests()[0].status, 413);
}

#[test]
fn malformed_requests_get_400_and_the_server_survives() {
    let intake = start();
    let garbage: [&[u8]; 5] = [
        b"GARBAGE\r\n\r\n",
        b"POST /x HTTP/9.9\r\n\r\n",
        b"POST /x HTTP/1.1\r\nno colon here\r\n\r\n",
        b"POST /x HTTP/1.1\r\nContent-Length: banana\r\n\r\n",
        b"\xff\xfe\xfd /x HTTP/1.1\r\n\r\n",
    ];
    for (i, raw) in garbage.iter().enumerate() {
        let mut c = Client::connect(&intake);
        c.send_raw(raw);
        let resp = c.try_read_response().expect("400 response");
        assert_eq!(resp.status, 400, "case {i}");
        assert!(
            c.is_closed_by_server(),
            "case {i}: connection must close after a framing error"
        );
        assert_eq!(intake.violations().len(), i + 1);
    }
    // A client that disconnects mid-request is not a crash either.
    let mut c = Client::connect(&intake);
    c.send_raw(b"POST /x HTTP/1.1\r\nContent-Length: 100\r\n\r\nabc");
    drop(c);
    let mut c = Client::connect(&intake);
    let resp = c.post_typed("/x", "application/x-ndjson", b"{\"still\":\"alive\"}\n");
    assert_eq!(resp.status, 200);
    assert_eq!(intake.stats().rejected_requests, garbage.len() as u64);
}

#[test]
fn keep_alive_reuses_the_connection_until_close() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let resp = c.post_typed("/logs", "application/json", b"{\"n\":1}");
    assert_eq!(resp.status, 200);
    assert_eq!(resp.header("connection"), None, "keep-alive by default");
    // Two requests pipelined in one write are both answered, in order.
    let mut both = Vec::new();
    for n in [2, 3] {
        let body = format!("{{\"n\":{n}}}");
        both.extend_from_slice(
            format!(
                "POST /logs HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
            .as_bytes(),
        );
    }
    c.send_raw(&both);
    assert_eq!(
        c.try_read_response().unwrap().json(),
        json!({"accepted": 1})
    );
    assert_eq!(
        c.try_read_response().unwrap().json(),
        json!({"accepted": 1})
    );
    let resp = c.request(
        "POST",
        "/logs",
        &[
            ("Content-Type", "application/json"),
            ("Connection", "close"),
        ],
        b"{\"n\":4}",
    );
    assert_eq!(resp.status, 200);
    assert_eq!(resp.header("connection"), Some("close"));
    assert!(c.is_closed_by_server());

    let requests = intake.requests();
    assert_eq!(requests.len(), 4);
    assert!(requests
        .iter()
        .all(|r| r.connection_id == requests[0].connection_id));
    let ns: Vec<Value> = intake
        .events()
        .into_iter()
        .map(|e| e.value["n"].clone())
        .collect();
    assert_eq!(ns, vec![json!(1), json!(2), json!(3), json!(4)]);
    assert_eq!(intake.stats().connections, 1);

    let mut other = Client::connect(&intake);
    assert_eq!(
        other.post_typed("/logs", "application/json", b"{}").status,
        200
    );
    let requests = intake.requests();
    assert_ne!(requests[4].connection_id, requests[0].connection_id);
    assert_eq!(intake.stats().connections, 2);
}

#[test]
fn keep_events_off_keeps_counters_and_feeds_the_observer() {
    let intake = Intake::start(IntakeConfig {
        keep_events: false,
        ..IntakeConfig::default()
    })
    .unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&seen);
    intake.set_observer(Box::new(move |v, _arrival| {
        sink.lock().unwrap().push(v.clone());
    }));
    let mut c = Client::connect(&intake);
    let resp = c.post_typed("/logs", "application/x-ndjson", b"{\"a\":1}\n{\"a\":2}\n");
    assert_eq!(resp.status, 200);
    assert!(intake.wait_for_events(2, WAIT));
    assert!(intake.wait_for_requests(1, WAIT));
    assert!(intake.events().is_empty());
    assert!(intake.requests().is_empty());
    assert_eq!(intake.stats().events, 2);
    assert_eq!(*seen.lock().unwrap(), vec![json!({"a":1}), json!({"a":2})]);
    // Rejected and faulted events never reach the observer.
    intake.fail_next(1, Fault::retry_after(503, 1));
    assert_eq!(
        c.post_typed("/logs", "application/x-ndjson", b"{\"a\":3}\n")
            .status,
        503
    );
    assert_eq!(
        c.post_typed("/logs", "application/x-ndjson", b"nope\n")
            .status,
        400
    );
    assert_eq!(seen.lock().unwrap().len(), 2);
}

#[test]
fn waits_time_out_when_nothing_arrives() {
    let intake = start();
    assert!(!intake.wait_for_events(1, Duration::from_millis(1)));
    assert!(!intake.wait_for_requests(1, Duration::from_millis(1)));
    assert!(intake.wait_for_events(0, Duration::ZERO));
}

#[test]
fn reset_clears_recorded_state() {
    let intake = start();
    let mut c = Client::connect(&intake);
    assert_eq!(c.post_typed("/logs", "application/json", b"{}").status, 200);
    assert_eq!(c.post_typed("/logs", "text/plain", b"x").status, 415);
    assert_eq!(intake.stats().requests, 2);
    intake.reset();
    assert!(intake.events().is_empty());
    assert!(intake.requests().is_empty());
    assert!(intake.violations().is_empty());
    let s = intake.stats();
    assert_eq!(
        (
            s.requests,
            s.events,
            s.violations,
            s.bytes_wire,
            s.max_concurrency,
            s.connections
        ),
        (0, 0, 0, 0, 0, 0)
    );
    // The same connection is counted again after the reset; ids keep growing.
    assert_eq!(c.post_typed("/logs", "application/json", b"{}").status, 200);
    assert_eq!(intake.stats().connections, 1);
    assert!(intake.requests()[0].id > 2);
}

#[test]
fn summary_reports_the_numbers() {
    let intake = start();
    let mut c = Client::connect(&intake);
    assert_eq!(
        c.post_typed("/logs", "application/json", b"[{},{},{}]")
            .status,
        200
    );
    assert_eq!(c.post_typed("/logs", "text/plain", b"x").status, 415);
    let summary = intake.summary();
    assert!(summary.contains("2 requests (1 rejected)"), "{summary}");
    assert!(summary.contains("3 events"), "{summary}");
    assert!(summary.contains("max concurrency 1"), "{summary}");
    assert!(summary.contains("1 protocol violation"), "{summary}");
    assert!(!summary.contains('\n'), "one paragraph: {summary}");
}

#[test]
fn a_panicking_observer_only_kills_its_connection() {
    let intake = start();
    intake.set_observer(Box::new(|v, _| {
        assert!(v.get("boom").is_none(), "observer panics on purpose");
    }));
    let mut c = Client::connect(&intake);
    c.send(
        "POST",
        "/logs",
        &[("Content-Type", "application/json")],
        b"{\"boom\":1}",
    );
    assert!(c.is_closed_by_server());
    let mut c = Client::connect(&intake);
    assert_eq!(
        c.post_typed("/logs", "application/json", b"{\"fine\":1}")
            .status,
        200
    );
    let values: Vec<Value> = intake.events().into_iter().map(|e| e.value).collect();
    assert_eq!(values, vec![json!({"fine": 1})]);
}

#[test]
fn count_only_counts_lines_of_any_body_and_still_refuses_what_does_not_decode() {
    let intake = Intake::start(IntakeConfig {
        count_only: true,
        keep_events: false,
        ..IntakeConfig::default()
    })
    .unwrap();
    // Not JSON at all, gzip-encoded, on a vendor path: counted, not checked.
    let body = gzip(b"not json\n{\"a\":1}\n\n   \nthird line\n");
    let answer = common::post_once(
        &intake,
        "/api/v2/logs",
        &[("Content-Encoding", "gzip"), ("Content-Type", "text/plain")],
        &body,
    );
    assert_eq!(answer.status, 200);
    let accepted: Value = serde_json::from_slice(&answer.body).unwrap();
    assert_eq!(accepted, json!({"accepted": 3}));
    // A body that claims gzip but is not: refused, counted as nothing.
    let bad = common::post_once(&intake, "/logs", &[("Content-Encoding", "gzip")], b"plain");
    assert_eq!(bad.status, 400);
    let stats = intake.stats();
    assert_eq!(stats.events, 3);
    assert!(intake.violations().iter().all(|v| !v.contains("duplicate")));
    assert!(intake.events().is_empty(), "nothing is kept");
}
