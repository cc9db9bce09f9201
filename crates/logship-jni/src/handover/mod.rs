//! The hand-over ring: Java's logging threads write each event into one shared block of
//! memory and return; a native thread of ours reads it there, builds the record and
//! queues it.
//!
//! Why it exists: a log call used to cross JNI once per event and build its record on
//! the application's thread (parse, allocate, stamp, queue: about three quarters of the
//! call's cost, docs/performance.md). Now the call costs the application what writing a
//! file buffer costs it: encode, claim room with one compare-and-set, copy, publish. The
//! ring is the queue's front: when it is full the call is refused at once and counted as
//! queue full (or waits, bounded, under `blockTimeoutMs`), never slowed by the network.
//! The consumer waits for room in the pipeline's queue instead of dropping: what the ring
//! took, the pipeline gets, and its burst limits, budget, spill and counters apply as
//! before.
//!
//! Must never: block a logging thread (producers never wait on the consumer beyond
//! their policy; waking it is one `unpark`, and only when it sleeps), read a record its
//! producer has not published, keep the Java buffer after the stop that drained it, or
//! let an event it took go uncounted: at a stop's deadline what is left is counted as
//! dropped (closed), and a malformed record as lost.

mod ring;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use logship::{Logship, Offered};

pub use ring::{capacity_for, Corrupt, Next, Ring, LARGEST_SHARE, TRAILER};

use crate::wire;

/// How long one offer to a full queue waits before the consumer looks at its deadline.
const OFFER_WAIT: Duration = Duration::from_millis(20);
/// While events came recently, the consumer looks again this often without asking to be
/// woken (producers then never make a native call).
const POLL: Duration = Duration::from_millis(1);
/// How many empty polls before it sleeps until woken.
const POLLS_BEFORE_SLEEP: u32 = 20;
/// The longest sleep (a lost wake-up costs at most this much delay).
const SLEEP: Duration = Duration::from_millis(100);

/// One pipeline's ring and its consumer.
#[derive(Debug)]
pub struct HandOver {
    ring: Ring,
    /// Bytes consumed (every event before it queued or counted), for `drain`'s waiters.
    consumed: AtomicU64,
    /// Set by `close`: when to stop waiting for room, and give up what is left.
    deadline: Mutex<Option<Instant>>,
    closing: AtomicBool,
    finished: AtomicBool,
    /// Events taken from the ring (queued, refused and counted by the pipeline, abandoned
    /// or malformed).
    events: AtomicU64,
    /// Events left in the ring at a stop's deadline, or refused by a closed pipeline.
    abandoned: AtomicU64,
    /// Records that did not parse.
    malformed: AtomicU64,
    /// Why the ring stopped early (a corrupt header), said once by the stop.
    broken: OnceLock<Corrupt>,
    thread: OnceLock<JoinHandle<()>>,
}

impl HandOver {
    /// Starts the consumer of `ring` for `logship`; `None` when its thread cannot start
    /// (the appender then takes the direct path for every event).
    pub fn start(ring: Ring, logship: &'static Logship) -> Option<Arc<HandOver>> {
        let hand_over = Arc::new(HandOver {
            ring,
            consumed: AtomicU64::new(0),
            deadline: Mutex::new(None),
            closing: AtomicBool::new(false),
            finished: AtomicBool::new(false),
            events: AtomicU64::new(0),
            abandoned: AtomicU64::new(0),
            malformed: AtomicU64::new(0),
            broken: OnceLock::new(),
            thread: OnceLock::new(),
        });
        let consumer = Arc::clone(&hand_over);
        let handle = thread::Builder::new()
            .name("logship-handover".into())
            .spawn(move || consumer.run(logship))
            .ok()?;
        let _ = hand_over.thread.set(handle);
        Some(hand_over)
    }

    /// Wakes the consumer (a producer found it asleep).
    pub fn wake(&self) {
        if let Some(t) = self.thread.get() {
            t.thread().unpark();
        }
    }

    /// Events taken from the ring so far, whatever became of them.
    pub fn events(&self) -> u64 {
        self.events.load(Ordering::Acquire)
    }

    /// Events given up at a stop, or refused by the closed pipeline (dropped, closed).
    pub fn abandoned(&self) -> u64 {
        self.abandoned.load(Ordering::Relaxed)
    }

    /// Records that did not parse (lost).
    pub fn malformed(&self) -> u64 {
        self.malformed.load(Ordering::Relaxed)
    }

    /// Why the ring was closed early, if it was.
    pub fn broken(&self) -> Option<&Corrupt> {
        self.broken.get()
    }

