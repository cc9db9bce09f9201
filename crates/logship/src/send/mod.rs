//! The sender pool: compress, POST, classify, retry, split, settle.
//!
//! Why it exists: network work must happen off the caller's thread and must not be capped
//! at one batch per round-trip. `max_in_flight` sender threads share one keep-alive
//! connection pool and each carries one batch at a time through its whole life: gzip,
//! POST, and, depending on the vendor's classification of the answer, done, retried with
//! backoff (on this sender only; the others keep going), split in halves (413), or given
//! up on and reported. Every batch ends in exactly one settlement that updates the
//! counters, releases its memory, and lets `flush` and `shutdown` make progress.

pub(crate) mod backoff;
pub(crate) mod classify;
pub(crate) mod http;

use std::io::Write;
use std::sync::Arc;

use crossbeam_channel::Receiver;
use flate2::write::GzEncoder;
use flate2::Compression;

use crate::record::Record;
use crate::report::DeliveryError;
use crate::shared::Shared;
use crate::stats::Counters;
use crate::vendor::Codec;
use crate::worker::Job;
use backoff::Backoff;
use classify::Outcome;

/// What a sender needs to deliver batches.
pub(crate) struct Sender {
    pub shared: Arc<Shared>,
    pub codec: Arc<Codec>,
    pub client: http::Client,
    pub gzip: Option<u32>,
    pub max_retries: u32,
    pub backoff: Backoff,
}

/// How a batch (or part of one) ended.
#[derive(Default, Debug, Clone, Copy, PartialEq, Eq)]
struct Settled {
    delivered: usize,
    failed: usize,
    abandoned: usize,
}

impl std::ops::AddAssign for Settled {
    fn add_assign(&mut self, o: Settled) {
        self.delivered += o.delivered;
        self.failed += o.failed;
        self.abandoned += o.abandoned;
    }
}

impl Sender {
    /// Runs one sender thread until the job channel closes.
    pub(crate) fn run(self, jobs: Receiver<Job>) {
        crate::reentrancy::mark_current_thread();
        while let Ok(job) = jobs.recv() {
            let Job { seq, batch } = job;
            let settled = if self.shared.abort.is_raised() {
                Settled {
                    abandoned: batch.records.len(),
                    ..Settled::default()
                }
            } else {
                self.deliver(&batch.records, batch.body)
            };
            settle(&self.shared, seq, batch.held_bytes, settled);
        }
    }

