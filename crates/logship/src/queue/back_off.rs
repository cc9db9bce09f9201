//! Counting a refused log call, and making a thread that keeps being refused rest.
//!
//! Why it exists: see [`refuse`]. Must never: make an accepted call wait, or rest while
//! the queue is stuck rather than short of CPU.

use std::cell::Cell;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use super::memory::Memory;
use crate::observe::stats::Counters;

/// How long a thread must have been dropped without a break before it backs off (see
/// [`refuse`]).
pub(crate) const BACK_OFF_AFTER: Duration = Duration::from_micros(200);

/// The longest one back-off lasts.
pub(crate) const BACK_OFF_MAX: Duration = Duration::from_millis(50);

/// A queue that has been full for longer than this is not short of CPU but stuck (every
/// sender waiting on a hung intake, say): waiting would not help it ship, so callers stop
/// backing off until it has drained again.
pub(crate) const BACK_OFF_WHILE_FULL_FOR: Duration = Duration::from_millis(100);

thread_local! {
    /// When this thread's current run of drops began (none while its calls are accepted).
    pub(super) static DROPPING_SINCE: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Ends this thread's run of drops (its call was accepted).
#[inline]
pub(super) fn end_drop_run() {
    DROPPING_SINCE.with(|d| {
        if d.get().is_some() {
            d.set(None);
        }
    });
}

/// Counts a refused call, and makes a thread that keeps being dropped back off. Why: on a
/// machine with fewer cores than busy logging threads the scheduler shares the CPU
/// fairly between threads, so 64 threads logging flat out leave the batcher and senders
/// a sliver of it and delivery collapses (measured: 1 % of the one-thread figure). A
/// thread whose calls are all dropped gains nothing by calling again at once; waiting
/// until the batcher has made room hands its share of the CPU to the threads that ship.
/// Only a thread that has been dropped for [`BACK_OFF_AFTER`] without a break pays, at
/// most [`BACK_OFF_MAX`] per back-off, after which its run of drops starts again. The
/// run is measured in wall time, so the more threads share the cores (each one running
/// less of the time), the fewer calls a thread makes between back-offs. Nobody backs off
/// once the queue has been full for [`BACK_OFF_WHILE_FULL_FOR`] (it is stuck, not
/// starved), nor under the `Block` policy (`back_off` false: the caller has waited already).
pub(super) fn refuse(memory: &Memory, counters: &Counters, back_off: bool) {
    counters.dropped_queue_full.add(1);
    if !back_off {
        return;
    }
    let now = Instant::now();
    if memory.full_for(now) >= BACK_OFF_WHILE_FULL_FOR {
        return;
    }
    let since = DROPPING_SINCE.with(|d| match d.get() {
        Some(since) => since,
        None => {
            d.set(Some(now));
            now
        }
    });
    if now.duration_since(since) >= BACK_OFF_AFTER {
        memory.back_offs.fetch_add(1, Ordering::Relaxed);
        memory.wait_while_saturated(now + BACK_OFF_MAX);
        DROPPING_SINCE.with(|d| d.set(None));
    }
}
