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

mod bytes;
mod clock;
mod cut;
mod encoding;
mod error_value;
mod identity;
mod parts;
mod truncate;

pub(crate) use cut::cut;
pub use encoding::Entries;
pub use error_value::ErrorValue;
pub use identity::EventId;
pub use parts::{Entry, Level, Value};
pub(crate) use truncate::MARKER;

use bytes::{put_str, ByteWriter};
use clock::now_nanos;
use encoding::{
    put_value, Reader, TAG_ERROR, TAG_ERROR_TRACE, TAG_FIELD, TAG_MESSAGE, TAG_SPAN, VAL_STR,
};
use error_value::put_error;

/// Bit of the serialised level byte saying an [`EventId`] follows the timestamp (levels
/// use the values 0..=4, so records written before ids existed never have it).
const HAS_ID: u8 = 0x80;

/// The field [`Record::source_hint`] writes: the event's own source, used where the
/// pipeline's `source` is not configured.
pub const SOURCE_HINT: &str = "logship.source";

/// Bytes a record costs beyond its buffer, for the queue's memory bound.
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
#[derive(Clone)]
pub struct Record {
    timestamp_nanos: u64,
    level: Level,
    /// Given at capture; `None` only for a record read from a spill file written before
    /// ids existed (segment format 1).
    id: Option<EventId>,
    /// `[target][entries...]`, each string as a u32 LE length then UTF-8 bytes.
    data: Vec<u8>,
    /// Text of the event had invalid UTF-8 replaced (see [`Record::mark_invalid_utf8`]);
    /// counted once by the batcher, not kept on disk.
    invalid_utf8: bool,
    /// Passed the burst limits and sampling (`Logship::offer`): a record offered again
    /// after the queue handed it back is not charged twice. Not part of the event (not
    /// compared, not kept on disk).
    admitted: bool,
}

/// Two records are equal when they hold the same event; whether the pipeline already
/// admitted one is not part of it.
impl PartialEq for Record {
    fn eq(&self, other: &Record) -> bool {
        self.timestamp_nanos == other.timestamp_nanos
            && self.level == other.level
            && self.id == other.id
            && self.data == other.data
            && self.invalid_utf8 == other.invalid_utf8
    }
}

impl fmt::Debug for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Record")
            .field("timestamp_nanos", &self.timestamp_nanos)
            .field("level", &self.level)
            .field("id", &self.id)
            .field("target", &self.target())
            .field("entries", &self.entries().collect::<Vec<_>>())
            .finish()
    }
}

impl Record {
    /// A record stamped with the current time, with room for a 150-byte message and a few
    /// fields before its buffer has to grow (a regrowth is a second allocation and a copy
    /// on the caller's thread).
    pub fn new(level: Level, target: &str) -> Record {
        Record::with_capacity(level, target, 256)
    }

