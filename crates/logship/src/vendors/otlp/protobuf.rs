//! The binary protobuf encoding of `ExportLogsServiceRequest`, written by hand.
//!
//! Why it exists: a protobuf library and generated types would be the heaviest part of
//! the crate for one message family. Field numbers are those of
//! `opentelemetry/proto/logs/v1/logs.proto` (docs/wire-formats.md 5.2); tests decode the output
//! with the official `opentelemetry-proto` types.
//!
//! Layout of a body (the request's only field is one `ResourceLogs`):
//!
//! ```text
//! 0x0A <len:5> ( 0x0A <len> Resource
//!                0x12 <len:5> ( 0x0A <len> InstrumentationScope  0x12 <len> LogRecord ... )
//!                0x12 <len:5> ( ... )                                                     )
//! ```
//!
//! A message's length must precede it, but a `ScopeLogs` or the `ResourceLogs` grows until
//! the batch is cut. Their lengths are therefore five-byte varints: `push` writes
//! [`PLACEHOLDER`] (zero, padded to five bytes) where a scope starts, and `close` walks
//! the body once and patches every placeholder and the `ResourceLogs` length with the
//! real value, padded to five bytes as well. Padded varints are valid protobuf (decoders
//! read up to ten bytes, and the value is the same), the body size never changes when it
//! is closed, and a placeholder can never be mistaken for a `LogRecord`'s length, which
//! is always written minimally (a minimal varint never ends in a zero byte after a
//! continuation byte).

use super::model::{severity, AnyValue, Attr, Fields};
use crate::capture::record::Record;
use crate::vendors::fields::Naming;

/// A zero length padded to five bytes: marks the start of a `ScopeLogs`.
const PLACEHOLDER: [u8; 5] = [0x80, 0x80, 0x80, 0x80, 0x00];
/// Largest length a five-byte varint holds.
const PADDED_MAX: usize = (1 << 35) - 1;

/// Wire types.
const LEN: u8 = 2;
const I64: u8 = 1;
const I32: u8 = 5;
const VARINT: u8 = 0;

const fn tag(field: u8, wire_type: u8) -> u8 {
    (field << 3) | wire_type
}

fn varint_len(mut n: u64) -> usize {
    let mut len = 1;
    while n >= 0x80 {
        n >>= 7;
        len += 1;
    }
    len
}

fn put_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// `n` as a five-byte varint.
fn padded(n: usize) -> [u8; 5] {
    let n = n.min(PADDED_MAX) as u64;
    let mut out = [0u8; 5];
    for (i, b) in out.iter_mut().enumerate() {
        *b = ((n >> (7 * i)) & 0x7f) as u8;
        if i < 4 {
            *b |= 0x80;
        }
    }
    out
}

/// Size of a length-delimited field whose content is `len` bytes (tags are one byte).
fn field_len(len: usize) -> usize {
    1 + varint_len(len as u64) + len
}

