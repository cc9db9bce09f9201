//! Which cut batches have not settled yet.
//!
//! Why it exists: `flush` must wait for exactly the batches cut before it was called, and
//! `shutdown` for every batch and the batcher's exit. Each batch gets a sequence number
//! when it is cut and is settled exactly once (delivered, failed, spilled or abandoned).
//! The lock is never held across I/O.

use std::collections::BTreeSet;
use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Instant;

/// Batches cut but not yet settled, by sequence number.
pub(crate) struct Tracker {
    state: Mutex<TrackerState>,
    changed: Condvar,
}

#[derive(Default)]
pub(crate) struct TrackerState {
    next_seq: u64,
    outstanding: BTreeSet<u64>,
    /// The batcher has drained the queue for shutdown and exited.
    pub batcher_done: bool,
}

impl TrackerState {
    /// The sequence number the most recently cut batch got (0 when none yet).
    pub(crate) fn last_seq(&self) -> u64 {
        self.next_seq
    }

    /// True when every batch up to and including `seq` has settled.
    pub(crate) fn settled_through(&self, seq: u64) -> bool {
        self.outstanding.first().is_none_or(|&first| first > seq)
    }

    /// True when nothing is out and the batcher has finished.
    pub(crate) fn idle_and_done(&self) -> bool {
        self.batcher_done && self.outstanding.is_empty()
    }
}

impl Tracker {
    pub(crate) fn new() -> Tracker {
        Tracker {
            state: Mutex::new(TrackerState::default()),
            changed: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, TrackerState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Registers a newly cut batch and returns its sequence number.
    pub(crate) fn open(&self) -> u64 {
        let mut s = self.lock();
        s.next_seq += 1;
        let seq = s.next_seq;
        s.outstanding.insert(seq);
        seq
    }

    /// Marks a batch settled (delivered, failed or abandoned).
    pub(crate) fn settle(&self, seq: u64) {
        self.lock().outstanding.remove(&seq);
        self.changed.notify_all();
    }

    /// Marks the batcher finished.
    pub(crate) fn batcher_done(&self) {
        self.lock().batcher_done = true;
        self.changed.notify_all();
    }

    /// Batches out right now.
    pub(crate) fn in_flight(&self) -> usize {
        self.lock().outstanding.len()
    }

    /// The last sequence number handed out.
    pub(crate) fn last_seq(&self) -> u64 {
        self.lock().last_seq()
    }

    /// Waits until `done` holds or `deadline` passes; returns whether it holds.
    pub(crate) fn wait_until(
        &self,
        deadline: Instant,
        done: impl Fn(&TrackerState) -> bool,
    ) -> bool {
        let mut s = self.lock();
        loop {
            if done(&s) {
                return true;
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            s = match self.changed.wait_timeout(s, deadline - now) {
                Ok((g, _)) => g,
                Err(e) => e.into_inner().0,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn flush_waits_for_batches_up_to_its_sequence_only() {
        let t = Tracker::new();
        let a = t.open();
        let b = t.open();
        let far = Instant::now() + Duration::from_secs(5);
        t.settle(b);
        assert!(!t.wait_until(Instant::now(), |s| s.settled_through(a)));
        t.settle(a);
        assert!(t.wait_until(far, |s| s.settled_through(b)));
    }
}