    /// A record stamped now, whose buffer starts with room for `capacity` bytes, so that a
    /// typical event is captured with a single allocation.
    pub fn with_capacity(level: Level, target: &str, capacity: usize) -> Record {
        let mut data = Vec::with_capacity(capacity.max(target.len() + 8));
        put_str(&mut data, target);
        Record {
            timestamp_nanos: now_nanos(),
            level,
            id: Some(EventId::next()),
            data,
            invalid_utf8: false,
            admitted: false,
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

    /// True when [`Record::mark_invalid_utf8`] was called on this record (a field the
    /// input itself named `logship.invalid_utf8` does not count).
    pub fn had_invalid_utf8(&self) -> bool {
        self.invalid_utf8
    }

    /// Whether this record already passed the burst limits and sampling.
    pub(crate) fn admitted(&self) -> bool {
        self.admitted
    }

    /// Marks this record as having passed the burst limits and sampling.
    pub(crate) fn mark_admitted(&mut self) {
        self.admitted = true;
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

    /// Adds an error-valued field captured by another runtime (a JVM exception): its
    /// type name (`java.io.IOException`), its message, the messages of its causes
    /// (outermost first, one per line) and its whole stack trace as that runtime prints
    /// it. Each vendor ships them in its own error fields (the trace as the stack).
    pub fn error_parts(
        &mut self,
        key: &str,
        kind: &str,
        message: &str,
        causes: &str,
        trace: &str,
    ) -> &mut Self {
        self.error_value(
            key,
            ErrorValue {
                kind,
                message,
                sources: causes,
                trace,
            },
        )
    }

    /// Names the program an event came from (`java` for a Log4j2 event received by the
    /// sidecar) for when the pipeline's `source` option is not set: vendors whose intake
    /// has a per-event source field (docs/vendors.md) then write this instead of the
    /// default `rust`; a configured `source` still wins. Stored as the field
    /// [`SOURCE_HINT`], which those vendors never ship as an attribute.
    pub fn source_hint(&mut self, source: &str) -> &mut Self {
        self.field(SOURCE_HINT, source)
    }

    /// Adds an error-valued field as captured by another record.
    pub(crate) fn error_value(&mut self, key: &str, e: ErrorValue<'_>) -> &mut Self {
        let with_trace = !e.trace.is_empty();
        self.data.push(if with_trace {
            TAG_ERROR_TRACE
        } else {
            TAG_ERROR
        });
        put_str(&mut self.data, key);
        put_str(&mut self.data, e.kind);
        put_str(&mut self.data, e.message);
        put_str(&mut self.data, e.sources);
        if with_trace {
            put_str(&mut self.data, e.trace);
        }
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

    /// A record with this one's timestamp, level, id, target and invalid-UTF-8 mark but
    /// no entries: redaction (`crate::admit::redaction`) rebuilds an event into it, entry by entry.
    pub(crate) fn emptied(&self) -> Record {
        let target = self.target();
        let mut data = Vec::with_capacity(self.data.len() + 32);
        put_str(&mut data, target);
        Record {
            timestamp_nanos: self.timestamp_nanos,
            level: self.level,
            id: self.id,
            data,
            invalid_utf8: self.invalid_utf8,
            admitted: self.admitted,
        }
    }

    /// Appends entries that were encoded by another record's setters (used to copy span
    /// fields captured once per span into each event).
    pub(crate) fn append_raw_entries(&mut self, raw: &[u8]) {
        self.data.extend_from_slice(raw);
    }

    /// The event's identity, given when the record was built (see [`EventId`]); `None`
    /// only for an event read back from a spill file an older logship wrote.
    pub fn id(&self) -> Option<EventId> {
        self.id
    }

    /// Replaces the id (tests that compare records built twice give both the same id).
    #[cfg(test)]
    pub(crate) fn set_id(&mut self, id: Option<EventId>) -> &mut Self {
        self.id = id;
        self
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

    /// Serialises the record (for disk spill): level byte, timestamp u64 LE, then, when
    /// the record has an id, its prefix and sequence number (u64 LE each; the level
    /// byte's bit [`HAS_ID`] says so), then the entry buffer.
    ///
    /// Not part of the API (the spill format may change in any release): public only so
    /// the integration tests can write spill segments byte by byte.
    #[doc(hidden)]
    pub fn to_bytes(&self, out: &mut Vec<u8>) {
        let flag = if self.id.is_some() { HAS_ID } else { 0 };
        out.push(self.level.to_byte() | flag);
        out.extend_from_slice(&self.timestamp_nanos.to_le_bytes());
        if let Some(id) = self.id {
            out.extend_from_slice(&id.prefix().to_le_bytes());
            out.extend_from_slice(&id.seq().to_le_bytes());
        }
        out.extend_from_slice(&self.data);
    }

    /// Reads back what [`Record::to_bytes`] wrote, by this release or an older one (a
    /// level byte without [`HAS_ID`]: no id); `None` when the bytes are not a record.
    pub(crate) fn from_bytes(bytes: &[u8]) -> Option<Record> {
        let (&level, rest) = bytes.split_first()?;
        let ts: [u8; 8] = rest.get(..8)?.try_into().ok()?;
        let mut rest = rest.get(8..)?;
        let mut id = None;
        if level & HAS_ID != 0 {
            let prefix: [u8; 8] = rest.get(..8)?.try_into().ok()?;
            let seq: [u8; 8] = rest.get(8..16)?.try_into().ok()?;
            id = Some(EventId::from_parts(
                u64::from_le_bytes(prefix),
                u64::from_le_bytes(seq),
            ));
            rest = rest.get(16..)?;
        }
        let record = Record {
            timestamp_nanos: u64::from_le_bytes(ts),
            level: Level::from_byte(level & !HAS_ID),
            id,
            data: rest.to_vec(),
            invalid_utf8: false,
            admitted: false,
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
            match reader.entry() {
                None => return false,
                // Read back from disk: JSON text is checked again, since a body built
                // from it must be valid JSON.
                Some(Entry::Field(_, Value::Json(s))) if !encoding::is_one_json_value(s) => {
                    return false
                }
                Some(_) => {}
            }
        }
        true
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

#[cfg(test)]
mod tests;
