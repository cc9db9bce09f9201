//! The bounded hand-off from log calls to the batcher.
//!
//! Why it exists: the caller path must never wait on the network. A push is a memory-bound
//! reservation plus a `try_send` on a bounded channel; when either bound is hit the event
//! is dropped and counted (or, with the opt-in `Block` policy, waited for up to a bound).
//! It never performs I/O, and holds no lock on the way in. Overflow is decided here on
//! the caller side; diverting overflow to disk is the batcher's job, never the caller's.
//!
//! Overload: once a push finds the queue full, later calls are refused at once (counted,
//! their record never built) until the batcher has made room, and a thread that has been
//! refused without a break for a moment waits, bounded, until it has (see `back_off::refuse`):
//! without that, threads logging flat out take the cores from the threads that ship and
//! delivery collapses. An accepted call never waits; a refused one at most
//! `BACK_OFF_MAX`, and only while the queue is short of CPU rather than stuck.
//!
//! A caller that keeps what the queue refuses (a followed file, a TCP connection, a
//! listener answering 503) uses `offer` instead: a refused record comes back to it,
//! counted apart from the drops, and neither marks the queue full nor makes it back off.
//!
//! The memory bound ([`Memory`], in `memory`) lives here because the queue is where it
//! is reserved: a record holds its bytes from the moment it is queued until its batch
//! settles, and the settlement (in `deliver::settle`) releases them. Counting a refused
//! call, and resting a thread that keeps being refused, is `back_off`.

mod back_off;
mod memory;

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, TrySendError};

use back_off::{end_drop_run, refuse};
pub(crate) use memory::Memory;

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
    /// The record alone is larger than `queue_max_bytes`: it can never fit, however
    /// empty the queue (counted in `dropped_too_large`). Do not retry it; the queue is
    /// not full.
    TooLarge,
}

/// Why [`Logship::offer`](crate::Logship::offer) did not take a record.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Offered {
    /// The queue stayed full for the whole wait: the record is handed back, the caller's to
    /// offer again. Counted in `Stats::queue_full_returned`, never as a drop.
    Full(Record),
    /// The pipeline has shut down: the record is handed back, the caller's to keep for
    /// later (a next run, a client that sends again) or to count as its own loss. Counted
    /// in `Stats::closed_returned`, never as a drop. Offering it again is refused again.
    Closed(Record),
    /// Refused for any other reason, counted as [`Logship::push_with`](crate::Logship::push_with)
    /// counts it (never [`Rejected::QueueFull`] nor [`Rejected::Closed`]).
    Refused(Rejected),
}

impl From<Rejected> for Offered {
    fn from(rejected: Rejected) -> Offered {
        Offered::Refused(rejected)
    }
}

