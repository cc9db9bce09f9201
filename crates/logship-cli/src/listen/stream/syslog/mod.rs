//! Syslog messages into records: RFC 5424 (`rfc5424.rs`), RFC 3164 (`rfc3164.rs`), and
//! what both share (PRI, the field names, building the record).
//!
//! Why it exists: a syslog message's header is the event's own data (severity, time,
//! host, app, process, message id, structured data), so it becomes the record's level,
//! time, target and fields rather than a line of text.
//!
//! Must never: panic or recurse on input, or drop a message: one that parses as neither
//! RFC is shipped as text with `syslog.parse_error` (the caller counts it).

mod message;
mod rfc3164;
mod rfc5424;
#[cfg(test)]
mod tests;

use std::borrow::Cow;

use logship::{Level, Record};

use self::message::pri;
use crate::lines::{utf8_lossy, TARGET};

/// The record of one syslog message (its bytes, framing already removed), and whether it
/// parsed. `now_nanos` places an RFC 3164 timestamp, which has no year, in a year.
pub(crate) fn record(bytes: &[u8], now_nanos: u64) -> (Record, bool) {
    // A message that claims RFC 5424 (`<PRI>1 `) and breaks it is not read as the free
    // form RFC 3164 allows: it is a parse error, shipped as text.
    let parsed = match rfc5424::parse(bytes) {
        Some(m) => Some(m),
        None if claims_5424(bytes) => None,
        None => rfc3164::parse(bytes, now_nanos),
    };
    match parsed {
        Some(message) => (message.into_record(), true),
        None => {
            let text = utf8_lossy(bytes);
            let mut record = Record::with_capacity(Level::Info, TARGET, text.len() + 64);
            record.message(&text).field("syslog.parse_error", true);
            if matches!(text, Cow::Owned(_)) {
                record.mark_invalid_utf8();
            }
            (record, false)
        }
    }
}

/// `<PRI>` followed by a version number and a space.
fn claims_5424(b: &[u8]) -> bool {
    pri(b).is_some_and(|(_, rest)| {
        let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
        (1..=2).contains(&digits) && rest.get(digits) == Some(&b' ')
    })
}