    /// Waits until every event published before this call is in the pipeline (or
    /// counted), at most until `until`. Whether it got there.
    pub fn drain(&self, until: Instant) -> bool {
        let (target, _) = self.ring.tail();
        self.wait(until, || self.consumed.load(Ordering::Acquire) >= target)
    }

    /// Closes the ring and waits, at most until `until`, for the consumer to queue what
    /// producers published before it closed; what it could not is counted as abandoned.
    /// Whether the consumer has finished (its thread ended): only then may the ring's
    /// memory go.
    pub fn close(&self, until: Instant) -> bool {
        self.ring.close();
        if let Ok(mut d) = self.deadline.lock() {
            *d = Some(until);
        }
        self.closing.store(true, Ordering::Release);
        self.wake();
        // A little beyond the deadline: the consumer notices it within one offer's wait.
        let finished = self.wait(until + OFFER_WAIT * 2, || {
            self.finished.load(Ordering::Acquire)
        });
        if finished {
            if let Some(t) = self.thread.get() {
                while !t.is_finished() {
                    thread::yield_now();
                }
            }
        }
        finished
    }

    fn wait(&self, until: Instant, done: impl Fn() -> bool) -> bool {
        loop {
            if done() {
                return true;
            }
            if Instant::now() >= until {
                return false;
            }
            self.wake();
            thread::sleep(POLL);
        }
    }

    /// The consumer: reads, queues, zeroes, gives the room back; sleeps when idle.
    fn run(&self, logship: &Logship) {
        let mut head = self.ring.head();
        let mut idle = 0u32;
        let mut unreleased = 0usize;
        let release_every = self.ring.capacity() / 8;
        loop {
            let size = match self.ring.next(head) {
                Ok(Some(Next::Event(bytes, size))) => {
                    self.queue(logship, bytes);
                    // After its outcome is counted: Java reads this to know what is still
                    // in the ring (queued and pending from it).
                    self.events.fetch_add(1, Ordering::Release);
                    size
                }
                Ok(Some(Next::Padding(size))) => size,
                Ok(None) => {
                    self.release(head);
                    unreleased = 0;
                    let (tail, closed) = self.ring.tail();
                    if closed && (head >= tail || self.past_deadline()) {
                        break;
                    }
                    self.idle(head, &mut idle);
                    continue;
                }
                Err(corrupt) => {
                    // Nothing after it can be trusted: stop taking events (producers go
                    // the direct way), and say so at the stop.
                    let _ = self.broken.set(corrupt);
                    self.ring.close();
                    self.release(head);
                    break;
                }
            };
            self.ring.consume(head, size);
            head += size as u64;
            unreleased += size;
            idle = 0;
            if unreleased >= release_every {
                self.release(head);
                unreleased = 0;
            }
        }
        self.finished.store(true, Ordering::Release);
    }

    fn release(&self, head: u64) {
        self.ring.set_head(head);
        self.consumed.store(head, Ordering::Release);
    }

    fn past_deadline(&self) -> bool {
        self.closing.load(Ordering::Acquire)
            && self
                .deadline
                .lock()
                .ok()
                .and_then(|d| *d)
                .is_some_and(|d| Instant::now() >= d)
    }

    /// Waits for the next record: polls while events came recently, then sleeps until a
    /// producer wakes it (or [`SLEEP`] passes).
    fn idle(&self, head: u64, idle: &mut u32) {
        *idle += 1;
        if *idle <= POLLS_BEFORE_SLEEP || self.closing.load(Ordering::Acquire) {
            thread::park_timeout(POLL);
            return;
        }
        self.ring.set_sleeping(true);
        // Published between the last look and the word: the producer may have read the
        // word before it was set, so look again before sleeping.
        if matches!(self.ring.next(head), Ok(None)) {
            thread::park_timeout(SLEEP);
        }
        self.ring.set_sleeping(false);
    }

    /// Builds the event's record and queues it, waiting for room; at a stop's deadline,
    /// counts it as abandoned instead.
    fn queue(&self, logship: &Logship, bytes: &[u8]) {
        let Ok(event) = wire::parse(bytes) else {
            self.malformed.fetch_add(1, Ordering::Relaxed);
            return;
        };
        let mut record = event.record();
        loop {
            if self.past_deadline() {
                self.abandoned.fetch_add(1, Ordering::Relaxed);
                return;
            }
            match logship.offer(record, OFFER_WAIT) {
                Ok(()) | Err(Offered::Refused(_)) => return, // queued, or counted there
                Err(Offered::Full(back)) => record = back,
                Err(Offered::Closed(_)) | Err(_) => {
                    self.abandoned.fetch_add(1, Ordering::Relaxed);
                    return;
                }
            }
        }
    }
}
