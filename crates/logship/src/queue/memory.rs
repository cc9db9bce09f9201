//! The queue's memory bound: the bytes of records held anywhere in the pipeline, from the
//! moment a record is queued until its batch settles, and the waiting that goes with a
//! full queue (opt-in `Block` callers, and callers resting in a back-off).
//!
//! Why it exists: a queue bounded in records alone lets a burst of large events take any
//! amount of memory. The bound is reserved where records enter (the queue) and released
//! where batches settle (`deliver::settle`). Must never: let reservations exceed the
//! bound, or wake every resting caller at once.

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;

/// Resting callers woken when the queue has room again; the others rest on until the
/// next time or their bound. A few threads refill the queue; waking every one of 64 at
/// once gave the cores back to the loggers (measured in docs/performance.md).
pub(crate) const WAKE_AT_ONCE: usize = 4;

/// The memory bound: the bytes of records held anywhere in the pipeline, and a way for
/// an opt-in blocking caller to wait for room.
pub(crate) struct Memory {
    /// Bytes reserved now: written by every accepted call and every settled batch, so on
    /// a line of its own, apart from the fields every call only reads.
    held: CachePadded<AtomicUsize>,
    bound: usize,
    waiters: AtomicUsize,
    /// Times room was announced to `Block` waiters: a waiter that saw it change since its
    /// failed attempt tries again rather than wait (the attempt itself runs unlocked, so
    /// that announcing room never waits for a caller's push, nor a push for the
    /// announcement).
    room_made: AtomicU64,
    room: (Mutex<()>, Condvar),
    /// Nanoseconds after `epoch` at which a push found the queue full (drop policy), 0
    /// when it is not known to be full; cleared when the batcher has taken records out or
    /// bytes were released. While set, calls are refused without building or trying to
    /// queue their record.
    saturated_since: AtomicU64,
    epoch: Instant,
    /// The byte bound (not the record count) was what was full: released bytes end
    /// the saturation. Otherwise only the batcher taking records out does, so that a
    /// batch settling does not wake resting callers into a queue that is still full.
    by_bytes: AtomicBool,
    /// Callers resting in a back-off, and where they rest (apart from `Block` waiters, so
    /// that bytes released do not wake them for nothing).
    resting: AtomicUsize,
    rest: (Mutex<()>, Condvar),
    /// Back-offs callers have made (see `back_off::refuse`); read by tests.
    pub(super) back_offs: AtomicU64,
}

impl Memory {
    pub(crate) fn new(bound: usize) -> Memory {
        Memory {
            held: CachePadded::new(AtomicUsize::new(0)),
            bound,
            waiters: AtomicUsize::new(0),
            room_made: AtomicU64::new(0),
            room: (Mutex::new(()), Condvar::new()),
            saturated_since: AtomicU64::new(0),
            epoch: Instant::now(),
            by_bytes: AtomicBool::new(false),
            resting: AtomicUsize::new(0),
            rest: (Mutex::new(()), Condvar::new()),
            back_offs: AtomicU64::new(0),
        }
    }

    /// Whether a push found the queue full since the batcher last made room.
    #[inline]
    pub(crate) fn is_saturated(&self) -> bool {
        self.saturated_since.load(Ordering::Relaxed) != 0
    }

    /// Records that a push found the queue full (keeps the earliest time); `by_bytes`
    /// when it was the byte bound.
    pub(super) fn mark_saturated(&self, by_bytes: bool) {
        if by_bytes && !self.by_bytes.load(Ordering::Relaxed) {
            self.by_bytes.store(true, Ordering::SeqCst);
        }
        if !self.is_saturated() {
            let at = (self.epoch.elapsed().as_nanos() as u64).max(1);
            let _ =
                self.saturated_since
                    .compare_exchange(0, at, Ordering::SeqCst, Ordering::Relaxed);
        }
    }

    /// How long the queue has been known to be full at `now` (zero when it is not).
    pub(super) fn full_for(&self, now: Instant) -> Duration {
        match self.saturated_since.load(Ordering::Relaxed) {
            0 => Duration::ZERO,
            since => now
                .saturating_duration_since(self.epoch)
                .saturating_sub(Duration::from_nanos(since)),
        }
    }

