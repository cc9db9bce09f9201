//! Event identity: the id and sequence number every record gets at capture.
//!
//! Why it exists: delivery is at-least-once (a crash or a timed-out request replays what
//! the intake may already hold). An id chosen by the client, kept with the record in the
//! spill, lets an intake that keys documents by a client-chosen id refuse the second
//! copy (it answers `409`) and lets every other vendor's users deduplicate in queries.
//!
//! The scheme: an [`EventId`] is 128 bits, a per-process **prefix** of 64 random bits
//! drawn once (when the first record is built, from the operating system's randomness)
//! and a per-process **sequence number** from a 64-bit atomic counter starting at 0, which
//! each thread takes in blocks of 1,024 (so numbers increase within a thread, and never
//! repeat within the process, but across threads they are not in capture order, and a
//! thread that ends leaves the rest of its block unused).
//! Written as 32 lowercase hex digits: the prefix, then the sequence number. Within a
//! process ids never repeat (2^64 events); two processes (or two runs of one) share ids
//! only if they draw the same prefix: with `n` process starts that sharing a prefix has
//! odds of about `n² / 2^65` (one in 37 million for a million starts), and even then
//! only the events with equal sequence numbers collide. A process that `fork`s without
//! `exec` and logs on both sides shares its prefix with its child (a known limit).
//!
//! Must never: make a system call or allocate per record (a thread-local read and write,
//! one relaxed atomic increment per 1,024 records, and one initialised-once load on the
//! caller's thread).

use std::cell::Cell;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::OnceLock;

/// The first sequence number of this process's next block.
static NEXT_SEQ: AtomicU64 = AtomicU64::new(0);
/// Sequence numbers a thread takes from [`NEXT_SEQ`] at a time: one shared increment per
/// block, not per record (threads logging at once on different cores would otherwise
/// pass that counter's cache line back and forth on every call).
const SEQ_BLOCK_LEN: u64 = 1024;

thread_local! {
    /// This thread's block: its next sequence number and the end of the block.
    static SEQ_BLOCK: Cell<(u64, u64)> = const { Cell::new((0, 0)) };
}
/// This process's prefix, drawn once.
static PREFIX: OnceLock<u64> = OnceLock::new();

/// The identity of one event: unique across processes and restarts, kept in the spill
/// with the record, so that a replayed event has the id of its first copy.
///
/// 128 bits: a per-process prefix of 64 random bits (drawn from the operating system's
/// randomness when the process builds its first record) and the event's sequence number
/// in that process (a 64-bit counter from 0, taken by each thread in blocks of 1,024:
/// increasing within a thread, not in capture order across threads), written as 32
/// lowercase hex digits, prefix first. Ids of one process never repeat; two processes share ids only if they drew the
/// same prefix, which for `n` process starts has odds of about `n² / 2^65` (one in 37
/// million for a million starts). Capturing one costs a thread-local increment, no system
/// call and no allocation. A process that `fork`s without `exec` and logs on both sides
/// shares its prefix with its child.
///
/// ```
/// use logship::{Level, Record};
/// let a = Record::new(Level::Info, "app");
/// let b = Record::new(Level::Info, "app");
/// let (a, b) = (a.id().unwrap(), b.id().unwrap());
/// assert_eq!(a.prefix(), b.prefix(), "one process, one prefix");
/// assert!(b.seq() > a.seq());
/// assert_eq!(a.to_string().len(), 32);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventId {
    prefix: u64,
    seq: u64,
}

impl EventId {
    /// A new id: this process's prefix and its next sequence number.
    pub(crate) fn next() -> EventId {
        let prefix = *PREFIX.get_or_init(draw_prefix);
        let seq = SEQ_BLOCK.with(|block| {
            let (next, end) = block.get();
            let (next, end) = if next < end {
                (next, end)
            } else {
                let start = NEXT_SEQ.fetch_add(SEQ_BLOCK_LEN, Ordering::Relaxed);
                (start, start.saturating_add(SEQ_BLOCK_LEN))
            };
            block.set((next + 1, end));
            next
        });
        EventId { prefix, seq }
    }

    /// An id from its two halves (as read back from the spill).
    pub(crate) fn from_parts(prefix: u64, seq: u64) -> EventId {
        EventId { prefix, seq }
    }

    /// The 64 random bits the process that captured the event drew at its start.
    pub fn prefix(&self) -> u64 {
        self.prefix
    }

    /// The event's sequence number in the process that captured it (0 first).
    pub fn seq(&self) -> u64 {
        self.seq
    }

    /// Appends the id as 32 lowercase hex digits (no allocation).
    pub fn write_hex(&self, out: &mut Vec<u8>) {
        push_hex(out, self.prefix);
        push_hex(out, self.seq);
    }
}

impl fmt::Display for EventId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}{:016x}", self.prefix, self.seq)
    }
}

/// 64 random bits: SipHash, keyed by std's `RandomState` (128 bits the operating system's
/// randomness gave, `getrandom(2)` on Linux), over the process id and the time. (Not
/// `fastrand`: its global generator is seeded from the monotonic clock and the thread id
/// only, which two containers started alike could share.)
fn draw_prefix() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.write_u64(super::clock::now_nanos());
    h.finish()
}

fn push_hex(out: &mut Vec<u8>, v: u64) {
    crate::support::hex::append(out, &v.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_of_one_process_share_the_prefix_and_count_up() {
        let a = EventId::next();
        let b = EventId::next();
        assert_eq!(a.prefix, b.prefix);
        assert!(b.seq > a.seq);
        assert_ne!(a, b);
    }

    #[test]
    fn the_hex_form_is_the_display_form() {
        let id = EventId::from_parts(0x0123_4567_89ab_cdef, 42);
        let mut out = Vec::new();
        id.write_hex(&mut out);
        assert_eq!(out, b"0123456789abcdef000000000000002a");
        assert_eq!(id.to_string().as_bytes(), out.as_slice());
    }

    #[test]
    fn ids_are_unique_across_threads() {
        let ids: Vec<Vec<EventId>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4)
                .map(|_| s.spawn(|| (0..10_000).map(|_| EventId::next()).collect()))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let all: std::collections::HashSet<EventId> = ids.into_iter().flatten().collect();
        assert_eq!(all.len(), 40_000);
    }
}
