//! Control at the source (issue #17 parts 1, 2 and 5): burst limits per call site,
//! sampling per level (trace-consistent when events carry a `trace_id`), and the synthetic
//! events that say what was held back or dropped (burst summaries, drop notices).
//!
//! Why it exists: an error storm arrives exactly when queues fill and bills spike. The
//! user's own policy decides, on the caller's thread and before the record is built, which
//! events go: [`Control::admit`] is a table look-up, one clock read and one atomic
//! compare-and-swap, and allocates nothing. Held-back events are never lost silently:
//! each is counted ([`crate::Stats::suppressed`]) and summarised in an event of the stream
//! itself, built on the batcher's thread by [`notice::Ticker`].
//!
//! What it must never do: allocate or lock on an accepted call, limit errors unless the
//! user listed `error`, or let its own synthetic events pass through the limits, count as
//! drops, or be dropped in a loop (they bypass the queue and wait for room instead).

pub(crate) mod burst;
pub(crate) mod notice;
pub(crate) mod sample;

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::capture::record::{Entry, Level, Record, Value};
use crate::config::control::{level_index, ControlConfig};
use crate::observe::stats::Counters;

/// Where an event was logged, as the burst table keys it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Site<'a> {
    /// The identity of the call site (see the constructors).
    pub key: u64,
    /// Module path or logger name, for the summary event.
    pub target: &'a str,
    /// Source file, for the summary event.
    pub file: Option<&'a str>,
    /// Source line, for the summary event.
    pub line: Option<u32>,
}

impl<'a> Site<'a> {
    /// A call site with a static identity (tracing's callsite metadata address).
    #[inline]
    pub(crate) fn from_address(
        address: usize,
        target: &'a str,
        file: Option<&'a str>,
        line: Option<u32>,
    ) -> Site<'a> {
        Site {
            key: mix(address as u64),
            target,
            file,
            line,
        }
    }

    /// A call site known by its text: `log`'s target + file + line, and for records handed
    /// to `Logship::push` directly (the CLI sidecar), the record's target (logger name).
    #[inline]
    pub(crate) fn from_text(target: &'a str, file: Option<&'a str>, line: Option<u32>) -> Site<'a> {
        let mut h = hash_bytes(0x9e37_79b9_7f4a_7c15, target.as_bytes());
        if let Some(file) = file {
            h = hash_bytes(h ^ 0xff, file.as_bytes());
        }
        h ^= u64::from(line.unwrap_or(0)).wrapping_mul(0xff51_afd7_ed55_8ccd);
        Site {
            key: mix(h),
            target,
            file,
            line,
        }
    }
}

/// Why an event was held back by the user's policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Ship it.
    Keep,
    /// Its call site's token bucket was empty.
    Burst,
    /// Sampled out.
    Sampled,
}

/// The caller-side policy of one pipeline, and the clock its timestamps use.
pub(crate) struct Control {
    burst: Option<burst::Table>,
    sample: sample::Sampler,
    /// Drop notices are on.
    pub(crate) drop_notices: bool,
    /// Longest a burst summary waits.
    pub(crate) summary_interval: Duration,
    epoch: Instant,
    /// Unix nanoseconds at `epoch`, to turn the monotonic clock into wall time.
    wall_at_epoch: u64,
}

impl Control {
    /// The policy `config` asks for (already validated: a bad item is ignored here).
    pub(crate) fn new(config: &ControlConfig) -> Control {
        let limits = config.limits().unwrap_or([None; 5]);
        let epoch = Instant::now();
        let wall_at_epoch = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        Control {
            burst: limits
                .iter()
                .any(Option::is_some)
                .then(|| burst::Table::new(limits, config.burst_sites)),
            sample: sample::Sampler::new(
                config.sample_ppm().unwrap_or([1_000_000; 5]),
                config.sample_by_trace,
            ),
            drop_notices: config.drop_notices,
            summary_interval: config.burst_summary_interval,
            epoch,
            wall_at_epoch,
        }
    }

