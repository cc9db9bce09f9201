//! The New Relic Log API emulation (`/log/v1`) through raw HTTP/1.1 over `TcpStream`.
//!
//! Each test reads as a specification of what the real intake answers
//! (status and body, as the vendor documents them) and of what the intake records:
//! accepted events, violations, and authentication failures. Every request
//! is answered only after its outcome is recorded, so no waiting is needed.

mod common;

use common::{
    bytes, expect_auth_failure, expect_violation, gzip, now_ms, start, start_with_key, Client, NR,
};
use serde_json::{json, Value};

const NR_JSON: [(&str, &str); 2] = [("Content-Type", "application/json"), ("Api-Key", "lic")];

fn nr_log(message: &str) -> Value {
    json!({"timestamp": now_ms(), "message": message, "attributes": {"level": "INFO", "order.id": 42, "ok": true}})
}

#[test]
fn newrelic_accepts_the_detailed_format_and_records_logs_with_common_attributes() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let body = json!([
        {"common": {"attributes": {"service": "checkout", "hostname": "web-1"}},
         "logs": [nr_log("paid"), nr_log("shipped")]},
        {"logs": [nr_log("bare")]}
    ]);
    let resp = c.post(NR, &NR_JSON, &bytes(&body));
    assert_eq!(resp.status, 202);
    let id = resp.json()["requestId"]
        .as_str()
        .expect("requestId")
        .to_string();
    let groups: Vec<usize> = id.split('-').map(str::len).collect();
    assert_eq!(groups, [8, 4, 4, 4, 12], "uuid-like: {id}");
    assert!(id.chars().all(|ch| ch == '-' || ch.is_ascii_hexdigit()));

    // gzip, also announced by the `gzip` content type alone.
    let gz = [
        ("Content-Type", "application/json"),
        ("Content-Encoding", "gzip"),
        ("Api-Key", "lic"),
    ];
    let resp = c.post(NR, &gz, &gzip(&bytes(&body)));
    assert_eq!(resp.status, 202);
    assert_ne!(
        resp.json()["requestId"].as_str(),
        Some(id.as_str()),
        "ids are unique"
    );
    let gz_type = [("Content-Type", "gzip"), ("Api-Key", "lic")];
    assert_eq!(c.post(NR, &gz_type, &gzip(&bytes(&body))).status, 202);
    assert_eq!(
        c.post(
            NR,
            &[("Content-Type", "json"), ("Api-Key", "lic")],
            &bytes(&body)
        )
        .status,
        202
    );

    let events = intake.events();
    assert_eq!(events.len(), 12);
    let mut expected = body[0]["logs"][0].clone();
    expected["common"] = json!({"service": "checkout", "hostname": "web-1"});
    assert_eq!(events[0].value, expected);
    assert_eq!(events[2].value["message"], "bare");
    assert_eq!(events[2].value["common"], json!({}));
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
    assert!(intake.requests().iter().all(|r| r.vendor == "newrelic"));
}

#[test]
fn newrelic_refuses_a_missing_or_wrong_key_with_403_and_accepts_every_key_location() {
    let intake = start_with_key("lic");
    let mut c = Client::connect(&intake);
    let body = bytes(&json!([{"logs": [nr_log("x")]}]));
    let ct = ("Content-Type", "application/json");

    expect_auth_failure(&intake, &mut c, NR, &[ct], &body, 403);
    expect_auth_failure(&intake, &mut c, NR, &[ct, ("Api-Key", "wrong")], &body, 403);
    expect_auth_failure(&intake, &mut c, "/log/v1?Api-Key=wrong", &[ct], &body, 403);
    for (path, headers) in [
        (NR, vec![ct, ("Api-Key", "lic")]),
        (NR, vec![ct, ("X-License-Key", "lic")]),
        (NR, vec![ct, ("License-Key", "lic")]),
        ("/log/v1?Api-Key=lic", vec![ct]),
    ] {
        assert_eq!(
            c.post(path, &headers, &body).status,
            202,
            "{path} {headers:?}"
        );
    }
    assert_eq!(intake.stats().auth_failures, 3);
    assert!(intake.violations().is_empty());
}

