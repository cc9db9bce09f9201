//! The counters Java reads, in the order of `dev.logship.jvm.Stats`' fields.
//!
//! Why it exists: Java reads the pipeline's statistics as a plain object; a `long[]` in a
//! fixed order is one JNI call and no parsing. Must never: change the order without the
//! Java class (the test in `tests/maven.rs` runs both).

use logship::Stats;

/// The names of [`numbers`], in order (also `Stats.NAMES` in Java).
pub const NAMES: [&str; 13] = [
    "enqueued",
    "delivered",
    "spilled",
    "replayed",
    "failed",
    "abandoned",
    "droppedQueueFull",
    "droppedClosed",
    "suppressed",
    "spillDropped",
    "pending",
    "lost",
    "handedOver",
];

/// The counters of `stats`, in the order of [`NAMES`].
pub fn numbers(stats: &Stats) -> [i64; 13] {
    numbers_with(stats, 0, 0, 0)
}

/// [`numbers`] with the hand-over ring's: `handed_over` events its consumer has taken
/// (Java counts what is still in the ring as queued and pending from it), `abandoned`
/// ones (given up at a stop: dropped, closed) and `malformed` records (lost).
pub fn numbers_with(stats: &Stats, handed_over: u64, abandoned: u64, malformed: u64) -> [i64; 13] {
    let n = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
    [
        n(stats.enqueued),
        n(stats.events_delivered),
        n(stats.events_spilled),
        n(stats.events_replayed),
        n(stats.events_failed),
        n(stats.events_abandoned),
        n(stats.dropped_queue_full),
        n(stats.dropped_closed.saturating_add(abandoned)),
        n(stats.suppressed()),
        n(stats.spill_dropped),
        n(stats.pending()),
        n(stats
            .lost()
            .saturating_add(abandoned)
            .saturating_add(malformed)),
        n(handed_over),
    ]
}
