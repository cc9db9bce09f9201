//! The owned record of one log event, built on the caller's thread.
//!
//! Why it exists: a log call must hand the event to the background worker without doing
//! I/O or holding a lock across anything slow, and it must allocate as little as possible.
//! A [`Record`] therefore keeps everything but its timestamp and level in one growable byte
//! buffer (a small tag-length-value encoding): one allocation per event, however many
//! fields and spans it carries. Encoders for every intake read it back with zero-copy
//! iterators, and the same bytes can later be written to disk unchanged.
//!
//! Must never: panic on any input, or perform I/O.

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

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

    fn to_byte(self) -> u8 {
        self as u8
    }

    fn from_byte(b: u8) -> Level {
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

/// An error captured as a field value: its type name where one could be found, its
/// message (`Display`), and the messages of its source chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ErrorValue<'a> {
    /// The error's type name as its `Debug` output starts (`ParseIntError`, `Os`), or
    /// `""` when that output does not start with a type name.
    pub kind: &'a str,
    /// The error's own message.
    pub message: &'a str,
    /// The messages of its sources, outermost first, one per line (`""`: none).
    pub sources: &'a str,
}

impl<'a> ErrorValue<'a> {
    /// The source messages, outermost first.
    pub fn sources(&self) -> impl Iterator<Item = &'a str> {
        self.sources.split('\n').filter(|s| !s.is_empty())
    }
}

/// Most sources of an error that are kept (a longer chain is cut there).
const MAX_ERROR_SOURCES: usize = 32;
/// Longest type name read from an error's `Debug` output.
const MAX_KIND_BYTES: usize = 128;

const TAG_MESSAGE: u8 = 1;
const TAG_FIELD: u8 = 2;
const TAG_SPAN: u8 = 3;
const TAG_ERROR: u8 = 4;
const VAL_STR: u8 = 0;
const VAL_I64: u8 = 1;
const VAL_U64: u8 = 2;
const VAL_F64: u8 = 3;
const VAL_BOOL: u8 = 4;

/// Bytes a record costs beyond its buffer, for the queue's byte budget.
pub(crate) const RECORD_OVERHEAD: usize = 64;

/// An owned, self-contained log event.
///
/// Build one with [`Record::new`] and the chained setters, or let the `tracing` layer or
/// the `log` logger build it for you.
///
/// ```
/// use logship::{Level, Record};
/// let mut r = Record::new(Level::Info, "orders");
/// r.message("order placed").field("order_id", 42u64).field("currency", "EUR");
/// assert_eq!(r.message_str(), "order placed");
/// ```
#[derive(Clone, PartialEq)]
pub struct Record {
    timestamp_nanos: u64,
    level: Level,
    /// `[target][entries...]`, each string as a u32 LE length then UTF-8 bytes.
    data: Vec<u8>,
    /// Text of the event had invalid UTF-8 replaced (see [`Record::mark_invalid_utf8`]);
    /// counted once by the batcher, not kept on disk.
    invalid_utf8: bool,
}

impl fmt::Debug for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Record")
            .field("timestamp_nanos", &self.timestamp_nanos)
            .field("level", &self.level)
            .field("target", &self.target())
            .field("entries", &self.entries().collect::<Vec<_>>())
            .finish()
    }
}

impl Record {
    /// A record stamped with the current time.
    pub fn new(level: Level, target: &str) -> Record {
        Record::with_capacity(level, target, 192)
    }

    /// A record stamped now, whose buffer starts with room for `capacity` bytes, so that a
    /// typical event is captured with a single allocation.
    pub fn with_capacity(level: Level, target: &str, capacity: usize) -> Record {
        let mut data = Vec::with_capacity(capacity.max(target.len() + 8));
        put_str(&mut data, target);
        Record {
            timestamp_nanos: now_nanos(),
            level,
            data,
            invalid_utf8: false,
        }
    }

