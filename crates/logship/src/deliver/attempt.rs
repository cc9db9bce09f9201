//! One delivery attempt of a batch: compress, POST, read the answer, and act on it.
//!
//! Why it exists: every batch, live or replayed, goes through the same attempts. One
//! attempt holds a concurrency permit for exactly one request; what the intake answers
//! (classified by its protocol) picks one function below: accepted, accepted per event,
//! rejected in part, retry, too large, one invalid event, or permanent failure. Each says
//! only what happened to each record ([`Delivery`]); it never counts outcomes, spills or
//! releases memory itself (that is `settle` for live batches and the replayer for
//! spilled ones), and it never sleeps while holding a permit.

use std::borrow::Cow;
use std::time::Duration;

use super::gzip::gzip;
use super::http::{NetError, Response};
use super::outcome::{Awaiting, Delivery};
use super::sender::Sender;
use crate::capture::record::Record;
use crate::observe::health::Health;
use crate::observe::reporter::DeliveryError;
use crate::observe::stats::Counters;
use crate::vendors::answer::{self, ItemResults, Outcome};

/// A delivery in progress: what is still to be sent and what earlier answers decided.
struct Attempt<'a> {
    /// What is still to be sent: the part as handed out, or after a per-event answer,
    /// only the events to resend.
    pending: Cow<'a, [Record]>,
    /// `pending` encoded, and compressed when gzip is on (`None`: the body is sent as
    /// is, without a copy of it).
    body: Vec<u8>,
    wire: Option<Vec<u8>>,
    /// What earlier answers decided.
    settled: Delivery,
    /// Retries spent so far.
    retry: u32,
}

impl Attempt<'_> {
    /// The bytes sent: the compressed body, or the body itself.
    fn wire(&self) -> &[u8] {
        self.wire.as_deref().unwrap_or(&self.body)
    }

    /// Ends the delivery with everything still pending as `aborted`.
    fn abort(&mut self) -> Delivery {
        std::mem::take(&mut self.settled).and(Delivery {
            aborted: std::mem::take(&mut self.pending).into_owned(),
            ..Delivery::default()
        })
    }
}

/// One answer of the intake (or the network error in its place), as classified.
struct Answer {
    status: Option<u16>,
    outcome: Outcome,
    retry_after: Option<Duration>,
    /// The start of the body, or the network error's text.
    body: String,
    /// For [`Outcome::Items`], each event's result; `None` when they cannot be read.
    items: Option<ItemResults>,
    /// A network failure that will not fix itself in a moment (TLS trust, a refused client
    /// certificate, the wrong scheme, a proxy refusing): see [`Sender::on_setup_error`].
    setup: bool,
}

/// After an answer: the part is settled, another attempt follows, or the part is split
/// into smaller ones for the work list.
enum Step<'a> {
    Done(Delivery),
    Again,
    Split(Vec<Cow<'a, [Record]>>),
}

/// A part of a batch still to deliver, with its body when it is already encoded.
type Part<'a> = (Cow<'a, [Record]>, Option<Vec<u8>>);

/// How one part of a batch ended: settled, or split (with what was settled before).
enum PartEnd<'a> {
    Done(Delivery),
    Split(Vec<Cow<'a, [Record]>>, Delivery),
}

