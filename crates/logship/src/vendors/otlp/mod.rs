//! OpenTelemetry OTLP/HTTP logs (docs/wire-formats.md section 5).
//!
//! `POST <endpoint>/v1/logs` (the path is added to an endpoint without one) with one
//! `ExportLogsServiceRequest` per batch, as binary protobuf (`application/x-protobuf`, the
//! default) or in the OTLP JSON mapping (`application/json`), chosen by
//! [`crate::OtlpEncoding`]. The body holds one `ResourceLogs` (resource attributes
//! `service.name`, `host.name` and the tags), and one `ScopeLogs` per run of consecutive
//! records with the same target (the scope's name is the target). Each `LogRecord` has
//! `timeUnixNano` and `observedTimeUnixNano` (the record's time: logship observes the
//! event when it is logged), `severityNumber` and `severityText` from the level, the
//! message as a string body, and the event's fields as typed attributes (named as
//! `span_fields` says, each key once: see `super::fields`). A field named
//! `trace_id` (32 hex digits) or `span_id` (16 hex digits), on the event or on one of its
//! spans, becomes the record's trace or span id instead of an attribute.
//!
//! Streaming: the batcher appends records one by one and needs the body's exact size at
//! every step. Both encodings therefore write a fixed prefix in `open`, let `push` know
//! the previous record of the batch (to continue its scope or start a new one), and keep
//! `close` to a known size: 6 bytes of brackets in JSON; nothing in protobuf, where the
//! lengths of the enclosing `ResourceLogs` and of each `ScopeLogs` are written as
//! five-byte (padded) varints and patched in place by `close` (see [`protobuf`]).
//!
//! Responses: 2xx delivered, unless a `partialSuccess` names rejected records, which are
//! then counted as failed and never resent; 429, 502, 503 and 504 retried (the spec's
//! retryable set: 500 is not retryable in OTLP); 413 is not retryable either, so the
//! batch is split into smaller requests; everything else is permanent.

mod json_mapping;
mod protobuf;

use std::borrow::Cow;

use super::fields::{
    error_stack, hex_id, id_name, trace_flags, ErrorNames, Naming, Style, TraceIds,
};
use super::format::Protocol;
use super::{Context, Limits};
use crate::config::OtlpEncoding;
use crate::vendors::classify::{ItemResults, Outcome, Rule};
use crate::capture::record::{Entry, Level, Record, Value};

/// The standard path, appended to an `endpoint` given without one.
pub(super) const PATH: &str = "/v1/logs";
/// OTLP itself sets no limits; 20 MiB is the OpenTelemetry Collector's default
/// `max_request_body_size` for its HTTP receivers (UNCONFIRMED in docs/wire-formats.md: the
/// configured `max_batch_bytes` is normally far below it anyway).
pub(super) const LIMITS: Limits = Limits {
    max_records: usize::MAX,
    max_body_bytes: 20 * 1024 * 1024,
    max_event_bytes: 20 * 1024 * 1024,
    max_wire_bytes: None,
};
/// Section 5.3: 2xx delivered (see [`classify`] for `partialSuccess`); 429, 502, 503,
/// 504 retried; 413 split (not retryable as sent); everything else, 500 included,
/// permanent.
pub(super) const RESPONSES: &[Rule] = &[
    Rule::range(200, 299, Outcome::Delivered),
    Rule::one(413, Outcome::TooLarge),
    Rule::one(429, Outcome::Retry),
    Rule::range(502, 504, Outcome::Retry),
];

/// What a response means; a 2xx with a `partialSuccess` that rejected records is
/// [`Outcome::PartialRejected`]. `body` is the raw response body, in the encoding of the
/// request.
pub(super) fn classify(status: u16, body: &[u8], encoding: OtlpEncoding) -> Outcome {
    let outcome = super::classify::by_table(RESPONSES, status);
    if outcome != Outcome::Delivered {
        return outcome;
    }
    let rejected = match encoding {
        OtlpEncoding::Protobuf => protobuf::rejected_log_records(body),
        OtlpEncoding::Json => json_mapping::rejected_log_records(body),
    };
    match rejected {
        // A count that is not one (negative, overflowing, garbled) proves nothing was
        // stored: a failure to retry, never "delivered".
        Some(n) if n < 0 => Outcome::Retry,
        Some(n) if n > 0 => Outcome::PartialRejected(usize::try_from(n).unwrap_or(usize::MAX)),
        _ => Outcome::Delivered,
    }
}

