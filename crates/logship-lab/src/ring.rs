//! A bounded blocking ring buffer: the queue of the stock model.
//!
//! Why it exists: Log4j2's async logger hands events to a fixed-size LMAX Disruptor ring
//! and, with the default queue-full policy, the logging thread waits when the ring is full.
//! This is the same contract with a mutex and two condition variables: `push` blocks while
//! full, `pop` blocks while empty, and `close` wakes everyone so shutdown never hangs.
//! Capacity is fixed at construction, so memory is bounded.

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// A bounded multi-producer, single-consumer blocking queue.
#[derive(Debug)]
pub struct Ring<T> {
    state: Mutex<State<T>>,
    not_full: Condvar,
    not_empty: Condvar,
    capacity: usize,
}

#[derive(Debug)]
struct State<T> {
    slots: VecDeque<T>,
    /// Taken by the consumer but not yet finished (so "drained" means posted, not popped).
    in_hand: usize,
    closed: bool,
}

impl<T> Ring<T> {
    /// An empty ring of `capacity` slots (at least 1).
    pub fn new(capacity: usize) -> Ring<T> {
        let capacity = capacity.max(1);
        Ring {
            state: Mutex::new(State {
                slots: VecDeque::with_capacity(capacity),
                in_hand: 0,
                closed: false,
            }),
            not_full: Condvar::new(),
            not_empty: Condvar::new(),
            capacity,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds `item`, waiting while the ring is full. Gives the item back if the ring is
    /// closed.
    pub fn push(&self, item: T) -> Result<(), T> {
        let mut s = self.lock();
        while s.slots.len() >= self.capacity && !s.closed {
            s = self
                .not_full
                .wait(s)
                .unwrap_or_else(PoisonError::into_inner);
        }
        if s.closed {
            return Err(item);
        }
        s.slots.push_back(item);
        drop(s);
        self.not_empty.notify_one();
        Ok(())
    }

    /// Takes the oldest item, waiting while the ring is empty; `None` once it is closed
    /// and empty. The caller calls [`Ring::done`] when it has finished with the item.
    pub fn pop(&self) -> Option<T> {
        let mut s = self.lock();
        loop {
            if let Some(item) = s.slots.pop_front() {
                s.in_hand += 1;
                drop(s);
                self.not_full.notify_one();
                return Some(item);
            }
            if s.closed {
                return None;
            }
            s = self
                .not_empty
                .wait(s)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// Marks one popped item as finished (posted or given up).
    pub fn done(&self) {
        let mut s = self.lock();
        s.in_hand = s.in_hand.saturating_sub(1);
        let idle = s.slots.is_empty() && s.in_hand == 0;
        drop(s);
        if idle {
            self.not_full.notify_all();
        }
    }

    /// Items queued or being worked on.
    pub fn depth(&self) -> usize {
        let s = self.lock();
        s.slots.len() + s.in_hand
    }

    /// Waits until nothing is queued or being worked on, at most `timeout`; returns
    /// whether that happened.
    pub fn wait_idle(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut s = self.lock();
        while !(s.slots.is_empty() && s.in_hand == 0) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            s = self
                .not_full
                .wait_timeout(s, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        true
    }

    /// Refuses further pushes and wakes every waiter; queued items can still be popped.
    pub fn close(&self) {
        self.lock().closed = true;
        self.not_full.notify_all();
        self.not_empty.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::sync::Arc;
    use std::thread;

    #[test]
    fn fifo_and_bounded() {
        let ring = Ring::new(3);
        for i in 0..3 {
            assert!(ring.push(i).is_ok());
        }
        assert_eq!(ring.depth(), 3);
        assert_eq!(ring.pop(), Some(0));
        assert_eq!(ring.pop(), Some(1));
        assert_eq!(ring.depth(), 3, "popped items count until done");
        ring.done();
        ring.done();
        assert_eq!(ring.depth(), 1);
    }

    #[test]
    fn producer_blocks_while_full_until_a_slot_frees() {
        let ring = Arc::new(Ring::new(1));
        ring.push(1).expect("room for one");
        let (pushed_tx, pushed_rx) = mpsc::channel();
        let producer = {
            let ring = Arc::clone(&ring);
            thread::spawn(move || {
                let r = ring.push(2);
                let _ = pushed_tx.send(());
                r
            })
        };
        // The producer cannot finish while the ring is full: nothing arrives in 200 ms.
        assert!(pushed_rx.recv_timeout(Duration::from_millis(200)).is_err());
        assert_eq!(ring.pop(), Some(1));
        pushed_rx
            .recv_timeout(Duration::from_secs(10))
            .expect("the producer is released once a slot frees");
        assert_eq!(producer.join().ok(), Some(Ok(())));
        assert_eq!(ring.pop(), Some(2));
    }

    #[test]
    fn close_releases_blocked_producers_and_ends_the_consumer() {
        let ring = Arc::new(Ring::new(1));
        ring.push(1).expect("room for one");
        let producer = {
            let ring = Arc::clone(&ring);
            thread::spawn(move || ring.push(2))
        };
        ring.close();
        assert_eq!(producer.join().ok(), Some(Err(2)));
        assert_eq!(ring.pop(), Some(1), "queued items survive close");
        assert_eq!(ring.pop(), None);
    }

    #[test]
    fn wait_idle_waits_for_the_item_in_hand() {
        let ring = Arc::new(Ring::new(4));
        ring.push(1).expect("room");
        assert!(!ring.wait_idle(Duration::from_millis(10)));
        assert_eq!(ring.pop(), Some(1));
        assert!(!ring.wait_idle(Duration::from_millis(10)), "still in hand");
        let finisher = {
            let ring = Arc::clone(&ring);
            thread::spawn(move || ring.done())
        };
        assert!(ring.wait_idle(Duration::from_secs(10)));
        let _ = finisher.join();
    }
}
