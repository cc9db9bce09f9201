//! Writing each event's id ([`crate::EventId`]) for downstream deduplication.
//!
//! Why it exists: a replayed event may reach the intake twice (at-least-once); its id,
//! the same in both copies, lets users deduplicate in queries. Vendors with a document id
//! or an id attribute of their own write it there; the others under [`ID_NAME`]. Must
//! never: write an id when `event_id` is off, nor make one up for a record without one.

use crate::capture::record::Record;
use crate::support::json;

/// The attribute carrying each event's id for the vendors without an id field of their
/// own: users deduplicate replayed events on it in queries.
pub(crate) const ID_NAME: &str = "logship.id";

/// The name reserved for the event id when ids are written (`event_id`), to keep out of
/// the fields' names.
#[inline]
pub(crate) fn id_name(on: bool, name: &'static str) -> Option<&'static str> {
    on.then_some(name)
}

/// `,"<key>":"<32 hex digits>"`: the record's id, when `on` and the record has one (a
/// record read from an old spill file has none).
#[inline]
pub(crate) fn write_id(out: &mut Vec<u8>, key: &str, record: &Record, on: bool) {
    if let Some(id) = record.id().filter(|_| on) {
        out.push(b',');
        json::string(out, key);
        out.extend_from_slice(b":\"");
        id.write_hex(out);
        out.push(b'"');
    }
}