/// The text of an error answer in protobuf (`google.rpc.Status`), for the report;
/// `None` for JSON answers and bodies that are not one.
pub(super) fn error_text(status: u16, body: &[u8], encoding: OtlpEncoding) -> Option<String> {
    match encoding {
        OtlpEncoding::Protobuf if !(200..=299).contains(&status) => protobuf::status_message(body),
        _ => None,
    }
}

/// The OpenTelemetry severity number and text of a level (the first number of each
/// range of the log data model).
fn severity(level: Level) -> (u8, &'static str) {
    match level {
        Level::Trace => (1, "TRACE"),
        Level::Debug => (5, "DEBUG"),
        Level::Info => (9, "INFO"),
        Level::Warn => (13, "WARN"),
        Level::Error => (17, "ERROR"),
    }
}

/// An attribute value, typed as OTLP's `AnyValue`.
#[derive(Clone, Debug, PartialEq)]
enum AnyValue<'a> {
    Str(Cow<'a, str>),
    Int(i64),
    Double(f64),
    Bool(bool),
    /// No value (JSON `null`).
    Empty,
    /// An array of a JSON line's field, one level deep by construction: its elements are
    /// never arrays themselves (a nested array or object is an element's JSON text), so
    /// writing one never recurses more than once.
    Array(Vec<AnyValue<'a>>),
}

impl AnyValue<'_> {
    /// A JSON value's OTLP form: an array becomes an `ArrayValue` of its elements, `null`
    /// no value; anything nested deeper, and an object (a JSON line's objects arrive as
    /// dotted names, so only `{}` gets here), its JSON text.
    fn of_json(text: &str) -> AnyValue<'static> {
        let scalar = |v: &serde_json::Value| match v {
            serde_json::Value::String(s) => AnyValue::Str(Cow::Owned(s.clone())),
            serde_json::Value::Bool(b) => AnyValue::Bool(*b),
            serde_json::Value::Null => AnyValue::Empty,
            serde_json::Value::Number(n) => match (n.as_i64(), n.as_f64()) {
                (Some(i), _) => AnyValue::Int(i),
                (None, Some(f)) if n.is_f64() && f.is_finite() => AnyValue::Double(f),
                _ => AnyValue::Str(Cow::Owned(n.to_string())),
            },
            other => AnyValue::Str(Cow::Owned(other.to_string())),
        };
        match serde_json::from_str::<serde_json::Value>(text) {
            Ok(serde_json::Value::Array(items)) => {
                AnyValue::Array(items.iter().map(scalar).collect())
            }
            Ok(serde_json::Value::Null) => AnyValue::Empty,
            _ => AnyValue::Str(Cow::Owned(text.to_owned())),
        }
    }
}

impl<'a> From<Value<'a>> for AnyValue<'a> {
    fn from(v: Value<'a>) -> AnyValue<'a> {
        match v {
            Value::Str(s) => AnyValue::Str(Cow::Borrowed(s)),
            Value::I64(n) => AnyValue::Int(n),
            // OTLP has no unsigned integer: values past i64 keep every digit as text.
            Value::U64(n) => match i64::try_from(n) {
                Ok(n) => AnyValue::Int(n),
                Err(_) => AnyValue::Str(Cow::Owned(n.to_string())),
            },
            Value::F64(f) if f.is_finite() => AnyValue::Double(f),
            // JSON decoders differ on NaN and infinities: both encodings send them as text.
            Value::F64(f) if f.is_nan() => AnyValue::Str(Cow::Borrowed("NaN")),
            Value::F64(f) if f > 0.0 => AnyValue::Str(Cow::Borrowed("Infinity")),
            Value::F64(_) => AnyValue::Str(Cow::Borrowed("-Infinity")),
            Value::Bool(b) => AnyValue::Bool(b),
            Value::Json(s) => AnyValue::of_json(s),
        }
    }
}

