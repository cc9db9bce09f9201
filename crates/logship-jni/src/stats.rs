//! The counters Java reads, in the order of `dev.logship.jvm.Stats`' fields.
//!
//! Why it exists: Java reads the pipeline's statistics as a plain object; a `long[]` in a
//! fixed order is one JNI call and no parsing. Must never: change the order without the
//! Java class (the test in `tests/maven.rs` runs both).

use logship::Stats;

/// The names of [`numbers`], in order (also `Stats.NAMES` in Java).
pub const NAMES: [&str; 12] = [
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
];

/// The counters of `stats`, in the order of [`NAMES`].
pub fn numbers(stats: &Stats) -> [i64; 12] {
    let n = |v: u64| i64::try_from(v).unwrap_or(i64::MAX);
    [
        n(stats.enqueued),
        n(stats.events_delivered),
        n(stats.events_spilled),
        n(stats.events_replayed),
        n(stats.events_failed),
        n(stats.events_abandoned),
        n(stats.dropped_queue_full),
        n(stats.dropped_closed),
        n(stats.suppressed()),
        n(stats.spill_dropped),
        n(stats.pending()),
        n(stats.lost()),
    ]
}
