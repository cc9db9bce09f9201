//! Cutting a record down to a byte limit (`max_event_bytes`, a vendor's limit), with
//! markers saying so and how much was cut.
//!
//! Why it exists: an intake refuses (or silently cuts) an oversized event; logship cuts it
//! itself, keeps what fits and says so in the event. The rule: the event keeps its level,
//! logger, timestamp and every field; only its message loses bytes. Only when the fields
//! alone are over the limit are the longest field values cut too (each to the same
//! length), and only when even their names are are the last fields left out; every byte
//! removed is counted in `logship.truncated_bytes`. Must never: panic on any record, cut
//! inside a UTF-8 character, or recurse.

use std::borrow::Cow;

use super::bytes::put_str;
use super::cut::cut;
use super::{Entry, ErrorValue, Record, Value, RECORD_OVERHEAD};

/// Ends every string that was cut.
pub(crate) const MARKER: &str = "…[truncated]";

/// The marker fields' names.
const TRUNCATED: &str = "logship.truncated";
const ORIGINAL_BYTES: &str = "logship.original_bytes";
const TRUNCATED_BYTES: &str = "logship.truncated_bytes";

/// Bytes the three marker fields take in a record's buffer.
const MARKS_ROOM: usize = (1 + 4 + TRUNCATED.len() + 2)
    + (1 + 4 + ORIGINAL_BYTES.len() + 9)
    + (1 + 4 + TRUNCATED_BYTES.len() + 9);

/// Longest logger name a cut record keeps.
const MAX_TARGET: usize = 256;

/// How a record is cut: bytes kept of its message (all its messages together), the
/// longest any other string may stay, and, when even the names and numbers are over,
/// the room in which entries are kept whole in order (`usize::MAX`: no such room).
#[derive(Clone, Copy)]
struct Plan {
    message: usize,
    cap: usize,
    fixed: usize,
}

/// The fields that say a record was cut, as read back from it.
#[derive(Default)]
struct Marks {
    original_bytes: Option<u64>,
    truncated_bytes: u64,
}

impl Record {
    /// A copy whose buffer fits in `max_bytes` (as [`Record::size`] counts it): its
    /// message is cut first (at a character boundary, ending in a marker); when the other
    /// fields alone are over, the longest string values are cut to one common length; when
    /// even names and numbers are, the last entries are left out. The fields
    /// `logship.truncated`, `logship.original_bytes` (the first, real size) and
    /// `logship.truncated_bytes` (every byte removed, also by earlier cuts) say so.
    pub(crate) fn truncated(&self, max_bytes: usize) -> Record {
        let budget = max_bytes.saturating_sub(RECORD_OVERHEAD + MARKS_ROOM);
        let target_len = self.target().len().min(MAX_TARGET);
        let mut fixed = 4 + target_len;
        let mut message = 0usize;
        let mut others = Vec::new();
        for entry in self.entries() {
            if is_mark(&entry) {
                continue;
            }
            fixed += fixed_len(&entry);
            match entry {
                Entry::Message(m) => message += m.len(),
                Entry::Field(_, Value::Str(s) | Value::Json(s)) => others.push(s.len()),
                Entry::Error(_, e) => others.extend([e.message.len(), e.sources.len()]),
                _ => {}
            }
            if let Entry::Error(_, e) = entry {
                if !e.trace.is_empty() {
                    others.push(e.trace.len());
                }
            }
        }
        let plan = if fixed > budget {
            // Even the names and numbers are over: the first entries stay, the last go.
            Plan {
                message: 0,
                cap: usize::MAX,
                fixed: budget,
            }
        } else {
            let rest = budget - fixed;
            let all_others: usize = others.iter().sum();
            if all_others.saturating_add(message) <= rest {
                Plan {
                    message,
                    cap: usize::MAX,
                    fixed: usize::MAX,
                }
            } else if all_others + MARKER.len() <= rest {
                Plan {
                    message: rest - all_others - MARKER.len(),
                    cap: usize::MAX,
                    fixed: usize::MAX,
                }
            } else {
                Plan {
                    message: 0,
                    cap: common_cap(&others, rest.saturating_sub(MARKER.len())),
                    fixed: usize::MAX,
                }
            }
        };
        self.rebuild(plan)
    }

    /// A copy with its message cut to `keep` bytes (at a character boundary before it,
    /// then the marker) and every other part kept, marked as [`Record::truncated`] marks
    /// it; a plain copy when the message is no longer than `keep`.
    pub(crate) fn with_message_cut(&self, keep: usize) -> Record {
        if self.message_str().len() <= keep {
            return self.clone();
        }
        self.rebuild(Plan {
            message: keep,
            cap: usize::MAX,
            fixed: usize::MAX,
        })
    }