    /// Says that this event's text came from bytes that were not valid UTF-8 and had the
    /// invalid sequences replaced by U+FFFD (as `String::from_utf8_lossy` does): adds the
    /// field `logship.invalid_utf8 = true`, and the pipeline counts the event in
    /// `Stats::invalid_utf8`. Calling it again changes nothing.
    pub fn mark_invalid_utf8(&mut self) -> &mut Self {
        if !self.invalid_utf8 {
            self.invalid_utf8 = true;
            self.field("logship.invalid_utf8", true);
        }
        self
    }

    /// True when [`Record::mark_invalid_utf8`] was called on this record.
    pub(crate) fn had_invalid_utf8(&self) -> bool {
        self.invalid_utf8
    }

    /// Replaces the timestamp.
    pub fn set_timestamp(&mut self, at: SystemTime) -> &mut Self {
        self.timestamp_nanos = at
            .duration_since(UNIX_EPOCH)
            .map(|d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
            .unwrap_or(0);
        self
    }

    /// Replaces the timestamp with nanoseconds since the Unix epoch.
    pub fn set_timestamp_nanos(&mut self, nanos: u64) -> &mut Self {
        self.timestamp_nanos = nanos;
        self
    }

    /// Sets the message.
    pub fn message(&mut self, message: &str) -> &mut Self {
        self.data.push(TAG_MESSAGE);
        put_str(&mut self.data, message);
        self
    }

    /// Sets the message from format arguments, formatting straight into the record's buffer.
    pub fn message_fmt(&mut self, args: fmt::Arguments<'_>) -> &mut Self {
        self.data.push(TAG_MESSAGE);
        self.put_fmt(args);
        self
    }

    /// Adds a field (of the event, or of the span last opened with [`Record::span`]).
    pub fn field<'v>(&mut self, key: &str, value: impl Into<Value<'v>>) -> &mut Self {
        self.data.push(TAG_FIELD);
        put_str(&mut self.data, key);
        put_value(&mut self.data, value.into());
        self
    }

    /// Adds a string field from format arguments (for `Debug`/`Display` values) without an
    /// intermediate `String`.
    pub fn field_fmt(&mut self, key: &str, args: fmt::Arguments<'_>) -> &mut Self {
        self.data.push(TAG_FIELD);
        put_str(&mut self.data, key);
        self.data.push(VAL_STR);
        self.put_fmt(args);
        self
    }

    /// Adds a field whose value is an error: its type name (read from the start of its
    /// `Debug` output, which is cut off there), its message and its sources' messages,
    /// formatted straight into the record's buffer. Costs the text it carries.
    pub fn error(&mut self, key: &str, error: &(dyn std::error::Error + 'static)) -> &mut Self {
        self.data.push(TAG_ERROR);
        put_str(&mut self.data, key);
        put_error(&mut self.data, error);
        self
    }

    /// Adds an error-valued field as captured by another record.
    pub(crate) fn error_value(&mut self, key: &str, e: ErrorValue<'_>) -> &mut Self {
        self.data.push(TAG_ERROR);
        put_str(&mut self.data, key);
        put_str(&mut self.data, e.kind);
        put_str(&mut self.data, e.message);
        put_str(&mut self.data, e.sources);
        self
    }

    /// The first error-valued field, if any: the one each vendor's own error fields
    /// describe.
    pub fn first_error(&self) -> Option<(&str, ErrorValue<'_>)> {
        self.entries().find_map(|e| match e {
            Entry::Error(key, value) => Some((key, value)),
            _ => None,
        })
    }

    /// Opens an enclosing span: the fields added after this belong to it.
    pub fn span(&mut self, name: &str) -> &mut Self {
        self.data.push(TAG_SPAN);
        put_str(&mut self.data, name);
        self
    }

    /// Appends entries that were encoded by another record's setters (used to copy span
    /// fields captured once per span into each event).
    pub(crate) fn append_raw_entries(&mut self, raw: &[u8]) {
        self.data.extend_from_slice(raw);
    }

    /// Nanoseconds since the Unix epoch.
    pub fn timestamp_nanos(&self) -> u64 {
        self.timestamp_nanos
    }

    /// The severity.
    pub fn level(&self) -> Level {
        self.level
    }

    /// Where the event came from (module path or logger name).
    pub fn target(&self) -> &str {
        let mut r = Reader::new(&self.data);
        r.str().unwrap_or("")
    }

    /// The message, or `""` when the event has none.
    pub fn message_str(&self) -> &str {
        self.entries()
            .find_map(|e| match e {
                Entry::Message(m) => Some(m),
                _ => None,
            })
            .unwrap_or("")
    }

    /// All entries in capture order.
    pub fn entries(&self) -> Entries<'_> {
        let mut reader = Reader::new(&self.data);
        let _target = reader.str();
        Entries { reader }
    }

