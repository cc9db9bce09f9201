//! The vendor decoders on real wire payloads (each vendor's own format, built as its
//! clients build it) and on hostile ones, each answered as the vendor answers.

use logship::{Entry, Level, Record};
use opentelemetry_proto::tonic::collector::logs::v1::{
    ExportLogsServiceRequest, ExportLogsServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{
    any_value, AnyValue, InstrumentationScope, KeyValue, KeyValueList,
};
use opentelemetry_proto::tonic::logs::v1::{LogRecord, ResourceLogs, ScopeLogs};
use opentelemetry_proto::tonic::resource::v1::Resource;
use prost::Message;
use serde_json::Value;

use super::*;

/// A request of `method` on `target` (path and query).
fn req<'a>(
    method: &'a str,
    target: &'a str,
    headers: &'a [(String, String)],
    body: &'a [u8],
) -> Request<'a> {
    let (path, query) = match target.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (target, None),
    };
    Request {
        method,
        path,
        query,
        headers,
        body,
    }
}

fn headers(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_ascii_lowercase(), (*v).to_owned()))
        .collect()
}

/// Decodes `body` POSTed to `target` with `pairs` as headers.
fn post(target: &str, pairs: &[(&str, &str)], body: &[u8]) -> Decoded {
    let h = headers(pairs);
    let (path, _) = target.split_once('?').unwrap_or((target, ""));
    let vendor = route(path).expect("a vendor path");
    decode(vendor, &req("POST", target, &h, body))
}

/// The events and answer of an accepted request.
fn events(d: Decoded) -> (Vec<Record>, Answer) {
    match d {
        Decoded::Events(r, a) => (r, a),
        Decoded::Answer(a) => panic!("refused: {} {}", a.status, String::from_utf8_lossy(&a.body)),
    }
}

/// The answer of a request that carried no events.
fn answer(d: Decoded) -> Answer {
    match d {
        Decoded::Answer(a) => a,
        Decoded::Events(r, _) => panic!("accepted {} events", r.len()),
    }
}

fn json(a: &Answer) -> Value {
    serde_json::from_slice(&a.body).expect("a JSON answer")
}

/// The record's fields as `(name, Debug of value)`.
fn fields(r: &Record) -> Vec<(String, String)> {
    r.entries()
        .filter_map(|e| match e {
            Entry::Field(k, v) => Some((k.to_owned(), format!("{v:?}"))),
            _ => None,
        })
        .collect()
}

/// The string field `name`.
fn field(r: &Record, name: &str) -> Option<String> {
    r.entries().find_map(|e| match e {
        Entry::Field(k, logship::Value::Str(s)) if k == name => Some(s.to_owned()),
        _ => None,
    })
}

const T0_MS: u64 = 1_796_133_600_123; // 2026-12-01T14:00:00.123Z

#[test]
fn routes_each_vendor_path() {
    assert_eq!(route("/api/v2/logs"), Some(Vendor::Datadog));
    assert_eq!(route("/v1/input"), Some(Vendor::Datadog));
    assert_eq!(route("/v1/input/abc"), Some(Vendor::Datadog));
    assert_eq!(route("/services/collector"), Some(Vendor::SplunkEvent));
    assert_eq!(
        route("/services/collector/event"),
        Some(Vendor::SplunkEvent)
    );
    assert_eq!(
        route("/services/collector/event/1.0"),
        Some(Vendor::SplunkEvent)
    );
    assert_eq!(route("/services/collector/raw"), Some(Vendor::SplunkRaw));
    assert_eq!(
        route("/services/collector/health"),
        Some(Vendor::SplunkHealth)
    );
    assert_eq!(route("/v1/logs"), Some(Vendor::Otlp));
    assert_eq!(route("/loki/api/v1/push"), Some(Vendor::Loki));
    for other in [
        "/",
        "/logs",
        "/api/v2/logsx",
        "/v1/input/a/b",
        "/services/collectorx",
    ] {
        assert_eq!(route(other), None, "{other}");
    }
}

// ---------------------------------------------------------------- Datadog

#[test]
fn datadog_array_maps_reserved_attributes_tags_and_nested_objects() {
    let body = format!(
        r#"[{{"ddsource":"java","ddtags":"env:prod,version:1.2,canary","hostname":"web-1","service":"checkout","message":"payment accepted","status":"warn","timestamp":{T0_MS},"logger.name":"shop.Pay","order_id":42,"http":{{"method":"GET"}}}},
            {{"message":"second","status":"notice","date":"2026-12-01T14:00:00Z"}}]"#
    );
    let (records, ok) = events(post(
        "/api/v2/logs",
        &[("Content-Type", "application/json"), ("DD-API-KEY", "k")],
        body.as_bytes(),
    ));
    assert_eq!(ok.status, 202);
    assert_eq!(json(&ok), serde_json::json!({}));
    assert_eq!(records.len(), 2);
    let r = &records[0];
    assert_eq!(r.message_str(), "payment accepted");
    assert_eq!(r.level(), Level::Warn);
    assert_eq!(r.target(), "shop.Pay");
    assert_eq!(r.timestamp_nanos(), T0_MS * 1_000_000);
    assert_eq!(field(r, "host").as_deref(), Some("web-1"));
    assert_eq!(field(r, "service").as_deref(), Some("checkout"));
    assert_eq!(field(r, "source").as_deref(), Some("java"));
    assert_eq!(field(r, "env").as_deref(), Some("prod"));
    assert_eq!(field(r, "version").as_deref(), Some("1.2"));
    assert_eq!(field(r, "http.method").as_deref(), Some("GET"));
    let f = fields(r);
    assert!(f.contains(&("canary".into(), format!("{:?}", logship::Value::Bool(true)))));
    assert!(f.contains(&("order_id".into(), format!("{:?}", logship::Value::I64(42)))));
    assert!(!f
        .iter()
        .any(|(k, _)| k == "status" || k == "ddtags" || k == "hostname"));
    // `notice` is info, and the original is kept since the level alone loses it.
    assert_eq!(records[1].level(), Level::Info);
    assert_eq!(field(&records[1], "status").as_deref(), Some("notice"));
    assert_eq!(records[1].timestamp_nanos(), (T0_MS - 123) * 1_000_000);
}

