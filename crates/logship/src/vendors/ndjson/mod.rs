//! Generic intakes: NDJSON and JSON array, to any URL (vendors `ndjson` and `json`).
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
//! With `event_id` on (the default) each object also holds `"logship.id"`, the event's id
//! (32 hex digits), for deduplicating replayed events downstream.
//!
//! Event fields are top-level keys; a field whose name is one of the reserved keys
//! (`timestamp`, `level`, `target`, `message`, `spans`, and `logship.id` when ids are
//! written) is written as `field.<name>`.
//! Enclosing spans, outermost first, are listed in `spans` with their fields (a span
//! field called `name` is written `field.name`). Every name appears once per object: of
//! a field recorded twice, the last value is kept. This format does not read
//! `span_fields`: it keeps each span apart, which is what a collector downstream needs
//! to apply any mapping it likes.

pub(crate) mod facts;

use std::sync::LazyLock;

use crate::capture::record::{Entry, Record};
use crate::support::json;
use crate::vendors::fields::{write_id, write_logger, Naming, ID_NAME};
use crate::vendors::protocol::{Framing, Protocol};

const RESERVED: [&str; 5] = ["timestamp", "level", "target", "message", "spans"];

/// Unique names: the event's fields in the event object, each span's in its own.
static NAMING: LazyLock<Naming> = LazyLock::new(|| Naming::per_span(&RESERVED, &["name"]));
/// [`NAMING`] when the event object also holds [`ID_NAME`].
static NAMING_WITH_ID: LazyLock<Naming> = LazyLock::new(|| {
    let mut taken = RESERVED.to_vec();
    taken.push(ID_NAME);
    Naming::per_span(&taken, &["name"])
});

/// Appends one event as a JSON object followed by a newline.
fn push_ndjson(body: &mut Vec<u8>, record: &Record, with_id: bool) {
    write_object(body, record, with_id);
    body.push(b'\n');
}

/// Appends one event as an element of a JSON array.
fn push_array_item(body: &mut Vec<u8>, record: &Record, first: bool, with_id: bool) {
    if !first {
        body.push(b',');
    }
    write_object(body, record, with_id);
}

/// Writes the generic event object (with `"logship.id"` when `with_id`).
pub(crate) fn write_object(out: &mut Vec<u8>, record: &Record, with_id: bool) {
    out.extend_from_slice(b"{\"timestamp\":\"");
    json::rfc3339_millis(out, record.timestamp_nanos());
    out.extend_from_slice(b"\",\"level\":\"");
    out.extend_from_slice(record.level().as_str().as_bytes());
    out.push(b'"');
    write_logger(out, "target", record);
    out.extend_from_slice(b",\"message\":");
    json::string(out, record.message_str());
    write_id(out, ID_NAME, record, with_id);
    let naming = if with_id { &NAMING_WITH_ID } else { &NAMING };
    let mut in_span = false;
    naming.visit(
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

/// Newline-delimited JSON objects, to any URL.
#[derive(Debug)]
pub(crate) struct Ndjson {
    /// Whether each object holds the event's id (`event_id`).
    pub(crate) with_id: bool,
}

/// One JSON array of objects, to any URL.
#[derive(Debug)]
pub(crate) struct JsonArray {
    /// Whether each object holds the event's id (`event_id`).
    pub(crate) with_id: bool,
}

/// Every default of [`Protocol`]: any URL as given, no limits of its own, HTTP's meaning
/// of each status.
impl Protocol for Ndjson {
    fn push(&self, body: &mut Vec<u8>, record: &Record, _prev: Option<&Record>) {
        push_ndjson(body, record, self.with_id);
    }
}

impl Protocol for JsonArray {
    fn framing(&self) -> Framing {
        Framing::Array
    }
    fn push(&self, body: &mut Vec<u8>, record: &Record, prev: Option<&Record>) {
        push_array_item(body, record, prev.is_none(), self.with_id);
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::vendors::testutil::TestFacts;

    /// How these bodies look, for the tests that run over every vendor.
    pub(crate) const FACTS: TestFacts = TestFacts::plain("\"target\":");
    use crate::capture::record::Level;

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
        write_object(&mut out, &r, true);
        let mut v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        let id = v.as_object_mut().unwrap().remove("logship.id");
        assert_eq!(id, Some(r.id().unwrap().to_string().into()));
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
