//! Routing shared by the vendor emulations (Datadog, Splunk HEC, New Relic, Dynatrace),
//! through raw HTTP/1.1 over `TcpStream`: paths that are not a vendor's stay generic, and
//! each vendor endpoint refuses chunked bodies and other methods in its own answer shape.
//!
//! Each test reads as a specification of what the real intake answers
//! (status and body, as the vendor documents them) and of what the intake records:
//! accepted events, violations, and authentication failures. Every request
//! is answered only after its outcome is recorded, so no waiting is needed.

mod common;

use std::io::Write;

use common::{start, Client, DD, DT, HEC};
use serde_json::json;

#[test]
fn generic_paths_are_unchanged_and_recorded_as_generic() {
    let intake = start();
    let mut c = Client::connect(&intake);
    for path in ["/logs", "/ingest", "/my-app/events"] {
        let resp = c.post(
            path,
            &[("Content-Type", "application/json")],
            b"[{\"m\":1}]",
        );
        assert_eq!(resp.status, 200, "{path}");
        assert_eq!(resp.json(), json!({"accepted": 1}));
    }
    assert!(intake.requests().iter().all(|r| r.vendor == "generic"));
    assert_eq!(intake.stats().auth_failures, 0);
}

/// A path under a vendor's prefix that no vendor serves is what a typo in an endpoint
/// looks like: the real vendor answers 404, so the intake does too, naming the paths it
/// serves, records a violation, and keeps no event.
#[test]
fn unknown_paths_under_vendor_prefixes_answer_404_naming_the_served_paths() {
    let intake = start();
    let mut c = Client::connect(&intake);
    for path in [
        "/api/v2/lgos",
        "/api/v2/logs/",
        "/services/collector/raw",
        "/log/v2",
        "/loki/api/v1/psh",
        "/v1/log",
        "/otlp/v1/logs",
        "/e//api/v2/logs/ingest",
        "/_blk",
        "/idx/_bulkk",
    ] {
        let resp = c.post(
            path,
            &[("Content-Type", "application/json"), ("DD-API-KEY", "k")],
            b"[{\"m\":1}]",
        );
        assert_eq!(resp.status, 404, "{path}");
        let error = resp.json()["error"].as_str().unwrap_or_default().to_owned();
        assert!(error.contains(&format!("unknown path {path:?}")), "{error}");
        for served in [
            "/api/v2/logs (datadog)",
            "/loki/api/v1/push (loki)",
            "/v1/logs (otlp)",
        ] {
            assert!(error.contains(served), "{error}");
        }
    }
    assert_eq!(intake.stats().events, 0);
    assert_eq!(intake.violations().len(), 10, "{:?}", intake.violations());
}

#[test]
fn vendor_endpoints_reject_chunked_bodies_and_other_methods_in_their_own_shape() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let resp = c.request(
        "PUT",
        HEC,
        &[("Authorization", "Splunk t")],
        br#"{"event":"x"}"#,
    );
    assert_eq!(resp.status, 405);
    assert_eq!(resp.header("allow"), Some("POST"));
    assert_eq!(resp.json()["code"], 405);
    let resp = c.request("GET", DT, &[], b"");
    assert_eq!(resp.status, 405);
    assert_eq!(resp.json()["error"]["code"], 405);

    let raw = format!(
        "POST {DD} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nDD-API-KEY: k\r\n\
         Transfer-Encoding: chunked\r\n\r\n2\r\n[]\r\n0\r\n\r\n"
    );
    c.writer.write_all(raw.as_bytes()).unwrap();
    let resp = c.read_response();
    assert_eq!(resp.status, 411);
    assert_eq!(resp.json()["errors"][0]["status"], "411");
    assert_eq!(intake.stats().violations, 3);
}

/// `GET /_intake/events` keeps the last 1000 accepted events whatever `keep_events`
/// says (bounded memory for a long-running intake), oldest first, with their vendor.
#[test]
fn the_last_events_are_served_bounded_even_without_keeping_events() {
    let intake = logship_intake::Intake::start(logship_intake::IntakeConfig {
        keep_events: false,
        ..logship_intake::IntakeConfig::default()
    })
    .unwrap();
    let mut c = Client::connect(&intake);
    let mut body = Vec::new();
    for i in 0..1005 {
        body.extend_from_slice(format!("{{\"i\":{i}}}\n").as_bytes());
    }
    let resp = c.post("/logs", &[("Content-Type", "application/x-ndjson")], &body);
    assert_eq!(resp.status, 200);
    assert!(intake.events().is_empty(), "keep_events is off");
    let resp = c.request("GET", "/_intake/events?n=5000", &[], b"");
    assert_eq!(resp.status, 200);
    let events = resp.json();
    let events = events.as_array().unwrap();
    assert_eq!(events.len(), 1000);
    assert_eq!(events[0], json!({"vendor": "generic", "event": {"i": 5}}));
    assert_eq!(events[999]["event"]["i"], 1004);
    let resp = c.request("GET", "/_intake/events?n=2", &[], b"");
    assert_eq!(resp.json()[1]["event"]["i"], 1004);
}
