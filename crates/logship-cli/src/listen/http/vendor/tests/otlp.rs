//! OTLP/HTTP logs: protobuf and JSON bodies mapped to events, refusals in the request's
//! own encoding, and nested values walked without recursion.

use super::*;

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
    // Invalid UTF-8 in a member serde's decoder would skip unchecked: it could not be
    // priced before decoding, so it is not decoded (found by the otlp_cost fuzz target).
    let a = answer(post(
        "/v1/logs",
        &[("Content-Type", "application/json")],
        b"{\"resourceLogs\":[{\"sco\x96peLogs\":[]}]}",
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
        super::super::otlp::plain_for_tests(&value).to_string(),
        format!("{}\"leaf\"{}", "[".repeat(50), "]".repeat(50))
    );
}