    /// Memory this record holds, counted against the queue's byte budget.
    pub fn size(&self) -> usize {
        self.data.len() + RECORD_OVERHEAD
    }

    /// Serialises the record (for disk spill): level, timestamp, then the entry buffer.
    ///
    /// Not part of the API (the spill format may change in any release): public only so
    /// the integration tests can write spill segments byte by byte.
    #[doc(hidden)]
    pub fn to_bytes(&self, out: &mut Vec<u8>) {
        out.push(self.level.to_byte());
        out.extend_from_slice(&self.timestamp_nanos.to_le_bytes());
        out.extend_from_slice(&self.data);
    }

    /// Reads back what [`Record::to_bytes`] wrote; `None` when the bytes are not a record.
    pub(crate) fn from_bytes(bytes: &[u8]) -> Option<Record> {
        let (&level, rest) = bytes.split_first()?;
        let ts: [u8; 8] = rest.get(..8)?.try_into().ok()?;
        let data = rest.get(8..)?.to_vec();
        let record = Record {
            timestamp_nanos: u64::from_le_bytes(ts),
            level: Level::from_byte(level),
            data,
            invalid_utf8: false,
        };
        record.is_well_formed().then_some(record)
    }

    /// True when every entry decodes and the whole buffer is consumed.
    fn is_well_formed(&self) -> bool {
        let mut reader = Reader::new(&self.data);
        if reader.str().is_none() {
            return false;
        }
        while !reader.is_empty() {
            if reader.entry().is_none() {
                return false;
            }
        }
        true
    }

    /// A copy whose strings fit in about `max_bytes`: long strings are cut at a character
    /// boundary and end in a marker, fields past the budget are left out, and the fields
    /// `logship.truncated` and `logship.original_bytes` say so.
    pub(crate) fn truncated(&self, max_bytes: usize) -> Record {
        const MARKER: &str = "…[truncated]";
        let mut out = Record {
            timestamp_nanos: self.timestamp_nanos,
            level: self.level,
            data: Vec::with_capacity(max_bytes.min(self.data.len()) + 128),
            invalid_utf8: self.invalid_utf8,
        };
        // A record cut before (by the reader that built it, or by an earlier limit) keeps
        // its first, real size, and its markers once.
        let mut original_bytes = self.data.len() as u64;
        let mut budget = max_bytes.saturating_sub(128);
        let target = cut(self.target(), 256);
        put_str(&mut out.data, target);
        let take = |s: &str, budget: &mut usize| -> (String, bool) {
            if s.len() <= *budget {
                *budget -= s.len();
                (s.to_owned(), false)
            } else {
                let kept = cut(s, *budget);
                *budget = 0;
                (format!("{kept}{MARKER}"), true)
            }
        };
        let mut marked = false;
        for entry in self.entries() {
            match entry {
                Entry::Message(m) => {
                    let (m, _) = take(m, &mut budget);
                    out.message(&m);
                }
                Entry::Field("logship.original_bytes", Value::U64(n)) => {
                    original_bytes = original_bytes.max(n);
                }
                Entry::Field("logship.truncated", _) => {}
                Entry::Field(k, Value::Str(v)) => {
                    if budget < k.len() {
                        continue;
                    }
                    budget -= k.len();
                    let (v, _) = take(v, &mut budget);
                    out.field(k, v.as_str());
                }
                Entry::Field(k, v) => {
                    if budget >= k.len() + 8 {
                        budget -= k.len() + 8;
                        out.field(k, v);
                    }
                }
                Entry::Error(k, e) => {
                    if budget < k.len() + e.kind.len() {
                        continue;
                    }
                    budget -= k.len() + e.kind.len();
                    let (message, _) = take(e.message, &mut budget);
                    let (sources, _) = take(e.sources, &mut budget);
                    out.error_value(
                        k,
                        ErrorValue {
                            message: &message,
                            sources: &sources,
                            ..e
                        },
                    );
                }
                Entry::Span(name) => {
                    // The markers are the event's own fields: they go before any span's.
                    if !marked {
                        marked = true;
                        out.field("logship.truncated", true);
                        out.field("logship.original_bytes", original_bytes);
                    }
                    if budget >= name.len() {
                        budget -= name.len();
                        out.span(name);
                    }
                }
            }
        }
        if !marked {
            out.field("logship.truncated", true);
            out.field("logship.original_bytes", original_bytes);
        }
        out
    }