    /// Whether the batcher needs a ticker (burst summaries or drop notices).
    pub(crate) fn needs_ticker(&self) -> bool {
        self.burst.is_some() || self.drop_notices
    }

    /// The burst table, when burst limits are on.
    pub(crate) fn burst(&self) -> Option<&burst::Table> {
        self.burst.as_ref()
    }

    /// Nanoseconds since this pipeline's control clock started (never 0).
    #[inline]
    pub(crate) fn now(&self) -> u64 {
        (self.epoch.elapsed().as_nanos() as u64).max(1)
    }

    /// Unix nanoseconds of a time of [`Control::now`].
    pub(crate) fn wall(&self, mono: u64) -> u64 {
        self.wall_at_epoch.saturating_add(mono)
    }

    /// Decides, before the record is built, whether an event of `level` at `site` goes:
    /// its burst limit, then (unless it waits for its trace id, see
    /// [`Control::admit_built`]) its sample rate. Counts what it holds back. Allocates
    /// nothing; a level without limit or rate costs two array reads.
    #[inline]
    pub(crate) fn admit<'a>(
        &self,
        level: Level,
        site: impl FnOnce() -> Site<'a>,
        counters: &Counters,
    ) -> bool {
        self.decide(level, site, counters) == Verdict::Keep
    }

    /// [`Control::admit`], saying why an event is held back.
    #[inline]
    fn decide<'a>(
        &self,
        level: Level,
        site: impl FnOnce() -> Site<'a>,
        counters: &Counters,
    ) -> Verdict {
        let at = level_index(level);
        if let Some(table) = &self.burst {
            if table.limited(at) && !table.check(&site(), at, self, counters) {
                return Verdict::Burst;
            }
        }
        if self.sample.decides_early(at) && !self.sample.keep_random(at) {
            Counters::add(&counters.sampled_out, 1);
            return Verdict::Sampled;
        }
        Verdict::Keep
    }

    /// The part of sampling that needs the built record: a sampled level's event is kept
    /// or dropped by its `trace_id` field when it has one (so all of a trace's events
    /// share one decision, in every thread and process using the same rate), at random
    /// otherwise. Counts what it drops.
    pub(crate) fn admit_built(&self, record: &Record, counters: &Counters) -> bool {
        let at = level_index(record.level());
        if !self.sample.decides_late(at) {
            return true;
        }
        let keep = match trace_id(record) {
            Some(id) => self.sample.keep_trace(at, id),
            None => self.sample.keep_random(at),
        };
        if !keep {
            Counters::add(&counters.sampled_out, 1);
        }
        keep
    }

    /// Both checks, for a record handed to `Logship::push` directly: its call site is its
    /// target (logger name) and level.
    pub(crate) fn admit_record(&self, record: &Record, counters: &Counters) -> Verdict {
        let site = || Site::from_text(record.target(), None, None);
        match self.decide(record.level(), site, counters) {
            Verdict::Keep if !self.admit_built(record, counters) => Verdict::Sampled,
            verdict => verdict,
        }
    }
}

/// The event's `trace_id` field (its own, before any span's), when it has one.
fn trace_id(record: &Record) -> Option<&str> {
    record.entries().find_map(|e| match e {
        Entry::Field("trace_id", Value::Str(id)) if !id.is_empty() => Some(id),
        _ => None,
    })
}

/// A strong 64-bit mix (the splitmix64 finaliser): nearby addresses land far apart.
#[inline]
pub(crate) fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A fast hash of `bytes` (eight at a time), seeded with `h`; deterministic across
/// processes, which trace-consistent sampling relies on.
#[inline]
pub(crate) fn hash_bytes(mut h: u64, bytes: &[u8]) -> u64 {
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let mut w = [0u8; 8];
        w.copy_from_slice(c);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut w = [0u8; 8];
        w[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(w) ^ rest.len() as u64)
            .wrapping_mul(0x517c_c1b7_2722_0a95);
    }
    h
}

#[cfg(test)]
mod tests;
