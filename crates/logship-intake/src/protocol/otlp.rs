//! OpenTelemetry OTLP/HTTP logs (`POST /v1/logs`), emulated strictly.
//!
//! Facts from `docs/wire-formats.md` section 5: the body is one
//! `ExportLogsServiceRequest`, as binary protobuf (`application/x-protobuf`)
//! or in the OTLP JSON mapping (`application/json`), routed by Content-Type
//! (415 for anything else); identity or gzip encoded. Protobuf is decoded
//! with the official `opentelemetry-proto` types; JSON must also pass the
//! mapping's rules that a lenient decoder would let through: lowerCamelCase
//! field names only (a snake_case name is a 400, not an ignored unknown
//! field), enums as integers, ids as hex. Trace ids must be empty or 16
//! bytes, span ids empty or 8 bytes. Success is `200` with an empty
//! `ExportLogsServiceResponse` in the request's encoding (no body in
//! protobuf, `{}` in JSON); a malformed body is `400` with a `google.rpc.Status`
//! in the request's encoding. There is no credential: collectors authenticate
//! with whatever headers their deployment adds. A partial success is not
//! produced by validation: inject it with `Fault::json(200, …)`.
//!
//! Accepted but recorded as violations (a collector keeps them, logship must
//! not send them): a severity number outside 0..=24, a time of 0 or one that
//! looks like milliseconds or seconds, duplicate attribute keys, a resource
//! without `service.name`.
//!
//! Each log record becomes one event: `message` (the body as text), `body`,
//! `level` and `severityText`, `severityNumber`, `timeUnixNano` and
//! `observedTimeUnixNano` (numbers), `scope`, `attributes` and `resource` as
//! flat objects, `traceId` and `spanId` in hex and `flags` when set, and the resource's
//! `service.name` and `host.name` at the top level.

use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, KeyValue};
use opentelemetry_proto::tonic::logs::v1::LogRecord;
use prost::Message;
use serde_json::{json, Map, Value};

use super::shared::{
    decode_body_with, media_type, require_content_length, require_post, Accepted, Rejection,
};
use logship_http::answers::otlp::{self as answers, Status, INVALID_ARGUMENT, PROTOBUF};
use logship_http::{Request, Response};

/// The intake path (docs/wire-formats.md 5.1).
pub(crate) const PATH: &str = "/v1/logs";

/// Largest decoded body: the OpenTelemetry Collector's default
/// `max_request_body_size` (20 MiB; not in docs/wire-formats.md).
pub(crate) const MAX_DECODED_BYTES: usize = 20 * 1024 * 1024;

const JSON: &str = "application/json";

/// Times below this many nanoseconds (1973) are milliseconds or seconds.
const NANOS_LOOKING_BELOW: u64 = 100_000_000_000_000_000;

/// Field names of the OTLP logs messages in their snake_case (proto) form,
/// which the JSON mapping forbids.
const SNAKE_CASE: [&str; 16] = [
    "resource_logs",
    "scope_logs",
    "log_records",
    "schema_url",
    "time_unix_nano",
    "observed_time_unix_nano",
    "severity_number",
    "severity_text",
    "dropped_attributes_count",
    "trace_id",
    "span_id",
    "event_name",
    "string_value",
    "bool_value",
    "int_value",
    "double_value",
];

