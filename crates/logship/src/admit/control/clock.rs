//! The caller-side policy's clock: monotonic nanoseconds since the pipeline started, and
//! their wall time for the notices.
//!
//! Why it exists: burst buckets compare times on every limited call, so they want one
//! cheap monotonic counter that never reads 0 (0 marks an empty slot); summaries want
//! wall time. Must never: go backwards.

use std::time::{Instant, SystemTime, UNIX_EPOCH};

/// Monotonic nanoseconds since construction, and the wall time they correspond to.
#[derive(Debug)]
pub(crate) struct Clock {
    epoch: Instant,
    /// Unix nanoseconds at `epoch`, to turn the monotonic clock into wall time.
    wall_at_epoch: u64,
}

impl Clock {
    /// A clock starting now.
    pub(crate) fn new() -> Clock {
        Clock {
            epoch: Instant::now(),
            wall_at_epoch: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0),
        }
    }

    /// Nanoseconds since this clock started (never 0).
    #[inline]
    pub(crate) fn now(&self) -> u64 {
        (self.epoch.elapsed().as_nanos() as u64).max(1)
    }

    /// Unix nanoseconds of a time of [`Clock::now`].
    pub(crate) fn wall(&self, mono: u64) -> u64 {
        self.wall_at_epoch.saturating_add(mono)
    }
}