fn put_bytes_field(out: &mut Vec<u8>, field: u8, bytes: &[u8]) {
    out.push(tag(field, LEN));
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// Size of an `AnyValue` message.
fn any_value_len(v: &AnyValue<'_>) -> usize {
    match v {
        AnyValue::Str(s) => field_len(s.len()),
        AnyValue::Bool(_) => 2,
        AnyValue::Int(n) => 1 + varint_len(*n as u64),
        AnyValue::Double(_) => 9,
        AnyValue::Empty => 0,
        // Elements are never arrays (see `AnyValue::Array`): one level of recursion.
        AnyValue::Array(items) => field_len(array_len(items)),
    }
}

/// Size of an `ArrayValue` message (`repeated AnyValue values = 1`).
fn array_len(items: &[AnyValue<'_>]) -> usize {
    items.iter().map(|v| field_len(any_value_len(v))).sum()
}

/// Writes an `AnyValue` message's fields.
fn put_any_value(out: &mut Vec<u8>, v: &AnyValue<'_>) {
    match v {
        AnyValue::Str(s) => put_bytes_field(out, 1, s.as_bytes()),
        AnyValue::Bool(b) => {
            out.push(tag(2, VARINT));
            out.push(u8::from(*b));
        }
        AnyValue::Int(n) => {
            out.push(tag(3, VARINT));
            // int64 is encoded as its two's complement, ten bytes when negative.
            put_varint(out, *n as u64);
        }
        AnyValue::Double(f) => {
            out.push(tag(4, I64));
            out.extend_from_slice(&f.to_le_bytes());
        }
        AnyValue::Empty => {}
        AnyValue::Array(items) => {
            out.push(tag(5, LEN)); // array_value
            put_varint(out, array_len(items) as u64);
            for item in items {
                out.push(tag(1, LEN));
                put_varint(out, any_value_len(item) as u64);
                put_any_value(out, item);
            }
        }
    }
}

/// Size of a `KeyValue` message.
fn key_value_len(attr: &Attr<'_>) -> usize {
    field_len(attr.key_len()) + field_len(any_value_len(&attr.value))
}

fn put_key_value(out: &mut Vec<u8>, attr: &Attr<'_>) {
    out.push(tag(1, LEN));
    put_varint(out, attr.key_len() as u64);
    out.extend_from_slice(attr.key.as_bytes());
    out.push(tag(2, LEN));
    put_varint(out, any_value_len(&attr.value) as u64);
    put_any_value(out, &attr.value);
}

/// The request up to the first scope: the `ResourceLogs` header (its length patched by
/// [`close`]) and the `Resource` with its attributes.
pub(super) fn prefix(resource: &[(String, String)]) -> Vec<u8> {
    let mut res = Vec::new();
    for (k, v) in resource {
        let attr = Attr {
            key: k.as_str().into(),
            value: AnyValue::Str(v.as_str().into()),
        };
        res.push(tag(1, LEN));
        put_varint(&mut res, key_value_len(&attr) as u64);
        put_key_value(&mut res, &attr);
    }
    let mut out = vec![tag(1, LEN)];
    out.extend_from_slice(&PLACEHOLDER);
    put_bytes_field(&mut out, 1, &res);
    out
}

/// Appends one `LogRecord`, after a new `ScopeLogs` header when `new_scope`.
pub(super) fn push(
    body: &mut Vec<u8>,
    record: &Record,
    new_scope: bool,
    naming: &Naming,
    with_id: bool,
) {
    if new_scope {
        let name = record.target().as_bytes();
        body.push(tag(2, LEN));
        body.extend_from_slice(&PLACEHOLDER);
        // InstrumentationScope { name = 1 }
        body.push(tag(1, LEN));
        put_varint(body, field_len(name.len()) as u64);
        put_bytes_field(body, 1, name);
    }
    let fields = Fields::of(record, naming, with_id);
    let (number, text) = severity(record.level());
    let message = record.message_str();
    let body_len = field_len(message.len());
    let mut len = 9 + 2 + field_len(text.len()) + field_len(body_len) + 9;
    len += fields
        .attrs
        .iter()
        .map(|a| field_len(key_value_len(a)))
        .sum::<usize>();
    if fields.flags.is_some() {
        len += 5;
    }
    if fields.trace_id.is_some() {
        len += field_len(16);
    }
    if fields.span_id.is_some() {
        len += field_len(8);
    }
    body.push(tag(2, LEN));
    put_varint(body, len as u64);
    let start = body.len();
    let nanos = record.timestamp_nanos().to_le_bytes();
    body.push(tag(1, I64)); // time_unix_nano, fixed64
    body.extend_from_slice(&nanos);
    body.push(tag(2, VARINT)); // severity_number
    body.push(number);
    put_bytes_field(body, 3, text.as_bytes()); // severity_text
    body.push(tag(5, LEN)); // body: AnyValue { string_value }
    put_varint(body, body_len as u64);
    put_bytes_field(body, 1, message.as_bytes());
    for attr in &fields.attrs {
        body.push(tag(6, LEN)); // attributes
        put_varint(body, key_value_len(attr) as u64);
        put_key_value(body, attr);
    }
    if let Some(flags) = fields.flags {
        body.push(tag(8, I32)); // flags, fixed32
        body.extend_from_slice(&u32::from(flags).to_le_bytes());
    }
    if let Some(id) = &fields.trace_id {
        put_bytes_field(body, 9, id);
    }
    if let Some(id) = &fields.span_id {
        put_bytes_field(body, 10, id);
    }
    body.push(tag(11, I64)); // observed_time_unix_nano, fixed64
    body.extend_from_slice(&nanos);
    debug_assert_eq!(body.len() - start, len, "LogRecord size");
}

/// Reads a varint at `pos`: its value and size.
fn read_varint(bytes: &[u8], pos: usize) -> Option<(u64, usize)> {
    let mut value = 0u64;
    for i in 0..10 {
        let b = *bytes.get(pos + i)?;
        value |= u64::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            return Some((value, i + 1));
        }
    }
    None
}

/// Patches the lengths of every `ScopeLogs` and of the `ResourceLogs`; the body keeps
/// its size. `scopes_at` is where the first scope starts (the prefix's length).
pub(super) fn close(body: &mut [u8], scopes_at: usize) {
    let mut pos = scopes_at;
    let mut scope: Option<usize> = None;
    // Both levels are walked as one flat sequence of length-delimited fields: scope
    // headers (tag, placeholder) and each scope's fields (tag, length, content).
    while pos < body.len() {
        let at = pos + 1;
        if body.get(at..at + 5) == Some(&PLACEHOLDER[..]) {
            if let Some(s) = scope {
                let len = pos - (s + 5);
                body[s..s + 5].copy_from_slice(&padded(len));
            }
            scope = Some(at);
            pos = at + 5;
            continue;
        }
        match read_varint(body, at) {
            Some((len, size)) => pos = at + size + len as usize,
            None => break, // cannot happen for a body written by `push`
        }
    }
    if let Some(s) = scope {
        let len = body.len() - (s + 5);
        body[s..s + 5].copy_from_slice(&padded(len));
    }
    if body.len() >= 6 {
        let len = body.len() - 6;
        body[1..6].copy_from_slice(&padded(len));
    }
}

/// `partial_success.rejected_log_records` of an `ExportLogsServiceResponse`; `None`
/// when the body is not one or has no partial success; negative when the count is there
/// but is not one (a negative `int64`, a garbled partial success): not a success.
pub(super) fn rejected_log_records(body: &[u8]) -> Option<i64> {
    // A message field sent more than once is merged (protobuf: the occurrences read as
    // their concatenation), so an empty `partial_success` after a full one changes nothing.
    let mut partial = Vec::new();
    for field in occurrences(body, 1)? {
        match field {
            Field::Bytes(bytes) => partial.extend_from_slice(bytes),
            Field::Varint(_) => return Some(-1),
        }
    }
    if partial.is_empty() {
        return None;
    }
    match parse_fields(&partial) {
        None => Some(-1),
        Some(()) => match find_field(&partial, 1) {
            Some(Field::Varint(n)) => Some(i64::try_from(n).unwrap_or(-1)),
            Some(Field::Bytes(_)) => Some(-1),
            None => None,
        },
    }
}

/// `Some` when `msg` is a well-formed sequence of protobuf fields.
fn parse_fields(msg: &[u8]) -> Option<()> {
    top_level_fields(msg).map(|_| ())
}

/// The text of a `google.rpc.Status` error body (OTLP/HTTP's protobuf error answer):
/// `code N: message`; `None` when the body is not one with a message.
pub(super) fn status_message(body: &[u8]) -> Option<String> {
    parse_fields(body)?;
    let Field::Bytes(message) = find_field(body, 2)? else {
        return None;
    };
    let message = std::str::from_utf8(message).ok()?;
    Some(match find_field(body, 1) {
        Some(Field::Varint(code)) => format!("code {}: {message}", code as i32),
        _ => message.to_owned(),
    })
}

enum Field<'a> {
    Varint(u64),
    Bytes(&'a [u8]),
}

/// The last occurrence of field `number` in a message (protobuf's "last one wins").
fn find_field(msg: &[u8], number: u64) -> Option<Field<'_>> {
    occurrences(msg, number)?.pop()
}

