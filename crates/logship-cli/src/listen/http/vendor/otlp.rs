//! OpenTelemetry OTLP/HTTP logs: `POST /v1/logs`, a binary protobuf
//! (`application/x-protobuf`) or OTLP JSON (`application/json`) `ExportLogsServiceRequest`
//! (docs/listen-vendors.md), decoded with the official `opentelemetry-proto` types.
//!
//! Each log record becomes one event: `timeUnixNano` (else `observedTimeUnixNano`) its
//! time; `severityNumber` (else `severityText`) its level, the text kept as the field
//! `severity_text` when the level alone loses it; `body` the message (a non-string body
//! as its JSON text); attributes and the resource's attributes (`service.name`, ...)
//! fields, nested key-value lists under dotted names; the scope name the target; the
//! trace and span ids the fields `trace_id`, `span_id` and `trace_flags` (lowercase hex:
//! the library's trace context, read by every vendor encoder).
//!
//! Answers, in the request's encoding: `200` with an `ExportLogsServiceResponse` (empty,
//! or a `partial_success` warning with 0 rejected when ids of a wrong length were
//! dropped); `400` with a `google.rpc.Status` for a malformed body; `415` for another
//! Content-Type. Must never: recurse on an `AnyValue` (nested lists are walked with a stack).

use logship::{Level, Record};
use logship_http::answers::otlp::{
    Status as OtlpStatus, INVALID_ARGUMENT as OTLP_INVALID_ARGUMENT,
};
use opentelemetry_proto::tonic::collector::logs::v1::{
    ExportLogsPartialSuccess, ExportLogsServiceRequest, ExportLogsServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, KeyValue};
use opentelemetry_proto::tonic::logs::v1::LogRecord;
use prost::Message;
use serde_json::Value;

use super::exchange::{Answer, Decoded, Request};
use crate::lines;

/// The path.
pub(super) const PATH: &str = "/v1/logs";
const PROTOBUF: &str = "application/x-protobuf";
const JSON: &str = "application/json";
/// gRPC `UNAUTHENTICATED`.
pub(super) const UNAUTHENTICATED: i32 = 16;
/// gRPC `RESOURCE_EXHAUSTED`.
pub(super) const RESOURCE_EXHAUSTED: i32 = 8;
/// gRPC `UNAVAILABLE`.
const UNAVAILABLE: i32 = 14;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Encoding {
    Protobuf,
    Json,
}

/// A `google.rpc.Status` answer in protobuf, the OTLP/HTTP default encoding (for the
/// answers given before the request's encoding is known: token, size, busy).
pub(super) fn status_answer(status: u16, code: i32, message: &str) -> Answer {
    error(Encoding::Protobuf, status, code, message)
}

/// 503 `UNAVAILABLE`: retryable for OTLP clients (the caller adds `Retry-After`).
pub(super) fn unavailable() -> Answer {
    status_answer(503, UNAVAILABLE, "logship's queue is full: retry later")
}

fn error(encoding: Encoding, status: u16, code: i32, message: &str) -> Answer {
    match encoding {
        Encoding::Protobuf => Answer::with_type(
            status,
            PROTOBUF,
            OtlpStatus {
                code,
                message: message.to_owned(),
            }
            .encode_to_vec(),
        ),
        Encoding::Json => Answer::json(
            status,
            &serde_json::json!({ "code": code, "message": message }),
        ),
    }
}

