//! One framed event of a stream listener into a record: a JSON or text line, or a syslog
//! message, with what to count about it.
//!
//! Why it exists: TCP and UDP build records the same way; this is that one way. Must
//! never: drop an event silently (a blank line is the only event with no record), or lose
//! the size of one that was cut.

use std::time::{SystemTime, UNIX_EPOCH};

use logship::Record;

use super::counters::{bump, Counters};
use super::framing::Framing;
use super::syslog;

/// One event's record, and what to count about it (once, however often it is rebuilt).
pub(super) struct Built {
    pub(super) record: Record,
    pub(super) parse_error: bool,
}

/// The record of one framed event: a JSON object line or a text line (`Lines`), or a
/// syslog message (`Syslog`); a cut event says so in its fields. `None` for a blank line.
pub(super) fn build(framing: Framing, bytes: &[u8], real_len: usize) -> Option<Built> {
    let (mut record, parse_error) = match framing {
        Framing::Lines => {
            let text = crate::lines::utf8_lossy(bytes);
            if text.trim().is_empty() {
                return None;
            }
            let mut record = crate::lines::json_record(&text)
                .unwrap_or_else(|| crate::lines::text_record(&text));
            if matches!(text, std::borrow::Cow::Owned(_)) {
                record.mark_invalid_utf8();
            }
            (record, false)
        }
        Framing::Syslog => {
            if bytes.iter().all(u8::is_ascii_whitespace) {
                return None;
            }
            let (record, parsed) = syslog::record(bytes, now_nanos());
            (record, !parsed)
        }
    };
    if real_len > bytes.len() {
        crate::lines::mark_read_cut(&mut record, real_len, bytes.len());
    }
    Some(Built {
        record,
        parse_error,
    })
}

/// Counts what `built` says about its event, once; `cut`: it was cut while reading, at
/// its real size `real_len`.
pub(super) fn count(counters: &Counters, built: &Built, cut: bool, real_len: usize) {
    if built.parse_error {
        bump(&counters.parse_errors);
    }
    if cut {
        bump(&counters.cut);
        counters
            .cut_largest
            .fetch_max(real_len as u64, std::sync::atomic::Ordering::Relaxed);
    }
    // The record's flag, not a walk over its entries: that re-read (and re-validated)
    // every string of every event.
    if built.record.had_invalid_utf8() {
        bump(&counters.invalid_utf8);
    }
}

/// Now as Unix nanoseconds (0 before 1970).
pub(super) fn now_nanos() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}
