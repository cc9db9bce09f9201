//! Reading an event's W3C trace context from its fields, for the vendors' correlation
//! fields.
//!
//! Why it exists: a log line that carries its trace and span ids links to the trace in
//! every vendor's UI; each vendor writes them under names (and in a notation) of its own,
//! but where they come from is the same. Must never: take a malformed or all-zero id.

use super::members::write_opt;
use crate::capture::record::{Entry, Record, Value};
use crate::support::json;

/// The W3C trace context of a record, from its fields named `trace_id` (32 hex digits),
/// `span_id` (16 hex digits) and `trace_flags` (2 hex digits): the last well-formed one
/// recorded wins (the innermost span's, or the event's own). The `opentelemetry` feature
/// writes these fields from the current OpenTelemetry context; without it, they are how
/// a trace reaches the log (a layer or the application records them).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct TraceIds {
    pub trace: Option<[u8; 16]>,
    pub span: Option<[u8; 8]>,
    pub flags: Option<u8>,
}

impl TraceIds {
    pub(crate) fn of(record: &Record) -> TraceIds {
        let mut ids = TraceIds::default();
        for entry in record.entries() {
            if let Entry::Field(key, Value::Str(s)) = entry {
                match key {
                    "trace_id" => ids.trace = hex_id::<16>(s).or(ids.trace),
                    "span_id" => ids.span = hex_id::<8>(s).or(ids.span),
                    "trace_flags" => ids.flags = trace_flags(s).or(ids.flags),
                    _ => {}
                }
            }
        }
        ids
    }

    /// Appends `,"<trace>":"<hex>","<span>":"<hex>"` (lowercase hex) for the ids present.
    #[inline]
    pub(crate) fn write_hex(&self, out: &mut Vec<u8>, trace: &str, span: &str) {
        let mut put = |key: &str, id: &[u8]| {
            out.push(b',');
            json::string(out, key);
            out.extend_from_slice(b":\"");
            crate::support::hex::append(out, id);
            out.push(b'"');
        };
        if let Some(t) = &self.trace {
            put(trace, t);
        }
        if let Some(s) = &self.span {
            put(span, s);
        }
    }

    /// Appends `,"<trace>":"<decimal>","<span>":"<decimal>"`: the lower 64 bits of the
    /// trace id and the span id as decimal strings, the notation some tracers inject.
    #[inline]
    pub(crate) fn write_decimal(&self, out: &mut Vec<u8>, trace: &str, span: &str) {
        let decimal = |b: &[u8]| {
            let mut n = [0u8; 8];
            n.copy_from_slice(b);
            u64::from_be_bytes(n).to_string()
        };
        if let Some(t) = &self.trace {
            write_opt(out, trace, Some(&decimal(&t[8..])));
        }
        if let Some(s) = &self.span {
            write_opt(out, span, Some(&decimal(s)));
        }
    }
}

/// Decodes `N` bytes from `2 * N` hex digits; `None` for anything else or all zeros
/// (which W3C trace context reads as "no id").
pub(crate) fn hex_id<const N: usize>(s: &str) -> Option<[u8; N]> {
    let s = s.as_bytes();
    if s.len() != 2 * N {
        return None;
    }
    let digit = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
    let mut out = [0u8; N];
    for (i, pair) in s.chunks_exact(2).enumerate() {
        out[i] = digit(pair[0])? << 4 | digit(pair[1])?;
    }
    out.iter().any(|b| *b != 0).then_some(out)
}

/// W3C trace flags from exactly two hex digits (`01` = sampled; `00` is valid too).
pub(crate) fn trace_flags(s: &str) -> Option<u8> {
    let digits = s.as_bytes();
    if digits.len() != 2 || !digits.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u8::from_str_radix(s, 16).ok()
}
