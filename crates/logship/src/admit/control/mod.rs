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
mod clock;
mod hash;
pub(crate) mod notice;
pub(crate) mod sample;
mod site;

pub(crate) use site::Site;

use std::time::Duration;

use clock::Clock;

use crate::capture::record::{Entry, Level, Record, Value};
use crate::config::control::{level_index, ControlConfig};
use crate::observe::stats::Counters;

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
    clock: Clock,
}

impl Control {
    /// The policy `config` asks for (already validated: a bad item is ignored here).
    pub(crate) fn new(config: &ControlConfig) -> Control {
        let limits = config.limits().unwrap_or([None; 5]);
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
            clock: Clock::new(),
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
        self.clock.now()
    }

    /// Unix nanoseconds of a time of [`Control::now`].
    pub(crate) fn wall(&self, mono: u64) -> u64 {
        self.clock.wall(mono)
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
            if table.limited(at) && !table.check(&site(), at, &self.clock, counters) {
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

#[cfg(test)]
mod tests;