/// Every occurrence of field `number` in `msg`, in order; `None` when `msg` is not a
/// well-formed sequence of fields.
fn occurrences(msg: &[u8], number: u64) -> Option<Vec<Field<'_>>> {
    let fields = top_level_fields(msg)?;
    Some(
        fields
            .into_iter()
            .filter(|(n, _)| *n == number)
            .map(|(_, field)| field)
            .collect(),
    )
}

/// The fields of `msg` that carry a value (varint or length-delimited), with their
/// numbers, in order; `None` when `msg` is not well formed. Fixed-size fields are skipped,
/// and so are groups (the deprecated wire types 3 and 4, which prost and the official
/// SDKs skip too) with everything inside them, by depth, without recursion.
fn top_level_fields(msg: &[u8]) -> Option<Vec<(u64, Field<'_>)>> {
    let mut pos = 0;
    let mut found = Vec::new();
    // Numbers of the groups we are inside, innermost last.
    let mut groups: Vec<u64> = Vec::new();
    while pos < msg.len() {
        let (key, size) = read_varint(msg, pos)?;
        pos += size;
        let number = key >> 3;
        let field = match key & 7 {
            0 => {
                let (v, size) = read_varint(msg, pos)?;
                pos += size;
                Field::Varint(v)
            }
            1 | 5 => {
                pos = pos.checked_add(if key & 7 == 1 { 8 } else { 4 })?;
                if pos > msg.len() {
                    return None;
                }
                continue;
            }
            2 => {
                let (len, size) = read_varint(msg, pos)?;
                pos += size;
                let end = pos.checked_add(usize::try_from(len).ok()?)?;
                let bytes = msg.get(pos..end)?;
                pos = end;
                Field::Bytes(bytes)
            }
            3 => {
                groups.push(number);
                continue;
            }
            4 => {
                if groups.pop() != Some(number) {
                    return None; // an end without its start, or the wrong one
                }
                continue;
            }
            _ => return None,
        };
        if groups.is_empty() {
            found.push((number, field));
        }
    }
    groups.is_empty().then_some(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padded_varints_read_back_and_placeholders_are_never_minimal() {
        for n in [0usize, 1, 127, 128, 16_383, 16_384, 1 << 20, PADDED_MAX] {
            assert_eq!(read_varint(&padded(n), 0), Some((n as u64, 5)));
        }
        assert_eq!(padded(0), PLACEHOLDER);
        for n in [0u64, 1, 127, 128, 1 << 21, 1 << 28, 1 << 34] {
            let mut v = Vec::new();
            put_varint(&mut v, n);
            assert_eq!(v.len(), varint_len(n));
            assert_ne!(v.get(..5), Some(&PLACEHOLDER[..]));
        }
    }

    #[test]
    fn a_google_rpc_status_body_reads_as_its_message() {
        // Status { code: 3, message: "bad logs" }
        let body = [
            0x08, 0x03, 0x12, 0x08, b'b', b'a', b'd', b' ', b'l', b'o', b'g', b's',
        ];
        assert_eq!(status_message(&body).as_deref(), Some("code 3: bad logs"));
        assert_eq!(status_message(b"<html>oops</html>"), None);
        assert_eq!(status_message(b"{\"error\":1}"), None);
        assert_eq!(status_message(&[0x12, 0x40, b'x']), None);
    }

    #[test]
    fn partial_success_is_read_from_a_response() {
        // partial_success { rejected_log_records: 3, error_message: "bad" }
        let body = [0x0A, 0x07, 0x08, 0x03, 0x12, 0x03, b'b', b'a', b'd'];
        assert_eq!(rejected_log_records(&body), Some(3));
        assert_eq!(rejected_log_records(&[]), None);
        assert_eq!(rejected_log_records(&[0x0A, 0x00]), None);
        assert_eq!(rejected_log_records(&[0x0A, 0x09, 0x08]), None);
        // A negative int64 (ten-byte varint) and a garbled partial success are not counts.
        let negative = [
            0x0A, 0x0B, 0x08, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01,
        ];
        assert_eq!(rejected_log_records(&negative), Some(-1));
        assert_eq!(rejected_log_records(&[0x0A, 0x02, 0x08, 0x80]), Some(-1));
        assert_eq!(rejected_log_records(b"{\"partialSuccess\":{}}"), None);
        // Sent twice, the occurrences merge: a later empty one keeps the count (as prost
        // and every official SDK read it).
        let twice = [0x0A, 0x02, 0x08, 0x05, 0x0A, 0x00];
        assert_eq!(rejected_log_records(&twice), Some(5));
        let counts = [0x0A, 0x02, 0x08, 0x05, 0x0A, 0x02, 0x08, 0x07];
        assert_eq!(
            rejected_log_records(&counts),
            Some(7),
            "the last count wins"
        );
        // Groups (wire types 3 and 4) are skipped with what they hold, as prost skips them.
        let grouped = [
            0x23, 0x23, 0x0A, 0x02, 0x08, 0x09, 0x24, 0x24, 0x0A, 0x02, 0x08, 0x05, 0x23, 0x24,
        ];
        assert_eq!(rejected_log_records(&grouped), Some(5));
        assert_eq!(
            rejected_log_records(&[0x23, 0x0A, 0x02, 0x08, 0x05]),
            None,
            "unclosed"
        );
        assert_eq!(
            rejected_log_records(&[0x24, 0x0A, 0x02, 0x08, 0x05]),
            None,
            "unopened"
        );
        let fuzzed = b"##$#$$#$#$##$$\x0a\x02\x08\x05\x0a\x02\x08\x07#$";
        assert_eq!(rejected_log_records(fuzzed), Some(7), "fuzz regression");
    }
}
