//! The bounded hand-off from log calls to the batcher.
//!
//! Why it exists: the caller path must never wait on the network. A push is a byte-budget
//! reservation plus a `try_send` on a bounded channel; when either bound is hit the event
//! is dropped and counted (or, with the opt-in `Block` policy, waited for up to a bound).
//! It never performs I/O, and holds no lock on the way in. Overflow is decided here on
//! the caller side; diverting overflow to disk is the batcher's job, never the caller's.
//!
//! Overload: once a push finds the queue full, later calls are refused at once (counted,
//! their record never built) until the batcher has made room, and a thread that has been
//! refused without a break for a moment waits, bounded, until it has (see [`refuse`]):
//! without that, threads logging flat out take the cores from the threads that ship and
//! delivery collapses. An accepted call never waits; a refused one at most
//! [`BACK_OFF_MAX`], and only while the queue is short of CPU rather than stuck.
//!
//! The byte budget ([`Memory`]) lives here because the queue is where it is reserved: a
//! record holds its bytes from the moment it is queued until its batch settles, and the
//! settlement (in `send::settle`) releases them.

use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, TrySendError};
use crossbeam_utils::CachePadded;

use crate::capture::record::Record;
use crate::config::Overflow;
use crate::observe::stats::Counters;

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
    /// Held back by the user's own policy (a burst limit or sampling): counted in
    /// `Stats::suppressed`, not lost. Do not retry it.
    Suppressed,
    /// A volume budget held it back (counted in `budget_dropped_level`,
    /// `budget_sampled_out` or `budget_dropped`): the user's policy, not a loss.
    OverBudget,
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
    #[cfg(test)]
    pub(crate) fn push(
        &self,
        memory: &Memory,
        counters: &Counters,
        record: Record,
    ) -> Result<(), Rejected> {
        self.push_with(memory, counters, record, None)
    }

    /// [`Queue::push`] with `overflow`, when given, in place of the queue's own policy, for
    /// a caller that must decide per call (a listener answers 503 rather than wait).
    pub(crate) fn push_with(
        &self,
        memory: &Memory,
        counters: &Counters,
        record: Record,
        overflow: Option<Overflow>,
    ) -> Result<(), Rejected> {
        let overflow = overflow.unwrap_or(self.overflow);
        if matches!(overflow, Overflow::DropNewest) && memory.is_saturated() {
            refuse(memory, counters, true);
            return Err(Rejected::QueueFull);
        }
        let size = record.size();
        let mut slot = Some(record);
        let by_bytes = Cell::new(false);
        let attempt = |slot: &mut Option<Record>| -> bool {
            if !memory.try_reserve(size) {
                by_bytes.set(true);
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
            || match overflow {
                Overflow::DropNewest => false,
                Overflow::Block(bound) => {
                    memory.wait_for_room(Instant::now() + bound, || attempt(&mut slot))
                }
            };
        if accepted {
            end_drop_run();
            counters.enqueued.add(1);
            Ok(())
        } else {
            let dropping = matches!(overflow, Overflow::DropNewest);
            if dropping {
                memory.mark_saturated(by_bytes.get());
                // The batcher (or a settled batch) may have made room between the failed
                // attempt and the mark, and only its next take (or release) clears a mark:
                // re-check, so that a mark never outlives a queue with room, which would
                // refuse every later call while the batcher waits for records.
                std::sync::atomic::fence(Ordering::SeqCst);
                if !self.tx.is_full() && memory.has_room(size) {
                    memory.end_saturation();
                }
            }
            refuse(memory, counters, dropping);
            Err(Rejected::QueueFull)
        }
    }

    /// Queues one of logship's own notices when there is room, counted in `enqueued` and
    /// in `notices`; gives it back otherwise. Never waits, never counts a drop (the
    /// notice is tried again later), never marks the queue full: a notice can never
    /// cause a drop, nor be dropped in a loop.
    pub(crate) fn push_notice(
        &self,
        memory: &Memory,
        counters: &Counters,
        notices: &AtomicU64,
        record: Record,
    ) -> Result<(), Record> {
        let size = record.size();
        if !memory.try_reserve(size) {
            return Err(record);
        }
        match self.tx.try_send(record) {
            Ok(()) => {
                counters.enqueued.add(1);
                Counters::add(notices, 1);
                Ok(())
            }
            Err(TrySendError::Full(r)) | Err(TrySendError::Disconnected(r)) => {
                memory.unreserve(size);
                Err(r)
            }
        }
    }

    /// Refuses (and counts) a log call without trying the queue while it is known to be
    /// full, so that an integration can skip building a record that would be dropped.
    /// Never refuses under the `Block` policy. True when the call was refused.
    #[inline]
    pub(crate) fn shed(&self, memory: &Memory, counters: &Counters) -> bool {
        if !memory.is_saturated() || !matches!(self.overflow, Overflow::DropNewest) {
            return false;
        }
        refuse(memory, counters, true);
        true
    }
}

/// How long a thread must have been dropped without a break before it backs off (see
/// [`refuse`]).
pub(crate) const BACK_OFF_AFTER: Duration = Duration::from_micros(200);

/// The longest one back-off lasts.
pub(crate) const BACK_OFF_MAX: Duration = Duration::from_millis(50);

/// A queue that has been full for longer than this is not short of CPU but stuck (every
/// sender waiting on a hung intake, say): waiting would not help it ship, so callers stop
/// backing off until it has drained again.
pub(crate) const BACK_OFF_WHILE_FULL_FOR: Duration = Duration::from_millis(100);

/// Resting callers woken when the queue has room again; the others rest on until the
/// next time or their bound. A few threads refill the queue; waking every one of 64 at
/// once gave the cores back to the loggers (measured in docs/performance.md).
pub(crate) const WAKE_AT_ONCE: usize = 4;

thread_local! {
    /// When this thread's current run of drops began (none while its calls are accepted).
    static DROPPING_SINCE: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// Ends this thread's run of drops (its call was accepted).
#[inline]
fn end_drop_run() {
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
fn refuse(memory: &Memory, counters: &Counters, back_off: bool) {
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

/// The byte budget for records held anywhere in the pipeline, and a way for an opt-in
/// blocking caller to wait for room.
pub(crate) struct Memory {
    /// Bytes reserved now: written by every accepted call and every settled batch, so on
    /// a line of its own, apart from the fields every call only reads.
    held: CachePadded<AtomicUsize>,
    budget: usize,
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
    /// The byte budget (not the record count) was what was full: released bytes end
    /// the saturation. Otherwise only the batcher taking records out does, so that a
    /// batch settling does not wake resting callers into a queue that is still full.
    by_bytes: AtomicBool,
    /// Callers resting in a back-off, and where they rest (apart from `Block` waiters, so
    /// that bytes released do not wake them for nothing).
    resting: AtomicUsize,
    rest: (Mutex<()>, Condvar),
    /// Back-offs callers have made (see [`refuse`]); read by tests.
    back_offs: AtomicU64,
}

impl Memory {
    pub(crate) fn new(budget: usize) -> Memory {
        Memory {
            held: CachePadded::new(AtomicUsize::new(0)),
            budget,
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
    /// when it was the byte budget.
    fn mark_saturated(&self, by_bytes: bool) {
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
    fn full_for(&self, now: Instant) -> Duration {
        match self.saturated_since.load(Ordering::Relaxed) {
            0 => Duration::ZERO,
            since => now
                .saturating_duration_since(self.epoch)
                .saturating_sub(Duration::from_nanos(since)),
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

    /// Whether `n` more bytes fit in the budget now (no reservation).
    pub(crate) fn has_room(&self, n: usize) -> bool {
        self.held.load(Ordering::SeqCst) + n <= self.budget
    }

    /// Reserves `n` bytes even beyond the budget: only for logship's own synthetic events
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

    /// Returns `n` bytes to the budget and wakes blocked callers.
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
    fn notify_blocked(&self) {
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
    fn end_saturation(&self) {
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
    fn wait_while_saturated(&self, deadline: Instant) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::record::Level;

    /// Pushes refused records for `run` (a run of drops without a break).
    fn drop_for(queue: &Queue, memory: &Memory, counters: &Counters, run: Duration) -> u64 {
        let started = Instant::now();
        let mut refused = 0;
        while started.elapsed() < run {
            assert_eq!(
                queue.push(memory, counters, Record::new(Level::Info, "t")),
                Err(Rejected::QueueFull)
            );
            refused += 1;
        }
        refused
    }

    fn full_queue(overflow: Overflow) -> (Queue, Receiver<Record>, Memory, Counters) {
        let (queue, rx) = Queue::bounded(1, overflow);
        let (memory, counters) = (Memory::new(1 << 20), Counters::default());
        assert!(queue
            .push(&memory, &counters, Record::new(Level::Info, "t"))
            .is_ok());
        (queue, rx, memory, counters)
    }

    #[test]
    fn a_mark_never_outlives_a_queue_the_batcher_emptied_meanwhile() {
        // A batcher that takes the one queued record (and says so) while callers are being
        // refused: whatever the interleaving, once it has taken everything and the callers
        // stop, the queue must not stay marked full, or every later call would be refused
        // while the batcher waits for records that never come.
        for _ in 0..200 {
            let (queue, rx, memory, counters) = full_queue(Overflow::DropNewest);
            let refusing = AtomicBool::new(true);
            std::thread::scope(|s| {
                for _ in 0..2 {
                    s.spawn(|| {
                        while refusing.load(Ordering::Relaxed) {
                            let _ = queue.push(&memory, &counters, Record::new(Level::Info, "t"));
                        }
                    });
                }
                s.spawn(|| {
                    // The batcher's take, with the bytes released at once (as a settled
                    // batch would), so only the record count can be what is full.
                    let take = || match rx.try_recv() {
                        Ok(r) => {
                            memory.notify_room();
                            memory.release(r.size());
                            true
                        }
                        Err(_) => {
                            memory.notify_room();
                            false
                        }
                    };
                    while take() || !memory.is_saturated() {
                        std::hint::spin_loop();
                    }
                    take();
                    refusing.store(false, Ordering::Relaxed);
                });
            });
            // Records still queued would be taken by the batcher, which clears a mark; an
            // empty queue gets no more takes, so it must not be marked.
            assert!(
                !rx.is_empty() || !memory.is_saturated(),
                "an empty queue is marked full: every later call would be refused"
            );
        }
    }

    #[test]
    fn a_thread_dropped_without_a_break_backs_off_and_every_drop_is_counted() {
        let (queue, _rx, memory, counters) = full_queue(Overflow::DropNewest);
        let refused = drop_for(&queue, &memory, &counters, BACK_OFF_AFTER * 3);
        assert!(memory.back_offs.load(Ordering::Relaxed) >= 1);
        assert_eq!(counters.dropped_queue_full.get(), refused);
        assert_eq!(counters.enqueued.get(), 1);
    }

    #[test]
    fn room_ends_a_back_off_and_an_accepted_call_ends_the_run_of_drops() {
        let (queue, rx, memory, counters) = full_queue(Overflow::DropNewest);
        assert!(queue
            .push(&memory, &counters, Record::new(Level::Info, "t"))
            .is_err());
        assert!(memory.is_saturated());
        // The batcher takes the record and says so: the queue is no longer full.
        assert!(rx.try_recv().is_ok());
        memory.notify_room();
        assert!(!memory.is_saturated());
        assert!(queue
            .push(&memory, &counters, Record::new(Level::Info, "t"))
            .is_ok());
        assert!(DROPPING_SINCE.with(|d| d.get()).is_none());
    }

    #[test]
    fn a_settled_batch_ends_only_a_saturation_of_the_byte_budget() {
        // Full by record count: bytes released by a settling batch change nothing.
        let (queue, _rx, memory, counters) = full_queue(Overflow::DropNewest);
        assert!(queue
            .push(&memory, &counters, Record::new(Level::Info, "t"))
            .is_err());
        memory.release(0);
        assert!(
            memory.is_saturated(),
            "woken into a queue that is still full"
        );
        memory.notify_room();
        assert!(!memory.is_saturated());
        // Full by bytes: releasing them is what makes room.
        let (queue, _rx) = Queue::bounded(100, Overflow::DropNewest);
        let memory = Memory::new(1);
        assert!(queue
            .push(&memory, &counters, Record::new(Level::Info, "t"))
            .is_err());
        assert!(memory.is_saturated());
        memory.release(0);
        assert!(!memory.is_saturated());
    }

    #[test]
    fn nobody_backs_off_while_the_queue_is_stuck_rather_than_starved() {
        let (queue, _rx, memory, counters) = full_queue(Overflow::DropNewest);
        assert!(queue
            .push(&memory, &counters, Record::new(Level::Info, "t"))
            .is_err());
        // Full for longer than a starved batcher would leave it: its senders are stuck.
        std::thread::sleep(BACK_OFF_WHILE_FULL_FOR);
        drop_for(&queue, &memory, &counters, BACK_OFF_AFTER * 3);
        assert_eq!(memory.back_offs.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn the_block_policy_never_adds_a_back_off() {
        let (queue, _rx, memory, counters) = full_queue(Overflow::Block(Duration::from_micros(50)));
        drop_for(&queue, &memory, &counters, BACK_OFF_AFTER * 3);
        assert_eq!(memory.back_offs.load(Ordering::Relaxed), 0);
        assert!(!memory.is_saturated(), "Block never sheds calls unseen");
    }

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
