//! The bounded hand-off from log calls to the batcher.
//!
//! Why it exists: the caller path must never wait on the network. A push is a byte-budget
//! reservation plus a `try_send` on a bounded channel; when either bound is hit the event
//! is dropped and counted (or, with the opt-in `Block` policy, waited for up to a bound).
//! It never performs I/O and never holds a lock. Overflow is decided here on the caller
//! side; diverting overflow to disk is the batcher's job, never the caller's.
//!
//! The byte budget ([`Memory`]) lives here because the queue is where it is reserved: a
//! record holds its bytes from the moment it is queued until its batch settles, and the
//! settlement (in `send::settle`) releases them.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, TrySendError};

use crate::config::Overflow;
use crate::record::Record;
use crate::stats::Counters;

/// The producer side of the queue, cloned into every handle.
#[derive(Clone)]
pub(crate) struct Queue {
    tx: Sender<Record>,
    overflow: Overflow,
}

/// Why a record was not accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Rejected {
    /// The queue was full (in records or in bytes).
    QueueFull,
    /// The pipeline is shut down.
    Closed,
}

impl Queue {
    /// A queue of at most `capacity` records and the receiver the batcher drains.
    pub(crate) fn bounded(capacity: usize, overflow: Overflow) -> (Queue, Receiver<Record>) {
        let (tx, rx) = crossbeam_channel::bounded(capacity);
        (Queue { tx, overflow }, rx)
    }

    /// Records waiting right now.
    pub(crate) fn len(&self) -> usize {
        self.tx.len()
    }

    /// Hands a record to the batcher, reserving its bytes in `memory` and applying the
    /// overflow policy; counts the outcome in `counters`. Never performs I/O.
    pub(crate) fn push(
        &self,
        memory: &Memory,
        counters: &Counters,
        record: Record,
    ) -> Result<(), Rejected> {
        let size = record.size();
        let mut slot = Some(record);
        let attempt = |slot: &mut Option<Record>| -> bool {
            if !memory.try_reserve(size) {
                return false;
            }
            let Some(record) = slot.take() else {
                return true;
            };
            match self.tx.try_send(record) {
                Ok(()) => true,
                Err(TrySendError::Full(r)) | Err(TrySendError::Disconnected(r)) => {
                    memory.unreserve(size);
                    *slot = Some(r);
                    false
                }
            }
        };
        let accepted = attempt(&mut slot)
            || match self.overflow {
                Overflow::DropNewest => false,
                Overflow::Block(bound) => {
                    memory.wait_for_room(Instant::now() + bound, || attempt(&mut slot))
                }
            };
        if accepted {
            Counters::add(&counters.enqueued, 1);
            Ok(())
        } else {
            Counters::add(&counters.dropped_queue_full, 1);
            Err(Rejected::QueueFull)
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_budget_is_exact() {
        let m = Memory::new(100);
        assert!(m.try_reserve(60));
        assert!(!m.try_reserve(41));
        assert!(m.try_reserve(40));
        m.release(60);
        assert!(m.try_reserve(60));
    }
}
