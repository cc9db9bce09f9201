//! Settling a batch: what each outcome means for the counters, the spill and the
//! queue's memory bound.
//!
//! Why it exists: a live batch can end in a sender (delivered, rejected, retries spent),
//! in the batcher (no sender free during a backlog, shutdown out of time) or in shutdown
//! itself. Every one of those paths comes here, so each batch is settled exactly once:
//! its records are counted (delivered, failed, abandoned) or written to the spill, its
//! bytes go back to the memory bound, and the tracker lets `flush` and `shutdown` move on. It
//! never sends anything and never loses a record without counting it.

use super::job::{InFlight, Job};
use super::outcome::Delivery;
use crate::capture::record::Record;
use crate::observe::stats::Counters;
use crate::pipeline::shared::Shared;

/// Settles a live batch that will not be sent (shutdown out of time, no sender left):
/// spilled when spill is on, otherwise counted as abandoned.
pub(crate) fn abandon(shared: &Shared, job: Job) {
    not_sent(shared, job.seq, job.held_bytes, &job.records);
}

/// Settles a live batch whose request is still out when shutdown runs out of time (an
/// intake that accepted the request and never answers): spilled when spill is on (it may
/// then arrive twice: at-least-once), otherwise counted as abandoned; never dropped
/// silently. When its sender returns later, its settlement finds the batch settled and
/// counts nothing.
pub(crate) fn stuck(shared: &Shared, mut stuck: InFlight) {
    not_sent(shared, stuck.seq, stuck.held_bytes, &stuck.records);
    stuck.forget_copy();
}

/// Settles a live batch none of whose records will be sent by this process: all of them
/// are aborted (spilled, or counted as abandoned).
fn not_sent(shared: &Shared, seq: u64, held_bytes: usize, records: &[Record]) {
    let delivery = Delivery {
        aborted: records.to_vec(),
        ..Delivery::default()
    };
    live(shared, seq, held_bytes, delivery);
}

/// Spills a live batch the senders cannot take now (a backlog): it will be replayed, and
/// the batch is settled (records the spill refused are counted as failed). Returns the job
/// untouched when there is no spill, for the caller to keep waiting for a sender.
pub(crate) fn spill_backlog(shared: &Shared, job: Job) -> Option<Job> {
    let Some(spill) = shared.spill.as_ref() else {
        return Some(job);
    };
    if !shared.tracker.claim(job.seq) {
        return None;
    }
    let written = spill.store(&job.records, &shared.counters, &shared.reporter);
    if written < job.records.len() {
        // Partly on disk is still counted per record: the rest is dropped and counted by
        // the spill (cap) or reported (I/O). Never resend what is already on disk.
        let lost = (job.records.len() - written) as u64;
        Counters::add(&shared.counters.events_failed, lost);
    }
    shared.memory.release(job.held_bytes);
    shared.tracker.settle(job.seq);
    None
}

/// Counts a live batch's outcome, keeps what can be kept on disk, frees its memory; does
/// nothing when the batch was settled already (see [`stuck`]).
pub(crate) fn live(shared: &Shared, seq: u64, held_bytes: usize, delivery: Delivery) {
    live_then(shared, seq, held_bytes, delivery, || {});
}

/// [`live`], running `then` after the outcome is counted (and on disk) but before `flush`
/// and `shutdown` can see the batch settled: a sender deletes the batch's insurance copy
/// there, so that no copy outlives a `flush` that returned. `then` runs also when the
/// batch was settled already.
pub(crate) fn live_then(
    shared: &Shared,
    seq: u64,
    held_bytes: usize,
    delivery: Delivery,
    then: impl FnOnce(),
) {
    if !shared.tracker.claim(seq) {
        then();
        return;
    }
    let mut delivery = delivery;
    // Never reached with parts awaiting an ack (`acks` settles those); if it were,
    // they would be kept like aborted ones, never counted as delivered nor dropped.
    let unconfirmed = std::mem::take(&mut delivery.awaiting);
    delivery
        .aborted
        .extend(unconfirmed.into_iter().flat_map(|a| a.records));
    let c = &shared.counters;
    Counters::add(&c.events_delivered, delivery.delivered as u64);
    Counters::add(&c.already_delivered, delivery.already_delivered as u64);
    Counters::add(
        &c.events_failed,
        (delivery.rejected.len() + delivery.rejected_unnamed) as u64,
    );
    match &shared.spill {
        Some(spill) => {
            spill.dead_letter(&delivery.rejected, c, &shared.reporter);
            for (records, unspilled_counter) in [
                (&delivery.exhausted, &c.events_failed),
                (&delivery.aborted, &c.events_abandoned),
            ] {
                let written = spill.store(records, c, &shared.reporter);
                Counters::add(unspilled_counter, (records.len() - written) as u64);
            }
        }
        None => {
            Counters::add(&c.events_failed, delivery.exhausted.len() as u64);
            Counters::add(&c.events_abandoned, delivery.aborted.len() as u64);
        }
    }
    shared.memory.release(held_bytes);
    then();
    shared.tracker.settle(seq);
}
