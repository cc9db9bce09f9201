//! The bounded hand-off from log calls to the batcher.
//!
//! Why it exists: the caller path must never wait on the network. A push is a byte-budget
//! reservation plus a `try_send` on a bounded channel; when either bound is hit the event
//! is dropped and counted (or, with the opt-in `Block` policy, waited for up to a bound).
//! It never performs I/O and never holds a lock. Overflow is decided here on the caller
//! side; diverting overflow to disk is the worker's job, never the caller's.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

use crossbeam_channel::{Receiver, Sender, TrySendError};

use crate::config::Overflow;
use crate::record::Record;
use crate::shared::Shared;
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

    /// Hands a record to the batcher, applying the overflow policy. Never performs I/O.
    pub(crate) fn push(&self, shared: &Arc<Shared>, record: Record) -> Result<(), Rejected> {
        if shared.closed.load(Ordering::Acquire) {
            Counters::add(&shared.counters.dropped_closed, 1);
            return Err(Rejected::Closed);
        }
        let size = record.size();
        let mut slot = Some(record);
        let attempt = |slot: &mut Option<Record>| -> bool {
            if !shared.memory.try_reserve(size) {
                return false;
            }
            let Some(record) = slot.take() else {
                return true;
            };
            match self.tx.try_send(record) {
                Ok(()) => true,
                Err(TrySendError::Full(r)) | Err(TrySendError::Disconnected(r)) => {
                    shared.memory.unreserve(size);
                    *slot = Some(r);
                    false
                }
            }
        };
        let accepted = attempt(&mut slot)
            || match self.overflow {
                Overflow::DropNewest => false,
                Overflow::Block(bound) => shared
                    .memory
                    .wait_for_room(Instant::now() + bound, || attempt(&mut slot)),
            };
        if accepted {
            Counters::add(&shared.counters.enqueued, 1);
            Ok(())
        } else {
            Counters::add(&shared.counters.dropped_queue_full, 1);
            Err(Rejected::QueueFull)
        }
    }
}
