//! Cutting a record down to a byte limit (`max_event_bytes`), with markers saying so.
//!
//! Why it exists: an intake refuses (or silently cuts) an oversized event; logship cuts it
//! itself, keeps what fits and says so in the event. Must never: panic on any record,
//! or cut inside a UTF-8 character.

use super::bytes::put_str;
use super::cut::cut;
use super::{Entry, ErrorValue, Record, Value};

impl Record {
    /// A copy whose strings fit in about `max_bytes`: long strings are cut at a character
    /// boundary and end in a marker, fields past the limit are left out, and the fields
    /// `logship.truncated` and `logship.original_bytes` say so.
    pub(crate) fn truncated(&self, max_bytes: usize) -> Record {
        const MARKER: &str = "…[truncated]";
        let mut out = Record {
            timestamp_nanos: self.timestamp_nanos,
            level: self.level,
            id: self.id,
            data: Vec::with_capacity(max_bytes.min(self.data.len()) + 128),
            invalid_utf8: self.invalid_utf8,
        };
        // A record cut before (by the reader that built it, or by an earlier limit) keeps
        // its first, real size, and its markers once.
        let mut original_bytes = self.data.len() as u64;
        let mut left = max_bytes.saturating_sub(128);
        let target = cut(self.target(), 256);
        put_str(&mut out.data, target);
        let take = |s: &str, left: &mut usize| -> (String, bool) {
            if s.len() <= *left {
                *left -= s.len();
                (s.to_owned(), false)
            } else {
                let kept = cut(s, *left);
                *left = 0;
                (format!("{kept}{MARKER}"), true)
            }
        };
        let mut marked = false;
        for entry in self.entries() {
            match entry {
                Entry::Message(m) => {
                    let (m, _) = take(m, &mut left);
                    out.message(&m);
                }
                Entry::Field("logship.original_bytes", Value::U64(n)) => {
                    original_bytes = original_bytes.max(n);
                }
                Entry::Field("logship.truncated", _) => {}
                Entry::Field(k, Value::Str(v)) => {
                    if left < k.len() {
                        continue;
                    }
                    left -= k.len();
                    let (v, _) = take(v, &mut left);
                    out.field(k, v.as_str());
                }
                // JSON text cut anywhere is no longer JSON: a cut one stays as text.
                Entry::Field(k, Value::Json(v)) => {
                    if left < k.len() {
                        continue;
                    }
                    left -= k.len();
                    match take(v, &mut left) {
                        (v, true) => out.field(k, v.as_str()),
                        (v, false) => out.field(k, Value::Json(&v)),
                    };
                }
                Entry::Field(k, v) => {
                    if left >= k.len() + 8 {
                        left -= k.len() + 8;
                        out.field(k, v);
                    }
                }
                Entry::Error(k, e) => {
                    if left < k.len() + e.kind.len() {
                        continue;
                    }
                    left -= k.len() + e.kind.len();
                    let (message, _) = take(e.message, &mut left);
                    let (sources, _) = take(e.sources, &mut left);
                    let (trace, _) = take(e.trace, &mut left);
                    out.error_value(
                        k,
                        ErrorValue {
                            message: &message,
                            sources: &sources,
                            trace: &trace,
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
                    if left >= name.len() {
                        left -= name.len();
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
}