/// Decodes one request.
pub(super) fn decode(req: &Request<'_>) -> Decoded {
    let encoding = match req.media_type().as_deref() {
        Some(PROTOBUF) => Encoding::Protobuf,
        Some(JSON) => Encoding::Json,
        other => {
            let message =
                format!("unsupported Content-Type {other:?}: OTLP/HTTP takes {PROTOBUF} or {JSON}");
            return Decoded::Answer(error(Encoding::Json, 415, OTLP_INVALID_ARGUMENT, &message));
        }
    };
    if req.method != "POST" {
        let message = format!("method {} not allowed: OTLP logs are POSTed", req.method);
        let answer = error(encoding, 405, OTLP_INVALID_ARGUMENT, &message).allow("POST");
        return Decoded::Answer(answer);
    }
    // The decoded request takes many times its bytes: one of more log records than the
    // queue holds is refused first (protobuf: counted on the wire; JSON: counted by the
    // streaming walk that prices it).
    // Its containers, attributes and strings too: decoding must not take more than the
    // budget, however few log records it holds.
    let budget = super::otlp_cost::DECODE_BUDGET;
    let (too_many, too_costly) = match encoding {
        // What cannot be priced is not decoded either (prost would refuse it too).
        // A body too small to price over the budget is not priced: its fields are walked
        // by the decoder alone, which refuses what does not walk.
        Encoding::Protobuf if !super::otlp_cost::could_exceed(req.body.len(), budget) => (
            super::wire_count::count(req.body, &[1, 2, 2], req.max_events)
                .is_some_and(|n| n > req.max_events),
            false,
        ),
        Encoding::Protobuf => match super::otlp_cost::decoded_bytes(req.body, budget) {
            Some(price) => (
                super::wire_count::count(req.body, &[1, 2, 2], req.max_events)
                    .is_some_and(|n| n > req.max_events),
                price > budget,
            ),
            None => {
                let message =
                    "the body is not a protobuf ExportLogsServiceRequest: its fields do not walk";
                return Decoded::Answer(error(encoding, 400, OTLP_INVALID_ARGUMENT, message));
            }
        },
        // Priced and counted in one streaming walk, no tree built; what cannot be walked
        // is not decoded either.
        Encoding::Json => match super::otlp_cost::json_price(req.body, budget, req.max_events) {
            Ok(p) => (p.records > req.max_events, p.bytes > budget),
            Err(e) => {
                let message = format!("the body is not OTLP JSON (UTF-8 JSON text): {e}");
                return Decoded::Answer(error(encoding, 400, OTLP_INVALID_ARGUMENT, &message));
            }
        },
    };
    if too_many {
        let message = super::exchange::too_many_message(req.max_events);
        return Decoded::Answer(error(encoding, 413, RESOURCE_EXHAUSTED, &message));
    }
    if too_costly {
        let message = format!(
            "decoding this request would take more than {} MiB (empty containers and \
             attributes count too): send smaller batches",
            budget >> 20
        );
        return Decoded::Answer(error(encoding, 413, RESOURCE_EXHAUSTED, &message));
    }
    let request = match encoding {
        Encoding::Protobuf => ExportLogsServiceRequest::decode(req.body)
            .map_err(|e| format!("the body is not a protobuf ExportLogsServiceRequest: {e}")),
        Encoding::Json => serde_json::from_slice::<ExportLogsServiceRequest>(req.body)
            .map_err(|e| format!("the body is not an OTLP JSON ExportLogsServiceRequest: {e}")),
    };
    let request = match request {
        Ok(r) => r,
        Err(message) => {
            return Decoded::Answer(error(encoding, 400, OTLP_INVALID_ARGUMENT, &message))
        }
    };
    let mut records = Vec::new();
    let mut bad_ids = 0u64;
    for rl in &request.resource_logs {
        let resource = rl.resource.as_ref().map_or(&[][..], |r| &r.attributes[..]);
        for sl in &rl.scope_logs {
            let scope = sl.scope.as_ref().map_or("", |s| s.name.as_str());
            for log in &sl.log_records {
                let (record, ids_ok) = log_record(log, scope, resource);
                bad_ids += u64::from(!ids_ok);
                records.push(record);
            }
        }
    }
    let warning = (bad_ids > 0).then(|| {
        format!("{bad_ids} log records had a trace or span id of the wrong length: the ids were dropped, the records kept")
    });
    let answer = success(encoding, warning);
    if records.is_empty() {
        return Decoded::Answer(answer);
    }
    Decoded::Events(records, answer)
}