    fn put_fmt(&mut self, args: fmt::Arguments<'_>) {
        let at = self.data.len();
        self.data.extend_from_slice(&[0; 4]);
        if let Some(s) = args.as_str() {
            self.data.extend_from_slice(s.as_bytes());
        } else {
            let _ = fmt::Write::write_fmt(&mut ByteWriter(&mut self.data), args);
        }
        let len = (self.data.len() - at - 4) as u32;
        self.data[at..at + 4].copy_from_slice(&len.to_le_bytes());
    }
}

/// Longest prefix of `s` of at most `max` bytes that ends on a character boundary.
pub(crate) fn cut(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Nanoseconds since the Unix epoch, now.
pub(crate) fn now_nanos() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

struct ByteWriter<'a>(&'a mut Vec<u8>);

impl fmt::Write for ByteWriter<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// Span fields captured once when a span is created, copied into each event inside it.
#[derive(Default, Debug, Clone)]
pub(crate) struct RawEntries(pub(crate) Vec<u8>);

impl RawEntries {
    pub(crate) fn field(&mut self, key: &str, value: Value<'_>) {
        self.0.push(TAG_FIELD);
        put_str(&mut self.0, key);
        put_value(&mut self.0, value);
    }

    pub(crate) fn error(&mut self, key: &str, error: &(dyn std::error::Error + 'static)) {
        self.0.push(TAG_ERROR);
        put_str(&mut self.0, key);
        put_error(&mut self.0, error);
    }

    pub(crate) fn field_fmt(&mut self, key: &str, args: fmt::Arguments<'_>) {
        self.0.push(TAG_FIELD);
        put_str(&mut self.0, key);
        self.0.push(VAL_STR);
        let at = self.0.len();
        self.0.extend_from_slice(&[0; 4]);
        let _ = fmt::Write::write_fmt(&mut ByteWriter(&mut self.0), args);
        let len = (self.0.len() - at - 4) as u32;
        self.0[at..at + 4].copy_from_slice(&len.to_le_bytes());
    }
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    // Strings over 4 GiB cannot occur in a log event that fits in memory budgets; cap anyway.
    let s = cut(s, u32::MAX as usize);
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// Appends an error's kind, message and sources, each as a length-prefixed string.
fn put_error(out: &mut Vec<u8>, error: &(dyn std::error::Error + 'static)) {
    let at = begin_str(out);
    // `std::io::Error`'s `Debug` starts with its representation (`Os`, `Custom`, `Kind`),
    // not its type: the most common error of all is named by downcasting.
    if error.downcast_ref::<std::io::Error>().is_some() {
        out.extend_from_slice(b"std::io::Error");
        end_str(out, at);
        return put_error_text(out, error);
    }
    let mut writer = KindWriter {
        out,
        len: 0,
        stop: None,
    };
    let _ = fmt::Write::write_fmt(&mut writer, format_args!("{error:?}"));
    // Only an identifier followed by ` {`, `(` or the end is a type name.
    let stop = writer.stop;
    let kind_ok = {
        let kind = &out[at + 4..];
        !kind.is_empty()
            && !kind[0].is_ascii_digit()
            && matches!(stop, None | Some(b' ' | b'(' | b'{'))
    };
    if !kind_ok {
        out.truncate(at + 4);
    }
    end_str(out, at);
    put_error_text(out, error);
}

/// Appends an error's message and its sources' messages, each as a length-prefixed string.
fn put_error_text(out: &mut Vec<u8>, error: &(dyn std::error::Error + 'static)) {
    let at = begin_str(out);
    let _ = fmt::Write::write_fmt(&mut ByteWriter(out), format_args!("{error}"));
    end_str(out, at);
    let at = begin_str(out);
    let mut source = error.source();
    let mut n = 0;
    while let Some(s) = source {
        if n == MAX_ERROR_SOURCES {
            break;
        }
        if n > 0 {
            out.push(b'\n');
        }
        let _ = fmt::Write::write_fmt(&mut ByteWriter(out), format_args!("{s}"));
        n += 1;
        source = s.source();
    }
    end_str(out, at);
}

/// Reserves a string's length prefix; [`end_str`] fills it in.
fn begin_str(out: &mut Vec<u8>) -> usize {
    let at = out.len();
    out.extend_from_slice(&[0; 4]);
    at
}

fn end_str(out: &mut [u8], at: usize) {
    let len = (out.len() - at - 4) as u32;
    out[at..at + 4].copy_from_slice(&len.to_le_bytes());
}

/// Keeps the identifier a `Debug` output starts with, then stops the formatting (so a
/// large `Debug` output costs nothing beyond its first word).
struct KindWriter<'a> {
    out: &'a mut Vec<u8>,
    len: usize,
    /// The byte the identifier ended at (`None`: the output ended).
    stop: Option<u8>,
}

impl fmt::Write for KindWriter<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for b in s.bytes() {
            if (b.is_ascii_alphanumeric() || b == b'_') && self.len < MAX_KIND_BYTES {
                self.out.push(b);
                self.len += 1;
            } else {
                self.stop = Some(b);
                return Err(fmt::Error);
            }
        }
        Ok(())
    }
}

fn put_value(out: &mut Vec<u8>, value: Value<'_>) {
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
    }
}