    /// Reserves `n` bytes; false (and nothing reserved) when that would exceed the bound.
    pub(crate) fn try_reserve(&self, n: usize) -> bool {
        let mut current = self.held.load(Ordering::Relaxed);
        loop {
            if current + n > self.bound {
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

    /// Whether a record of `n` bytes fits in the bound at all (an empty queue).
    pub(crate) fn could_ever_hold(&self, n: usize) -> bool {
        n <= self.bound
    }

    /// Whether `n` more bytes fit in the bound now (no reservation).
    pub(crate) fn has_room(&self, n: usize) -> bool {
        self.held.load(Ordering::SeqCst) + n <= self.bound
    }

    /// Reserves `n` bytes even beyond the bound: only for logship's own synthetic events
    /// at shutdown (bounded: one per burst-table slot and one drop notice), so that the
    /// last counts are not lost.
    pub(crate) fn force_reserve(&self, n: usize) {
        self.held.fetch_add(n, Ordering::AcqRel);
    }

    /// Undoes a reservation that never took effect (the record was not queued). Wakes
    /// nobody: it is called by a caller's own failed attempt, which has nothing to announce.
    pub(crate) fn unreserve(&self, n: usize) {
        self.held.fetch_sub(n, Ordering::AcqRel);
    }

    /// Returns `n` bytes to the bound and wakes blocked callers.
    pub(crate) fn release(&self, n: usize) {
        self.held.fetch_sub(n, Ordering::AcqRel);
        self.notify_blocked();
        if self.by_bytes.load(Ordering::Relaxed) {
            self.end_saturation();
        }
    }

    /// The batcher took records out of the queue: wakes callers waiting for room (cheap
    /// when nobody waits) and ends a saturation.
    pub(crate) fn notify_room(&self) {
        self.notify_blocked();
        self.end_saturation();
    }

    /// Wakes `Block` callers waiting for room.
    pub(super) fn notify_blocked(&self) {
        if self.waiters.load(Ordering::SeqCst) > 0 {
            self.room_made.fetch_add(1, Ordering::SeqCst);
            // Taking the lock once is enough to be sure that a waiter which missed the
            // count above is asleep; notifying after letting it go spares the woken
            // waiters a second sleep on the lock we would still hold.
            drop(self.room.0.lock());
            self.room.1.notify_all();
        }
    }

    /// The queue has room again: calls are tried again, resting callers wake.
    pub(super) fn end_saturation(&self) {
        // Pairs with the fence after a mark: either the marking caller sees the room made
        // before this call, or this call sees its mark.
        std::sync::atomic::fence(Ordering::SeqCst);
        if !self.is_saturated() {
            return;
        }
        self.by_bytes.store(false, Ordering::Relaxed);
        self.saturated_since.store(0, Ordering::SeqCst);
        if self.resting.load(Ordering::SeqCst) > 0 {
            let _guard = self.rest.0.lock();
            for _ in 0..WAKE_AT_ONCE {
                self.rest.1.notify_one();
            }
        }
    }

    /// Waits until the queue is no longer known to be full, or `deadline` passes.
    pub(super) fn wait_while_saturated(&self, deadline: Instant) {
        self.resting.fetch_add(1, Ordering::SeqCst);
        let mut guard = self.rest.0.lock().unwrap_or_else(|e| e.into_inner());
        while self.saturated_since.load(Ordering::SeqCst) != 0 {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            guard = match self.rest.1.wait_timeout(guard, deadline - now) {
                Ok((g, _)) => g,
                Err(e) => e.into_inner().0,
            };
        }
        drop(guard);
        self.resting.fetch_sub(1, Ordering::SeqCst);
    }

    /// Waits until `try_again` succeeds or `deadline` passes.
    pub(crate) fn wait_for_room(
        &self,
        deadline: Instant,
        mut try_again: impl FnMut() -> bool,
    ) -> bool {
        self.waiters.fetch_add(1, Ordering::SeqCst);
        let ok = loop {
            let seen = self.room_made.load(Ordering::SeqCst);
            if try_again() {
                break true;
            }
            let now = Instant::now();
            if now >= deadline {
                break false;
            }
            let guard = self.room.0.lock().unwrap_or_else(|e| e.into_inner());
            // Room announced since the attempt: try again at once. Otherwise the next
            // announcement needs the lock we hold, so it cannot slip in before the wait.
            if self.room_made.load(Ordering::SeqCst) != seen {
                continue;
            }
            // A cap on each wait, in case room came without an announcement.
            let wait = (deadline - now).min(Duration::from_millis(10));
            let _ = self.room.1.wait_timeout(guard, wait);
        };
        self.waiters.fetch_sub(1, Ordering::AcqRel);
        ok
    }
}