/// The two halves of a part (borrowed when the part is).
fn halves(part: Cow<'_, [Record]>) -> Vec<Cow<'_, [Record]>> {
    let mid = part.len() / 2;
    match part {
        Cow::Borrowed(all) => {
            let (left, right) = all.split_at(mid);
            vec![Cow::Borrowed(left), Cow::Borrowed(right)]
        }
        Cow::Owned(mut all) => {
            let right = all.split_off(mid);
            vec![Cow::Owned(all), Cow::Owned(right)]
        }
    }
}

impl Sender {
    /// Delivers `records`, whose encoded body is `body`.
    ///
    /// Splits (a 413, the wire limit, one invalid event) never recurse: the parts go on a
    /// work list that this loop empties, so however the intake answers, the stack stays
    /// flat and memory holds at most the batch, one encoded part and what is settled.
    pub(crate) fn deliver(&self, records: &[Record], body: Vec<u8>) -> Delivery {
        if let Some(transport) = &self.transport {
            return self.deliver_by(transport, records, &body);
        }
        let mut settled = Delivery::default();
        // Parts still to deliver, the next one last; a part borrows from `records`
        // unless an answer replaced it (a cut record, the events to resend).
        let mut work: Vec<Part<'_>> = vec![(Cow::Borrowed(records), Some(body))];
        while let Some((part, body)) = work.pop() {
            if self.shared.abort.is_raised() {
                settled.aborted.extend(part.into_owned());
                for (rest, _) in work.drain(..) {
                    settled.aborted.extend(rest.into_owned());
                }
                break;
            }
            let body = body.unwrap_or_else(|| self.codec.encode(&part));
            match self.deliver_part(part, body) {
                PartEnd::Done(delivery) => settled.merge(delivery),
                PartEnd::Split(parts, delivery) => {
                    settled.merge(delivery);
                    // Reversed, so the first part is delivered first.
                    work.extend(parts.into_iter().rev().map(|p| (p, None)));
                }
            }
        }
        settled
    }

    /// Delivers one part of a batch through its retries; a split hands its parts back.
    fn deliver_part<'a>(&self, part: Cow<'a, [Record]>, body: Vec<u8>) -> PartEnd<'a> {
        let wire = self.compress(&body);
        if let Some(max) = self.codec.limits().max_wire_bytes {
            let len = wire.as_ref().map_or(body.len(), Vec::len);
            if len > max {
                return self.over_wire_limit(part, len, max);
            }
        }
        let mut attempt = Attempt {
            pending: part,
            body,
            wire,
            settled: Delivery::default(),
            retry: 0,
        };
        loop {
            if self.shared.abort.is_raised() {
                return PartEnd::Done(attempt.abort());
            }
            // `None`: shutdown ran out of time while waiting for a permit; the loop top
            // gives up.
            let Some(answer) = self.send_once(&attempt) else {
                continue;
            };
            let step = match answer.outcome {
                _ if answer.setup => self.on_setup_error(&mut attempt, answer),
                Outcome::Items => self.on_items(&mut attempt, answer),
                Outcome::Delivered | Outcome::Partial => self.on_accepted(&mut attempt, answer),
                Outcome::PartialRejected(n) => self.on_partly_rejected(&mut attempt, &answer, n),
                Outcome::Retry if attempt.retry < self.max_retries => {
                    self.on_retryable(&mut attempt, answer)
                }
                Outcome::Retry => self.on_retries_spent(&mut attempt, answer),
                Outcome::TooLarge if attempt.pending.len() > 1 => self.on_too_large(&mut attempt),
                Outcome::RejectEvent(bad) if bad < attempt.pending.len() => {
                    self.on_invalid_event(&mut attempt, &answer, bad)
                }
                Outcome::Permanent | Outcome::TooLarge | Outcome::RejectEvent(_) => {
                    self.on_permanent(&mut attempt, answer)
                }
            };
            match step {
                Step::Done(delivery) => return PartEnd::Done(delivery),
                Step::Split(parts) => {
                    return PartEnd::Split(parts, std::mem::take(&mut attempt.settled))
                }
                Step::Again => {}
            }
        }
    }

    /// Over the intake's limit as sent: split (or, for a single event, cut it) before
    /// sending, rather than wait for a 413.
    fn over_wire_limit<'a>(&self, part: Cow<'a, [Record]>, wire: usize, max: usize) -> PartEnd<'a> {
        let counters = &self.shared.counters;
        if part.len() > 1 {
            Counters::add(&counters.splits, 1);
            return PartEnd::Split(halves(part), Delivery::default());
        }
        if part.is_empty() {
            return PartEnd::Done(Delivery::default());
        }
        let shrink = max as f64 / wire as f64 * 0.9;
        let allowed = (part[0].size() as f64 * shrink) as usize;
        if allowed.max(1024) >= part[0].size() {
            // Already cut as far as it goes: it cannot be sent.
            self.report(
                None,
                "one event is over the intake's request size limit even when cut; not sending it",
                1,
                true,
            );
            return PartEnd::Done(Delivery {
                rejected: part.into_owned(),
                ..Delivery::default()
            });
        }
        let cut = vec![part[0].truncated(allowed.max(1024))];
        Counters::add(&counters.truncated, 1);
        PartEnd::Split(vec![Cow::Owned(cut)], Delivery::default())
    }

    /// One request, holding one concurrency permit (backoff sleeps do not hold one);
    /// `None` when shutdown ran out of time before a permit was free.
    fn send_once(&self, attempt: &Attempt<'_>) -> Option<Answer> {
        let counters = &self.shared.counters;
        let permit = self.pool.concurrency.acquire(&self.shared.abort)?;
        Counters::add(&counters.requests, 1);
        let mut setup = false;
        let (status, outcome, retry_after, body) = match self.post(attempt.wire()) {
            Ok(resp) => {
                let outcome = self.codec.classify(resp.status, &resp.raw);
                let body = self
                    .codec
                    .error_text(resp.status, &resp.raw)
                    .unwrap_or(resp.body);
                (Some(resp.status), outcome, resp.retry_after, body)
            }
            Err(network) => {
                setup = network.setup;
                (None, Outcome::Retry, None, network.message)
            }
        };
        // A per-event answer is read once, here: events it asks to resend (429, 5xx) are
        // back-pressure too.
        let items = if outcome == Outcome::Items {
            self.codec.items(&body, attempt.pending.len())
        } else {
            None
        };
        // Per-event results that cannot be matched to the events sent (none, garbled, too
        // many or too few) prove nothing was stored: a failure to retry, never "delivered".
        let outcome = if outcome == Outcome::Items && items.is_none() {
            Outcome::Retry
        } else {
            outcome
        };
        // What the intake retries on (429, 5xx, timeouts, network errors) is its way of
        // saying "slower".
        let slower =
            outcome == Outcome::Retry || items.as_ref().is_some_and(|i| !i.retry.is_empty());
        permit.finish(slower);
        if !matches!(
            outcome,
            Outcome::Delivered | Outcome::Partial | Outcome::Items | Outcome::PartialRejected(_)
        ) {
            Counters::add(&counters.failed_requests, 1);
        }
        Some(Answer {
            status,
            outcome,
            retry_after,
            body,
            items,
            setup,
        })
    }

    /// Accepted with one result per event (a bulk answer): settles each event on its own
    /// and resends only those that failed transiently, while retries are left.
    fn on_items<'a>(&self, a: &mut Attempt<'a>, answer: Answer) -> Step<'a> {
        let counters = &self.shared.counters;
        let status = answer.status;
        let Some(items) = answer.items else {
            // `send_once` turns unreadable results into a retry, so this is not reached;
            // if it were, nothing would be counted delivered.
            return Step::Done(self.give_up(status, "unreadable per-event results", a));
        };
        self.count_accepted(&a.body, a.wire());
        // Items the intake already held (409 for an existing document id) are no failure: a
        // request answered only with those is not a partial success.
        if !items.retry.is_empty() || !items.rejected.is_empty() {
            Counters::add(&counters.partial_requests, 1);
        }
        a.settled.delivered += a.pending.len() - items.retry.len() - items.rejected.len();
        a.settled.already_delivered += items.already_delivered;
        if !items.rejected.is_empty() {
            self.report(
                items.rejected_status.or(status),
                &format!(
                    "the intake rejected {} of {} events for good, not resending them (first: {})",
                    items.rejected.len(),
                    a.pending.len(),
                    items.rejected_error.as_deref().unwrap_or("no detail")
                ),
                items.rejected.len(),
                true,
            );
            a.settled
                .rejected
                .extend(items.rejected.iter().map(|&i| a.pending[i].clone()));
        }
        if items.retry.is_empty() {
            self.shared.set_health(Health::Healthy);
            return Step::Done(std::mem::take(&mut a.settled));
        }
        self.shared.set_health(Health::Degraded);
        let what = format!(
            "{} of {} events failed transiently (first: {})",
            items.retry.len(),
            a.pending.len(),
            items.retry_error.as_deref().unwrap_or("no detail")
        );
        let again: Vec<Record> = items.retry.iter().map(|&i| a.pending[i].clone()).collect();
        a.pending = Cow::Owned(again);
        if a.retry >= self.max_retries {
            return Step::Done(self.give_up(status, &what, a));
        }
        self.report(
            status,
            &format!("{what}; resending only those"),
            a.pending.len(),
            false,
        );
        a.body = self.codec.encode(&a.pending);
        a.wire = self.compress(&a.body);
        // If shutdown ran out of time meanwhile, the loop top gives up.
        self.wait_to_retry(&mut a.retry, answer.retry_after);
        Step::Again
    }

    /// Accepted, wholly or (asking not to resend) in part.
    fn on_accepted(&self, a: &mut Attempt<'_>, answer: Answer) -> Step<'static> {
        self.shared.set_health(Health::Healthy);
        if answer.outcome == Outcome::Partial {
            Counters::add(&self.shared.counters.partial_requests, 1);
            self.report(
                answer.status,
                &format!(
                    "the intake accepted only part of {} events and asked not to resend: {}",
                    a.pending.len(),
                    self.snippet(&answer.body)
                ),
                a.pending.len(),
                false,
            );
        }
        self.count_accepted(&a.body, a.wire());
        if self.awaits_ack {
            // With acknowledgements a success is not "delivered" yet: the part waits for
            // its id to be confirmed.
            match self.codec.ack_id(&answer.body) {
                Some(ack_id) => {
                    let records = std::mem::take(&mut a.pending).into_owned();
                    a.settled.awaiting.push(Awaiting { ack_id, records });
                    return Step::Done(std::mem::take(&mut a.settled));
                }
                None => self.tell_missing_ack_id(),
            }
        }
        a.settled.delivered += a.pending.len();
        Step::Done(std::mem::take(&mut a.settled))
    }

    /// Accepted except for `n` events the intake does not name (a `partialSuccess`
    /// count): those are counted as failed and never resent.
    fn on_partly_rejected(&self, a: &mut Attempt<'_>, answer: &Answer, n: usize) -> Step<'static> {
        let sent = a.pending.len();
        let rejected = n.min(sent);
        self.shared.set_health(Health::Healthy);
        Counters::add(&self.shared.counters.partial_requests, 1);
        self.report(
            answer.status,
            &format!(
                "the intake rejected {rejected} of {sent} events and asked not to resend them: {}",
                self.snippet(&answer.body)
            ),
            rejected,
            true,
        );
        self.count_accepted(&a.body, a.wire());
        Step::Done(std::mem::take(&mut a.settled).and(Delivery {
            delivered: sent - rejected,
            rejected_unnamed: rejected,
            ..Delivery::default()
        }))
    }

    /// A transient failure with retries left: back off, then try again.
    fn on_retryable(&self, a: &mut Attempt<'_>, answer: Answer) -> Step<'static> {
        self.shared.set_health(Health::Degraded);
        let what = self.failure(answer.status, &answer.body);
        self.report(
            answer.status,
            &format!("{what}; retrying"),
            a.pending.len(),
            false,
        );
        // If shutdown ran out of time meanwhile, the loop top gives up.
        self.wait_to_retry(&mut a.retry, answer.retry_after);
        Step::Again
    }

    /// A failure that will not fix itself in 200 ms (a certificate the machine does not
    /// trust, a hostname mismatch, a client certificate refused, `https://` to a plain
    /// port, a proxy refusing `CONNECT`): health is failing, the next try waits the
    /// backoff ceiling rather than a quick jittered delay, and once the retries are spent
    /// the events are handed back as exhausted (spilled when spill is on, not lost).
    fn on_setup_error(&self, a: &mut Attempt<'_>, answer: Answer) -> Step<'static> {
        self.shared.set_health(Health::Failing);
        if a.retry >= self.max_retries {
            return Step::Done(self.give_up(None, &answer.body, a));
        }
        self.report(
            None,
            &format!(
                "{}; retrying in {} ms (the backoff ceiling)",
                answer.body,
                self.backoff.max.as_millis()
            ),
            a.pending.len(),
            false,
        );
        let ceiling = Some(self.backoff.max);
        // If shutdown ran out of time meanwhile, the loop top gives up.
        self.wait_to_retry(&mut a.retry, ceiling);
        Step::Again
    }

    /// A transient failure with no retry left.
    fn on_retries_spent(&self, a: &mut Attempt<'_>, answer: Answer) -> Step<'static> {
        self.shared.set_health(Health::Degraded);
        let what = self.failure(answer.status, &answer.body);
        Step::Done(self.give_up(answer.status, &what, a))
    }

    /// 413 for several events: each half goes on its own (on the work list).
    fn on_too_large<'a>(&self, a: &mut Attempt<'a>) -> Step<'a> {
        Counters::add(&self.shared.counters.splits, 1);
        Step::Split(halves(std::mem::take(&mut a.pending)))
    }

    /// The intake named one invalid event and accepted none: that one is rejected, the
    /// others are sent again (on the work list).
    fn on_invalid_event<'a>(&self, a: &mut Attempt<'a>, answer: &Answer, bad: usize) -> Step<'a> {
        self.report(
            answer.status,
            &format!(
                "the intake rejected event {bad} of {} as invalid and accepted none; resending the others: {}",
                a.pending.len(),
                self.snippet(&answer.body)
            ),
            1,
            true,
        );
        // The others go again in one request. Copied once (from the batch the part
        // borrows), then cut in place: however many answers name an event, the part
        // never holds more than one copy of the batch.
        let mut rest = std::mem::take(&mut a.pending).into_owned();
        a.settled.rejected.push(rest.remove(bad));
        if rest.is_empty() {
            return Step::Done(std::mem::take(&mut a.settled));
        }
        Step::Split(vec![Cow::Owned(rest)])
    }

    /// Rejected for good (bad key, wrong endpoint, malformed): reported at once, not
    /// retried.
    fn on_permanent(&self, a: &mut Attempt<'_>, answer: Answer) -> Step<'static> {
        self.shared.set_health(Health::Failing);
        let status = answer.status.unwrap_or(0);
        let message = format!(
            "the intake rejected {} events with {status} ({}): {}",
            a.pending.len(),
            answer::hint(status),
            self.snippet(&answer.body)
        );
        self.report(Some(status), &message, a.pending.len(), true);
        let rejected = std::mem::take(&mut a.pending).into_owned();
        Step::Done(std::mem::take(&mut a.settled).and(Delivery {
            rejected,
            ..Delivery::default()
        }))
    }

    /// No retry is left: reports it and hands what is pending back as exhausted,
    /// with what earlier answers already settled.
    fn give_up(&self, status: Option<u16>, what: &str, a: &mut Attempt<'_>) -> Delivery {
        let (retry, pending) = (a.retry, std::mem::take(&mut a.pending));
        // Exhausted events go to the spill when it is on: said so, not as a loss.
        let end = if self.shared.spill.is_some() {
            format!(
                "after {retry} retries, {} events go to the spill (replayed once delivery works, not lost)",
                pending.len()
            )
        } else {
            format!(
                "gave up on {} events after {retry} retries (lost: spill is off)",
                pending.len()
            )
        };
        self.report(status, &format!("{what}; {end}"), pending.len(), true);
        std::mem::take(&mut a.settled).and(Delivery {
            exhausted: pending.into_owned(),
            ..Delivery::default()
        })
    }

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

    /// The body gzip-compressed when configured (noting the ratio for the batcher);
    /// `None` when it is sent as is (no copy: copying it was 3.6 % of the instructions of
    /// the cost guard's `encode_ndjson`).
    fn compress(&self, body: &[u8]) -> Option<Vec<u8>> {
        let level = self.gzip?;
        let wire = gzip(body, level);
        self.codec.note_compression(body.len(), wire.len());
        Some(wire)
    }

    fn post(&self, wire: &[u8]) -> Result<Response, NetError> {
        self.client.post(
            self.codec.url(),
            self.codec.content_type(),
            self.gzip.is_some(),
            self.codec.headers(),
            wire,
            self.codec.max_response_bytes(),
        )
    }

    /// What a failed attempt was: the intake's status and answer, or the network error.
    fn failure(&self, status: Option<u16>, body_or_error: &str) -> String {
        match status {
            Some(s @ 200..=299) => format!(
                "the intake answered {s} but not with the success its protocol defines, so the events are not counted as delivered; it sent: {}",
                self.snippet(body_or_error)
            ),
            Some(s) => format!("the intake answered {s}: {}", self.snippet(body_or_error)),
            None => self.shared.reporter.clean(body_or_error, 1024),
        }
    }

    /// The start of an answer, safe to show: secrets redacted, control characters
    /// escaped, at most about 300 bytes.
    fn snippet(&self, body: &str) -> String {
        let trimmed = body.trim();
        if trimmed.is_empty() {
            "(empty response body)".to_owned()
        } else {
            self.shared.reporter.clean(trimmed, 300)
        }
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
