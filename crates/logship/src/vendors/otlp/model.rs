//! One log record in OTLP's data model: its severity, its typed attributes (each key
//! once) and its trace context, shared by the protobuf and the JSON encodings.
//!
//! Why it exists: both encodings write the same model; building it once here keeps the
//! two byte-for-byte equivalent. Must never: write an attribute key twice.

use std::borrow::Cow;

use crate::capture::record::{Entry, Level, Record, Value};
use crate::vendors::fields::{error_stack, hex_id, trace_flags, ErrorNames, Naming, TraceIds};

/// The OpenTelemetry severity number and text of a level (the first number of each
/// range of the log data model).
pub(super) fn severity(level: Level) -> (u8, &'static str) {
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
pub(super) enum AnyValue<'a> {
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
    pub(super) fn of_json(text: &str) -> AnyValue<'static> {
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
pub(super) struct Attr<'a> {
    pub(super) key: Cow<'a, str>,
    pub(super) value: AnyValue<'a>,
}

impl Attr<'_> {
    pub(super) fn key_len(&self) -> usize {
        self.key.len()
    }
}

/// A record's attributes (unique keys, see `vendors::fields`) and trace context.
#[derive(Debug)]
pub(super) struct Fields<'a> {
    pub(super) attrs: Vec<Attr<'a>>,
    pub(super) trace_id: Option<[u8; 16]>,
    pub(super) span_id: Option<[u8; 8]>,
    /// W3C trace flags (`LogRecord.flags`); written only when not zero, proto3's default.
    pub(super) flags: Option<u8>,
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
    pub(super) fn of(record: &'a Record, naming: &Naming, with_id: bool) -> Fields<'a> {
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