/// One attribute, under its final name (unique within the record).
#[derive(Debug)]
struct Attr<'a> {
    key: Cow<'a, str>,
    value: AnyValue<'a>,
}

impl Attr<'_> {
    fn key_len(&self) -> usize {
        self.key.len()
    }
}

/// A record's attributes (unique keys, see [`super::fields`]) and trace context.
#[derive(Debug)]
struct Fields<'a> {
    attrs: Vec<Attr<'a>>,
    trace_id: Option<[u8; 16]>,
    span_id: Option<[u8; 8]>,
    /// W3C trace flags (`LogRecord.flags`); written only when not zero, proto3's default.
    flags: Option<u8>,
}

/// Whether a field is the record's trace or span id rather than an attribute.
fn is_trace_field(key: &str, value: Value<'_>) -> bool {
    match (key, value) {
        ("trace_id", Value::Str(s)) => hex_id::<16>(s).is_some(),
        ("span_id", Value::Str(s)) => hex_id::<8>(s).is_some(),
        ("trace_flags", Value::Str(s)) => trace_flags(s).is_some(),
        _ => false,
    }
}

/// The OpenTelemetry semantic convention for a log record's unique id ("other log
/// records with the same id will be considered duplicates and can be removed safely"):
/// where OTLP carries each event's id (`event_id`).
pub(super) const UID_NAME: &str = "log.record.uid";

impl<'a> Fields<'a> {
    /// The record's attributes; its id as [`UID_NAME`] when `with_id`.
    fn of(record: &'a Record, naming: &Naming, with_id: bool) -> Fields<'a> {
        // The last well-formed id recorded wins (the innermost span's, or the event's).
        let ids = TraceIds::of(record);
        let mut fields = Fields {
            attrs: Vec::new(),
            trace_id: ids.trace,
            span_id: ids.span,
            flags: ids.flags.filter(|f| *f != 0),
        };
        naming.visit(record, is_trace_field, |entry, name| {
            if let (Entry::Field(key, value), Some(name)) = (entry, name) {
                let key = if name == key {
                    Cow::Borrowed(key)
                } else {
                    Cow::Owned(name.to_owned())
                };
                fields.attrs.push(Attr {
                    key,
                    value: value.into(),
                });
            }
        });
        if let Some((_, e)) = record.first_error() {
            let names = ErrorNames::OTEL;
            let mut push = |key: &'static str, value: Cow<'a, str>| {
                fields.attrs.push(Attr {
                    key: Cow::Borrowed(key),
                    value: AnyValue::Str(value),
                })
            };
            if !e.kind.is_empty() {
                push(names.kind, Cow::Borrowed(e.kind));
            }
            push(names.message, Cow::Borrowed(e.message));
            push(names.stack, Cow::Owned(error_stack(&e)));
        }
        if let Some(id) = record.id().filter(|_| with_id) {
            fields.attrs.push(Attr {
                key: Cow::Borrowed(UID_NAME),
                value: AnyValue::Str(Cow::Owned(id.to_string())),
            });
        }
        fields
    }
}

/// The resource attributes of every request: `service.name`, `host.name`, the tags,
/// `deployment.environment.name` and `service.version`.
fn resource_attributes(ctx: &Context) -> Vec<(String, String)> {
    let mut attrs = vec![
        (
            "service.name".to_owned(),
            ctx.service
                .clone()
                .unwrap_or_else(|| "unknown_service".to_owned()),
        ),
        ("host.name".to_owned(), ctx.hostname.clone()),
    ];
    for tag in &ctx.tags {
        let (k, v) = tag.split_once(':').unwrap_or((tag.as_str(), "true"));
        let (k, v) = (k.trim(), v.trim());
        match attrs.iter_mut().find(|(key, _)| key == k) {
            Some(slot) => slot.1 = v.to_owned(),
            None => attrs.push((k.to_owned(), v.to_owned())),
        }
    }
    // `env` and `version` win over a tag of the same attribute name.
    for (k, v) in [
        ("deployment.environment.name", &ctx.env),
        ("service.version", &ctx.version),
    ] {
        let Some(v) = v else { continue };
        match attrs.iter_mut().find(|(key, _)| key == k) {
            Some(slot) => v.clone_into(&mut slot.1),
            None => attrs.push((k.to_owned(), v.clone())),
        }
    }
    attrs
}

/// Encodes batches in the configured encoding; the resource is encoded once.
#[derive(Debug)]
pub(super) struct Encoder {
    encoding: OtlpEncoding,
    /// What `open` writes: the request up to the first scope.
    prefix: Vec<u8>,
    naming: Naming,
    /// Whether each record carries its id as `log.record.uid` (`event_id`).
    with_id: bool,
}

impl Encoder {
    pub(super) fn new(ctx: &Context, encoding: OtlpEncoding) -> Encoder {
        let resource = resource_attributes(ctx);
        let prefix = match encoding {
            OtlpEncoding::Protobuf => protobuf::prefix(&resource),
            OtlpEncoding::Json => json_mapping::prefix(&resource),
        };
        Encoder {
            encoding,
            prefix,
            naming: Naming::new(
                ctx.span_fields,
                Style::Json,
                ErrorNames::OTEL
                    .all()
                    .into_iter()
                    .chain(id_name(ctx.event_id, UID_NAME)),
            ),
            with_id: ctx.event_id,
        }
    }

