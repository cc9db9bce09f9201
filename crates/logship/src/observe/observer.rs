//! The observer thread: the budget's windows and state file, the stall alarm, and the
//! `metrics` export.
//!
//! Why it exists: these three need a clock tick, not an event: a budget window ends at
//! the hour whether or not anything is logged, a stall is the absence of deliveries, and a
//! metrics recorder wants fresh values whether or not anyone calls `stats()`. One thread
//! (started only when one of them is configured, or with the `metrics` feature) does all
//! three, so the log call never does I/O for them. It never ships its own events except
//! the budget's notices (through the queue's notice path, never counted as drops), and
//! ends with the pipeline.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::stall::{StallCallback, StallWatch};
use super::stats::{Counters, Stats};
use crate::pipeline::shared::Shared;

/// Longest pause between two ticks (budget windows and state saves need no finer grain).
const MAX_TICK: Duration = Duration::from_secs(1);
/// Shortest pause between two ticks.
const MIN_TICK: Duration = Duration::from_millis(20);

/// What the observer does, from the configuration.
pub(crate) struct Observer {
    pub shared: Arc<Shared>,
    /// A snapshot of the pipeline's counters; `None` once the pipeline is gone.
    pub stats: Box<dyn Fn() -> Option<Stats> + Send>,
    /// Queues the budget's waiting notices.
    pub ship_notices: Box<dyn Fn() + Send>,
    pub stall_after: Option<Duration>,
    pub on_stall: Option<StallCallback>,
    pub metrics_interval: Option<Duration>,
}

impl Observer {
    /// Whether anything needs the thread.
    pub(crate) fn is_needed(&self) -> bool {
        self.shared.budget.is_some()
            || self.stall_after.is_some()
            || self.metrics_interval.is_some()
    }

    fn tick(&self) -> Duration {
        [
            Some(MAX_TICK),
            self.stall_after.map(|d| d / 4),
            self.metrics_interval,
        ]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(MAX_TICK)
        .max(MIN_TICK)
    }

    /// Runs until the pipeline is shut down (or gone).
    pub(crate) fn run(self) {
        let tick = self.tick();
        let mut watch = self
            .stall_after
            .map(|after| StallWatch::new(after, Instant::now()));
        let mut last_export: Option<Instant> = None;
        loop {
            let closed = self.shared.closed.load(Ordering::Acquire);
            if let Some(budget) = &self.shared.budget {
                budget.tick();
                if !closed && budget.has_notices() {
                    (self.ship_notices)();
                }
                budget.save(&self.shared.reporter);
            }
            if let Some(watch) = &mut watch {
                self.watch_stall(watch);
            }
            if let Some(interval) = self.metrics_interval {
                if last_export.is_none_or(|at| at.elapsed() >= interval) {
                    let Some(_stats) = (self.stats)() else {
                        return;
                    };
                    #[cfg(feature = "metrics")]
                    super::metrics::export(&_stats);
                    last_export = Some(Instant::now());
                }
            }
            if closed || self.shared.abort.sleep(tick) {
                return;
            }
        }
    }

    fn watch_stall(&self, watch: &mut StallWatch) {
        let c = &self.shared.counters;
        let get = |a: &std::sync::atomic::AtomicU64| a.load(Ordering::Relaxed);
        let delivered = get(&c.events_delivered) + get(&c.events_replayed);
        let settled = get(&c.events_delivered)
            + get(&c.events_failed)
            + get(&c.events_abandoned)
            + get(&c.events_spilled);
        // Queued or in flight, plus spilled this run and not replayed yet: an intake that
        // is down with spill on is a stall too.
        let waiting = c.enqueued.get().saturating_sub(settled)
            + get(&c.events_spilled).saturating_sub(get(&c.events_replayed));
        let Some(alarm) = watch.check(Instant::now(), delivered, waiting) else {
            return;
        };
        self.shared.stalled.store(alarm.stalled, Ordering::Relaxed);
        if alarm.stalled {
            Counters::add(&c.stalls, 1);
            self.shared.reporter.notice(&format!(
                "warning: delivery stalled: nothing delivered for {:?} while {} events wait (health: stalled)",
                alarm.quiet_for, alarm.waiting
            ));
        } else {
            self.shared
                .reporter
                .notice("delivery resumed after a stall (health no longer stalled)");
        }
        if let Some(callback) = &self.on_stall {
            // A panicking callback must not end the alarm (nor the budget's saves).
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| callback(&alarm)));
        }
    }
}
