//! Sampling per level: keep a fraction of each level's events, by trace id when the event
//! has one.
//!
//! Why it exists: DEBUG at 10% keeps the shape of what happened at a tenth of the bill.
//! Deciding by the trace id (a deterministic hash of its text against the kept fraction)
//! keeps or drops all of one trace's events together, in every thread and in every
//! process using the same rate, so a kept trace is whole. Events without a trace id are
//! kept at random (a per-thread xorshift generator: no lock, no allocation).
//!
//! What it must never do: sample a level that has no rate (those cost one array read).

use std::cell::Cell;

use super::hash::{hash_bytes, mix};

/// Parts per million: everything kept.
pub(crate) const ALL: u32 = 1_000_000;

/// Kept fractions per level.
pub(crate) struct Sampler {
    ppm: [u32; 5],
    by_trace: bool,
}

thread_local! {
    static RNG: Cell<u64> = const { Cell::new(0) };
}

impl Sampler {
    /// Keeps `ppm[level]` parts per million of each level; by trace id when `by_trace`.
    pub(crate) fn new(ppm: [u32; 5], by_trace: bool) -> Sampler {
        Sampler { ppm, by_trace }
    }

    /// Whether the level's sampling is decided before the record is built (at random).
    #[inline]
    pub(crate) fn decides_early(&self, level: usize) -> bool {
        self.ppm[level] < ALL && !self.by_trace
    }

    /// Whether the level's sampling waits for the record (to read its trace id).
    #[inline]
    pub(crate) fn decides_late(&self, level: usize) -> bool {
        self.ppm[level] < ALL && self.by_trace
    }

    /// A random decision at the level's rate.
    #[inline]
    pub(crate) fn keep_random(&self, level: usize) -> bool {
        let r = RNG.with(|s| {
            let mut x = s.get();
            if x == 0 {
                // Seeded per thread from the address of its state and the time.
                let t = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map(|d| d.as_nanos() as u64)
                    .unwrap_or(1);
                x = mix(t ^ (s as *const Cell<u64> as u64)) | 1;
            }
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            s.set(x);
            x
        });
        (mix(r) % u64::from(ALL)) < u64::from(self.ppm[level])
    }

    /// The decision for every event of the trace `trace_id` at the level's rate.
    pub(crate) fn keep_trace(&self, level: usize, trace_id: &str) -> bool {
        let h = mix(hash_bytes(0x7472_6163_6569_6400, trace_id.as_bytes()));
        (h % u64::from(ALL)) < u64::from(self.ppm[level])
    }
}
