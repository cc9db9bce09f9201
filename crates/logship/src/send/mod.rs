//! The sender pool: compress, POST, classify, retry, split, settle.
//!
//! Why it exists: network work must happen off the caller's thread and must not be capped
//! at one batch per round-trip. Up to `max_in_flight` sender threads (started as the
//! concurrency limit grows) share one keep-alive
//! connection pool and each carries one batch at a time through its whole life: gzip,
//! POST (each attempt holding a permit of the [`concurrency::Limiter`], which decides how
//! many requests are out at once), and, depending on the vendor's classification of the
//! answer, done, retried with backoff (on this sender only; the others keep going), split
//! in halves (413), or given up on. An intake that answers per event (Elasticsearch
//! `_bulk`) settles each event on its own: only the events that failed transiently are
//! re-encoded and resent, within the same retry budget. [`Sender::deliver`] only says what
//! happened to each record; the live path
//! ([`Sender::run`]) and the replayer decide what that means: count, spill to disk, or
//! keep as a dead letter. Every live batch ends in exactly one settlement that updates
//! the counters, releases its memory, and lets `flush` and `shutdown` make progress.

pub(crate) mod backoff;
pub(crate) mod concurrency;
pub(crate) mod http;

use std::borrow::Cow;
use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use crossbeam_channel::Receiver;
use flate2::write::GzEncoder;
use flate2::Compression;

use crate::record::Record;
use crate::report::DeliveryError;
use crate::shared::Shared;
use crate::stats::{Counters, Health};
use crate::protocol::Codec;
use crate::worker::Job;
use backoff::Backoff;
use crate::protocol::classify::{self, Outcome};

/// What a sender needs to deliver batches.
#[derive(Clone)]
pub(crate) struct Sender {
    pub shared: Arc<Shared>,
    pub codec: Arc<Codec>,
    pub client: http::Client,
    pub gzip: Option<u32>,
    pub max_retries: u32,
    pub backoff: Backoff,
}

/// What happened to the records of one delivery attempt (including its retries and
/// splits).
#[derive(Default, Debug)]
pub(crate) struct Delivery {
    /// Records the intake accepted.
    pub delivered: usize,
    /// Records the intake rejected for good.
    pub rejected: Vec<Record>,
    /// Records the intake rejected for good without saying which (OTLP's
    /// `partialSuccess`): counted as failed, never resent, not dead-lettered.
    pub rejected_unnamed: usize,
    /// Records still undelivered after every retry.
    pub exhausted: Vec<Record>,
    /// Records not sent because shutdown ran out of time.
    pub aborted: Vec<Record>,
}

impl Delivery {
    fn merge(&mut self, other: Delivery) {
        self.delivered += other.delivered;
        self.rejected.extend(other.rejected);
        self.rejected_unnamed += other.rejected_unnamed;
        self.exhausted.extend(other.exhausted);
        self.aborted.extend(other.aborted);
    }

    /// This delivery merged with `other`.
    fn and(mut self, other: Delivery) -> Delivery {
        self.merge(other);
        self
    }
}

impl Sender {
    /// Runs one sender thread until the job channel closes.
    pub(crate) fn run(self, jobs: Receiver<Job>) {
        crate::reentrancy::mark_current_thread();
        while let Ok(job) = jobs.recv() {
            self.grow_pool(&jobs);
            let Job { seq, batch } = job;
            let delivery = if self.shared.abort.is_raised() {
                Delivery {
                    aborted: batch.records,
                    ..Delivery::default()
                }
            } else {
                self.deliver(&batch.records, batch.body)
            };
            settle_live(&self.shared, seq, batch.held_bytes, delivery);
        }
    }

    /// Starts sender threads until there are as many as the concurrency limit wants (see
    /// [`concurrency::Limiter::threads_wanted`]). Threads start on demand rather than all
    /// at build time because each one keeps its own compressor state and allocator arena:
    /// a pipeline that never needs 16 requests in flight keeps a few megabytes instead of
    /// tens.
    fn grow_pool(&self, jobs: &Receiver<Job>) {
        let wanted = self.shared.concurrency.threads_wanted();
        let started = &self.shared.senders;
        let mut n = started.load(std::sync::atomic::Ordering::Acquire);
        while n < wanted {
            match started.compare_exchange(
                n,
                n + 1,
                std::sync::atomic::Ordering::AcqRel,
                std::sync::atomic::Ordering::Acquire,
            ) {
                Ok(_) => {
                    if let Err(e) = spawn_sender(self.clone(), jobs.clone(), n) {
                        // Keep going with the threads there are.
                        started.fetch_sub(1, std::sync::atomic::Ordering::AcqRel);
                        self.shared.reporter.notice(&format!(
                            "logship: could not start another sender thread: {e}"
                        ));
                        return;
                    }
                    n += 1;
                }
                Err(now) => n = now,
            }
        }
    }