/// 200 with an `ExportLogsServiceResponse`, a warning as `partial_success` with 0 rejected.
fn success(encoding: Encoding, warning: Option<String>) -> Answer {
    let response = ExportLogsServiceResponse {
        partial_success: warning.map(|error_message| ExportLogsPartialSuccess {
            rejected_log_records: 0,
            error_message,
        }),
    };
    match encoding {
        Encoding::Protobuf => Answer::with_type(200, PROTOBUF, response.encode_to_vec()),
        Encoding::Json => {
            let body = match &response.partial_success {
                Some(p) => {
                    serde_json::json!({ "partialSuccess": { "errorMessage": p.error_message } })
                }
                None => serde_json::json!({}),
            };
            Answer::json(200, &body)
        }
    }
}

/// One log record as an event, and whether its ids were well-formed.
fn log_record(log: &LogRecord, scope: &str, resource: &[KeyValue]) -> (Record, bool) {
    let level =
        level_of(log.severity_number).or_else(|| lines::level::parse_level(&log.severity_text));
    let level_value = level.unwrap_or(Level::Info);
    let target = if scope.is_empty() {
        lines::TARGET
    } else {
        scope
    };
    let mut record = Record::with_capacity(level_value, target, 256);
    let nanos = if log.time_unix_nano != 0 {
        log.time_unix_nano
    } else {
        log.observed_time_unix_nano
    };
    if nanos != 0 {
        record.set_timestamp_nanos(nanos);
    }
    match log.body.as_ref().and_then(|b| b.value.as_ref()) {
        Some(any_value::Value::StringValue(s)) => {
            record.message(s);
        }
        Some(_) => {
            let body = log.body.as_ref().map_or(Value::Null, plain);
            record.message(&body.to_string());
        }
        None => {}
    }
    let text = log.severity_text.trim();
    if !text.is_empty() && !text.eq_ignore_ascii_case(level_value.as_str()) {
        record.field("severity_text", text);
    }
    if !log.event_name.is_empty() {
        record.field("event.name", log.event_name.as_str());
    }
    add_attributes(&mut record, &log.attributes);
    add_attributes(&mut record, resource);
    let ids_ok = matches!(log.trace_id.len(), 0 | 16) && matches!(log.span_id.len(), 0 | 8);
    if log.trace_id.len() == 16 && log.trace_id.iter().any(|b| *b != 0) {
        record.field("trace_id", hex(&log.trace_id).as_str());
        record.field("trace_flags", hex(&[(log.flags & 0xff) as u8]).as_str());
    }
    if log.span_id.len() == 8 && log.span_id.iter().any(|b| *b != 0) {
        record.field("span_id", hex(&log.span_id).as_str());
    }
    (record, ids_ok)
}

/// OTLP severity numbers: 1-4 trace, 5-8 debug, 9-12 info, 13-16 warn, 17-24 error
/// (fatal too); 0 (unspecified) or out of range: `None`.
fn level_of(n: i32) -> Option<Level> {
    Some(match n {
        1..=4 => Level::Trace,
        5..=8 => Level::Debug,
        9..=12 => Level::Info,
        13..=16 => Level::Warn,
        17..=24 => Level::Error,
        _ => return None,
    })
}

