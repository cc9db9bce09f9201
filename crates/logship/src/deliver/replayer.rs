//! The replayer thread: ships spilled records once delivery works again.
//!
//! Why it exists: records spilled during an outage (or left by a previous run) must reach
//! the intake without a person doing anything, oldest first, at-least-once: a spilled
//! batch is acknowledged on disk only after the intake accepted it, so a crash in between
//! sends it again rather than losing it. Live traffic comes first: the replayer waits
//! while the senders are all busy or the queue is backing up, and it backs off while the
//! intake keeps failing.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use super::acks::Acks;
use super::sender::Sender;
use crate::capture::record::Record;
use crate::observe::stats::Counters;
use crate::queue::Queue;

/// Longest wait for spilled data before looking again (see the loop).
const IDLE_WAIT: Duration = Duration::from_secs(60);

/// Longest pause between replay attempts while the intake keeps failing.
const MAX_PAUSE: Duration = Duration::from_secs(10);

/// Runs until shutdown begins (on its own thread, `logship-replayer`).
pub(crate) fn run(sender: Sender, acks: Option<Arc<Acks>>, queue: Queue, queue_capacity: usize) {
    let shared = Arc::clone(&sender.shared);
    let Some(spill) = shared.spill.as_ref() else {
        return;
    };
    // Segments an earlier run left were not read at start-up (that would delay `build`):
    // count them first, so that the spill's counters are right while the intake is down.
    let closing = || shared.closed.load(Ordering::Acquire);
    if !spill.count_backlog(&closing, &shared.counters, &shared.reporter) {
        return;
    }
    let limits = sender.codec.limits();
    let mut failures = 0u32;
    while !shared.closed.load(Ordering::Acquire) {
        // Live traffic first: wait while live batches use every permit the concurrency
        // limit allows (the replayer's requests take permits too).
        if queue.len() > queue_capacity / 2
            || shared.tracker.in_flight() >= sender.pool.concurrency.limit()
        {
            if shared.abort.sleep(Duration::from_millis(50)) {
                break;
            }
            continue;
        }
        let Some(batch) = spill.next_batch(limits.max_records, limits.max_body_bytes) else {
            // Woken by new spilled data, by shutdown and by the spill closing; the timeout
            // is only a safety net, so an idle pipeline does not wake every second.
            spill.wait_for_data(IDLE_WAIT);
            continue;
        };
        // Spill files an earlier run (or an earlier configuration) wrote may hold what the
        // rules now redact: they are applied again (what they already redacted is left).
        let redacted: Option<Vec<Record>> = shared
            .redaction
            .as_ref()
            .map(|r| batch.records().iter().map(|x| r.apply(x.clone())).collect());
        let records = redacted.as_deref().unwrap_or(batch.records());
        let body = sender.codec.encode(records);
        let mut delivery = sender.deliver(records, body);
        if let Some(acks) = &acks {
            // Replayed data is acknowledged on disk only once the intake confirmed it.
            delivery = acks.replay(&sender, delivery);
        }
        let c = &shared.counters;
        Counters::add(&c.events_replayed, delivery.delivered as u64);
        Counters::add(&c.already_delivered, delivery.already_delivered as u64);
        if delivery.delivered == 0 && delivery.rejected.is_empty() && delivery.rejected_unnamed == 0
        {
            // Nothing got through: keep it on disk and try again later.
            spill.nack(batch);
            failures += 1;
            let pause = sender
                .backoff
                .delay(failures.min(16), None)
                .max(Duration::from_millis(100));
            if shared.abort.sleep(pause.min(MAX_PAUSE)) {
                break;
            }
            continue;
        }
        failures = 0;
        Counters::add(&c.events_failed, delivery.rejected_unnamed as u64);
        // Whatever part did not get through is written again before the batch is
        // acknowledged, so nothing is lost if the process dies in between.
        spill.dead_letter(&delivery.rejected, c, &shared.reporter);
        for records in [&delivery.exhausted, &delivery.aborted] {
            let written = spill.restore(records, c, &shared.reporter);
            Counters::add(&c.spill_dropped, (records.len() - written) as u64);
        }
        spill.ack(batch, c, &shared.reporter);
    }
}