/// A record the queue had no room for, and whether the byte bound (not the record count)
/// was what was full.
struct NoRoom {
    record: Record,
    by_bytes: bool,
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
        self.push_with(memory, counters, record, None, true)
    }

    /// [`Queue::push`] with `overflow`, when given, in place of the queue's own policy, for
    /// a caller that must decide per call (a listener answers 503 rather than wait).
    /// `back_off` false: a refused call returns at once, however long this thread has been
    /// refused (a caller whose contract forbids any wait beyond its policy: the JVM's
    /// appenders).
    pub(crate) fn push_with(
        &self,
        memory: &Memory,
        counters: &Counters,
        record: Record,
        overflow: Option<Overflow>,
        back_off: bool,
    ) -> Result<(), Rejected> {
        let overflow = overflow.unwrap_or(self.overflow);
        let size = record.size();
        too_large(memory, counters, size)?;
        if matches!(overflow, Overflow::DropNewest) && memory.is_saturated() {
            refuse(memory, counters, back_off);
            return Err(Rejected::QueueFull);
        }
        let wait = match overflow {
            Overflow::DropNewest => None,
            Overflow::Block(bound) => Some(bound),
        };
        let Err(no_room) = self.place(memory, counters, record, size, wait) else {
            return Ok(());
        };
        let dropping = matches!(overflow, Overflow::DropNewest);
        if dropping {
            memory.mark_saturated(no_room.by_bytes);
            // The batcher (or a settled batch) may have made room between the failed
            // attempt and the mark, and only its next take (or release) clears a mark:
            // re-check, so that a mark never outlives a queue with room, which would
            // refuse every later call while the batcher waits for records.
            std::sync::atomic::fence(Ordering::SeqCst);
            if !self.tx.is_full() && memory.has_room(size) {
                memory.end_saturation();
            }
        }
        refuse(memory, counters, dropping && back_off);
        Err(Rejected::QueueFull)
    }

    /// Hands a record to the batcher for a caller that keeps what the queue refuses (a
    /// followed file, a TCP connection, a request answered 503): waits at most `wait` for
    /// room (zero: not at all), and when the queue stays full gives the record back,
    /// counted in `queue_full_returned`, not as a drop. It leaves the saturation mark
    /// alone (it neither reads nor sets it: a record it cannot place is not shed, and a
    /// mark it never sets cannot outlive the fullness) and never backs off: the caller
    /// paces itself. Every other outcome is `push_with`'s.
    pub(crate) fn offer(
        &self,
        memory: &Memory,
        counters: &Counters,
        record: Record,
        wait: Duration,
    ) -> Result<(), Offered> {
        let size = record.size();
        too_large(memory, counters, size)?;
        let wait = (!wait.is_zero()).then_some(wait);
        self.place(memory, counters, record, size, wait)
            .map_err(|no_room| {
                Counters::add(&counters.queue_full_returned, 1);
                Offered::Full(no_room.record)
            })
    }

    /// Queues `record` (of `size` bytes) when both bounds have room, waiting at most `wait`
    /// for room when given; counts it in `enqueued`. Gives it back when it did not fit.
    fn place(
        &self,
        memory: &Memory,
        counters: &Counters,
        record: Record,
        size: usize,
        wait: Option<Duration>,
    ) -> Result<(), NoRoom> {
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
            || wait.is_some_and(|bound| {
                memory.wait_for_room(Instant::now() + bound, || attempt(&mut slot))
            });
        match slot {
            // Not accepted: the record is still (or again) in its slot.
            Some(record) => {
                debug_assert!(!accepted);
                Err(NoRoom {
                    record,
                    by_bytes: by_bytes.get(),
                })
            }
            None => {
                end_drop_run();
                counters.enqueued.add(1);
                Ok(())
            }
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
    /// Never refuses under the `Block` policy. True when the call was refused. `back_off`
    /// as in [`Queue::push_with`].
    #[inline]
    pub(crate) fn shed(&self, memory: &Memory, counters: &Counters, back_off: bool) -> bool {
        if !memory.is_saturated() || !matches!(self.overflow, Overflow::DropNewest) {
            return false;
        }
        refuse(memory, counters, back_off);
        true
    }
}

/// Refuses (and counts) a record that alone is larger than the memory bound: no saturation
/// mark (nothing would ever clear it, and every later call would be refused), no wait (no
/// room can come).
fn too_large(memory: &Memory, counters: &Counters, size: usize) -> Result<(), Rejected> {
    if memory.could_ever_hold(size) {
        return Ok(());
    }
    Counters::add(&counters.dropped_too_large, 1);
    Err(Rejected::TooLarge)
}

#[cfg(test)]
mod tests {
    use super::back_off::*;
    use super::*;
    use crate::capture::record::Level;
    use std::sync::atomic::AtomicBool;
    use std::time::Duration;

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
    fn an_offer_a_full_queue_refuses_comes_back_uncounted_as_a_drop_and_marks_nothing() {
        let (queue, rx, memory, counters) = full_queue(Overflow::DropNewest);
        let mut record = Record::new(Level::Info, "t");
        record.message("kept by its caller");
        let sent = record.clone();
        // Refused without a break for longer than makes a log call back off.
        let (started, mut refused) = (Instant::now(), 0);
        while started.elapsed() < BACK_OFF_AFTER * 3 {
            match queue.offer(&memory, &counters, record, Duration::ZERO) {
                Err(Offered::Full(back)) => record = back,
                other => panic!("a full queue took or refused the offer: {other:?}"),
            }
            refused += 1;
        }
        // A bounded wait that no room ends gives it back too.
        match queue.offer(&memory, &counters, record, Duration::from_millis(1)) {
            Err(Offered::Full(back)) => record = back,
            other => panic!("{other:?}"),
        }
        assert_eq!(record, sent, "the record came back changed");
        assert_eq!(
            counters.queue_full_returned.load(Ordering::Relaxed),
            refused + 1
        );
        assert_eq!(counters.dropped_queue_full.get(), 0);
        assert_eq!(
            memory.back_offs.load(Ordering::Relaxed),
            0,
            "an offer backed off"
        );
        assert!(
            !memory.is_saturated(),
            "an offer marked the queue full for log calls"
        );
        // Room made: the same record is taken, once.
        assert!(rx.try_recv().is_ok());
        memory.notify_room();
        assert_eq!(
            queue.offer(&memory, &counters, record, Duration::ZERO),
            Ok(())
        );
        assert_eq!(
            rx.try_recv().map(|r| r.message_str().to_owned()).as_deref(),
            Ok("kept by its caller")
        );
        assert_eq!(counters.enqueued.get(), 2);
        assert_eq!(counters.dropped_queue_full.get(), 0);
    }

    #[test]
    fn an_offer_larger_than_the_byte_bound_is_refused_and_counted_as_a_push_is() {
        let (queue, _rx) = Queue::bounded(8, Overflow::DropNewest);
        let (memory, counters) = (Memory::new(1024), Counters::default());
        let mut big = Record::new(Level::Info, "t");
        big.message(&"x".repeat(2048));
        assert_eq!(
            queue.offer(&memory, &counters, big, Duration::from_secs(60)),
            Err(Offered::Refused(Rejected::TooLarge))
        );
        assert_eq!(counters.dropped_too_large.load(Ordering::Relaxed), 1);
        assert_eq!(counters.queue_full_returned.load(Ordering::Relaxed), 0);
    }

    #[test]
    fn a_record_larger_than_the_byte_bound_is_refused_alone_and_marks_nothing() {
        for overflow in [
            Overflow::DropNewest,
            Overflow::Block(Duration::from_secs(60)),
        ] {
            let (queue, rx) = Queue::bounded(8, overflow);
            let memory = Memory::new(1024);
            let counters = Counters::default();
            let mut big = Record::new(Level::Info, "t");
            big.message(&"x".repeat(2048));
            // Under `Block`, a wait for room that can never come would take the bound.
            let started = Instant::now();
            assert_eq!(queue.push(&memory, &counters, big), Err(Rejected::TooLarge));
            assert!(started.elapsed() < Duration::from_secs(30));
            assert!(!memory.is_saturated(), "an empty queue marked full forever");
            assert_eq!(counters.dropped_too_large.load(Ordering::Relaxed), 1);
            assert_eq!(counters.dropped_queue_full.get(), 0);
            assert!(queue
                .push(&memory, &counters, Record::new(Level::Info, "t"))
                .is_ok());
            assert_eq!(rx.len(), 1);
        }
    }

    #[test]
    fn a_thread_dropped_without_a_break_backs_off_and_every_drop_is_counted() {
        // A thread the scheduler stalls for BACK_OFF_WHILE_FULL_FOR inside the run finds a
        // queue that looks stuck, and rightly does not back off (the test below): on a busy
        // machine a run may be unlucky, so a fresh queue is tried until one backs off.
        // Every run counts each of its drops, back-off or not.
        let mut backed_off = false;
        for _ in 0..50 {
            let (queue, _rx, memory, counters) = full_queue(Overflow::DropNewest);
            let refused = drop_for(&queue, &memory, &counters, BACK_OFF_AFTER * 3);
            assert_eq!(counters.dropped_queue_full.get(), refused);
            assert_eq!(counters.enqueued.get(), 1);
            DROPPING_SINCE.with(|d| d.set(None));
            if memory.back_offs.load(Ordering::Relaxed) >= 1 {
                backed_off = true;
                break;
            }
        }
        assert!(backed_off, "no run of drops backed off in 50 tries");
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
    fn a_settled_batch_ends_only_a_saturation_of_the_byte_bound() {
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
        let size = Record::new(Level::Info, "t").size();
        let memory = Memory::new(size);
        assert!(queue
            .push(&memory, &counters, Record::new(Level::Info, "t"))
            .is_ok());
        assert!(queue
            .push(&memory, &counters, Record::new(Level::Info, "t"))
            .is_err());
        assert!(memory.is_saturated());
        memory.release(size);
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
    fn a_caller_that_may_not_wait_is_refused_at_once_and_never_backs_off() {
        // The JVM's appenders (`Logship::push_at_once`, `shed_at_once`): the same run of
        // drops that backs a thread off above (tried 50 times there, as a run can be
        // unlucky; here one run of many times BACK_OFF_AFTER must never back off).
        let (queue, _rx, memory, counters) = full_queue(Overflow::DropNewest);
        let started = Instant::now();
        let mut refused = 0;
        while started.elapsed() < BACK_OFF_AFTER * 20 {
            // Unmarked, the call tries the queue and is refused there; marked, it is
            // refused before: both ways must return at once.
            memory.notify_room();
            let record = Record::new(Level::Info, "t");
            assert_eq!(
                queue.push_with(&memory, &counters, record, None, false),
                Err(Rejected::QueueFull)
            );
            assert!(queue.shed(&memory, &counters, false), "a full queue sheds");
            refused += 2;
        }
        assert_eq!(memory.back_offs.load(Ordering::Relaxed), 0);
        assert_eq!(counters.dropped_queue_full.get(), refused);
        DROPPING_SINCE.with(|d| d.set(None));
    }

    #[test]
    fn the_block_policy_never_adds_a_back_off() {
        let (queue, _rx, memory, counters) = full_queue(Overflow::Block(Duration::from_micros(50)));
        drop_for(&queue, &memory, &counters, BACK_OFF_AFTER * 3);
        assert_eq!(memory.back_offs.load(Ordering::Relaxed), 0);
        assert!(!memory.is_saturated(), "Block never sheds calls unseen");
    }

    #[test]
    fn the_memory_bound_is_exact() {
        let m = Memory::new(100);
        assert!(m.try_reserve(60));
        assert!(!m.try_reserve(41));
        assert!(m.try_reserve(40));
        m.release(60);
        assert!(m.try_reserve(60));
    }
}