/// Iterator over a record's entries; stops (never panics) at anything malformed.
pub struct Entries<'a> {
    reader: Reader<'a>,
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

struct Reader<'a> {
    buf: &'a [u8],
}

impl<'a> Reader<'a> {
    fn new(buf: &'a [u8]) -> Self {
        Reader { buf }
    }

    fn is_empty(&self) -> bool {
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

    fn str(&mut self) -> Option<&'a str> {
        let len = u32::from_le_bytes(self.take(4)?.try_into().ok()?) as usize;
        std::str::from_utf8(self.take(len)?).ok()
    }

    fn value(&mut self) -> Option<Value<'a>> {
        Some(match self.u8()? {
            VAL_STR => Value::Str(self.str()?),
            VAL_I64 => Value::I64(i64::from_le_bytes(self.arr8()?)),
            VAL_U64 => Value::U64(u64::from_le_bytes(self.arr8()?)),
            VAL_F64 => Value::F64(f64::from_le_bytes(self.arr8()?)),
            VAL_BOOL => Value::Bool(self.u8()? != 0),
            _ => return None,
        })
    }

    fn entry(&mut self) -> Option<Entry<'a>> {
        Some(match self.u8()? {
            TAG_MESSAGE => Entry::Message(self.str()?),
            TAG_FIELD => {
                let key = self.str()?;
                Entry::Field(key, self.value()?)
            }
            TAG_SPAN => Entry::Span(self.str()?),
            TAG_ERROR => {
                let key = self.str()?;
                let kind = self.str()?;
                let message = self.str()?;
                let sources = self.str()?;
                Entry::Error(
                    key,
                    ErrorValue {
                        kind,
                        message,
                        sources,
                    },
                )
            }
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests;
