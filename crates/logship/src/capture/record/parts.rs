//! The parts of a record: its [`Level`], a field's [`Value`] and one [`Entry`] as it is
//! read back.
//!
//! Why it exists: the integrations write these and every encoder reads them; they are the
//! record's vocabulary, apart from how it is stored. Must never: allocate.

use std::fmt;

use super::error_value::ErrorValue;

/// Severity of an event, from least to most severe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Very detailed diagnostics.
    Trace,
    /// Diagnostics for developers.
    Debug,
    /// Normal operation.
    Info,
    /// Something unexpected that the program survived.
    Warn,
    /// A failure.
    Error,
}

impl Level {
    /// Every level, least severe first; index = `level as usize`.
    pub(crate) const ALL: [Level; 5] = [
        Level::Trace,
        Level::Debug,
        Level::Info,
        Level::Warn,
        Level::Error,
    ];

    /// The upper-case name written to generic intakes (`"INFO"`).
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Trace => "TRACE",
            Level::Debug => "DEBUG",
            Level::Info => "INFO",
            Level::Warn => "WARN",
            Level::Error => "ERROR",
        }
    }

    pub(super) fn to_byte(self) -> u8 {
        self as u8
    }

    pub(super) fn from_byte(b: u8) -> Level {
        match b {
            0 => Level::Trace,
            1 => Level::Debug,
            2 => Level::Info,
            3 => Level::Warn,
            _ => Level::Error,
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A field value as stored in a record.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Value<'a> {
    /// Text (also used for `Debug`-formatted values and integers wider than 64 bits).
    Str(&'a str),
    /// A signed integer.
    I64(i64),
    /// An unsigned integer.
    U64(u64),
    /// A floating-point number (non-finite values are written as strings by encoders).
    F64(f64),
    /// A boolean.
    Bool(bool),
    /// JSON text of an array, an object or `null` (a parsed JSON log line's
    /// `"tags":["a","b"]`), shipped as that structure to the vendors whose bodies are JSON
    /// and as its text where a vendor takes only strings (metadata or attributes that
    /// hold no structure: docs/vendors.md). Checked when recorded: text that is not exactly one
    /// JSON value is recorded as [`Value::Str`] instead, so a body is never invalid JSON.
    Json(&'a str),
}

impl<'a> From<&'a str> for Value<'a> {
    fn from(v: &'a str) -> Self {
        Value::Str(v)
    }
}
impl<'a> From<&'a String> for Value<'a> {
    fn from(v: &'a String) -> Self {
        Value::Str(v)
    }
}
impl From<i64> for Value<'_> {
    fn from(v: i64) -> Self {
        Value::I64(v)
    }
}
impl From<i32> for Value<'_> {
    fn from(v: i32) -> Self {
        Value::I64(v.into())
    }
}
impl From<u64> for Value<'_> {
    fn from(v: u64) -> Self {
        Value::U64(v)
    }
}
impl From<u32> for Value<'_> {
    fn from(v: u32) -> Self {
        Value::U64(v.into())
    }
}
impl From<usize> for Value<'_> {
    fn from(v: usize) -> Self {
        Value::U64(v as u64)
    }
}
impl From<f64> for Value<'_> {
    fn from(v: f64) -> Self {
        Value::F64(v)
    }
}
impl From<bool> for Value<'_> {
    fn from(v: bool) -> Self {
        Value::Bool(v)
    }
}

/// One entry of a record, in the order it was captured.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum Entry<'a> {
    /// The event's message.
    Message(&'a str),
    /// A field: of the event itself when it comes before any [`Entry::Span`], otherwise of
    /// the most recent span.
    Field(&'a str, Value<'a>),
    /// Start of an enclosing span's fields (outermost span first).
    Span(&'a str),
    /// A field whose value is an error (`std::error::Error`): see [`ErrorValue`].
    Error(&'a str, ErrorValue<'a>),
}
