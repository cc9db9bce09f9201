//! The tag-length-value encoding of a record's entry buffer: writers and the reader.
//!
//! Why it exists: the caller's thread writes entries straight into one buffer, and encoders
//! and the spill read them back without copying. Must never: panic on any bytes (a
//! malformed buffer ends the iteration), or allocate beyond the buffer it appends to.

use super::bytes::put_str;
use super::error_value::ErrorValue;
use super::parts::{Entry, Value};

pub(super) const TAG_MESSAGE: u8 = 1;
pub(super) const TAG_FIELD: u8 = 2;
pub(super) const TAG_SPAN: u8 = 3;
pub(super) const TAG_ERROR: u8 = 4;
/// An error-valued field with its own stack trace ([`ErrorValue::trace`]).
pub(super) const TAG_ERROR_TRACE: u8 = 5;
pub(super) const VAL_STR: u8 = 0;
pub(super) const VAL_I64: u8 = 1;
pub(super) const VAL_U64: u8 = 2;
pub(super) const VAL_F64: u8 = 3;
pub(super) const VAL_BOOL: u8 = 4;
pub(super) const VAL_JSON: u8 = 5;

pub(super) fn put_value(out: &mut Vec<u8>, value: Value<'_>) {
    match value {
        Value::Str(s) => {
            out.push(VAL_STR);
            put_str(out, s);
        }
        Value::I64(v) => {
            out.push(VAL_I64);
            out.extend_from_slice(&v.to_le_bytes());
        }
        Value::U64(v) => {
            out.push(VAL_U64);
            out.extend_from_slice(&v.to_le_bytes());
        }
        Value::F64(v) => {
            out.push(VAL_F64);
            out.extend_from_slice(&v.to_le_bytes());
        }
        Value::Bool(v) => {
            out.push(VAL_BOOL);
            out.push(u8::from(v));
        }
        Value::Json(s) if is_one_json_value(s) => {
            out.push(VAL_JSON);
            put_str(out, s);
        }
        Value::Json(s) => {
            out.push(VAL_STR);
            put_str(out, s);
        }
    }
}

/// Whether `s` is exactly one JSON value (serde_json bounds its own nesting depth).
pub(super) fn is_one_json_value(s: &str) -> bool {
    serde_json::from_str::<serde::de::IgnoredAny>(s).is_ok()
}

/// Iterator over a record's entries; stops (never panics) at anything malformed.
pub struct Entries<'a> {
    pub(super) reader: Reader<'a>,
}

impl<'a> Iterator for Entries<'a> {
    type Item = Entry<'a>;

    fn next(&mut self) -> Option<Entry<'a>> {
        if self.reader.is_empty() {
            return None;
        }
        let entry = self.reader.entry();
        if entry.is_none() {
            self.reader.buf = &[];
        }
        entry
    }
}

pub(super) struct Reader<'a> {
    pub(super) buf: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(super) fn new(buf: &'a [u8]) -> Self {
        Reader { buf }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.buf.len() < n {
            return None;
        }
        let (head, tail) = self.buf.split_at(n);
        self.buf = tail;
        Some(head)
    }

    fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }

    fn arr8(&mut self) -> Option<[u8; 8]> {
        self.take(8)?.try_into().ok()
    }

    pub(super) fn str(&mut self) -> Option<&'a str> {
        let len = u32::from_le_bytes(self.take(4)?.try_into().ok()?) as usize;
        simdutf8::basic::from_utf8(self.take(len)?).ok()
    }

    fn value(&mut self) -> Option<Value<'a>> {
        Some(match self.u8()? {
            VAL_STR => Value::Str(self.str()?),
            VAL_I64 => Value::I64(i64::from_le_bytes(self.arr8()?)),
            VAL_U64 => Value::U64(u64::from_le_bytes(self.arr8()?)),
            VAL_F64 => Value::F64(f64::from_le_bytes(self.arr8()?)),
            VAL_BOOL => Value::Bool(self.u8()? != 0),
            VAL_JSON => Value::Json(self.str()?),
            _ => return None,
        })
    }

    pub(super) fn entry(&mut self) -> Option<Entry<'a>> {
        Some(match self.u8()? {
            TAG_MESSAGE => Entry::Message(self.str()?),
            TAG_FIELD => {
                let key = self.str()?;
                Entry::Field(key, self.value()?)
            }
            TAG_SPAN => Entry::Span(self.str()?),
            tag @ (TAG_ERROR | TAG_ERROR_TRACE) => {
                let key = self.str()?;
                let kind = self.str()?;
                let message = self.str()?;
                let sources = self.str()?;
                let trace = if tag == TAG_ERROR_TRACE {
                    self.str()?
                } else {
                    ""
                };
                Entry::Error(
                    key,
                    ErrorValue {
                        kind,
                        message,
                        sources,
                        trace,
                    },
                )
            }
            _ => return None,
        })
    }
}
