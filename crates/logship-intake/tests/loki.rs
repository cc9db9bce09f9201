//! The Grafana Loki push emulation through raw HTTP/1.1 over `TcpStream`: what the real
//! Loki answers (docs/wire-formats.md section 6: 204, or 400 with a text body naming the stream and
//! the reason) and what the intake records (events, violations, auth failures).

use std::io::Write;
use std::time::{SystemTime, UNIX_EPOCH};

mod common;

use common::post_once;

use logship_intake::{Intake, IntakeConfig};
use serde_json::{json, Value};

const PUSH: &str = "/loki/api/v1/push";
const JSON: (&str, &str) = ("Content-Type", "application/json");

/// One request on a fresh connection: `(status, content type, body)`.
fn post(intake: &Intake, headers: &[(&str, &str)], body: &[u8]) -> (u16, String, String) {
    let answer = post_once(intake, PUSH, headers, body);
    let text = String::from_utf8_lossy(&answer.body).into_owned();
    (answer.status, answer.content_type, text)
}

fn now_ns() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

fn push_body(labels: Value, values: Value) -> Vec<u8> {
    json!({"streams": [{"stream": labels, "values": values}]})
        .to_string()
        .into_bytes()
}

#[test]
fn a_gzip_json_push_is_answered_204_and_each_entry_recorded() {
    let intake = Intake::start(IntakeConfig::default()).unwrap();
    let ts = now_ns().to_string();
    let body = gzip(&push_body(
        json!({"service": "checkout", "level": "info"}),
        json!([[ts, "one"], [ts, "two", {"trace_id": "abc"}]]),
    ));
    let (status, _, text) = post(
        &intake,
        &[
            JSON,
            ("Content-Encoding", "gzip"),
            ("X-Scope-OrgID", "team-a"),
        ],
        &body,
    );
    assert_eq!((status, text.as_str()), (204, ""));
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
    let events = intake.events();
    assert_eq!(events.len(), 2);
    assert_eq!(events[1].value["line"], "two");
    assert_eq!(events[1].value["metadata"], json!({"trace_id": "abc"}));
    assert_eq!(events[1].value["tenant"], "team-a");
    assert_eq!(intake.requests()[0].vendor, "loki");
}

#[test]
fn violations_get_400_with_a_text_body_naming_the_stream_and_reason() {
    let intake = Intake::start(IntakeConfig::default()).unwrap();
    let long = "x".repeat(256 * 1024 + 1);
    let (status, content_type, text) = post(
        &intake,
        &[JSON],
        &push_body(
            json!({"level": "info"}),
            json!([[now_ns().to_string(), long]]),
        ),
    );
    assert_eq!(status, 400);
    assert!(content_type.starts_with("text/plain"), "{content_type}");
    assert!(
        text.contains("stream '{level=\"info\"}'") && text.contains("line_too_long"),
        "{text}"
    );
    let (status, _, text) = post(
        &intake,
        &[JSON],
        &push_body(json!({"level": "info"}), json!([[1u64, "numeric ts"]])),
    );
    assert_eq!(status, 400);
    assert!(text.contains("STRING of epoch nanoseconds"), "{text}");
    let (status, _, _) = post(&intake, &[("Content-Type", "application/x-protobuf")], b"x");
    assert_eq!(status, 415);
    assert_eq!(intake.violations().len(), 3);
    assert_eq!(intake.stats().events, 0);
}

#[test]
fn with_a_key_basic_auth_must_carry_it_as_the_password() {
    let intake = Intake::start(IntakeConfig {
        api_key: Some("tok".into()),
        ..IntakeConfig::default()
    })
    .unwrap();
    let body = push_body(
        json!({"level": "info"}),
        json!([[now_ns().to_string(), "x"]]),
    );
    // "u:tok" and "u:bad" in base64.
    assert_eq!(post(&intake, &[JSON], &body).0, 401);
    assert_eq!(
        post(&intake, &[JSON, ("Authorization", "Basic dTpiYWQ=")], &body).0,
        401
    );
    assert_eq!(
        post(&intake, &[JSON, ("Authorization", "Basic dTp0b2s=")], &body).0,
        204
    );
    let stats = intake.stats();
    assert_eq!(
        (stats.auth_failures, stats.violations, stats.events),
        (2, 0, 1)
    );
}