/// Attributes as fields: scalars typed, key-value lists under dotted names (walked with a
/// stack, no recursion), arrays as JSON, bytes as lowercase hex.
fn add_attributes(record: &mut Record, attributes: &[KeyValue]) {
    let mut stack: Vec<(String, std::slice::Iter<'_, KeyValue>)> =
        vec![(String::new(), attributes.iter())];
    while let Some((prefix, members)) = stack.last_mut() {
        let Some(kv) = members.next() else {
            stack.pop();
            continue;
        };
        let name = if prefix.is_empty() {
            kv.key.clone()
        } else {
            format!("{prefix}.{}", kv.key)
        };
        match kv.value.as_ref().and_then(|v| v.value.as_ref()) {
            Some(any_value::Value::StringValue(s)) => {
                record.field(&name, s.as_str());
            }
            Some(any_value::Value::BoolValue(b)) => {
                record.field(&name, *b);
            }
            Some(any_value::Value::IntValue(i)) => {
                record.field(&name, *i);
            }
            Some(any_value::Value::DoubleValue(f)) => {
                record.field(&name, *f);
            }
            Some(any_value::Value::BytesValue(b)) => {
                record.field(&name, hex(b).as_str());
            }
            Some(any_value::Value::KvlistValue(list)) if !list.values.is_empty() => {
                stack.push((name, list.values.iter()));
            }
            _ => {
                let value = kv.value.as_ref().map_or(Value::Null, plain);
                record.field(&name, logship::Value::Json(&value.to_string()));
            }
        }
    }
}

/// An `AnyValue` as plain JSON, built with an explicit stack (no recursion on input).
fn plain(root: &AnyValue) -> Value {
    enum Frame<'a> {
        Array(std::slice::Iter<'a, AnyValue>, Vec<Value>),
        List(
            std::slice::Iter<'a, KeyValue>,
            serde_json::Map<String, Value>,
            Option<String>,
        ),
    }
    // A scalar, or the frame a composite value opens.
    fn open(v: Option<&AnyValue>) -> Result<Value, Frame<'_>> {
        match v.and_then(|v| v.value.as_ref()) {
            None => Ok(Value::Null),
            Some(any_value::Value::StringValue(s)) => Ok(Value::String(s.clone())),
            Some(any_value::Value::BoolValue(b)) => Ok(Value::Bool(*b)),
            Some(any_value::Value::IntValue(i)) => Ok(Value::from(*i)),
            Some(any_value::Value::DoubleValue(f)) => {
                Ok(serde_json::Number::from_f64(*f).map_or(Value::Null, Value::Number))
            }
            Some(any_value::Value::BytesValue(b)) => Ok(Value::String(hex(b))),
            Some(any_value::Value::StringValueStrindex(i)) => Ok(Value::from(*i)),
            Some(any_value::Value::ArrayValue(a)) => Err(Frame::Array(a.values.iter(), Vec::new())),
            Some(any_value::Value::KvlistValue(l)) => {
                Err(Frame::List(l.values.iter(), serde_json::Map::new(), None))
            }
        }
    }
    let mut stack = match open(Some(root)) {
        Ok(v) => return v,
        Err(frame) => vec![frame],
    };
    let mut done: Option<Value> = None;
    loop {
        let Some(top) = stack.last_mut() else {
            return done.unwrap_or(Value::Null);
        };
        // Give the finished child to its parent.
        if let Some(v) = done.take() {
            match top {
                Frame::Array(_, out) => out.push(v),
                Frame::List(_, out, key) => {
                    out.insert(key.take().unwrap_or_default(), v);
                }
            }
        }
        let next = match top {
            Frame::Array(items, _) => items.next().map(|v| open(Some(v))),
            Frame::List(items, _, key) => items.next().map(|kv| {
                *key = Some(kv.key.clone());
                open(kv.value.as_ref())
            }),
        };
        match next {
            Some(Ok(v)) => done = Some(v),
            Some(Err(frame)) => stack.push(frame),
            None => {
                done = Some(match stack.pop() {
                    Some(Frame::Array(_, out)) => Value::Array(out),
                    Some(Frame::List(_, out, _)) => Value::Object(out),
                    None => Value::Null,
                });
            }
        }
    }
}

/// [`plain`], for the module's tests.
#[cfg(test)]
pub(super) fn plain_for_tests(v: &AnyValue) -> Value {
    plain(v)
}

fn hex(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        out.push_str(&format!("{b:02x}"));
    }
    out
}
