//! State shared by the handle, the batcher and the senders.
//!
//! Why it exists: flush and shutdown need to know exactly which batches are still out,
//! the memory budget must cover records from the moment they are queued until their batch
//! settles, and senders must be able to stop retrying at once when shutdown runs out of
//! time. Each of these is one small type here; none is held across I/O.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::report::Reporter;
use crate::send::concurrency::Limiter;
use crate::spill::handle::SpillHandle;
use crate::stats::{Counters, Health};

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
    /// Permits for requests in flight (live senders and the replayer share them).
    pub concurrency: Limiter,
    /// Live sender threads started so far (they start as the concurrency limit grows).
    pub senders: AtomicUsize,
}

impl Shared {
    /// Records the latest request outcome.
    pub(crate) fn set_health(&self, health: Health) {
        self.health.store(health as u8, Ordering::Relaxed);
    }

    /// The latest request outcome.
    pub(crate) fn health(&self) -> Health {
        Health::from_u8(self.health.load(Ordering::Relaxed))
    }
}

/// The byte budget for records held anywhere in the pipeline, and a way for an opt-in
/// blocking caller to wait for room.
pub(crate) struct Memory {
    held: AtomicUsize,
    budget: usize,
    waiters: AtomicUsize,
    room: (Mutex<()>, Condvar),
}

impl Memory {
    pub(crate) fn new(budget: usize) -> Memory {
        Memory {
            held: AtomicUsize::new(0),
            budget,
            waiters: AtomicUsize::new(0),
            room: (Mutex::new(()), Condvar::new()),
        }
    }

    /// Reserves `n` bytes; false (and nothing reserved) when that would exceed the budget.
    pub(crate) fn try_reserve(&self, n: usize) -> bool {
        let mut current = self.held.load(Ordering::Relaxed);
        loop {
            if current + n > self.budget {
                return false;
            }
            match self.held.compare_exchange_weak(
                current,
                current + n,
                Ordering::AcqRel,
                Ordering::Relaxed,
            ) {
                Ok(_) => return true,
                Err(now) => current = now,
            }
        }
    }

    /// Undoes a reservation that never took effect (the record was not queued). Wakes
    /// nobody: it may be called while waiting for room, with the room lock held.
    pub(crate) fn unreserve(&self, n: usize) {
        self.held.fetch_sub(n, Ordering::AcqRel);
    }

    /// Returns `n` bytes to the budget and wakes blocked callers.
    pub(crate) fn release(&self, n: usize) {
        self.held.fetch_sub(n, Ordering::AcqRel);
        self.notify_room();
    }

    /// Wakes callers waiting for room (cheap when nobody waits).
    pub(crate) fn notify_room(&self) {
        if self.waiters.load(Ordering::Acquire) > 0 {
            let _guard = self.room.0.lock();
            self.room.1.notify_all();
        }
    }

    /// Waits until `try_again` succeeds or `deadline` passes.
    pub(crate) fn wait_for_room(
        &self,
        deadline: Instant,
        mut try_again: impl FnMut() -> bool,
    ) -> bool {
        self.waiters.fetch_add(1, Ordering::AcqRel);
        let mut guard = self.room.0.lock().unwrap_or_else(|e| e.into_inner());
        let ok = loop {
            if try_again() {
                break true;
            }
            let now = Instant::now();
            if now >= deadline {
                break false;
            }
            // A short cap on each wait covers a wake-up that raced with our check.
            let wait = (deadline - now).min(Duration::from_millis(10));
            guard = match self.room.1.wait_timeout(guard, wait) {
                Ok((g, _)) => g,
                Err(e) => e.into_inner().0,
            };
        };
        drop(guard);
        self.waiters.fetch_sub(1, Ordering::AcqRel);
        ok
    }
}

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

/// A one-way flag that sleeping threads can wait on (interruptible backoff).
pub(crate) struct Signal {
    set: Mutex<bool>,
    cond: Condvar,
    fast: AtomicBool,
}

impl Signal {
    pub(crate) fn new() -> Signal {
        Signal {
            set: Mutex::new(false),
            cond: Condvar::new(),
            fast: AtomicBool::new(false),
        }
    }

    /// Raises the flag and wakes every sleeper.
    pub(crate) fn raise(&self) {
        self.fast.store(true, Ordering::Release);
        *self.set.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.cond.notify_all();
    }

    /// True once raised.
    pub(crate) fn is_raised(&self) -> bool {
        self.fast.load(Ordering::Acquire)
    }

    /// Sleeps up to `d`; returns early (true) if the flag is raised.
    pub(crate) fn sleep(&self, d: Duration) -> bool {
        let deadline = Instant::now() + d;
        let mut set = self.set.lock().unwrap_or_else(|e| e.into_inner());
        while !*set {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            set = match self.cond.wait_timeout(set, deadline - now) {
                Ok((g, _)) => g,
                Err(e) => e.into_inner().0,
            };
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn memory_budget_is_exact() {
        let m = Memory::new(100);
        assert!(m.try_reserve(60));
        assert!(!m.try_reserve(41));
        assert!(m.try_reserve(40));
        m.release(60);
        assert!(m.try_reserve(60));
    }

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
    fn signal_wakes_a_sleeper() {
        let s = Arc::new(Signal::new());
        let s2 = s.clone();
        let h = std::thread::spawn(move || s2.sleep(Duration::from_secs(60)));
        s.raise();
        assert!(h.join().unwrap());
        assert!(s.is_raised());
    }
}