    /// The retry budget is spent: reports it and hands `pending` back as exhausted, with
    /// what earlier answers already `settled`.
    fn give_up(
        &self,
        status: Option<u16>,
        what: &str,
        retry: u32,
        pending: Cow<'_, [Record]>,
        settled: Delivery,
    ) -> Delivery {
        self.report(
            status,
            &format!(
                "{what}; gave up on {} events after {retry} retries",
                pending.len()
            ),
            pending.len(),
            true,
        );
        settled.and(Delivery {
            exhausted: pending.into_owned(),
            ..Delivery::default()
        })
    }

    /// Delivers `records`, whose encoded body is `body`.
    pub(crate) fn deliver(&self, records: &[Record], body: Vec<u8>) -> Delivery {
        let wire = self.compress(&body);
        let counters = &self.shared.counters;
        if let Some(max) = self.codec.limits().max_wire_bytes {
            if wire.len() > max {
                // Over the intake's limit as sent: split (or, for a single event, cut it)
                // before sending, rather than wait for a 413.
                if records.len() > 1 {
                    Counters::add(&counters.splits, 1);
                    return self.deliver_halves(records);
                }
                let shrink = max as f64 / wire.len() as f64 * 0.9;
                let budget = (records[0].size() as f64 * shrink) as usize;
                let cut = [records[0].truncated(budget.max(1024))];
                Counters::add(&counters.truncated, 1);
                return self.deliver(&cut, self.codec.encode(&cut));
            }
        }
        // What is still to be sent: all of `records`, or after a per-event answer, only
        // the events to resend. `settled` holds what earlier answers decided.
        let mut pending: Cow<'_, [Record]> = Cow::Borrowed(records);
        let (mut body, mut wire) = (body, wire);
        let mut settled = Delivery::default();
        let mut retry = 0u32;
        loop {
            if self.shared.abort.is_raised() {
                return settled.and(Delivery {
                    aborted: pending.into_owned(),
                    ..Delivery::default()
                });
            }
            // One permit per attempt: backoff sleeps below do not hold one.
            let Some(permit) = self.shared.concurrency.acquire(&self.shared.abort) else {
                continue; // shutdown ran out of time: the loop top gives up
            };
            Counters::add(&counters.requests, 1);
            let (status, outcome, retry_after, resp_body) = match self.post(&wire) {
                Ok(resp) => {
                    let outcome = self.codec.classify_bytes(resp.status, &resp.raw);
                    (Some(resp.status), outcome, resp.retry_after, resp.body)
                }
                Err(network) => (None, Outcome::Retry, None, network),
            };
            // A per-event answer is read once, here: events it asks to resend (429, 5xx)
            // are back-pressure too.
            let mut items =
                (outcome == Outcome::Items).then(|| self.codec.items(&resp_body, pending.len()));
            // What the intake retries on (429, 5xx, timeouts, network errors) is its way
            // of saying "slower".
            let slower =
                outcome == Outcome::Retry || matches!(&items, Some(Some(i)) if !i.retry.is_empty());
            permit.finish(slower);
            if !matches!(
                outcome,
                Outcome::Delivered
                    | Outcome::Partial
                    | Outcome::Items
                    | Outcome::PartialRejected(_)
            ) {
                Counters::add(&counters.failed_requests, 1);
            }
            match outcome {
                Outcome::Items => {
                    self.count_accepted(&body, &wire);
                    Counters::add(&counters.partial_requests, 1);
                    let Some(items) = items.take().flatten() else {
                        // Accepted, but which events failed cannot be read: resending all
                        // would duplicate the others, so none is resent.
                        self.shared.set_health(Health::Healthy);
                        self.report(
                            status,
                            &format!(
                                "the intake accepted {} events with per-event errors that could not be read; not resending: {}",
                                pending.len(),
                                snippet(&resp_body)
                            ),
                            pending.len(),
                            false,
                        );
                        settled.delivered += pending.len();
                        return settled;
                    };
                    settled.delivered += pending.len() - items.retry.len() - items.rejected.len();
                    if !items.rejected.is_empty() {
                        self.report(
                            items.rejected_status.or(status),
                            &format!(
                                "the intake rejected {} of {} events for good, not resending them (first: {})",
                                items.rejected.len(),
                                pending.len(),
                                items.rejected_error.as_deref().unwrap_or("no detail")
                            ),
                            items.rejected.len(),
                            true,
                        );
                        settled
                            .rejected
                            .extend(items.rejected.iter().map(|&i| pending[i].clone()));
                    }
                    if items.retry.is_empty() {
                        self.shared.set_health(Health::Healthy);
                        return settled;
                    }
                    self.shared.set_health(Health::Degraded);
                    let what = format!(
                        "{} of {} events failed transiently (first: {})",
                        items.retry.len(),
                        pending.len(),
                        items.retry_error.as_deref().unwrap_or("no detail")
                    );
                    let again: Vec<Record> =
                        items.retry.iter().map(|&i| pending[i].clone()).collect();
                    pending = Cow::Owned(again);
                    if retry >= self.max_retries {
                        return self.give_up(status, &what, retry, pending, settled);
                    }
                    self.report(
                        status,
                        &format!("{what}; resending only those"),
                        pending.len(),
                        false,
                    );
                    body = self.codec.encode(&pending);
                    wire = self.compress(&body);
                    if !self.wait_to_retry(&mut retry, retry_after) {
                        continue; // shutdown ran out of time: the loop top gives up
                    }
                }
                Outcome::Delivered | Outcome::Partial => {
                    self.shared.set_health(Health::Healthy);
                    if outcome == Outcome::Partial {
                        Counters::add(&counters.partial_requests, 1);
                        self.report(
                            status,
                            &format!(
                                "the intake accepted only part of {} events and asked not to resend: {}",
                                pending.len(),
                                snippet(&resp_body)
                            ),
                            pending.len(),
                            false,
                        );
                    }
                    self.count_accepted(&body, &wire);
                    settled.delivered += pending.len();
                    return settled;
                }
                Outcome::PartialRejected(n) => {
                    let rejected = n.min(records.len());
                    self.shared.set_health(Health::Healthy);
                    Counters::add(&counters.partial_requests, 1);
                    self.report(
                        status,
                        &format!(
                            "the intake rejected {rejected} of {} events and asked not to resend them: {}",
                            records.len(),
                            snippet(&resp_body)
                        ),
                        rejected,
                        true,
                    );
                    self.count_accepted(&body, &wire);
                    return Delivery {
                        delivered: records.len() - rejected,
                        rejected_unnamed: rejected,
                        ..Delivery::default()
                    };
                }
                Outcome::Retry if retry < self.max_retries => {
                    self.shared.set_health(Health::Degraded);
                    let what = failure(status, resp_body);
                    self.report(status, &format!("{what}; retrying"), pending.len(), false);
                    if !self.wait_to_retry(&mut retry, retry_after) {
                        continue; // shutdown ran out of time: the loop top gives up
                    }
                }
                Outcome::Retry => {
                    self.shared.set_health(Health::Degraded);
                    let what = failure(status, resp_body);
                    return self.give_up(status, &what, retry, pending, settled);
                }
                Outcome::TooLarge if pending.len() > 1 => {
                    Counters::add(&counters.splits, 1);
                    return settled.and(self.deliver_halves(&pending));
                }
                Outcome::RejectEvent(bad) if bad < pending.len() => {
                    self.report(
                        status,
                        &format!(
                            "the intake rejected event {bad} of {} as invalid and accepted none; resending the others: {}",
                            pending.len(),
                            snippet(&resp_body)
                        ),
                        1,
                        true,
                    );
                    let rest: Vec<Record> = pending
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| *i != bad)
                        .map(|(_, r)| r.clone())
                        .collect();
                    settled.rejected.push(pending[bad].clone());
                    if !rest.is_empty() {
                        settled.merge(self.deliver(&rest, self.codec.encode(&rest)));
                    }
                    return settled;
                }
                Outcome::Permanent | Outcome::TooLarge | Outcome::RejectEvent(_) => {
                    self.shared.set_health(Health::Failing);
                    let status = status.unwrap_or(0);
                    let message = format!(
                        "the intake rejected {} events with {status} ({}): {}",
                        pending.len(),
                        classify::hint(status),
                        snippet(&resp_body)
                    );
                    self.report(Some(status), &message, pending.len(), true);
                    return settled.and(Delivery {
                        rejected: pending.into_owned(),
                        ..Delivery::default()
                    });
                }
            }
        }
    }

    /// The body as sent: gzip-compressed when configured (noting the ratio for the
    /// batcher), else as is.
    /// Sleeps the backoff before attempt `retry + 1` and counts the retry; false when
    /// shutdown ran out of time meanwhile (nothing counted).
    fn wait_to_retry(&self, retry: &mut u32, retry_after: Option<Duration>) -> bool {
        if self
            .shared
            .abort
            .sleep(self.backoff.delay(*retry, retry_after))
        {
            return false;
        }
        *retry += 1;
        Counters::add(&self.shared.counters.retries, 1);
        true
    }

    /// Counts the bytes of a request the intake accepted, wholly or in part.
    fn count_accepted(&self, body: &[u8], wire: &[u8]) {
        let counters = &self.shared.counters;
        Counters::add(&counters.bytes_raw, body.len() as u64);
        Counters::add(&counters.bytes_compressed, wire.len() as u64);
    }

    fn compress(&self, body: &[u8]) -> Vec<u8> {
        match self.gzip {
            Some(level) => {
                let wire = gzip(body, level);
                self.codec.note_compression(body.len(), wire.len());
                wire
            }
            None => body.to_vec(),
        }
    }

    /// Delivers the two halves of `records` separately.
    fn deliver_halves(&self, records: &[Record]) -> Delivery {
        let (left, right) = records.split_at(records.len() / 2);
        let mut delivery = self.deliver(left, self.codec.encode(left));
        delivery.merge(self.deliver(right, self.codec.encode(right)));
        delivery
    }

    fn post(&self, wire: &[u8]) -> Result<http::Response, String> {
        self.client.post(
            self.codec.url(),
            self.codec.content_type(),
            self.gzip.is_some(),
            self.codec.headers(),
            wire,
            self.codec.max_response_bytes(),
        )
    }

    fn report(&self, status: Option<u16>, message: &str, events: usize, permanent: bool) {
        let key = match status {
            Some(s) => s.to_string(),
            None => "network".to_owned(),
        };
        self.shared.reporter.error(
            &self.shared.counters,
            &key,
            DeliveryError {
                status,
                message: message.to_owned(),
                events,
                permanent,
            },
        );
    }
}