    /// Delivers `records`, whose encoded body is `body`, splitting on "too large".
    fn deliver(&self, records: &[Record], body: Vec<u8>) -> Settled {
        let wire = match self.gzip {
            Some(level) => {
                let wire = gzip(&body, level);
                self.codec.note_compression(body.len(), wire.len());
                wire
            }
            None => body.clone(),
        };
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
        let mut retry = 0u32;
        loop {
            if self.shared.abort.is_raised() {
                return Settled {
                    abandoned: records.len(),
                    ..Settled::default()
                };
            }
            Counters::add(&counters.requests, 1);
            let result = self.shared_post(&wire);
            let (outcome, retry_after, problem) = match result {
                Ok(resp) => {
                    let outcome = self.codec.classify(resp.status, &resp.body);
                    (outcome, resp.retry_after, Some((resp.status, resp.body)))
                }
                Err(network) => {
                    Counters::add(&counters.failed_requests, 1);
                    if retry >= self.max_retries {
                        self.report(None, &network, records.len(), true);
                        return Settled {
                            failed: records.len(),
                            ..Settled::default()
                        };
                    }
                    self.report(None, &network, records.len(), false);
                    if self.backoff_sleep(retry, None) {
                        continue; // aborted: loop top settles as abandoned
                    }
                    retry += 1;
                    Counters::add(&counters.retries, 1);
                    continue;
                }
            };
            let (status, resp_body) = problem.unwrap_or_default();
            match outcome {
                Outcome::Delivered | Outcome::Partial => {
                    if outcome == Outcome::Partial {
                        Counters::add(&counters.partial_requests, 1);
                        self.report(
                            Some(status),
                            &format!(
                                "the intake accepted only part of {} events and asked not to resend: {}",
                                records.len(),
                                snippet(&resp_body)
                            ),
                            records.len(),
                            false,
                        );
                    }
                    Counters::add(&counters.events_delivered, records.len() as u64);
                    Counters::add(&counters.bytes_raw, body.len() as u64);
                    Counters::add(&counters.bytes_compressed, wire.len() as u64);
                    return Settled {
                        delivered: records.len(),
                        ..Settled::default()
                    };
                }
                Outcome::Retry if retry < self.max_retries => {
                    Counters::add(&counters.failed_requests, 1);
                    if self.backoff_sleep(retry, retry_after) {
                        continue;
                    }
                    retry += 1;
                    Counters::add(&counters.retries, 1);
                }
                Outcome::TooLarge if records.len() > 1 => {
                    Counters::add(&counters.failed_requests, 1);
                    Counters::add(&counters.splits, 1);
                    return self.deliver_halves(records);
                }
                Outcome::RejectEvent(bad) if bad < records.len() => {
                    Counters::add(&counters.failed_requests, 1);
                    self.report(
                        Some(status),
                        &format!(
                            "the intake rejected event {bad} of {} as invalid and accepted none; resending the others: {}",
                            records.len(),
                            snippet(&resp_body)
                        ),
                        1,
                        true,
                    );
                    let rest: Vec<Record> = records
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| *i != bad)
                        .map(|(_, r)| r.clone())
                        .collect();
                    let mut settled = Settled {
                        failed: 1,
                        ..Settled::default()
                    };
                    if !rest.is_empty() {
                        settled += self.deliver(&rest, self.codec.encode(&rest));
                    }
                    return settled;
                }
                Outcome::Retry
                | Outcome::Permanent
                | Outcome::TooLarge
                | Outcome::RejectEvent(_) => {
                    Counters::add(&counters.failed_requests, 1);
                    let exhausted = outcome == Outcome::Retry;
                    let message = if exhausted {
                        format!(
                            "the intake answered {status} after {} retries; giving up on {} events: {}",
                            retry,
                            records.len(),
                            snippet(&resp_body)
                        )
                    } else {
                        format!(
                            "the intake rejected {} events with {status} ({}): {}",
                            records.len(),
                            classify::hint(status),
                            snippet(&resp_body)
                        )
                    };
                    self.report(Some(status), &message, records.len(), true);
                    return Settled {
                        failed: records.len(),
                        ..Settled::default()
                    };
                }
            }
        }
    }

    /// Delivers the two halves of `records` separately.
    fn deliver_halves(&self, records: &[Record]) -> Settled {
        let (left, right) = records.split_at(records.len() / 2);
        let mut settled = self.deliver(left, self.codec.encode(left));
        settled += self.deliver(right, self.codec.encode(right));
        settled
    }

    fn shared_post(&self, wire: &[u8]) -> Result<http::Response, String> {
        self.client.post(
            self.codec.url(),
            self.codec.content_type(),
            self.gzip.is_some(),
            self.codec.headers(),
            wire,
        )
    }

    /// Sleeps before a retry; true if shutdown ran out of time meanwhile.
    fn backoff_sleep(&self, retry: u32, retry_after: Option<std::time::Duration>) -> bool {
        self.shared
            .abort
            .sleep(self.backoff.delay(retry, retry_after))
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

/// Settles a batch that will not be sent (shutdown out of time, no sender left).
pub(crate) fn abandon(shared: &Shared, job: Job) {
    let settled = Settled {
        abandoned: job.batch.records.len(),
        ..Settled::default()
    };
    settle(shared, job.seq, job.batch.held_bytes, settled);
}

fn settle(shared: &Shared, seq: u64, held_bytes: usize, settled: Settled) {
    let c = &shared.counters;
    Counters::add(&c.events_failed, settled.failed as u64);
    Counters::add(&c.events_abandoned, settled.abandoned as u64);
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

fn snippet(body: &str) -> String {
    let trimmed = body.trim();
    if trimmed.is_empty() {
        "(empty response body)".to_owned()
    } else {
        crate::record::cut(trimmed, 300).to_owned()
    }
}
