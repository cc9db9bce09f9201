//! What the sender threads (and the replayer) share besides the pipeline's state: the
//! concurrency limit, the threads started so far, and the batches they carry right now.
//!
//! Why it exists: requests in flight are bounded by one adaptive limit for all senders,
//! threads start on demand, and shutdown and the watch thread must see every batch a
//! sender is carrying. Must never: hold its lock across I/O.

use std::sync::atomic::{AtomicBool, AtomicUsize};
use std::sync::{Condvar, Mutex, MutexGuard};

use super::concurrency::Limiter;
use super::job::InFlight;

/// What the sender threads (and the replayer) share besides the pipeline's state.
pub(crate) struct Pool {
    /// Permits for requests in flight (live senders and the replayer share them).
    pub concurrency: Limiter,
    /// Live sender threads started so far (they start as the concurrency limit grows).
    pub threads: AtomicUsize,
    /// The live batches senders are carrying right now (see [`InFlight`]). A batch
    /// waiting for its acknowledgement stays here (for shutdown and the watch thread).
    in_flight: Mutex<Vec<InFlight>>,
    /// Signalled when a batch is added to or leaves `in_flight` (see `watch`).
    pub(super) in_flight_changed: Condvar,
    /// The notice about a success answer without an acknowledgement id was printed.
    pub(super) told_missing_ack_id: AtomicBool,
}

impl Pool {
    /// A pool with no thread started yet.
    pub(crate) fn new(concurrency: Limiter) -> Pool {
        Pool {
            concurrency,
            threads: AtomicUsize::new(0),
            in_flight: Mutex::new(Vec::new()),
            in_flight_changed: Condvar::new(),
            told_missing_ack_id: AtomicBool::new(false),
        }
    }

    /// Registers a batch a sender starts carrying.
    pub(super) fn carry(&self, entry: InFlight) {
        self.in_flight().push(entry);
        self.in_flight_changed.notify_all();
    }

    /// Unregisters a batch whose sender is done with it; returns its entry (still holding
    /// its insurance copy, if one was written) unless shutdown took it already.
    pub(crate) fn done(&self, seq: u64) -> Option<InFlight> {
        let mut in_flight = self.in_flight();
        let at = in_flight.iter().position(|f| f.seq == seq)?;
        let entry = in_flight.swap_remove(at);
        drop(in_flight);
        self.in_flight_changed.notify_all();
        Some(entry)
    }

    /// Records of batches in flight whose insurance copy is on disk now (for `stats`).
    pub(crate) fn copied_records(&self) -> u64 {
        self.in_flight()
            .iter()
            .filter(|f| f.copy.is_some())
            .map(|f| f.records.len() as u64)
            .sum()
    }

    /// Wakes the watch thread (at shutdown).
    pub(crate) fn wake_watch(&self) {
        self.in_flight_changed.notify_all();
    }

    pub(super) fn in_flight(&self) -> MutexGuard<'_, Vec<InFlight>> {
        self.in_flight.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Every live batch a sender is still carrying, taken out of the registry (for
    /// shutdown at its deadline).
    pub(crate) fn take_in_flight(&self) -> Vec<InFlight> {
        std::mem::take(&mut *self.in_flight())
    }
}