/// Settles a live batch that will not be sent (shutdown out of time, no sender left):
/// spilled when spill is on, otherwise counted as abandoned.
pub(crate) fn abandon(shared: &Shared, job: Job) {
    let delivery = Delivery {
        aborted: job.batch.records,
        ..Delivery::default()
    };
    settle_live(shared, job.seq, job.batch.held_bytes, delivery);
}

/// Spills a live batch the senders cannot take now (a backlog): it will be replayed, and
/// the batch is settled (records the spill refused are counted as failed). Returns the job
/// untouched when there is no spill, for the caller to keep waiting for a sender.
pub(crate) fn spill_backlog(shared: &Shared, job: Job) -> Option<Job> {
    let Some(spill) = shared.spill.as_ref() else {
        return Some(job);
    };
    let written = spill.store(&job.batch.records, &shared.counters, &shared.reporter);
    if written < job.batch.records.len() {
        // Partly on disk is still counted per record: the rest is dropped and counted by
        // the spill (cap) or reported (I/O). Never resend what is already on disk.
        let lost = (job.batch.records.len() - written) as u64;
        Counters::add(&shared.counters.events_failed, lost);
    }
    shared.memory.release(job.batch.held_bytes);
    shared.tracker.settle(job.seq);
    None
}

/// Counts a live batch's outcome, keeps what can be kept on disk, frees its memory.
fn settle_live(shared: &Shared, seq: u64, held_bytes: usize, delivery: Delivery) {
    let c = &shared.counters;
    Counters::add(&c.events_delivered, delivery.delivered as u64);
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
    shared.tracker.settle(seq);
}

/// gzip-compresses a body (on the sender's thread, so compression scales with senders).
pub(crate) fn gzip(body: &[u8], level: u32) -> Vec<u8> {
    let mut enc = GzEncoder::new(
        Vec::with_capacity(body.len() / 4 + 64),
        Compression::new(level),
    );
    // Writing to a Vec cannot fail.
    let _ = enc.write_all(body);
    enc.finish().unwrap_or_default()
}

/// What a failed attempt was: the intake's status and answer, or the network error.
fn failure(status: Option<u16>, body_or_error: String) -> String {
    match status {
        Some(s) => format!("the intake answered {s}: {}", snippet(&body_or_error)),
        None => body_or_error,
    }
}

fn snippet(body: &str) -> String {
    let trimmed = body.trim();
    if trimmed.is_empty() {
        "(empty response body)".to_owned()
    } else {
        crate::record::cut(trimmed, 300).to_owned()
    }
}

/// Starts live sender thread number `index`, taking batches from `jobs`.
pub(crate) fn spawn_sender(
    sender: Sender,
    jobs: Receiver<Job>,
    index: usize,
) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name(format!("logship-sender-{index}"))
        .spawn(move || sender.run(jobs))
        .map(drop)
}
