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
    /// Outstanding batches someone is settling right now (see `claim`).
    claimed: BTreeSet<u64>,
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

    /// Claims the right to settle a batch: true for exactly one caller (the sender that
    /// carried it, or shutdown at its deadline while the request is still out). Whoever
    /// claims it counts it, then calls [`Tracker::settle`]; the others do nothing.
    pub(crate) fn claim(&self, seq: u64) -> bool {
        let mut s = self.lock();
        s.outstanding.contains(&seq) && s.claimed.insert(seq)
    }

    /// Marks a batch settled (delivered, failed, spilled or abandoned), after its outcome
    /// was counted, so that `flush` and `shutdown` see the counters it changed.
    pub(crate) fn settle(&self, seq: u64) {
        let mut s = self.lock();
        s.outstanding.remove(&seq);
        s.claimed.remove(&seq);
        drop(s);
        self.changed.notify_all();
    }

    /// Wakes every waiter so it re-checks its condition (after the abort signal was raised).
    pub(crate) fn poke(&self) {
        let _state = self.lock();
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

    #[test]
    fn exactly_one_claim_settles_a_batch() {
        let t = Tracker::new();
        let a = t.open();
        assert!(t.claim(a), "the first claim wins");
        assert!(
            !t.claim(a),
            "a second claim (shutdown, or the late sender) loses"
        );
        assert_eq!(t.in_flight(), 1, "claimed is still out until settled");
        t.settle(a);
        assert_eq!(t.in_flight(), 0);
        assert!(!t.claim(a), "a settled batch cannot be claimed again");
    }
}
