//! Outages of the intake, told on stderr: one line when requests start failing, one when
//! a request is delivered again, with what happened in between.
//!
//! Why it exists: a 30 s outage used to print one "retrying" line (the reporter
//! rate-limits repeats) and nothing when it ended, so an operator could not tell whether
//! it was still going on, or what it cost. The two lines bracket it: its length, the
//! requests that failed, the events kept in the spill meanwhile. Must never: print per
//! request (one line each way, whatever the length of the outage), take a lock on the
//! path of a delivered request while no outage is going on, or log through `log` or
//! `tracing` (the reporter writes to stderr).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use super::reporter::Reporter;
use super::stats::Counters;

/// Whether an outage is going on, and where the counters stood when it began.
#[derive(Default)]
pub(crate) struct Outage {
    down: AtomicBool,
    began: Mutex<Option<Began>>,
}

struct Began {
    at: Instant,
    failed_requests: u64,
    spilled: u64,
}

impl Outage {
    /// A request failed: the first failure after a delivered request (or the start)
    /// begins an outage and says so.
    pub(crate) fn failed(&self, counters: &Counters, reporter: &Reporter) {
        if self.down.load(Ordering::Acquire) {
            return;
        }
        let mut began = self.began.lock().unwrap_or_else(|e| e.into_inner());
        if began.is_some() {
            return;
        }
        *began = Some(Began {
            at: Instant::now(),
            // The failure that begins it is counted already.
            failed_requests: counters
                .failed_requests
                .load(Ordering::Relaxed)
                .saturating_sub(1),
            spilled: counters.events_spilled.load(Ordering::Relaxed),
        });
        self.down.store(true, Ordering::Release);
        reporter.notice(
            "delivery interrupted: requests to the intake are failing (the reason follows); events are retried, then kept in the spill when it is on; a line follows when delivery recovers",
        );
    }

    /// A request was delivered: ends the outage, if one is going on, with its figures.
    pub(crate) fn delivered(&self, counters: &Counters, reporter: &Reporter) {
        if !self.down.load(Ordering::Acquire) {
            return;
        }
        let mut began = self.began.lock().unwrap_or_else(|e| e.into_inner());
        let Some(b) = began.take() else {
            return;
        };
        self.down.store(false, Ordering::Release);
        let failed = counters
            .failed_requests
            .load(Ordering::Relaxed)
            .saturating_sub(b.failed_requests);
        let spilled = counters
            .events_spilled
            .load(Ordering::Relaxed)
            .saturating_sub(b.spilled);
        reporter.notice(&format!(
            "delivery recovered after {:.1} s: {failed} request{} failed meanwhile, {spilled} event{} written to the spill (replayed from it now)",
            b.at.elapsed().as_secs_f64(),
            if failed == 1 { "" } else { "s" },
            if spilled == 1 { " was" } else { "s were" },
        ));
    }
}
