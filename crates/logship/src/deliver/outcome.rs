//! The per-record outcome of a delivery: what happened to each record of a batch.
//!
//! Why it exists: one attempt (with its retries and splits) can deliver some records,
//! have others rejected, run out of retries for others, and leave parts waiting for an
//! acknowledgement. [`Delivery`] says only that, record by record; counting, spilling
//! and releasing memory happen where it is settled (`settle` for live batches, the
//! replayer for spilled ones). Must never: count or spill anything itself.

use crate::capture::record::Record;

/// Part of a batch the intake accepted with an acknowledgement id, not yet confirmed.
#[derive(Debug)]
pub(crate) struct Awaiting {
    pub ack_id: u64,
    pub records: Vec<Record>,
}

/// What happened to the records of one delivery attempt (including its retries and
/// splits).
#[derive(Default, Debug)]
pub(crate) struct Delivery {
    /// Records the intake accepted (including those it already held).
    pub delivered: usize,
    /// Of `delivered`, the records the intake already held from an earlier request (a 409
    /// for a document id it stores already): not stored twice.
    pub already_delivered: usize,
    /// Records the intake rejected for good.
    pub rejected: Vec<Record>,
    /// Records the intake rejected for good without saying which (a `partialSuccess`
    /// count): counted as failed, never resent, not dead-lettered.
    pub rejected_unnamed: usize,
    /// Records still undelivered after every retry.
    pub exhausted: Vec<Record>,
    /// Records not sent because shutdown ran out of time.
    pub aborted: Vec<Record>,
    /// Parts the intake accepted with an acknowledgement id, not delivered until it
    /// confirms them (see `acks`).
    pub awaiting: Vec<Awaiting>,
}

impl Delivery {
    /// Adds `other`'s records to this delivery's.
    pub(crate) fn merge(&mut self, other: Delivery) {
        self.delivered += other.delivered;
        self.already_delivered += other.already_delivered;
        self.awaiting.extend(other.awaiting);
        self.rejected.extend(other.rejected);
        self.rejected_unnamed += other.rejected_unnamed;
        self.exhausted.extend(other.exhausted);
        self.aborted.extend(other.aborted);
    }

    /// This delivery merged with `other`.
    pub(crate) fn and(mut self, other: Delivery) -> Delivery {
        self.merge(other);
        self
    }
}
