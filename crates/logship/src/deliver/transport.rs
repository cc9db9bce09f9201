//! Delivering a batch through a vendor's own transport (not HTTP): one send per try, each
//! event settled by the intake's own answer to it, with the same retries, backoff, spill and
//! dead letters as an HTTP answer gets.
//!
//! Why it exists: a message broker's delivery report is an answer per event: delivered, to
//! retry, or refused for good. This turns such answers into a [`Delivery`], resending only the events
//! to retry, at most `max_retries` times, so that `settle` counts and spills them exactly as
//! it does for HTTP. Must never: count an event delivered without its answer, retry what
//! cannot succeed (refused events, an authentication failure), or sleep past shutdown.

use super::outcome::Delivery;
use super::sender::Sender;
use crate::capture::record::Record;
use crate::observe::health::Health;
use crate::observe::reporter::DeliveryError;
use crate::observe::stats::Counters;
use crate::vendors::transport::Status;
use crate::vendors::Transport;

/// The events of a batch body, one per line (`Framing::Lines` with one line per event), or
/// each encoded on its own when the body is not that.
fn messages<'a>(
    sender: &Sender,
    records: &[Record],
    body: &'a [u8],
    own: &'a mut Vec<Vec<u8>>,
) -> Vec<&'a [u8]> {
    // memchr: a byte-by-byte split was the senders' largest own cost in the broker's
    // produce profile (docs/performance.md).
    let mut lines: Vec<&[u8]> = Vec::with_capacity(records.len());
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', body) {
        lines.push(&body[start..end]);
        start = end + 1;
    }
    if start < body.len() {
        lines.push(&body[start..]);
    }
    if lines.len() == records.len() {
        return lines;
    }
    *own = records
        .iter()
        .map(|r| {
            let mut one = sender.codec.encode(std::slice::from_ref(r));
            while one.last() == Some(&b'\n') {
                one.pop();
            }
            one
        })
        .collect();
    own.iter().map(Vec::as_slice).collect()
}

impl Sender {
    /// Delivers `records` (encoded in `body`) through `transport`.
    pub(crate) fn deliver_by(
        &self,
        transport: &Transport,
        records: &[Record],
        body: &[u8],
    ) -> Delivery {
        let mut own = Vec::new();
        let messages = messages(self, records, body, &mut own);
        let mut settled = Delivery::default();
        let mut pending: Vec<usize> = (0..records.len()).collect();
        let mut retry = 0u32;
        let counters = &self.shared.counters;
        loop {
            if self.shared.abort.is_raised() {
                settled
                    .aborted
                    .extend(pending.iter().map(|&i| records[i].clone()));
                return settled;
            }
            Counters::add(&counters.requests, 1);
            let sent = transport.send(records, &messages, &pending, &self.shared.abort);
            if sent.rebuilt {
                Counters::add(&counters.client_rebuilds, 1);
            }
            let mut again = Vec::new();
            let mut rejected = 0;
            let mut statuses = sent.status.clone();
            self.alone_if_too_large(transport, records, &messages, &pending, &mut statuses);
            for &i in &pending {
                match statuses[i] {
                    Status::Delivered => {
                        settled.delivered += 1;
                        Counters::add(&counters.bytes_raw, messages[i].len() as u64);
                    }
                    Status::Rejected | Status::TooLarge => {
                        rejected += 1;
                        settled.rejected.push(records[i].clone());
                    }
                    Status::Retry => again.push(i),
                }
            }
            if rejected > 0 {
                self.tell(
                    &format!(
                        "the intake refused {rejected} events for good, not resending them: {}",
                        sent.rejected_error.as_deref().unwrap_or("no detail")
                    ),
                    rejected,
                    true,
                );
            }
            if again.is_empty() {
                self.shared.set_health(Health::Healthy);
                return settled;
            }
            Counters::add(&counters.failed_requests, 1);
            self.shared.set_health(Health::Degraded);
            if self.shared.abort.is_raised() {
                settled
                    .aborted
                    .extend(again.iter().map(|&i| records[i].clone()));
                return settled;
            }
            let what = sent
                .fatal
                .clone()
                .or(sent.retry_error.clone())
                .unwrap_or_else(|| "no answer".to_owned());
            if sent.fatal.is_some() || retry >= self.max_retries {
                // Retrying cannot fix an authentication failure: no retry loop.
                self.tell(
                    &format!(
                        "{what}; gave up on {} events after {retry} retries",
                        again.len()
                    ),
                    again.len(),
                    true,
                );
                settled
                    .exhausted
                    .extend(again.iter().map(|&i| records[i].clone()));
                return settled;
            }
            self.tell(
                &format!("{what}; sending {} events again", again.len()),
                again.len(),
                false,
            );
            if self.shared.abort.sleep(self.backoff.delay(retry, None)) {
                settled
                    .aborted
                    .extend(again.iter().map(|&i| records[i].clone()));
                return settled;
            }
            retry += 1;
            Counters::add(&counters.retries, 1);
            pending = again;
        }
    }

    /// Sends again, each alone, the events refused as too large together with others (a
    /// broker's limit applies to a whole batch of messages): alone, a refusal is the
    /// event's own.
    fn alone_if_too_large(
        &self,
        transport: &Transport,
        records: &[Record],
        messages: &[&[u8]],
        pending: &[usize],
        statuses: &mut [Status],
    ) {
        let too_large: Vec<usize> = pending
            .iter()
            .copied()
            .filter(|&i| statuses[i] == Status::TooLarge)
            .collect();
        if too_large.len() < 2 {
            return;
        }
        Counters::add(&self.shared.counters.splits, 1);
        for i in too_large {
            if self.shared.abort.is_raised() {
                statuses[i] = Status::Retry;
                continue;
            }
            Counters::add(&self.shared.counters.requests, 1);
            statuses[i] = transport
                .send(records, messages, &[i], &self.shared.abort)
                .status[i];
        }
    }

    /// Reports a delivery problem (rate-limited by the reporter, scrubbed of secrets).
    fn tell(&self, message: &str, events: usize, permanent: bool) {
        self.shared.reporter.error(
            &self.shared.counters,
            "transport",
            DeliveryError {
                status: None,
                message: message.to_owned(),
                events,
                permanent,
            },
        );
    }
}
