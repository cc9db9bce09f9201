//! The Dynatrace log ingest emulation (`/api/v2/logs/ingest`) through raw HTTP/1.1 over
//! `TcpStream`.
//!
//! Each test reads as a specification of what the real intake answers
//! (status and body, as the vendor documents them) and of what the intake records:
//! accepted events, violations, and authentication failures. Every request
//! is answered only after its outcome is recorded, so no waiting is needed.

mod common;

use common::{
    bytes, expect_auth_failure, expect_violation, gzip, now_ms, start, start_with_key, Case,
    Client, DT,
};
use logship_intake::Fault;
use serde_json::{json, Value};

const DT_JSON: [(&str, &str); 2] = [
    ("Content-Type", "application/json; charset=utf-8"),
    ("Authorization", "Api-Token dt0c01.abc"),
];

fn dt_record(content: &str) -> Value {
    json!({"timestamp": "2026-01-17T22:12:31.000Z", "severity": "error", "content": content,
           "log.source": "checkout", "service.name": "checkout"})
}

#[test]
fn dynatrace_accepts_valid_records_with_204_and_no_body() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let batch =
        json!([dt_record("a"), {"content": "b", "timestamp": now_ms(), "loglevel": "INFO"}]);
    let resp = c.post(DT, &DT_JSON, &bytes(&batch));
    assert_eq!(resp.status, 204);
    assert!(resp.body.is_empty());
    assert!(resp.header("content-length").is_none());

    assert_eq!(
        c.post(DT, &DT_JSON, &bytes(&dt_record("single"))).status,
        204
    );
    let lines = format!("{}\n{}\n", dt_record("l1"), dt_record("l2"));
    for ct in [
        "application/jsonl",
        "application/jsonlines",
        "application/jsonlines+json",
        "application/x-ndjson",
        "application/x-jsonlines",
    ] {
        let headers = [("Content-Type", ct), ("Authorization", "Api-Token t")];
        assert_eq!(c.post(DT, &headers, lines.as_bytes()).status, 204, "{ct}");
    }
    let gz = [
        ("Content-Type", "application/json"),
        ("Content-Encoding", "gzip"),
        ("Authorization", "Api-Token t"),
    ];
    assert_eq!(c.post(DT, &gz, &gzip(&bytes(&batch))).status, 204);

    let events = intake.events();
    assert_eq!(events.len(), 2 + 1 + 10 + 2);
    assert_eq!(events[0].value, batch[0]);
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
    assert!(intake.requests().iter().all(|r| r.vendor == "dynatrace"));
}

#[test]
fn dynatrace_routes_the_environment_path_and_nothing_deeper() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let body = bytes(&json!([dt_record("env")]));
    let resp = c.post(
        "/e/abc12345/api/v2/logs/ingest?structure=raw",
        &DT_JSON,
        &body,
    );
    assert_eq!(resp.status, 204);
    // Not a Dynatrace path, but under its prefix: 404, as the real one answers a typo.
    let resp = c.post("/e/a/b/api/v2/logs/ingest", &DT_JSON, &body);
    assert_eq!(resp.status, 404);
    let vendors: Vec<String> = intake.requests().into_iter().map(|r| r.vendor).collect();
    assert_eq!(vendors, ["dynatrace", "generic"]);
    assert_eq!(intake.events().len(), 1);
}

#[test]
fn dynatrace_refuses_a_missing_or_wrong_token_with_401() {
    let intake = start_with_key("dt0c01.secret");
    let mut c = Client::connect(&intake);
    let body = bytes(&json!([dt_record("x")]));
    let ct = ("Content-Type", "application/json");
    for headers in [
        vec![ct],
        vec![ct, ("Authorization", "Api-Token wrong")],
        vec![ct, ("Authorization", "Basic dt0c01.secret")],
        vec![ct, ("Authorization", "dt0c01.secret")],
    ] {
        let resp = expect_auth_failure(&intake, &mut c, DT, &headers, &body, 401);
        let err = resp.json();
        assert_eq!(err["error"]["code"], 401, "{headers:?}");
        assert!(err["error"]["message"].is_string());
    }
    assert_eq!(
        c.post(
            DT,
            &[ct, ("Authorization", "Api-Token dt0c01.secret")],
            &body
        )
        .status,
        204
    );
    assert_eq!(intake.stats().auth_failures, 4);
}

