//! The OTLP JSON mapping of `ExportLogsServiceRequest` (docs/wire-formats.md 5.2).
//!
//! Why it exists: some collectors and proxies only take JSON. OTLP's JSON is the
//! protobuf JSON mapping with its own rules: lowerCamelCase names, 64-bit integers as
//! decimal strings, enums as integers, trace and span ids as hex, attributes as a list of
//! `{"key","value":AnyValue}`. Written straight into the body like the other encoders.

use super::model::{severity, AnyValue, Attr, Fields};
use crate::capture::record::Record;
use crate::support::json;
use crate::vendors::fields::Naming;

/// What `close` writes after at least one record: `]}` ends the scope, `]}]}` the
/// request.
pub(super) const CLOSE_LEN: usize = 6;

fn put_any_value(out: &mut Vec<u8>, v: &AnyValue<'_>) {
    match v {
        AnyValue::Str(s) => {
            out.extend_from_slice(b"{\"stringValue\":");
            json::string(out, s);
        }
        AnyValue::Int(n) => {
            out.extend_from_slice(b"{\"intValue\":\"");
            json::integer(out, *n);
            out.push(b'"');
        }
        AnyValue::Double(f) => {
            // Always finite: see `AnyValue`'s conversion.
            out.extend_from_slice(b"{\"doubleValue\":");
            json::float(out, *f);
        }
        AnyValue::Bool(b) => {
            out.extend_from_slice(b"{\"boolValue\":");
            out.extend_from_slice(if *b { b"true" } else { b"false" });
        }
        AnyValue::Empty => out.push(b'{'),
        // Elements are never arrays (see `AnyValue::Array`): one level of recursion.
        AnyValue::Array(items) => {
            out.extend_from_slice(b"{\"arrayValue\":{\"values\":[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                put_any_value(out, item);
            }
            out.extend_from_slice(b"]}");
        }
    }
    out.push(b'}');
}

fn put_key_value(out: &mut Vec<u8>, attr: &Attr<'_>) {
    out.extend_from_slice(b"{\"key\":");
    json::string(out, &attr.key);
    out.extend_from_slice(b",\"value\":");
    put_any_value(out, &attr.value);
    out.push(b'}');
}

fn put_hex(out: &mut Vec<u8>, bytes: &[u8]) {
    out.push(b'"');
    crate::support::hex::append(out, bytes);
    out.push(b'"');
}

/// The request up to the first scope, with the resource.
pub(super) fn prefix(resource: &[(String, String)]) -> Vec<u8> {
    let mut out = b"{\"resourceLogs\":[{\"resource\":{\"attributes\":[".to_vec();
    for (i, (k, v)) in resource.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        let attr = Attr {
            key: k.as_str().into(),
            value: AnyValue::Str(v.as_str().into()),
        };
        put_key_value(&mut out, &attr);
    }
    out.extend_from_slice(b"]},\"scopeLogs\":[");
    out
}

/// Appends one record: `first` of the batch, or the first of a `new_scope`.
pub(super) fn push(
    body: &mut Vec<u8>,
    record: &Record,
    first: bool,
    new_scope: bool,
    naming: &Naming,
    with_id: bool,
) {
    if new_scope {
        if !first {
            body.extend_from_slice(b"]},");
        }
        body.extend_from_slice(b"{\"scope\":{\"name\":");
        json::string(body, record.target());
        body.extend_from_slice(b"},\"logRecords\":[");
    } else {
        body.push(b',');
    }
    let fields = Fields::of(record, naming, with_id);
    let (number, text) = severity(record.level());
    body.extend_from_slice(b"{\"timeUnixNano\":\"");
    json::unsigned(body, record.timestamp_nanos());
    body.extend_from_slice(b"\",\"observedTimeUnixNano\":\"");
    json::unsigned(body, record.timestamp_nanos());
    body.extend_from_slice(b"\",\"severityNumber\":");
    json::unsigned(body, number.into());
    body.extend_from_slice(b",\"severityText\":\"");
    body.extend_from_slice(text.as_bytes());
    body.extend_from_slice(b"\",\"body\":{\"stringValue\":");
    json::string(body, record.message_str());
    body.extend_from_slice(b"},\"attributes\":[");
    for (i, attr) in fields.attrs.iter().enumerate() {
        if i > 0 {
            body.push(b',');
        }
        put_key_value(body, attr);
    }
    body.push(b']');
    if let Some(flags) = fields.flags {
        body.extend_from_slice(b",\"flags\":");
        json::unsigned(body, flags.into());
    }
    if let Some(id) = &fields.trace_id {
        body.extend_from_slice(b",\"traceId\":");
        put_hex(body, id);
    }
    if let Some(id) = &fields.span_id {
        body.extend_from_slice(b",\"spanId\":");
        put_hex(body, id);
    }
    body.push(b'}');
}

/// Ends the last scope (unless the batch is `empty`) and the request.
pub(super) fn close(body: &mut Vec<u8>, empty: bool) {
    if !empty {
        body.extend_from_slice(b"]}");
    }
    body.extend_from_slice(b"]}]}");
}

/// `partialSuccess.rejectedLogRecords` of a JSON `ExportLogsServiceResponse` (a string or
/// a number); `None` when absent or not JSON; negative when it is there but is not a
/// count that fits an `int64` (negative, too large, fractional, not a number): not a
/// success.
pub(super) fn rejected_log_records(body: &[u8]) -> Option<i64> {
    let v: serde_json::Value = serde_json::from_slice(body).ok()?;
    let count = match v.get("partialSuccess")?.get("rejectedLogRecords")? {
        serde_json::Value::Null => return None,
        serde_json::Value::String(s) => s.trim().parse::<i64>().ok(),
        n => n.as_i64(),
    };
    Some(count.filter(|n| *n >= 0).unwrap_or(-1))
}