#[test]
fn datadog_status_remapper_rules() {
    let level = |status: &str| {
        let body = format!(r#"{{"message":"m","status":{status}}}"#);
        let (r, _) = events(post("/api/v2/logs", &[], body.as_bytes()));
        r[0].level()
    };
    for (status, want) in [
        (r#""emerg""#, Level::Error),
        (r#""fatal""#, Level::Error),
        (r#""alert""#, Level::Error),
        (r#""critical""#, Level::Error),
        (r#""ERROR""#, Level::Error),
        (r#""err""#, Level::Error),
        (r#""warning""#, Level::Warn),
        (r#""notice""#, Level::Info),
        (r#""info""#, Level::Info),
        (r#""debug""#, Level::Debug),
        (r#""trace""#, Level::Debug),
        (r#""verbose""#, Level::Debug),
        (r#""OK""#, Level::Info),
        (r#""success""#, Level::Info),
        (r#""whatever""#, Level::Warn),
        (r#""zzz""#, Level::Info),
        ("3", Level::Error),
        ("4", Level::Warn),
        ("6", Level::Info),
        ("7", Level::Debug),
        (r#""2""#, Level::Error),
    ] {
        assert_eq!(level(status), want, "{status}");
    }
}

#[test]
fn datadog_single_object_text_plain_query_defaults_and_v1() {
    let (r, ok) = events(post(
        "/api/v2/logs?ddtags=team:pay&ddsource=nginx",
        &[],
        br#"{"message":"one"}"#,
    ));
    assert_eq!((ok.status, r.len()), (202, 1));
    assert_eq!(field(&r[0], "team").as_deref(), Some("pay"));
    assert_eq!(field(&r[0], "source").as_deref(), Some("nginx"));
    let (r, _) = events(post(
        "/api/v2/logs",
        &[("Content-Type", "text/plain")],
        b"line one\r\n\nline two\n",
    ));
    assert_eq!(
        r.iter().map(Record::message_str).collect::<Vec<_>>(),
        ["line one", "line two"]
    );
    let (r, ok) = events(post(
        "/v1/input/key123?service=web&hostname=h1",
        &[],
        br#"[{"message":"v1","service":"own"}]"#,
    ));
    assert_eq!(ok.status, 200);
    assert_eq!(
        field(&r[0], "service").as_deref(),
        Some("own"),
        "the entry's own wins"
    );
    assert_eq!(field(&r[0], "host").as_deref(), Some("h1"));
    let h = headers(&[]);
    assert_eq!(
        credential(Vendor::Datadog, &req("POST", "/v1/input/key123", &h, b"")),
        Some("key123")
    );
}

#[test]
fn datadog_refuses_malformed_bodies_with_its_error_shape() {
    for body in [
        &b"[{\"message\":"[..],
        b"not json",
        b"42",
        b"[1]",
        b"\xff\xfe",
    ] {
        let a = answer(post(
            "/api/v2/logs",
            &[("Content-Type", "application/json")],
            body,
        ));
        assert_eq!(a.status, 400, "{body:?}");
        let v = json(&a);
        assert_eq!(v["errors"][0]["status"], "400");
        assert_eq!(v["errors"][0]["title"], "Bad Request");
        assert!(v["errors"][0]["detail"]
            .as_str()
            .unwrap_or("")
            .starts_with("Malformed payload"));
    }
    // Keep-alives and empty bodies carry nothing and are accepted.
    for body in [&b""[..], b"  ", b"[]", b"{}"] {
        assert_eq!(answer(post("/api/v2/logs", &[], body)).status, 202);
    }
    // Deep nesting: serde_json's limit, answered 400, no recursion of ours.
    let deep = format!(
        "[{{\"message\":\"m\",\"a\":{}1{}}}]",
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    assert_eq!(
        answer(post("/api/v2/logs", &[], deep.as_bytes())).status,
        400
    );
    let h = headers(&[]);
    let a = answer(decode(
        Vendor::Datadog,
        &req("GET", "/api/v2/logs", &h, b""),
    ));
    assert_eq!(a.status, 405);
}

#[test]
fn datadog_credentials_and_refusals() {
    let h = headers(&[("DD-API-KEY", "secret")]);
    assert_eq!(
        credential(Vendor::Datadog, &req("POST", "/api/v2/logs", &h, b"")),
        Some("secret")
    );
    let none = headers(&[]);
    assert_eq!(
        credential(
            Vendor::Datadog,
            &req("POST", "/api/v2/logs?dd-api-key=q", &none, b"")
        ),
        Some("q")
    );
    assert_eq!(
        credential(Vendor::Datadog, &req("POST", "/api/v2/logs", &none, b"")),
        None
    );
    assert_eq!(unauthorized(Vendor::Datadog).status, 403);
    assert_eq!(missing_credential(Vendor::Datadog).status, 401);
    let b = busy(Vendor::Datadog, 1);
    assert_eq!(b.status, 503);
    assert!(b.headers.contains(&("Retry-After".into(), "1".into())));
    assert_eq!(json(&b)["errors"][0]["status"], "503");
    let t = too_large(Vendor::Datadog, 5_000_000);
    assert_eq!(
        (t.status, json(&t)["errors"][0]["title"].as_str()),
        (413, Some("Payload Too Large"))
    );
}