#[test]
fn dynatrace_validation_breaches_get_their_status_and_a_violation() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let with = |key: &str, value: Value| {
        let mut r = dt_record("m");
        r[key] = value;
        bytes(&json!([r]))
    };
    let mut no_content = dt_record("m");
    no_content.as_object_mut().unwrap().remove("content");
    let auth = ("Authorization", "Api-Token t");
    let cases: Vec<Case> = vec![
        (
            vec![("Content-Type", "application/xml"), auth],
            bytes(&json!([dt_record("m")])),
            415,
            "Content-Type",
        ),
        (
            vec![auth],
            bytes(&json!([dt_record("m")])),
            415,
            "missing Content-Type",
        ),
        (
            DT_JSON.to_vec(),
            bytes(&json!([no_content])),
            400,
            "content is missing",
        ),
        (
            DT_JSON.to_vec(),
            with("content", json!({"a": 1})),
            400,
            "content is a object",
        ),
        (
            DT_JSON.to_vec(),
            with("timestamp", json!("17/01/2026 22:12")),
            400,
            "neither RFC 3339",
        ),
        (
            DT_JSON.to_vec(),
            with("timestamp", json!(now_ms() / 1000)),
            400,
            "looks like epoch seconds",
        ),
        (
            DT_JSON.to_vec(),
            with("timestamp", json!(1.5)),
            400,
            "timestamp",
        ),
        (
            DT_JSON.to_vec(),
            with("severity", json!(3)),
            400,
            "severity is a number",
        ),
        (
            DT_JSON.to_vec(),
            with("loglevel", json!(["x"])),
            400,
            "loglevel",
        ),
        (DT_JSON.to_vec(), b"[]".to_vec(), 400, "empty batch"),
        (DT_JSON.to_vec(), b"[1]".to_vec(), 400, "element 0"),
        (DT_JSON.to_vec(), b"{".to_vec(), 400, "not valid JSON"),
    ];
    for (headers, body, status, needle) in cases {
        let resp = expect_violation(&intake, &mut c, (DT, &headers, &body), status, needle);
        assert_eq!(resp.json()["error"]["code"], status, "{needle}");
    }
}

#[test]
fn dynatrace_enforces_the_record_count_and_decoded_size_limits() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let records = |n: usize| bytes(&Value::Array(vec![json!({"content": "r"}); n]));
    assert_eq!(c.post(DT, &DT_JSON, &records(50_000)).status, 204);
    let resp = expect_violation(
        &intake,
        &mut c,
        (DT, &DT_JSON, &records(50_001)),
        413,
        "at most 50000",
    );
    assert_eq!(resp.json()["error"]["code"], 413);

    let sized = |total: usize| {
        let skeleton = bytes(&json!([{"content": ""}])).len();
        gzip(&bytes(&json!([{"content": "q".repeat(total - skeleton)}])))
    };
    let gz = [
        ("Content-Type", "application/json"),
        ("Content-Encoding", "gzip"),
        ("Authorization", "Api-Token t"),
    ];
    assert_eq!(c.post(DT, &gz, &sized(10_000_000)).status, 204);
    expect_violation(
        &intake,
        &mut c,
        (DT, &gz, &sized(10_000_001)),
        413,
        "10000000",
    );
}

#[test]
fn dynatrace_partial_success_can_be_injected_as_a_200_fault() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let body = r#"{"details":{"code":200,"message":"1 record too big"}}"#;
    intake.fail_next(1, Fault::json(200, body));
    let resp = c.post(DT, &DT_JSON, &bytes(&json!([dt_record("x")])));
    assert_eq!(resp.status, 200);
    assert_eq!(resp.header("content-type"), Some("application/json"));
    assert_eq!(resp.json()["details"]["code"], 200);
    let stats = intake.stats();
    assert_eq!(stats.rejected_requests, 0, "a 2xx fault is not a rejection");
    assert_eq!(stats.events, 0, "faulted requests record no events");
    // The next request is handled normally.
    assert_eq!(
        c.post(DT, &DT_JSON, &bytes(&json!([dt_record("y")])))
            .status,
        204
    );
}