/// Whether this module serves `path`.
pub(crate) fn serves(path: &str) -> bool {
    path == PATH
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Encoding {
    Protobuf,
    Json,
}

/// Validates and decodes an OTLP logs request.
pub(crate) fn handle(req: &Request) -> Result<Accepted, Rejection> {
    let json_error = |status: u16, message: &str| error(Encoding::Json, status, message);
    require_post(req).map_err(|r| r.reshape(json_error))?;
    let encoding = match media_type(req).as_deref() {
        Some(PROTOBUF) => Encoding::Protobuf,
        Some(JSON) => Encoding::Json,
        Some(other) => {
            return Err(reject(
                Encoding::Json,
                415,
                format!("unsupported Content-Type {other:?}; OTLP/HTTP takes {PROTOBUF} or {JSON}"),
            ))
        }
        None => {
            return Err(reject(
                Encoding::Json,
                415,
                format!("missing Content-Type; OTLP/HTTP takes {PROTOBUF} or {JSON}"),
            ))
        }
    };
    let shape = move |status: u16, message: &str| error(encoding, status, message);
    require_content_length(req).map_err(|r| r.reshape(shape))?;
    let body =
        decode_body_with(req, false, MAX_DECODED_BYTES as u64).map_err(|r| r.reshape(shape))?;
    let decoded = body.len();
    let request = match encoding {
        Encoding::Protobuf => ExportLogsServiceRequest::decode(body.as_slice())
            .map_err(|e| format!("body is not a protobuf ExportLogsServiceRequest: {e}")),
        Encoding::Json => decode_json(&body),
    }
    .map_err(|e| reject(encoding, 400, e).with_decoded(decoded))?;
    let mut events = Vec::new();
    let mut violations = Vec::new();
    for rl in &request.resource_logs {
        let resource = rl
            .resource
            .as_ref()
            .map(|r| flat(&r.attributes, "resource", &mut violations))
            .unwrap_or_default();
        if !resource.contains_key("service.name") {
            violations.push("resource without service.name".to_owned());
        }
        for sl in &rl.scope_logs {
            let scope = sl.scope.as_ref().map_or("", |s| s.name.as_str());
            for record in &sl.log_records {
                check_ids(record).map_err(|e| reject(encoding, 400, e).with_decoded(decoded))?;
                events.push(event(record, scope, &resource, &mut violations));
            }
        }
    }
    let response = answers::success(encoding == Encoding::Json);
    let mut accepted = Accepted::new(events, decoded, response);
    accepted.violations = violations;
    Ok(accepted)
}

/// Decodes the JSON mapping after checking the rules a lenient decoder skips.
fn decode_json(body: &[u8]) -> Result<ExportLogsServiceRequest, String> {
    let value: Value =
        serde_json::from_slice(body).map_err(|e| format!("body is not valid JSON: {e}"))?;
    if !value.is_object() {
        return Err("body is not a JSON object".into());
    }
    check_json(&value, "$")?;
    serde_json::from_value(value)
        .map_err(|e| format!("not an OTLP JSON ExportLogsServiceRequest: {e}"))
}

/// Walks the JSON: no snake_case field names, enums as integers.
fn check_json(v: &Value, at: &str) -> Result<(), String> {
    match v {
        Value::Object(map) => {
            for (k, child) in map {
                if SNAKE_CASE.contains(&k.as_str()) {
                    return Err(format!(
                        "{at}.{k}: snake_case field name; the OTLP JSON mapping uses lowerCamelCase"
                    ));
                }
                if k == "severityNumber" && !child.is_number() {
                    return Err(format!(
                        "{at}.severityNumber is {child}; enums must be integers in OTLP JSON"
                    ));
                }
                check_json(child, &format!("{at}.{k}"))?;
            }
        }
        Value::Array(items) => {
            for (i, child) in items.iter().enumerate() {
                check_json(child, &format!("{at}[{i}]"))?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// Trace ids are empty or 16 bytes, span ids empty or 8 (logs.proto).
fn check_ids(record: &LogRecord) -> Result<(), String> {
    if !matches!(record.trace_id.len(), 0 | 16) {
        return Err(format!(
            "traceId has {} bytes; it must be empty or 16",
            record.trace_id.len()
        ));
    }
    if !matches!(record.span_id.len(), 0 | 8) {
        return Err(format!(
            "spanId has {} bytes; it must be empty or 8",
            record.span_id.len()
        ));
    }
    Ok(())
}

/// One log record as the JSON event tests look at.
fn event(
    record: &LogRecord,
    scope: &str,
    resource: &Map<String, Value>,
    violations: &mut Vec<String>,
) -> Value {
    if !(0..=24).contains(&record.severity_number) {
        violations.push(format!(
            "severityNumber {} is outside 0..=24",
            record.severity_number
        ));
    }
    if record.time_unix_nano == 0 && record.observed_time_unix_nano == 0 {
        violations.push("neither timeUnixNano nor observedTimeUnixNano is set".into());
    }
    for (name, t) in [
        ("timeUnixNano", record.time_unix_nano),
        ("observedTimeUnixNano", record.observed_time_unix_nano),
    ] {
        if t != 0 && t < NANOS_LOOKING_BELOW {
            violations.push(format!(
                "{name} {t} looks like seconds or milliseconds; nanoseconds expected"
            ));
        }
    }
    let body = record.body.as_ref().map_or(Value::Null, plain);
    let message = match &body {
        Value::String(s) => Value::String(s.clone()),
        Value::Null => Value::String(String::new()),
        other => Value::String(other.to_string()),
    };
    let mut e = json!({
        "message": message,
        "body": body,
        "level": record.severity_text,
        "severityText": record.severity_text,
        "severityNumber": record.severity_number,
        "timeUnixNano": record.time_unix_nano,
        "observedTimeUnixNano": record.observed_time_unix_nano,
        "scope": scope,
        "attributes": flat(&record.attributes, "attributes", violations),
        "resource": resource,
    });
    if let Some(obj) = e.as_object_mut() {
        for key in ["service.name", "host.name"] {
            if let Some(v) = resource.get(key) {
                obj.insert(key.into(), v.clone());
            }
        }
        if !record.trace_id.is_empty() {
            obj.insert("traceId".into(), Value::String(hex(&record.trace_id)));
        }
        if !record.span_id.is_empty() {
            obj.insert("spanId".into(), Value::String(hex(&record.span_id)));
        }
        if record.flags != 0 {
            obj.insert("flags".into(), Value::from(record.flags));
        }
    }
    // logs.proto: the low 8 bits are the W3C trace flags, bits 8 and 9 the remote-parent
    // flags; the rest is reserved and must be zero.
    if record.flags >> 10 != 0 {
        violations.push(format!(
            "flags {:#x} sets reserved bits (only bits 0-9 are defined)",
            record.flags
        ));
    }
    e
}

/// Attributes as a flat object; a duplicate key is a violation.
fn flat(attrs: &[KeyValue], what: &str, violations: &mut Vec<String>) -> Map<String, Value> {
    let mut out = Map::new();
    for kv in attrs {
        let v = kv.value.as_ref().map_or(Value::Null, plain);
        if out.insert(kv.key.clone(), v).is_some() {
            violations.push(format!("duplicate key {:?} in {what}", kv.key));
        }
    }
    out
}

/// An `AnyValue` as plain JSON.
fn plain(v: &AnyValue) -> Value {
    match &v.value {
        None => Value::Null,
        Some(any_value::Value::StringValue(s)) => Value::String(s.clone()),
        Some(any_value::Value::BoolValue(b)) => Value::Bool(*b),
        Some(any_value::Value::IntValue(n)) => json!(n),
        Some(any_value::Value::DoubleValue(f)) => json!(f),
        Some(any_value::Value::ArrayValue(a)) => Value::Array(a.values.iter().map(plain).collect()),
        Some(any_value::Value::KvlistValue(kv)) => Value::Object(
            kv.values
                .iter()
                .map(|kv| (kv.key.clone(), kv.value.as_ref().map_or(Value::Null, plain)))
                .collect(),
        ),
        Some(any_value::Value::BytesValue(b)) => Value::String(hex(b)),
        Some(any_value::Value::StringValueStrindex(i)) => json!(i),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A violation answered with a `google.rpc.Status`.
fn reject(encoding: Encoding, status: u16, message: impl Into<String>) -> Rejection {
    let message = message.into();
    Rejection::violation(error(encoding, status, &message), message)
}

/// `google.rpc.Status` in the request's encoding (docs/wire-formats.md 5.3).
fn error(encoding: Encoding, status: u16, message: &str) -> Response {
    match encoding {
        Encoding::Json => Response::json(
            status,
            &json!({ "code": INVALID_ARGUMENT, "message": message }),
        ),
        Encoding::Protobuf => Response {
            status,
            headers: vec![("Content-Type".into(), PROTOBUF.into())],
            body: Status {
                code: INVALID_ARGUMENT,
                message: message.to_owned(),
            }
            .encode_to_vec(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_json_rules() {
        let ok = br#"{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"s"}}]},"scopeLogs":[{"scope":{"name":"t"},"logRecords":[{"timeUnixNano":1717171717123456789,"severityNumber":9,"body":{"stringValue":"hi"},"traceId":"4BF92F3577B34DA6A3CE929D0E0E4736"}]}]}]}"#;
        let req = decode_json(ok).unwrap();
        let r = &req.resource_logs[0].scope_logs[0].log_records[0];
        assert_eq!(r.time_unix_nano, 1_717_171_717_123_456_789);
        assert_eq!(r.trace_id.len(), 16);
        let snake = br#"{"resource_logs":[]}"#;
        assert!(decode_json(snake).unwrap_err().contains("snake_case"));
        let named = br#"{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"severityNumber":"SEVERITY_NUMBER_INFO"}]}]}]}"#;
        assert!(decode_json(named)
            .unwrap_err()
            .contains("enums must be integers"));
        let base64_id = br#"{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"traceId":"S/kvNXezTaajzpKdDg5HNg=="}]}]}]}"#;
        assert!(decode_json(base64_id).is_err());
        assert!(decode_json(b"[]").is_err());
        assert!(decode_json(b"{").is_err());
    }
}
