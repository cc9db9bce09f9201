//! The state every thread of one pipeline shares: the handle, the batcher, the senders
//! and the replayer.
//!
//! Why it exists: counters, the memory bound, the batch tracker, the abort signal, the
//! spill and the health flag are read and written by all of them, and one `Arc` of one
//! struct is the simplest way to give each thread the same ones. It holds no logic of its
//! own beyond the health flag, and nothing in it is ever held across I/O. What only the
//! senders share (the concurrency limit) lives in `deliver::pool::Pool` instead.

use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::Arc;

use crate::admit::control::Control;
use crate::observe::health::Health;
use crate::observe::outage::Outage;
use crate::observe::reporter::Reporter;
use crate::observe::stats::Counters;
use crate::pipeline::tracker::Tracker;
use crate::queue::Memory;
use crate::spill::handle::SpillHandle;
use crate::support::sync::Signal;

/// Everything the pipeline's threads share.
pub(crate) struct Shared {
    pub counters: Counters,
    pub reporter: Reporter,
    pub memory: Memory,
    pub tracker: Tracker,
    /// Set when shutdown has run out of time: senders stop retrying and settle at once.
    pub abort: Signal,
    /// Set when shutdown begins: log calls are refused and counted.
    pub closed: AtomicBool,
    /// The disk spill, when enabled (shared with other pipelines of this process only
    /// when hand-over is allowed; see `spill::handover`).
    pub spill: Option<Arc<SpillHandle>>,
    /// The latest request outcome, as a [`Health`] (see `set_health`).
    pub health: AtomicU8,
    /// Why spill is off although it was asked for (see `spill::startup`).
    pub spill_unavailable: Option<String>,
    /// Set once an event was refused because the pipeline was shut down (its guard was
    /// dropped): the notice about it is printed once.
    pub told_closed: AtomicBool,
    /// The compiled redaction rules and their counters, when redaction is on (issue 17
    /// part 4): applied by the batcher and the replayer, never on the caller's thread.
    pub redaction: Option<Arc<crate::admit::redaction::Redaction>>,
    /// Burst limits, sampling and drop notices (issue #17 parts 1, 2, 5).
    pub control: Control,
    /// The volume budget, when one is configured (issue 17 part 3).
    pub budget: Option<crate::admit::budget::Budget>,
    /// Set by the stall alarm while nothing is delivered although events arrive.
    pub stalled: AtomicBool,
    /// Whether requests are failing now: an outage is told when it begins and ends.
    pub outage: Outage,
}

impl Shared {
    /// Records the latest request outcome.
    pub(crate) fn set_health(&self, health: Health) {
        self.health.store(health as u8, Ordering::Relaxed);
        match health {
            Health::Healthy => self.outage.delivered(&self.counters, &self.reporter),
            Health::Degraded | Health::Failing => {
                self.outage.failed(&self.counters, &self.reporter)
            }
            Health::BudgetWarning | Health::Stalled => {}
        }
    }

    /// The latest request outcome, overridden by a stall, and by a budget warning while
    /// requests go well.
    pub(crate) fn health(&self) -> Health {
        if self.stalled.load(Ordering::Relaxed) {
            return Health::Stalled;
        }
        let health = Health::from_u8(self.health.load(Ordering::Relaxed));
        match &self.budget {
            Some(b) if health == Health::Healthy && b.is_warning() => Health::BudgetWarning,
            _ => health,
        }
    }
}
