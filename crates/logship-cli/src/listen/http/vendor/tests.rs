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
        max_events: 1_000_000,
        max_body: 10 << 20,
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
        credential(Vendor::Datadog, &req("POST", "/v1/input/key123", &h, b"")).as_deref(),
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
        credential(Vendor::Datadog, &req("POST", "/api/v2/logs", &h, b"")).as_deref(),
        Some("secret")
    );
    let none = headers(&[]);
    assert_eq!(
        credential(
            Vendor::Datadog,
            &req("POST", "/api/v2/logs?dd-api-key=q", &none, b"")
        )
        .as_deref(),
        Some("q")
    );
    assert_eq!(
        credential(Vendor::Datadog, &req("POST", "/api/v2/logs", &none, b"")).as_deref(),
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

// ---------------------------------------------------------------- Splunk HEC

#[test]
fn splunk_concatenated_envelopes_with_and_without_separators() {
    let body = br#"{"time":1796133600.5,"host":"web-1","source":"checkout","sourcetype":"_json","index":"main","event":{"message":"paid","severity":"WARN","logger":"shop.Pay","thread":"main"},"fields":{"env":"prod","team":["a","b"]}}{"time":"1796133601","event":"plain string event"}
{"event":"{\"message\":\"inner\",\"level\":\"error\"}"}"#;
    let (r, ok) = events(post(
        "/services/collector/event",
        &[("Authorization", "Splunk t")],
        body,
    ));
    assert_eq!(ok.status, 200);
    assert_eq!(json(&ok), serde_json::json!({"text":"Success","code":0}));
    assert_eq!(r.len(), 3);
    assert_eq!(r[0].message_str(), "paid");
    assert_eq!(r[0].level(), Level::Warn);
    assert_eq!(r[0].target(), "shop.Pay");
    assert_eq!(r[0].timestamp_nanos(), 1_796_133_600_500_000_000);
    for (k, v) in [
        ("host", "web-1"),
        ("source", "checkout"),
        ("sourcetype", "_json"),
        ("index", "main"),
        ("env", "prod"),
        ("thread", "main"),
    ] {
        assert_eq!(field(&r[0], k).as_deref(), Some(v), "{k}");
    }
    assert_eq!(r[1].message_str(), "plain string event");
    assert_eq!(r[1].timestamp_nanos(), 1_796_133_601_000_000_000);
    assert_eq!((r[2].message_str(), r[2].level()), ("inner", Level::Error));
    let (r, _) = events(post(
        "/services/collector",
        &[],
        br#"{"event":"a"} {"event":"b"}"#,
    ));
    assert_eq!(r.len(), 2);
}

#[test]
fn splunk_errors_carry_hec_codes_statuses_and_event_numbers() {
    let cases: [(&[u8], u16, u64, Option<u64>); 8] = [
        (b"", 400, 5, None),
        (b"   \n", 400, 5, None),
        (br#"{"event":"ok"}{"event":"#, 400, 6, Some(1)),
        (br#"{"event":"ok"}[1]"#, 400, 6, Some(1)),
        (
            br#"{"event":"ok"}{"time":"soon","event":"x"}"#,
            400,
            6,
            Some(1),
        ),
        (br#"{"host":"h"}"#, 400, 12, Some(0)),
        (br#"{"event":"ok"}{"event":""}"#, 400, 13, Some(1)),
        (br#"{"event":{}}"#, 400, 13, Some(0)),
    ];
    for (body, status, code, event) in cases {
        let a = answer(post("/services/collector/event", &[], body));
        let v = json(&a);
        assert_eq!(
            (a.status, v["code"].as_u64()),
            (status, Some(code)),
            "{}",
            String::from_utf8_lossy(body)
        );
        assert_eq!(v["invalid-event-number"].as_u64(), event);
    }
    assert_eq!(
        json(&answer(post("/services/collector/event", &[], b"x")))["text"],
        "Invalid data format"
    );
    let b = busy(Vendor::SplunkEvent, 2);
    assert_eq!((b.status, json(&b)["code"].as_u64()), (503, Some(9)));
    assert!(b.headers.contains(&("Retry-After".into(), "2".into())));
    assert_eq!(
        json(&unauthorized(Vendor::SplunkEvent)),
        serde_json::json!({"text":"Invalid token","code":4})
    );
    assert_eq!(missing_credential(Vendor::SplunkRaw).status, 401);
    assert_eq!(json(&missing_credential(Vendor::SplunkRaw))["code"], 2);
    assert_eq!(too_large(Vendor::SplunkEvent, 10).status, 413);
    let a = answer(post("/services/collector/ack", &[], br#"{"acks":[0]}"#));
    assert_eq!((a.status, json(&a)["code"].as_u64()), (400, Some(14)));
}

#[test]
fn splunk_raw_health_and_credentials() {
    let (r, ok) = events(post(
        "/services/collector/raw?sourcetype=app%20log&host=h1&channel=0aeeac95-ac74-4aa9-b30d-6c4c0ac581ba",
        &[("X-Splunk-Request-Channel", "0aeeac95-ac74-4aa9-b30d-6c4c0ac581ba")],
        b"first line\r\n{\"message\":\"json line\",\"level\":\"debug\"}\n\nlast",
    ));
    assert_eq!(json(&ok)["code"], 0);
    assert_eq!(
        r.iter().map(Record::message_str).collect::<Vec<_>>(),
        ["first line", "json line", "last"]
    );
    assert_eq!(r[1].level(), Level::Debug);
    assert_eq!(field(&r[0], "sourcetype").as_deref(), Some("app log"));
    assert_eq!(field(&r[2], "host").as_deref(), Some("h1"));
    let (r, _) = events(post("/services/collector/raw", &[], b"bad \xff utf8"));
    assert!(fields(&r[0])
        .iter()
        .any(|(k, _)| k == "logship.invalid_utf8"));
    assert_eq!(
        json(&answer(post("/services/collector/raw", &[], b"")))["code"],
        5
    );
    let h = headers(&[]);
    let a = answer(decode(
        Vendor::SplunkHealth,
        &req("GET", "/services/collector/health", &h, b""),
    ));
    assert_eq!(
        (a.status, json(&a)),
        (200, serde_json::json!({"text":"HEC is healthy","code":17}))
    );
    for (auth, want) in [
        ("Splunk abc", Some("abc")),
        ("Bearer xyz", Some("xyz")),
        // Basic: HEC reads the password as the token, whatever the user name.
        ("Basic eDp0b2s=", Some("tok")),
        ("Basic OnRvaw==", Some("tok")),
        ("Basic Zm9v", None),
        ("Basic !!!", None),
        ("Splunk ", None),
    ] {
        let h = headers(&[("Authorization", auth)]);
        assert_eq!(
            credential(
                Vendor::SplunkEvent,
                &req("POST", "/services/collector", &h, b"")
            )
            .as_deref(),
            want,
            "{auth}"
        );
    }
    assert_eq!(
        credential(
            Vendor::SplunkRaw,
            &req("POST", "/services/collector/raw?token=q", &h, b"")
        )
        .as_deref(),
        Some("q")
    );
    let a = answer(decode(
        Vendor::SplunkEvent,
        &req("GET", "/services/collector/event", &h, b""),
    ));
    assert_eq!(a.status, 405);
}

// ---------------------------------------------------------------- OTLP

fn kv(key: &str, value: any_value::Value) -> KeyValue {
    KeyValue {
        key: key.into(),
        value: Some(AnyValue { value: Some(value) }),
        ..Default::default()
    }
}

fn otlp_request() -> ExportLogsServiceRequest {
    let s = |v: &str| any_value::Value::StringValue(v.into());
    ExportLogsServiceRequest {
        resource_logs: vec![ResourceLogs {
            resource: Some(Resource {
                attributes: vec![
                    kv("service.name", s("checkout")),
                    kv("host.name", s("web-1")),
                ],
                ..Default::default()
            }),
            scope_logs: vec![ScopeLogs {
                scope: Some(InstrumentationScope {
                    name: "shop.pay".into(),
                    ..Default::default()
                }),
                log_records: vec![
                    LogRecord {
                        time_unix_nano: 1_796_133_600_000_000_007,
                        severity_number: 13,
                        severity_text: "WARN".into(),
                        body: Some(AnyValue {
                            value: Some(s("payment slow")),
                        }),
                        attributes: vec![
                            kv("order_id", any_value::Value::IntValue(42)),
                            kv(
                                "http",
                                any_value::Value::KvlistValue(KeyValueList {
                                    values: vec![kv("method", s("GET"))],
                                }),
                            ),
                        ],
                        trace_id: vec![0x4b; 16],
                        span_id: vec![0x0f; 8],
                        flags: 1,
                        ..Default::default()
                    },
                    LogRecord {
                        observed_time_unix_nano: 1_796_133_600_000_000_009,
                        severity_text: "fatal".into(),
                        body: Some(AnyValue {
                            value: Some(any_value::Value::KvlistValue(KeyValueList {
                                values: vec![kv("k", s("v"))],
                            })),
                        }),
                        ..Default::default()
                    },
                ],
                ..Default::default()
            }],
            ..Default::default()
        }],
    }
}

#[test]
fn otlp_protobuf_maps_time_severity_body_attributes_resource_scope_and_trace() {
    let body = otlp_request().encode_to_vec();
    let (r, ok) = events(post(
        "/v1/logs",
        &[("Content-Type", "application/x-protobuf")],
        &body,
    ));
    assert_eq!(ok.status, 200);
    assert!(ok
        .headers
        .contains(&("Content-Type".into(), "application/x-protobuf".into())));
    assert_eq!(
        ExportLogsServiceResponse::decode(ok.body.as_slice()).expect("response"),
        ExportLogsServiceResponse::default()
    );
    assert_eq!(r.len(), 2);
    assert_eq!(
        (r[0].message_str(), r[0].level(), r[0].target()),
        ("payment slow", Level::Warn, "shop.pay")
    );
    assert_eq!(r[0].timestamp_nanos(), 1_796_133_600_000_000_007);
    assert_eq!(field(&r[0], "service.name").as_deref(), Some("checkout"));
    assert_eq!(field(&r[0], "http.method").as_deref(), Some("GET"));
    assert_eq!(
        field(&r[0], "trace_id").as_deref(),
        Some("4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b4b")
    );
    assert_eq!(field(&r[0], "span_id").as_deref(), Some("0f0f0f0f0f0f0f0f"));
    assert_eq!(field(&r[0], "trace_flags").as_deref(), Some("01"));
    assert!(fields(&r[0]).contains(&("order_id".into(), format!("{:?}", logship::Value::I64(42)))));
    assert_eq!(
        r[1].level(),
        Level::Error,
        "severityText when the number is unset"
    );
    assert_eq!(
        r[1].timestamp_nanos(),
        1_796_133_600_000_000_009,
        "observed time as fallback"
    );
    assert_eq!(r[1].message_str(), r#"{"k":"v"}"#);
}

#[test]
fn otlp_json_mapping_with_hex_ids_and_string_int64() {
    let body = br#"{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"s"}}]},"scopeLogs":[{"scope":{"name":"t"},"logRecords":[{"timeUnixNano":"1796133600000000001","severityNumber":17,"body":{"stringValue":"boom"},"traceId":"4BF92F3577B34DA6A3CE929D0E0E4736","spanId":"00f067aa0ba902b7","attributes":[{"key":"n","value":{"intValue":"7"}}]}]}]}]}"#;
    let (r, ok) = events(post(
        "/v1/logs",
        &[("Content-Type", "application/json")],
        body,
    ));
    assert_eq!((ok.status, json(&ok)), (200, serde_json::json!({})));
    assert_eq!((r[0].message_str(), r[0].level()), ("boom", Level::Error));
    assert_eq!(r[0].timestamp_nanos(), 1_796_133_600_000_000_001);
    assert_eq!(
        field(&r[0], "trace_id").as_deref(),
        Some("4bf92f3577b34da6a3ce929d0e0e4736")
    );
    assert!(fields(&r[0]).contains(&("n".into(), format!("{:?}", logship::Value::I64(7)))));
}

#[test]
fn otlp_refusals_in_the_request_encoding() {
    let mut body = otlp_request().encode_to_vec();
    body.truncate(body.len() / 2);
    let a = answer(post(
        "/v1/logs",
        &[("Content-Type", "application/x-protobuf")],
        &body,
    ));
    assert_eq!(a.status, 400);
    let status = logship_http::answers::otlp::Status::decode(a.body.as_slice())
        .expect("a google.rpc.Status");
    assert_eq!(status.code, 3);
    let a = answer(post(
        "/v1/logs",
        &[("Content-Type", "application/json")],
        b"{\"resourceLogs\":",
    ));
    assert_eq!((a.status, json(&a)["code"].as_i64()), (400, Some(3)));
    let a = answer(post(
        "/v1/logs",
        &[("Content-Type", "text/plain")],
        b"hello",
    ));
    assert_eq!(a.status, 415);
    // Empty requests succeed, as the specification asks.
    assert_eq!(
        answer(post(
            "/v1/logs",
            &[("Content-Type", "application/x-protobuf")],
            b""
        ))
        .status,
        200
    );
    assert_eq!(
        answer(post(
            "/v1/logs",
            &[("Content-Type", "application/json")],
            b"{}"
        ))
        .status,
        200
    );
    // An id of the wrong length: the record is kept, the id dropped, a warning answered.
    let mut req = otlp_request();
    req.resource_logs[0].scope_logs[0].log_records[0].trace_id = vec![1, 2, 3];
    let (r, ok) = events(post(
        "/v1/logs",
        &[("Content-Type", "application/x-protobuf")],
        &req.encode_to_vec(),
    ));
    assert_eq!(r.len(), 2);
    assert_eq!(field(&r[0], "trace_id"), None);
    let response = ExportLogsServiceResponse::decode(ok.body.as_slice()).expect("response");
    let partial = response.partial_success.expect("a warning");
    assert_eq!(partial.rejected_log_records, 0);
    assert!(partial.error_message.contains("wrong length"));
    let b = busy(Vendor::Otlp, 1);
    assert_eq!(b.status, 503);
    assert_eq!(
        logship_http::answers::otlp::Status::decode(b.body.as_slice())
            .map(|s| s.code)
            .ok(),
        Some(14)
    );
}

#[test]
fn otlp_deeply_nested_values_are_walked_without_recursion() {
    let mut value = AnyValue {
        value: Some(any_value::Value::StringValue("leaf".into())),
    };
    for _ in 0..50 {
        value = AnyValue {
            value: Some(any_value::Value::ArrayValue(
                opentelemetry_proto::tonic::common::v1::ArrayValue {
                    values: vec![value],
                },
            )),
        };
    }
    assert_eq!(
        super::otlp::plain_for_tests(&value).to_string(),
        format!("{}\"leaf\"{}", "[".repeat(50), "]".repeat(50))
    );
}

// ---------------------------------------------------------------- Loki

fn loki_proto(labels: &str, lines: &[&str]) -> Vec<u8> {
    let push = super::loki::PushRequest {
        streams: vec![super::loki::StreamAdapter {
            labels: labels.into(),
            entries: lines
                .iter()
                .enumerate()
                .map(|(i, l)| super::loki::EntryAdapter {
                    timestamp: Some(super::loki::Timestamp {
                        seconds: 1_796_133_600,
                        nanos: i as i32,
                    }),
                    line: (*l).into(),
                    structured_metadata: vec![super::loki::LabelPair {
                        name: "trace_id".into(),
                        value: "abc".into(),
                    }],
                })
                .collect(),
            hash: 0,
        }],
    };
    snap::raw::Encoder::new()
        .compress_vec(&push.encode_to_vec())
        .expect("snappy")
}

#[test]
fn loki_protobuf_snappy_push() {
    let body = loki_proto(
        r#"{app="shop", level="warn", note="a \"quoted\" \\ value"}"#,
        &[
            "text line",
            r#"{"message":"json line","level":"error","user":"u1"}"#,
        ],
    );
    let (r, ok) = events(post(
        "/loki/api/v1/push",
        &[("Content-Type", "application/x-protobuf")],
        &body,
    ));
    assert_eq!((ok.status, ok.body.len()), (204, 0));
    assert_eq!(r.len(), 2);
    assert_eq!(
        (r[0].message_str(), r[0].level()),
        ("text line", Level::Warn)
    );
    assert_eq!(r[0].timestamp_nanos(), 1_796_133_600_000_000_000);
    assert_eq!(field(&r[0], "app").as_deref(), Some("shop"));
    assert_eq!(
        field(&r[0], "note").as_deref(),
        Some(r#"a "quoted" \ value"#)
    );
    assert_eq!(field(&r[0], "trace_id").as_deref(), Some("abc"));
    assert_eq!(
        (r[1].message_str(), r[1].level()),
        ("json line", Level::Error)
    );
    assert_eq!(
        r[1].timestamp_nanos(),
        1_796_133_600_000_000_001,
        "the entry's time wins"
    );
    assert_eq!(field(&r[1], "user").as_deref(), Some("u1"));
    // No Content-Type: Loki reads protobuf.
    assert_eq!(events(post("/loki/api/v1/push", &[], &body)).0.len(), 2);
}

#[test]
fn loki_json_push() {
    let body = br#"{"streams":[{"stream":{"job":"api","level":"info"},"values":[["1796133600000000005","hello"],["1796133600000000006","with metadata",{"trace_id":"t1"}]]}]}"#;
    let (r, ok) = events(post(
        "/loki/api/v1/push",
        &[("Content-Type", "application/json")],
        body,
    ));
    assert_eq!(ok.status, 204);
    assert_eq!(r.len(), 2);
    assert_eq!(r[0].timestamp_nanos(), 1_796_133_600_000_000_005);
    assert_eq!(field(&r[0], "job").as_deref(), Some("api"));
    assert_eq!(field(&r[1], "trace_id").as_deref(), Some("t1"));
    assert_eq!(
        answer(post(
            "/loki/api/v1/push",
            &[("Content-Type", "application/json")],
            br#"{"streams":[]}"#
        ))
        .status,
        204
    );
}

#[test]
fn loki_refusals_are_400_text() {
    let json_ct = [("Content-Type", "application/json")];
    type Case<'a> = (&'a [(&'a str, &'a str)], Vec<u8>, &'a str);
    let bad: [Case<'_>; 8] = [
        (&json_ct, b"{\"streams\":".to_vec(), "invalid JSON"),
        (
            &json_ct,
            br#"{"streams":[{"stream":{},"values":[["1","x"]]}]}"#.to_vec(),
            "at least one label",
        ),
        (
            &json_ct,
            br#"{"streams":[{"stream":{"a-b":"1"},"values":[["1","x"]]}]}"#.to_vec(),
            "invalid label name",
        ),
        (
            &json_ct,
            br#"{"streams":[{"stream":{"a":"1"},"values":[[1.5,"x"]]}]}"#.to_vec(),
            "nanoseconds",
        ),
        (&[], b"this is not snappy".to_vec(), "snappy"),
        (
            &[],
            snap::raw::Encoder::new()
                .compress_vec(b"\xff\xff\xff garbage")
                .expect("snappy"),
            "parse",
        ),
        (&[], loki_proto("app=\"x\"", &["l"]), "error parsing labels"),
        (
            &[],
            loki_proto(&format!("{{a=\"{}}}", "v".repeat(1_000_000)), &["l"]),
            "unterminated",
        ),
    ];
    for (h, body, want) in bad {
        let a = answer(post("/loki/api/v1/push", h, &body));
        let text = String::from_utf8_lossy(&a.body).into_owned();
        assert_eq!(a.status, 400, "{text}");
        assert!(text.contains(want), "{want}: {text}");
        assert!(text.len() < 400, "the label text is not echoed whole");
    }
    let b = busy(Vendor::Loki, 1);
    assert_eq!(b.status, 429);
    assert_eq!(too_large(Vendor::Loki, 1).status, 413);
    let h = headers(&[("Authorization", "Bearer tok")]);
    assert_eq!(
        credential(Vendor::Loki, &req("POST", "/loki/api/v1/push", &h, b"")).as_deref(),
        Some("tok")
    );
}
