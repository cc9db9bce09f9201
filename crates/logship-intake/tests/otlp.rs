//! The OTLP/HTTP logs emulation over raw HTTP: routing by Content-Type, answers in the
//! request's encoding, malformed bodies refused and recorded.

mod common;

use common::post_once;
use logship_intake::{Intake, IntakeConfig};
use prost::Message;
use serde_json::{json, Value};

/// One POST on a fresh connection: the status, Content-Type and body of the answer.
fn post(intake: &Intake, content_type: &str, body: &[u8]) -> (u16, String, Vec<u8>) {
    let answer = post_once(intake, "/v1/logs", &[("Content-Type", content_type)], body);
    (answer.status, answer.content_type, answer.body)
}

#[test]
fn answers_in_the_request_encoding_and_refuses_malformed_bodies() {
    let intake = Intake::start(IntakeConfig::default()).expect("intake");
    // An empty request is a success, answered with an empty response.
    let (status, ct, body) = post(&intake, "application/x-protobuf", b"");
    assert_eq!((status, ct.as_str()), (200, "application/x-protobuf"));
    assert!(body.is_empty());
    let (status, ct, body) = post(&intake, "application/json", br#"{"resourceLogs":[]}"#);
    assert_eq!((status, ct.as_str()), (200, "application/json"));
    assert_eq!(serde_json::from_slice::<Value>(&body).unwrap(), json!({}));
    assert!(intake.violations().is_empty());

    // Garbage protobuf: 400 with a protobuf google.rpc.Status.
    let (status, ct, body) = post(&intake, "application/x-protobuf", b"\xff\xff\xff");
    assert_eq!((status, ct.as_str()), (400, "application/x-protobuf"));
    #[derive(Clone, PartialEq, Message)]
    struct Status {
        #[prost(int32, tag = "1")]
        code: i32,
        #[prost(string, tag = "2")]
        message: String,
    }
    let st = Status::decode(body.as_slice()).expect("google.rpc.Status");
    assert_eq!(st.code, 3);
    assert!(st.message.contains("ExportLogsServiceRequest"), "{st:?}");

    // snake_case JSON is not silently ignored.
    let (status, _, body) = post(&intake, "application/json", br#"{"resource_logs":[]}"#);
    assert_eq!(status, 400);
    let v: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(v["code"], 3);
    assert!(v["message"].as_str().unwrap().contains("snake_case"));

    // A body that is neither protobuf nor JSON.
    let (status, _, _) = post(&intake, "application/x-ndjson", b"{}\n");
    assert_eq!(status, 415);

    assert_eq!(intake.violations().len(), 3, "{:?}", intake.violations());
    assert!(intake.requests().iter().all(|r| r.vendor == "otlp"));
}

#[test]
fn records_become_events_and_wrong_units_are_violations() {
    let intake = Intake::start(IntakeConfig::default()).expect("intake");
    let request = br#"{"resourceLogs":[{"resource":{"attributes":[
        {"key":"service.name","value":{"stringValue":"pay"}}]},
      "scopeLogs":[{"scope":{"name":"app"},"logRecords":[
        {"timeUnixNano":"1717171717123456789","severityNumber":9,"severityText":"INFO",
         "body":{"stringValue":"hello"},
         "attributes":[{"key":"n","value":{"intValue":"7"}}],
         "spanId":"00F067AA0BA902B7"},
        {"timeUnixNano":1717171717123,"severityNumber":30,
         "attributes":[{"key":"a","value":{"boolValue":true}},{"key":"a","value":{"boolValue":false}}]}
      ]}]}]}"#;
    let (status, _, _) = post(&intake, "application/json", request);
    assert_eq!(status, 200);
    let events = intake.events();
    assert_eq!(events.len(), 2);
    let e = &events[0].value;
    assert_eq!(e["message"], "hello");
    assert_eq!(e["level"], "INFO");
    assert_eq!(e["severityNumber"], 9);
    assert_eq!(e["scope"], "app");
    assert_eq!(e["service.name"], "pay");
    assert_eq!(e["attributes"]["n"], 7);
    assert_eq!(e["spanId"], "00f067aa0ba902b7");
    assert_eq!(e["timeUnixNano"], 1_717_171_717_123_456_789u64);
    let violations = intake.violations();
    assert_eq!(violations.len(), 3, "{violations:?}");
    assert!(violations.iter().any(|v| v.contains("outside 0..=24")));
    assert!(violations
        .iter()
        .any(|v| v.contains("looks like seconds or milliseconds")));
    assert!(violations.iter().any(|v| v.contains("duplicate key \"a\"")));
}
