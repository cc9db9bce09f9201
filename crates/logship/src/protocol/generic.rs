//! Generic intakes: NDJSON and JSON array, to any URL.
//!
//! Why it exists: many collectors (Vector's `http_server`, Fluent Bit's `http` input,
//! Logstash, custom services) accept plain JSON events. The event shape is documented in
//! docs/vendors.md:
//!
//! ```json
//! {"timestamp":"2026-11-29T21:55:57.123Z","level":"INFO","target":"app::orders",
//!  "message":"order placed","order_id":42,
//!  "spans":[{"name":"request","method":"POST"}]}
//! ```
//!
//! Event fields are top-level keys; a field whose name is one of the reserved keys
//! (`timestamp`, `level`, `target`, `message`, `spans`) is written as `field.<name>`.
//! Enclosing spans, outermost first, are listed in `spans` with their fields (a span
//! field called `name` is written `field.name`). Every name appears once per object: of
//! a field recorded twice, the last value is kept. This format does not read
//! `span_fields`: it keeps each span apart, which is what a collector downstream needs
//! to apply any mapping it likes.

use std::sync::LazyLock;

use super::fields::Naming;
use super::format::Protocol;
use super::Limits;
use crate::json;
use crate::protocol::classify::{self, ItemResults, Outcome};
use crate::record::{Entry, Record};

/// Generic intakes have no limit of their own beyond the configured batch triggers.
pub(super) const LIMITS: Limits = Limits {
    max_records: usize::MAX,
    max_body_bytes: usize::MAX,
    max_event_bytes: usize::MAX,
    max_wire_bytes: None,
};

/// Media type of an NDJSON body.
pub(super) const NDJSON_CONTENT_TYPE: &str = "application/x-ndjson";
/// Media type of a JSON-array body.
pub(super) const ARRAY_CONTENT_TYPE: &str = "application/json";

const RESERVED: [&str; 5] = ["timestamp", "level", "target", "message", "spans"];

/// Unique names: the event's fields in the event object, each span's in its own.
static NAMING: LazyLock<Naming> = LazyLock::new(|| Naming::per_span(&RESERVED, &["name"]));

/// Appends one event as a JSON object followed by a newline.
pub(super) fn push_ndjson(body: &mut Vec<u8>, record: &Record) {
    write_object(body, record);
    body.push(b'\n');
}

/// Appends one event as an element of a JSON array.
pub(super) fn push_array_item(body: &mut Vec<u8>, record: &Record, first: bool) {
    if !first {
        body.push(b',');
    }
    write_object(body, record);
}

/// Writes the generic event object.
pub(crate) fn write_object(out: &mut Vec<u8>, record: &Record) {
    out.extend_from_slice(b"{\"timestamp\":\"");
    json::rfc3339_millis(out, record.timestamp_nanos());
    out.extend_from_slice(b"\",\"level\":\"");
    out.extend_from_slice(record.level().as_str().as_bytes());
    out.extend_from_slice(b"\",\"target\":");
    json::string(out, record.target());
    out.extend_from_slice(b",\"message\":");
    json::string(out, record.message_str());
    let mut in_span = false;
    NAMING.visit(
        record,
        |_, _| false,
        |entry, name| match entry {
            Entry::Message(_) => {}
            Entry::Field(_, value) => {
                if let Some(name) = name {
                    out.push(b',');
                    json::string(out, name);
                    out.push(b':');
                    json::value(out, value);
                }
            }
            Entry::Error(_, e) => {
                if let Some(name) = name {
                    out.push(b',');
                    json::string(out, name);
                    out.extend_from_slice(b":{");
                    if !e.kind.is_empty() {
                        out.extend_from_slice(b"\"type\":");
                        json::string(out, e.kind);
                        out.push(b',');
                    }
                    out.extend_from_slice(b"\"message\":");
                    json::string(out, e.message);
                    out.extend_from_slice(b",\"sources\":[");
                    for (i, source) in e.sources().enumerate() {
                        if i > 0 {
                            out.push(b',');
                        }
                        json::string(out, source);
                    }
                    out.extend_from_slice(b"]}");
                }
            }
            Entry::Span(span) => {
                out.extend_from_slice(if in_span { b"}," } else { b",\"spans\":[" });
                in_span = true;
                out.extend_from_slice(b"{\"name\":");
                json::string(out, span);
            }
        },
    );
    if in_span {
        out.extend_from_slice(b"}]");
    }
    out.push(b'}');
}

/// Generic intakes follow HTTP semantics.
pub(super) fn classify(status: u16) -> Outcome {
    classify::http_default(status)
}

/// Newline-delimited JSON objects, to any URL.
#[derive(Debug)]
pub(super) struct Ndjson;

/// One JSON array of objects, to any URL.
#[derive(Debug)]
pub(super) struct JsonArray;

impl Protocol for Ndjson {
    fn path(&self) -> Option<&'static str> {
        None
    }
    fn limits(&self) -> Limits {
        LIMITS
    }
    fn content_type(&self) -> &'static str {
        NDJSON_CONTENT_TYPE
    }
    fn open(&self, _body: &mut Vec<u8>) {}
    fn push(&self, body: &mut Vec<u8>, record: &Record, _prev: Option<&Record>) {
        push_ndjson(body, record);
    }
    fn close_len(&self) -> usize {
        0
    }
    fn close(&self, _body: &mut Vec<u8>, _records: &[Record]) {}
    fn classify(&self, status: u16, _body: &[u8]) -> Outcome {
        classify(status)
    }
    fn items(&self, _body: &str, _sent: usize) -> Option<ItemResults> {
        None
    }
    fn max_response_bytes(&self) -> u64 {
        super::MAX_ERROR_BODY
    }
    fn fit_line(&self, _record: &Record) -> Option<Record> {
        None
    }
}

impl Protocol for JsonArray {
    fn path(&self) -> Option<&'static str> {
        None
    }
    fn limits(&self) -> Limits {
        LIMITS
    }
    fn content_type(&self) -> &'static str {
        ARRAY_CONTENT_TYPE
    }
    fn open(&self, body: &mut Vec<u8>) {
        body.push(b'[');
    }
    fn push(&self, body: &mut Vec<u8>, record: &Record, prev: Option<&Record>) {
        push_array_item(body, record, prev.is_none());
    }
    fn close_len(&self) -> usize {
        1
    }
    fn close(&self, body: &mut Vec<u8>, _records: &[Record]) {
        body.push(b']');
    }
    fn classify(&self, status: u16, _body: &[u8]) -> Outcome {
        classify(status)
    }
    fn items(&self, _body: &str, _sent: usize) -> Option<ItemResults> {
        None
    }
    fn max_response_bytes(&self) -> u64 {
        super::MAX_ERROR_BODY
    }
    fn fit_line(&self, _record: &Record) -> Option<Record> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Level;

    #[test]
    fn object_shape_is_documented_json() {
        let mut r = Record::new(Level::Info, "app::orders");
        r.set_timestamp_nanos(1_700_000_000_123_000_000)
            .message("order \"placed\"\n")
            .field("order_id", 42u64)
            .field("level", "shadowed")
            .span("request")
            .field("method", "POST")
            .span("db")
            .field("rows", 3i64);
        let mut out = Vec::new();
        write_object(&mut out, &r);
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(
            v,
            serde_json::json!({
                "timestamp": "2023-11-14T22:13:20.123Z",
                "level": "INFO",
                "target": "app::orders",
                "message": "order \"placed\"\n",
                "order_id": 42,
                "field.level": "shadowed",
                "spans": [{"name": "request", "method": "POST"}, {"name": "db", "rows": 3}]
            })
        );
    }
}
