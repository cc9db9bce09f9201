//! The Datadog Logs intake emulation (`/api/v2/logs`) through raw HTTP/1.1 over
//! `TcpStream`.
//!
//! Each test reads as a specification of what the real intake answers
//! (status and body, as the vendor documents them) and of what the intake records:
//! accepted events, violations, and authentication failures. Every request
//! is answered only after its outcome is recorded, so no waiting is needed.

mod common;

use std::io::Write;

use common::{
    bytes, expect_auth_failure, expect_violation, gzip, now_ms, start, start_with_key, Case,
    Client, DD,
};
use serde_json::{json, Value};

fn zlib(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

const DD_JSON: [(&str, &str); 2] = [("Content-Type", "application/json"), ("DD-API-KEY", "k")];

fn dd_entry(message: &str) -> Value {
    json!({
        "ddsource": "rust", "ddtags": "env:test,version:1", "hostname": "web-1",
        "service": "checkout", "status": "info", "message": message,
        "timestamp": now_ms(), "order_id": 42
    })
}

#[test]
fn datadog_accepts_a_valid_batch_with_202_and_records_each_entry() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let batch = json!([dd_entry("a"), dd_entry("b")]);
    let resp = c.post(DD, &DD_JSON, &bytes(&batch));
    assert_eq!(resp.status, 202);
    assert_eq!(resp.json(), json!({}));

    // gzip and zlib-wrapped deflate, with a charset parameter.
    for (encoding, body) in [
        ("gzip", gzip(&bytes(&batch))),
        ("deflate", zlib(&bytes(&batch))),
    ] {
        let headers = [
            ("Content-Type", "application/json; charset=utf-8"),
            ("Content-Encoding", encoding),
            ("DD-API-KEY", "k"),
        ];
        assert_eq!(c.post(DD, &headers, &body).status, 202, "{encoding}");
    }
    // A single object is tolerated.
    assert_eq!(c.post(DD, &DD_JSON, &bytes(&dd_entry("c"))).status, 202);

    let events = intake.events();
    assert_eq!(events.len(), 7);
    assert_eq!(events[0].value, batch[0]);
    assert_eq!(events[6].value["message"], "c");
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
    let requests = intake.requests();
    assert!(requests.iter().all(|r| r.vendor == "datadog"));
}

#[test]
fn datadog_refuses_a_missing_key_with_401_and_a_wrong_key_with_403() {
    let intake = start_with_key("secret");
    let mut c = Client::connect(&intake);
    let body = bytes(&json!([dd_entry("x")]));
    let ct = ("Content-Type", "application/json");

    let resp = expect_auth_failure(&intake, &mut c, DD, &[ct], &body, 401);
    assert_eq!(resp.json()["errors"][0]["status"], "401");
    let resp = expect_auth_failure(&intake, &mut c, DD, &[ct, ("DD-API-KEY", "")], &body, 401);
    assert_eq!(resp.json()["errors"][0]["status"], "401");
    let resp = expect_auth_failure(
        &intake,
        &mut c,
        DD,
        &[ct, ("DD-API-KEY", "nope")],
        &body,
        403,
    );
    let err = resp.json();
    assert_eq!(err["errors"][0]["status"], "403");
    assert_eq!(err["errors"][0]["title"], "Forbidden");
    assert!(err["errors"][0]["detail"].is_string());

    assert_eq!(
        c.post(DD, &[ct, ("DD-API-KEY", "secret")], &body).status,
        202
    );
    // Changing the key at run time takes effect for the next request.
    intake.set_api_key(Some("rotated".into()));
    expect_auth_failure(
        &intake,
        &mut c,
        DD,
        &[ct, ("DD-API-KEY", "secret")],
        &body,
        403,
    );
    intake.set_api_key(None);
    assert_eq!(
        c.post(DD, &[ct, ("DD-API-KEY", "anything")], &body).status,
        202
    );
    assert_eq!(intake.stats().auth_failures, 4);
}

