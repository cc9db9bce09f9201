//! The burst table: one token bucket per call site and level, in fixed memory.
//!
//! Why it exists: "the first events of a burst always ship; the rest are counted" must be
//! decided on the caller's thread in a few tens of nanoseconds without a lock or an
//! allocation. Each bucket is a GCRA (generic cell rate algorithm) state, one atomic
//! "theoretical arrival time" updated by compare-and-swap: equivalent to a token bucket
//! of `burst` tokens refilled at `rate` per second. Sites are found by open addressing
//! (a few probes); when the table is full, further sites share one overflow bucket,
//! so memory stays bounded and every event is still counted.
//!
//! What it must never do: allocate on a call (a site's name is copied once, when it
//! claims its slot), lose a suppressed event from the summaries' counts (each is added to
//! its slot and to `Stats::burst_suppressed`; [`Table::collect`] takes counts with a swap).

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering::*};
use std::sync::OnceLock;

use super::clock::Clock;
use super::hash::mix;
use super::site::Site;
use crate::capture::record::Level;
use crate::config::control::Limit;
use crate::observe::stats::Counters;

/// Slots tried for a site before it falls into the overflow bucket.
const PROBES: usize = 8;

/// A bucket's shape in nanoseconds.
#[derive(Clone, Copy, Debug)]
struct Gcra {
    /// Time one token takes to come back.
    interval: u64,
    /// How far ahead of now the theoretical arrival time may run: `burst - 1` intervals.
    tolerance: u64,
}

/// One call site's bucket and what it has suppressed since its last summary.
#[derive(Default)]
struct Slot {
    /// The site's key (0: free).
    key: AtomicU64,
    /// GCRA theoretical arrival time (control-clock nanoseconds).
    tat: AtomicU64,
    /// The level (index), for the summary.
    level: AtomicU8,
    /// Suppressed since the last summary.
    suppressed: AtomicU64,
    /// Control-clock time of the first and the latest suppressed event since the summary.
    first: AtomicU64,
    last: AtomicU64,
    /// "target (file:line)", copied once when the site claims the slot.
    name: OnceLock<Box<str>>,
}

/// The name the overflow bucket's summaries carry.
pub(crate) const OVERFLOW_NAME: &str = "(other call sites: the burst table is full)";

/// Fixed-size table of buckets.
pub(crate) struct Table {
    slots: Box<[Slot]>,
    mask: usize,
    overflow: Slot,
    limits: [Option<Gcra>; 5],
}

/// What one slot suppressed since its last summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Summary {
    pub count: u64,
    pub site: String,
    pub level: Level,
    /// Control-clock nanoseconds.
    pub first: u64,
    pub last: u64,
}

impl Table {
    /// A table of `sites` slots (rounded up to a power of two) with these limits.
    pub(crate) fn new(limits: [Option<Limit>; 5], sites: usize) -> Table {
        let n = sites.clamp(16, 1 << 20).next_power_of_two();
        let gcra = limits.map(|l| {
            l.map(|Limit { rate, burst }| {
                let interval = (1_000_000_000 / rate.max(1)).max(1);
                Gcra {
                    interval,
                    tolerance: interval.saturating_mul(burst.max(1) - 1),
                }
            })
        });
        let overflow = Slot::default();
        let _ = overflow.name.set(OVERFLOW_NAME.into());
        overflow.key.store(u64::MAX, Relaxed);
        Table {
            slots: (0..n).map(|_| Slot::default()).collect(),
            mask: n - 1,
            overflow,
            limits: gcra,
        }
    }

    /// Whether the level (index) has a limit.
    #[inline]
    pub(crate) fn limited(&self, level: usize) -> bool {
        self.limits[level].is_some()
    }

    /// Takes a token from the site's bucket; false (and counted) when it is empty.
    #[inline]
    pub(crate) fn check(
        &self,
        site: &Site<'_>,
        level: usize,
        clock: &Clock,
        counters: &Counters,
    ) -> bool {
        let Some(g) = self.limits[level] else {
            return true;
        };
        let key = match mix(site.key ^ (level as u64 + 1).wrapping_mul(0x9e37_79b9)) {
            0 | u64::MAX => 1,
            k => k,
        };
        let slot = self.slot(key, site, level, counters);
        let now = clock.now();
        let mut tat = slot.tat.load(Relaxed);
        loop {
            let start = tat.max(now);
            if start - now > g.tolerance {
                Counters::add(&counters.burst_suppressed, 1);
                if slot.suppressed.fetch_add(1, AcqRel) == 0 {
                    slot.first.store(now, Relaxed);
                }
                slot.last.store(now, Relaxed);
                if std::ptr::eq(slot, &self.overflow) {
                    slot.level.store(level as u8, Relaxed);
                }
                return false;
            }
            match slot
                .tat
                .compare_exchange_weak(tat, start + g.interval, Relaxed, Relaxed)
            {
                Ok(_) => return true,
                Err(seen) => tat = seen,
            }
        }
    }

    /// The slot of `key`, claimed if free; the overflow slot when the probes are all taken.
    #[inline]
    fn slot(&self, key: u64, site: &Site<'_>, level: usize, counters: &Counters) -> &Slot {
        let start = key as usize;
        for i in 0..PROBES {
            let slot = &self.slots[start.wrapping_add(i) & self.mask];
            let mut seen = slot.key.load(Acquire);
            if seen == 0 {
                match slot.key.compare_exchange(0, key, AcqRel, Acquire) {
                    Ok(_) => {
                        slot.level.store(level as u8, Relaxed);
                        let _ = slot.name.set(describe(site).into_boxed_str());
                        return slot;
                    }
                    Err(now) => seen = now,
                }
            }
            if seen == key {
                return slot;
            }
        }
        Counters::add(&counters.burst_sites_full, 1);
        &self.overflow
    }

    /// Takes the counts of bursts that ended (quiet for `quiet` nanoseconds), or that
    /// have waited `interval` for their summary, or all of them when `all` (shutdown).
    pub(crate) fn collect(&self, now: u64, quiet: u64, interval: u64, all: bool) -> Vec<Summary> {
        let mut out = Vec::new();
        for slot in self.slots.iter().chain(std::iter::once(&self.overflow)) {
            if slot.suppressed.load(Acquire) == 0 {
                continue;
            }
            let (first, last) = (slot.first.load(Relaxed), slot.last.load(Relaxed));
            let due =
                all || now.saturating_sub(last) >= quiet || now.saturating_sub(first) >= interval;
            if !due {
                continue;
            }
            let count = slot.suppressed.swap(0, AcqRel);
            if count == 0 {
                continue;
            }
            out.push(Summary {
                count,
                site: slot
                    .name
                    .get()
                    .map_or("(unknown)".into(), |n| n.to_string()),
                level: Level::ALL[usize::from(slot.level.load(Relaxed)).min(4)],
                first,
                last: slot.last.load(Relaxed).max(first),
            });
        }
        out
    }

    /// Suppressed events not summarised yet (for tests and the shutdown path).
    #[cfg(test)]
    pub(crate) fn unsummarised(&self) -> u64 {
        self.slots
            .iter()
            .chain(std::iter::once(&self.overflow))
            .map(|s| s.suppressed.load(Acquire))
            .sum()
    }
}

/// "target (file:line)", the name a summary gives its site.
fn describe(site: &Site<'_>) -> String {
    match (site.file, site.line) {
        (Some(file), Some(line)) => format!("{} ({file}:{line})", site.target),
        (Some(file), None) => format!("{} ({file})", site.target),
        _ => site.target.to_owned(),
    }
}