    pub(super) fn content_type(&self) -> &'static str {
        match self.encoding {
            OtlpEncoding::Protobuf => "application/x-protobuf",
            OtlpEncoding::Json => "application/json",
        }
    }

    pub(super) fn encoding(&self) -> OtlpEncoding {
        self.encoding
    }

    pub(super) fn open(&self, body: &mut Vec<u8>) {
        body.extend_from_slice(&self.prefix);
    }

    /// Appends `record`; `prev` is the batch's previous record (`None` for the first).
    pub(super) fn push(&self, body: &mut Vec<u8>, record: &Record, prev: Option<&Record>) {
        let new_scope = prev.is_none_or(|p| p.target() != record.target());
        match self.encoding {
            OtlpEncoding::Protobuf => {
                protobuf::push(body, record, new_scope, &self.naming, self.with_id)
            }
            OtlpEncoding::Json => json_mapping::push(
                body,
                record,
                prev.is_none(),
                new_scope,
                &self.naming,
                self.with_id,
            ),
        }
    }

    pub(super) fn close_len(&self) -> usize {
        match self.encoding {
            OtlpEncoding::Protobuf => 0,
            OtlpEncoding::Json => json_mapping::CLOSE_LEN,
        }
    }

    pub(super) fn close(&self, body: &mut Vec<u8>) {
        let empty = body.len() <= self.prefix.len();
        match self.encoding {
            OtlpEncoding::Protobuf => protobuf::close(body, self.prefix.len()),
            OtlpEncoding::Json => json_mapping::close(body, empty),
        }
    }
}

impl Protocol for Encoder {
    fn path(&self) -> Option<&'static str> {
        Some(PATH)
    }
    fn limits(&self) -> Limits {
        LIMITS
    }
    fn content_type(&self) -> &'static str {
        Encoder::content_type(self)
    }
    fn open(&self, body: &mut Vec<u8>) {
        Encoder::open(self, body);
    }
    fn push(&self, body: &mut Vec<u8>, record: &Record, prev: Option<&Record>) {
        Encoder::push(self, body, record, prev);
    }
    fn close_len(&self) -> usize {
        Encoder::close_len(self)
    }
    fn close(&self, body: &mut Vec<u8>, _records: &[Record]) {
        Encoder::close(self, body);
    }
    /// The answer is in the request's encoding (protobuf or JSON), not always text.
    fn classify(&self, status: u16, body: &[u8]) -> Outcome {
        classify(status, body, self.encoding())
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
mod tests;