#[test]
fn datadog_validation_breaches_get_their_status_and_a_violation() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let now = now_ms();
    let with = |key: &str, value: Value| {
        let mut e = dd_entry("m");
        e[key] = value;
        bytes(&json!([e]))
    };
    let mut no_message = dd_entry("m");
    no_message.as_object_mut().unwrap().remove("message");
    let cases: Vec<Case> = vec![
        (
            vec![("Content-Type", "text/plain"), ("DD-API-KEY", "k")],
            bytes(&json!([dd_entry("m")])),
            415,
            "Content-Type",
        ),
        (
            vec![("DD-API-KEY", "k")],
            bytes(&json!([dd_entry("m")])),
            415,
            "missing Content-Type",
        ),
        (
            vec![
                ("Content-Type", "application/json"),
                ("Content-Encoding", "br"),
                ("DD-API-KEY", "k"),
            ],
            b"[]".to_vec(),
            415,
            "Content-Encoding",
        ),
        (
            DD_JSON.to_vec(),
            b"[{\"message\":".to_vec(),
            400,
            "not valid JSON",
        ),
        (
            DD_JSON.to_vec(),
            b"[\"just a string\"]".to_vec(),
            400,
            "element 0",
        ),
        (
            DD_JSON.to_vec(),
            bytes(&json!([no_message])),
            400,
            "message is missing",
        ),
        (
            DD_JSON.to_vec(),
            with("message", json!(5)),
            400,
            "message is a number",
        ),
        (
            DD_JSON.to_vec(),
            with("status", json!(3)),
            400,
            "status is a number",
        ),
        (
            DD_JSON.to_vec(),
            with("ddtags", json!(["env:a", "v:1"])),
            400,
            "ddtags is a array",
        ),
        (
            DD_JSON.to_vec(),
            with("hostname", json!(1)),
            400,
            "hostname",
        ),
        (
            DD_JSON.to_vec(),
            with("service", json!({"a": 1})),
            400,
            "service",
        ),
        (
            DD_JSON.to_vec(),
            with("ddsource", json!(true)),
            400,
            "ddsource",
        ),
        (
            DD_JSON.to_vec(),
            with("timestamp", json!(now / 1000)),
            400,
            "looks like epoch seconds",
        ),
        (
            DD_JSON.to_vec(),
            with("timestamp", json!("2026-01-01T00:00:00Z")),
            400,
            "timestamp is a string",
        ),
        (
            DD_JSON.to_vec(),
            with("timestamp", json!(now - 19 * 3_600_000)),
            400,
            "18 h in the past",
        ),
        (
            DD_JSON.to_vec(),
            with("timestamp", json!(now + 3 * 3_600_000)),
            400,
            "2 h in the future",
        ),
    ];
    for (headers, body, status, needle) in cases {
        let resp = expect_violation(&intake, &mut c, (DD, &headers, &body), status, needle);
        let err = resp.json();
        assert_eq!(err["errors"][0]["status"], status.to_string(), "{needle}");
    }
    // Boundaries of the time window are inside it.
    let body = with("timestamp", json!(now - 17 * 3_600_000));
    assert_eq!(c.post(DD, &DD_JSON, &body).status, 202);
    let resp = c.request("GET", DD, &DD_JSON, b"");
    assert_eq!(resp.status, 405);
    assert_eq!(resp.json()["errors"][0]["status"], "405");
}

#[test]
fn datadog_enforces_the_entry_count_and_decoded_size_limits() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let entries = |n: usize| {
        bytes(&Value::Array(
            (0..n).map(|i| dd_entry(&i.to_string())).collect(),
        ))
    };

    assert_eq!(c.post(DD, &DD_JSON, &entries(1000)).status, 202);
    expect_violation(
        &intake,
        &mut c,
        (DD, &DD_JSON, &entries(1001)),
        400,
        "more than 1000 entries",
    );

    // 5,000,000 bytes decoded is the limit, whatever the wire size.
    let big = |total: usize| {
        let skeleton = bytes(&json!([{ "message": "" }])).len();
        let msg = "x".repeat(total - skeleton);
        let body = bytes(&json!([{ "message": msg }]));
        assert_eq!(body.len(), total);
        gzip(&body)
    };
    let gz = [
        ("Content-Type", "application/json"),
        ("Content-Encoding", "gzip"),
        ("DD-API-KEY", "k"),
    ];
    // An entry this big is over 1 MB: accepted but recorded (see the next test).
    let before = intake.violations().len();
    assert_eq!(c.post(DD, &gz, &big(5_000_000)).status, 202);
    assert_eq!(intake.violations().len(), before + 1);
    let resp = expect_violation(&intake, &mut c, (DD, &gz, &big(5_000_001)), 413, "5000000");
    assert_eq!(resp.json()["errors"][0]["status"], "413");
}

#[test]
fn datadog_accepts_an_entry_over_1_mb_but_records_a_violation() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let huge = dd_entry(&"y".repeat(1_000_001));
    let body = bytes(&json!([dd_entry("small"), huge]));
    let resp = c.post(DD, &DD_JSON, &body);
    assert_eq!(resp.status, 202);
    assert_eq!(resp.json(), json!({}));
    assert_eq!(intake.events().len(), 2, "both entries are accepted");
    let violations = intake.violations();
    assert_eq!(violations.len(), 1, "{violations:?}");
    assert!(
        violations[0].contains("entry 1 over 1 MB"),
        "{}",
        violations[0]
    );
    assert!(violations[0].contains("truncates"), "{}", violations[0]);
}