#[test]
fn newrelic_requires_one_of_its_content_types() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let body = bytes(&json!([{"logs": [nr_log("x")]}]));
    expect_violation(
        &intake,
        &mut c,
        (
            NR,
            &[("Content-Type", "text/plain"), ("Api-Key", "k")],
            &body,
        ),
        415,
        "Content-Type",
    );
    expect_violation(
        &intake,
        &mut c,
        (
            NR,
            &[("Content-Type", "application/x-ndjson"), ("Api-Key", "k")],
            &body,
        ),
        415,
        "Content-Type",
    );
    expect_violation(
        &intake,
        &mut c,
        (NR, &[("Api-Key", "k")], &body),
        415,
        "missing Content-Type",
    );
}

#[test]
fn newrelic_limits_the_body_as_sent_on_the_wire() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let sized = |total: usize| {
        let skeleton = bytes(&json!([{"logs": [{"message": ""}]}])).len();
        let body = bytes(&json!([{"logs": [{"message": "z".repeat(total - skeleton)}]}]));
        assert_eq!(body.len(), total);
        body
    };
    assert_eq!(c.post(NR, &NR_JSON, &sized(1_000_000)).status, 202);
    let resp = expect_violation(
        &intake,
        &mut c,
        (NR, &NR_JSON, &sized(1_000_001)),
        413,
        "as sent",
    );
    assert_eq!(resp.status, 413);
    // Compressed below the limit: fine even though it inflates to 3 MB.
    let gz = [
        ("Content-Type", "application/json"),
        ("Content-Encoding", "gzip"),
        ("Api-Key", "k"),
    ];
    let small_wire = gzip(&sized(3_000_000));
    assert!(small_wire.len() < 1_000_000);
    assert_eq!(c.post(NR, &gz, &small_wire).status, 202);
    let requests = intake.requests();
    let last = requests.last().unwrap();
    assert_eq!(last.body_bytes, small_wire.len());
    assert_eq!(last.decoded_bytes, 3_000_000);
}

#[test]
fn newrelic_tolerates_the_simple_format_but_records_a_violation() {
    let intake = start();
    let mut c = Client::connect(&intake);
    for (body, n) in [
        (json!(nr_log("one")), 1),
        (json!([nr_log("a"), nr_log("b")]), 2),
        (json!({"logs": [nr_log("block")]}), 1),
    ] {
        let before = intake.violations().len();
        let resp = c.post(NR, &NR_JSON, &bytes(&body));
        assert_eq!(resp.status, 202);
        let violations = intake.violations();
        assert_eq!(violations.len(), before + 1);
        assert!(
            violations[before].contains("use the detailed format"),
            "{}",
            violations[before]
        );
        assert_eq!(intake.requests().last().unwrap().events, n);
    }
    assert_eq!(intake.events()[0].value["common"], json!({}));
}

#[test]
fn newrelic_validation_breaches_get_400_and_a_violation() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let block = |log: Value| bytes(&json!([{"logs": [log]}]));
    let with = |key: &str, value: Value| {
        let mut log = nr_log("m");
        log[key] = value;
        block(log)
    };
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (block(json!({"timestamp": now_ms()})), "message is missing"),
        (with("message", json!(1)), "message is a number"),
        (
            with("timestamp", json!(now_ms() / 1000)),
            "looks like epoch seconds",
        ),
        (
            with("timestamp", json!("2026-01-01T00:00:00Z")),
            "timestamp is a string",
        ),
        (
            with("attributes", json!({"tags": ["a", "b"]})),
            "New Relic does not support arrays",
        ),
        (
            with("attributes", json!({"user": {"id": 1}})),
            "\"user\" is a object",
        ),
        (with("attributes", json!({"n": null})), "\"n\" is a null"),
        (with("attributes", json!("flat")), "attributes is a string"),
        (
            bytes(&json!([{"common": {"attributes": {"t": [1]}}, "logs": [nr_log("m")]}])),
            "common.attributes",
        ),
        (
            bytes(&json!([{"logs": [nr_log("m")]}, {"common": {}}])),
            "block 1 has no `logs`",
        ),
        (bytes(&json!([{"logs": "nope"}])), "`logs` is not an array"),
        (bytes(&json!("text")), "not an array of blocks"),
        (b"[{".to_vec(), "not valid JSON"),
    ];
    for (body, needle) in cases {
        expect_violation(&intake, &mut c, (NR, &NR_JSON, &body), 400, needle);
    }
}