    /// Builds the cut copy `plan` describes, counting every byte it removes.
    fn rebuild<'a>(&'a self, plan: Plan) -> Record {
        let mut out = Record {
            timestamp_nanos: self.timestamp_nanos,
            level: self.level,
            id: self.id,
            data: Vec::with_capacity(self.data.len().min(plan.message.saturating_add(4096))),
            invalid_utf8: self.invalid_utf8,
            admitted: self.admitted,
        };
        let mut marks = Marks::default();
        for entry in self.entries() {
            match entry {
                Entry::Field(ORIGINAL_BYTES, Value::U64(n)) => {
                    marks.original_bytes = Some(marks.original_bytes.unwrap_or(0).max(n));
                }
                Entry::Field(TRUNCATED_BYTES, Value::U64(n)) => {
                    marks.truncated_bytes = marks.truncated_bytes.saturating_add(n);
                }
                _ => {}
            }
        }
        let full_target = self.target();
        let target = cut(full_target, MAX_TARGET);
        let mut removed = (full_target.len() - target.len()) as u64;
        put_str(&mut out.data, target);
        let mut message_left = plan.message;
        let mut fixed_left = plan.fixed;
        let mut marked = false;
        let mut count_at = None;
        // A string an earlier cut shortened ends in the marker, which is not its text.
        let was_cut = self
            .entries()
            .any(|e| matches!(e, Entry::Field(TRUNCATED, _)));
        let mut take = |s: &'a str, keep: usize| -> (Cow<'a, str>, bool) {
            let text = match s.strip_suffix(MARKER) {
                Some(text) if was_cut => text,
                _ => s,
            };
            if text.len() <= keep {
                (Cow::Borrowed(s), text.len() < s.len())
            } else {
                let kept = cut(text, keep);
                removed += (text.len() - kept.len()) as u64;
                (Cow::Owned(format!("{kept}{MARKER}")), true)
            }
        };
        let mut dropped = 0u64;
        for entry in self.entries() {
            if is_mark(&entry) {
                continue;
            }
            // Over even without strings: entries are kept whole in order while they fit,
            // the first that does not has its strings cut to what is left, the rest go.
            let mut cap = plan.cap;
            if plan.fixed != usize::MAX {
                let (cost, full) = (fixed_len(&entry), full_len(&entry));
                if full <= fixed_left {
                    fixed_left -= full;
                } else if cost + MARKER.len() <= fixed_left {
                    cap = fixed_left - cost - MARKER.len();
                    fixed_left = 0;
                } else {
                    dropped += full as u64;
                    fixed_left = 0;
                    continue;
                }
            }
            match entry {
                Entry::Message(m) if plan.fixed == usize::MAX => {
                    let (kept, _) = take(m, message_left);
                    message_left = message_left.saturating_sub(m.len());
                    out.message(&kept);
                }
                Entry::Message(m) => {
                    let (kept, _) = take(m, cap);
                    out.message(&kept);
                }
                Entry::Field(k, Value::Str(v)) => {
                    let (v, _) = take(v, cap);
                    out.field(k, &*v);
                }
                // JSON text cut anywhere is no longer JSON: a cut one stays as text.
                Entry::Field(k, Value::Json(v)) => {
                    match take(v, cap) {
                        (v, true) => out.field(k, &*v),
                        (v, false) => out.field(k, Value::Json(&v)),
                    };
                }
                Entry::Field(k, v) => {
                    out.field(k, v);
                }
                Entry::Error(k, e) => {
                    let (message, _) = take(e.message, cap);
                    let (sources, _) = take(e.sources, cap);
                    let (trace, _) = take(e.trace, cap);
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
                        count_at = Some(mark(&mut out, &marks, self.data.len(), 0));
                    }
                    out.span(name);
                }
            }
        }
        let count = marks.truncated_bytes.saturating_add(removed + dropped);
        match count_at {
            // Written before the count was known: written again, in place.
            Some(at) => out.data[at..at + 8].copy_from_slice(&count.to_le_bytes()),
            None => {
                mark(&mut out, &marks, self.data.len(), count);
            }
        }
        out
    }
}

/// Adds the marker fields (truncated, the first real size, the bytes cut: `count`);
/// returns where the count's eight bytes are in the buffer, to write it again.
fn mark(out: &mut Record, marks: &Marks, own_size: usize, count: u64) -> usize {
    out.field(TRUNCATED, true);
    out.field(
        ORIGINAL_BYTES,
        marks.original_bytes.unwrap_or(own_size as u64),
    );
    out.field(TRUNCATED_BYTES, count);
    out.data.len() - 8
}

/// Whether `entry` is one of the marker fields (rewritten by every cut).
fn is_mark(entry: &Entry<'_>) -> bool {
    matches!(
        entry,
        Entry::Field(TRUNCATED, _)
            | Entry::Field(ORIGINAL_BYTES, Value::U64(_))
            | Entry::Field(TRUNCATED_BYTES, Value::U64(_))
    )
}

/// Bytes `entry` takes in a record's buffer apart from the strings a cut may shorten
/// (message text, string and JSON values, an error's message, sources and trace).
fn fixed_len(entry: &Entry<'_>) -> usize {
    match *entry {
        Entry::Message(_) => 1 + 4,
        Entry::Field(k, v) => {
            1 + 4
                + k.len()
                + match v {
                    Value::Str(_) | Value::Json(_) => 1 + 4,
                    Value::Bool(_) => 2,
                    _ => 9,
                }
        }
        Entry::Span(name) => 1 + 4 + name.len(),
        Entry::Error(k, e) => 1 + 4 + k.len() + 4 + e.kind.len() + 3 * 4,
    }
}

/// Bytes `entry` takes in a record's buffer.
fn full_len(entry: &Entry<'_>) -> usize {
    fixed_len(entry)
        + match *entry {
            Entry::Message(m) => m.len(),
            Entry::Field(_, Value::Str(s) | Value::Json(s)) => s.len(),
            Entry::Error(_, e) => e.message.len() + e.sources.len() + e.trace.len(),
            _ => 0,
        }
}

/// The longest length every string of `lens` may keep so that together (a cut one with
/// its marker) they take at most `room` bytes.
fn common_cap(lens: &[usize], room: usize) -> usize {
    let cost = |cap: usize| -> usize {
        lens.iter()
            .map(|&l| if l <= cap { l } else { cap + MARKER.len() })
            .fold(0usize, usize::saturating_add)
    };
    let (mut lo, mut hi) = (0usize, lens.iter().copied().max().unwrap_or(0));
    if cost(hi) <= room {
        return usize::MAX;
    }
    // The largest cap whose cost fits (cost is non-decreasing in cap).
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if cost(mid) <= room {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}
