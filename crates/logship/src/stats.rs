//! Counters for everything the pipeline does, and the snapshot users read.
//!
//! Why it exists: a shipper that drops silently is worse than none. Every event the
//! pipeline accepts ends in exactly one counted outcome (delivered, failed, abandoned at
//! shutdown), and every event it refuses is counted by reason. Counters are relaxed
//! atomics: reading them never slows a log call.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

/// Live counters, shared by the caller path and the worker threads.
#[derive(Default, Debug)]
pub(crate) struct Counters {
    pub enqueued: AtomicU64,
    pub dropped_queue_full: AtomicU64,
    pub dropped_closed: AtomicU64,
    pub truncated: AtomicU64,
    pub batches: AtomicU64,
    pub events_delivered: AtomicU64,
    pub events_failed: AtomicU64,
    pub events_abandoned: AtomicU64,
    pub bytes_raw: AtomicU64,
    pub bytes_compressed: AtomicU64,
    pub requests: AtomicU64,
    pub retries: AtomicU64,
    pub failed_requests: AtomicU64,
    pub splits: AtomicU64,
    pub partial_requests: AtomicU64,
    pub last_error: Mutex<Option<String>>,
}

impl Counters {
    pub(crate) fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Relaxed);
    }

    pub(crate) fn set_last_error(&self, message: String) {
        if let Ok(mut slot) = self.last_error.lock() {
            *slot = Some(message);
        }
    }

    pub(crate) fn snapshot(&self, queue_depth: usize, batches_in_flight: usize) -> Stats {
        let get = |c: &AtomicU64| c.load(Relaxed);
        Stats {
            enqueued: get(&self.enqueued),
            dropped_queue_full: get(&self.dropped_queue_full),
            dropped_closed: get(&self.dropped_closed),
            truncated: get(&self.truncated),
            batches: get(&self.batches),
            events_delivered: get(&self.events_delivered),
            events_failed: get(&self.events_failed),
            events_abandoned: get(&self.events_abandoned),
            bytes_raw: get(&self.bytes_raw),
            bytes_compressed: get(&self.bytes_compressed),
            requests: get(&self.requests),
            retries: get(&self.retries),
            failed_requests: get(&self.failed_requests),
            splits: get(&self.splits),
            partial_requests: get(&self.partial_requests),
            queue_depth: queue_depth as u64,
            batches_in_flight: batches_in_flight as u64,
            last_error: self.last_error.lock().ok().and_then(|e| e.clone()),
        }
    }
}

/// A point-in-time copy of the pipeline's counters.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Stats {
    /// Events accepted into the queue.
    pub enqueued: u64,
    /// Events refused because the queue (records or bytes) was full.
    pub dropped_queue_full: u64,
    /// Events refused because the pipeline was already shut down.
    pub dropped_closed: u64,
    /// Events cut to `max_event_bytes` (still shipped, with a marker).
    pub truncated: u64,
    /// Batches cut (each is sent as one request, or more if split).
    pub batches: u64,
    /// Events the intake acknowledged.
    pub events_delivered: u64,
    /// Events given up on: rejected permanently by the intake, or retries exhausted.
    pub events_failed: u64,
    /// Events still queued or in flight when the shutdown timeout ran out.
    pub events_abandoned: u64,
    /// Uncompressed body bytes of delivered requests.
    pub bytes_raw: u64,
    /// Body bytes on the wire of delivered requests (compressed when gzip is on).
    pub bytes_compressed: u64,
    /// HTTP requests attempted (including retries).
    pub requests: u64,
    /// Requests that were retries of an earlier attempt.
    pub retries: u64,
    /// Requests that did not end in a 2xx (network errors included).
    pub failed_requests: u64,
    /// Times a batch was split in two because the intake said it was too large.
    pub splits: u64,
    /// Requests the intake accepted only in part and asked not to resend (Dynatrace's
    /// 200); their events count as delivered.
    pub partial_requests: u64,
    /// Events waiting in the queue right now.
    pub queue_depth: u64,
    /// Batches cut and not yet settled right now.
    pub batches_in_flight: u64,
    /// The most recent delivery error, if any (never contains a secret).
    pub last_error: Option<String>,
}

impl Stats {
    /// All events refused at the log call, whatever the reason.
    pub fn dropped(&self) -> u64 {
        self.dropped_queue_full + self.dropped_closed
    }

    /// Events accepted but not (yet) delivered or given up on.
    pub fn pending(&self) -> u64 {
        self.enqueued
            .saturating_sub(self.events_delivered + self.events_failed + self.events_abandoned)
    }

    /// Every event that was logged but will not reach the intake.
    pub fn lost(&self) -> u64 {
        self.dropped() + self.events_failed + self.events_abandoned
    }
}
