//! Counters for everything the pipeline does, and the snapshot users read.
//!
//! Why it exists: a shipper that drops silently is worse than none. Every event the
//! pipeline accepts ends in exactly one counted outcome (delivered, failed, abandoned at
//! shutdown), and every event it refuses is counted by reason. Counters are relaxed
//! atomics: reading them never slows a log call.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use crate::observe::striped::Striped;

/// Live counters, shared by the caller path and the worker threads.
///
/// The two counters every log call writes are [`Striped`]: one atomic written from every
/// core on every call would pass its cache line between the cores.
#[derive(Default, Debug)]
pub(crate) struct Counters {
    pub enqueued: Striped,
    pub dropped_queue_full: Striped,
    pub dropped_closed: AtomicU64,
    pub truncated: AtomicU64,
    pub invalid_utf8: AtomicU64,
    pub batches: AtomicU64,
    pub events_delivered: AtomicU64,
    pub already_delivered: AtomicU64,
    pub events_failed: AtomicU64,
    pub events_abandoned: AtomicU64,
    pub bytes_raw: AtomicU64,
    pub bytes_compressed: AtomicU64,
    pub requests: AtomicU64,
    pub retries: AtomicU64,
    pub failed_requests: AtomicU64,
    pub splits: AtomicU64,
    pub partial_requests: AtomicU64,
    pub events_spilled: AtomicU64,
    pub events_replayed: AtomicU64,
    pub spill_dropped: AtomicU64,
    pub dead_lettered: AtomicU64,
    pub splunk_ack_polls: AtomicU64,
    pub splunk_ack_poll_failures: AtomicU64,
    pub splunk_ack_resends: AtomicU64,
    // Issue #17 parts 1, 2, 5 (control at the source).
    pub burst_suppressed: AtomicU64,
    pub sampled_out: AtomicU64,
    pub burst_sites_full: AtomicU64,
    pub notices: AtomicU64,
    // Issue 17 parts 3 and 6 (budgets, stall alarm).
    pub budget_dropped_level: AtomicU64,
    pub budget_sampled_out: AtomicU64,
    pub budget_dropped: AtomicU64,
    pub budget_notices: AtomicU64,
    pub stalls: AtomicU64,
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

    pub(crate) fn snapshot(
        &self,
        queue_depth: usize,
        batches_in_flight: usize,
        spill: Option<SpillStats>,
        health: Health,
    ) -> Stats {
        let spill = spill.unwrap_or_default();
        let get = |c: &AtomicU64| c.load(Relaxed);
        Stats {
            enqueued: self.enqueued.get(),
            dropped_queue_full: self.dropped_queue_full.get(),
            dropped_closed: get(&self.dropped_closed),
            truncated: get(&self.truncated),
            invalid_utf8: get(&self.invalid_utf8),
            batches: get(&self.batches),
            events_delivered: get(&self.events_delivered),
            already_delivered: get(&self.already_delivered),
            events_failed: get(&self.events_failed),
            events_abandoned: get(&self.events_abandoned),
            bytes_raw: get(&self.bytes_raw),
            bytes_compressed: get(&self.bytes_compressed),
            requests: get(&self.requests),
            retries: get(&self.retries),
            failed_requests: get(&self.failed_requests),
            splits: get(&self.splits),
            partial_requests: get(&self.partial_requests),
            events_spilled: get(&self.events_spilled),
            events_replayed: get(&self.events_replayed),
            spill_dropped: get(&self.spill_dropped),
            dead_lettered: get(&self.dead_lettered),
            splunk_ack_polls: get(&self.splunk_ack_polls),
            splunk_ack_poll_failures: get(&self.splunk_ack_poll_failures),
            splunk_ack_resends: get(&self.splunk_ack_resends),
            events_awaiting_ack: 0,
            spill_pending: spill.pending_records,
            spill_bytes: spill.bytes,
            spill_corrupt: spill.corrupt_records,
            health,
            queue_depth: queue_depth as u64,
            batches_in_flight: batches_in_flight as u64,
            concurrency_limit: 0,
            concurrency_peak: 0,
            last_error: self.last_error.lock().ok().and_then(|e| e.clone()),
            tls_verify_disabled: false,
            spill_unavailable: None,
            report_write_errors: 0,
            spill_in_flight_copies: 0,
            events_redacted: 0,
            redactions: Default::default(),
            burst_suppressed: get(&self.burst_suppressed),
            sampled_out: get(&self.sampled_out),
            burst_sites_full: get(&self.burst_sites_full),
            notices: get(&self.notices),
            budget_dropped_level: get(&self.budget_dropped_level),
            budget_sampled_out: get(&self.budget_sampled_out),
            budget_dropped: get(&self.budget_dropped),
            budget_notices: get(&self.budget_notices),
            stalls: get(&self.stalls),
        }
    }
}

/// A point-in-time copy of the pipeline's counters.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[non_exhaustive]
pub struct Stats {
    /// Events accepted into the queue.
    pub enqueued: u64,
    /// Events refused because the queue (records or bytes) was full.
    pub dropped_queue_full: u64,
    /// Events refused because the pipeline was already shut down.
    pub dropped_closed: u64,
    /// Events cut to `max_event_bytes` (still shipped, with a marker).
    pub truncated: u64,
    /// Events whose text had invalid UTF-8 replaced by U+FFFD (still shipped, with the
    /// field `logship.invalid_utf8`; see `Record::mark_invalid_utf8`).
    #[serde(default)]
    pub invalid_utf8: u64,
    /// Batches cut (each is sent as one request, or more if split).
    pub batches: u64,
    /// Events the intake acknowledged.
    pub events_delivered: u64,
    /// Of `events_delivered` (and `events_replayed`), the events the intake already held
    /// from an earlier request, so it did not store them twice: Elasticsearch/OpenSearch
    /// answering `409 version_conflict_engine_exception` to the `create` of an event's
    /// `_id` after a replay (a crash, or an answer that never came). Never failed, never
    /// resent.
    #[serde(default)]
    pub already_delivered: u64,
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
    /// Requests the intake accepted only in part: Dynatrace's 200 (its events count as
    /// delivered, none is resent), OTLP's `partialSuccess` (rejected records count as
    /// failed, the rest as delivered, none is resent), or an Elasticsearch `_bulk` answer
    /// with failed items (only those that failed transiently are resent; the others count
    /// as failed).
    pub partial_requests: u64,
    /// Events written to the disk spill, to be replayed later (not lost).
    pub events_spilled: u64,
    /// Spilled events (from this run or an earlier one) delivered by the replayer.
    pub events_replayed: u64,
    /// Spilled events dropped because the spill reached `spill_max_bytes`.
    pub spill_dropped: u64,
    /// Events the intake rejected for good, kept in the spill's `dead/` area.
    pub dead_lettered: u64,
    /// Spilled events waiting on disk right now. Just after start it leaves out what an
    /// earlier run left until the replayer has counted it (in the background, soon after).
    pub spill_pending: u64,
    /// Bytes of spill segments on disk right now.
    pub spill_bytes: u64,
    /// Damaged records found in the spill (skipped, the rest replayed); damage in what an
    /// earlier run left is added when the replayer counts it, soon after start.
    pub spill_corrupt: u64,
    /// How delivery is going.
    pub health: Health,
    /// Events waiting in the queue right now.
    pub queue_depth: u64,
    /// Batches cut and not yet settled right now.
    pub batches_in_flight: u64,
    /// Requests allowed in flight right now (adaptive between 1 and `max_in_flight`, or
    /// `max_in_flight` when adaptive concurrency is off).
    #[serde(default)]
    pub concurrency_limit: u64,
    /// The highest `concurrency_limit` so far.
    #[serde(default)]
    pub concurrency_peak: u64,
    /// The most recent delivery error, if any (never contains a secret).
    pub last_error: Option<String>,
    /// True when `tls_verify = false`: the intake's certificate is not checked
    /// (development only; also warned about at start-up).
    #[serde(default)]
    pub tls_verify_disabled: bool,
    /// Why this pipeline runs without spill although spill is enabled (the spill
    /// directory was held by another process, or could not be written at start-up);
    /// `None` when the spill is in use or turned off.
    #[serde(default)]
    pub spill_unavailable: Option<String>,
    /// Report lines (warnings, errors, the shutdown report) that could not be written to
    /// stderr because it was closed or full: counted, never a crash.
    #[serde(default)]
    pub report_write_errors: u64,
    /// Records of batches still in flight whose insurance copy is on disk right now
    /// (requests out longer than `spill_in_flight_after`): a crash cannot lose them.
    #[serde(default)]
    pub spill_in_flight_copies: u64,
    /// With `splunk_ack`: acknowledgement queries sent to `/services/collector/ack` (each
    /// asks about every batch waiting, up to 1000 ackIds).
    #[serde(default)]
    pub splunk_ack_polls: u64,
    /// With `splunk_ack`: acknowledgement queries that failed (network error, non-200,
    /// an answer not of the documented shape); asked again at the next poll.
    #[serde(default)]
    pub splunk_ack_poll_failures: u64,
    /// With `splunk_ack`: events sent again because their acknowledgement did not come
    /// within `splunk_ack_timeout_ms` (Splunk may then index them twice).
    #[serde(default)]
    pub splunk_ack_resends: u64,
    /// With `splunk_ack`: events Splunk accepted that wait for their acknowledgement right
    /// now (not counted as delivered yet).
    #[serde(default)]
    pub events_awaiting_ack: u64,
    // Issue 17 part 4: redaction.
    /// Events in which redaction replaced or removed something (see `Config::redaction`).
    #[serde(default)]
    pub events_redacted: u64,
    /// Redactions per rule (`field`, `card`, `jwt`, `bearer`, `aws_key_id`, `aws_secret`,
    /// `private_key`, `email`, `regex1`, ...): one per value or text match replaced. Rules
    /// that never matched are left out.
    #[serde(default)]
    pub redactions: std::collections::BTreeMap<String, u64>,
    // Issue #17 parts 1, 2, 5 (control at the source): held back by the user's policy.
    /// Events held back by a burst limit (`burst_limits`): not lost, the user asked for it;
    /// summarised in `logship.notice = "burst_summary"` events.
    #[serde(default)]
    pub burst_suppressed: u64,
    /// Events left out by sampling (`sample_rates`): not lost, the user asked for it.
    #[serde(default)]
    pub sampled_out: u64,
    /// Of the events checked against a burst limit, those whose call site found no free
    /// slot in the table (`burst_sites`) and shared its overflow bucket.
    #[serde(default)]
    pub burst_sites_full: u64,
    /// Synthetic events logship itself put in the stream (burst summaries, drop
    /// notices); not in `enqueued`, but delivered, spilled or counted like the others.
    #[serde(default)]
    pub notices: u64,
    // Issue 17 parts 3 and 6: volume budgets and the stall alarm.
    /// Past a volume budget's cap: TRACE and DEBUG events dropped first (held back by the
    /// user's policy, not lost; see [`Stats::over_budget`]).
    #[serde(default)]
    pub budget_dropped_level: u64,
    /// Past a volume budget's cap: INFO and WARN events not kept by the budget's sampling.
    #[serde(default)]
    pub budget_sampled_out: u64,
    /// Past a volume budget's cap and its overdraft: events of any level dropped.
    #[serde(default)]
    pub budget_dropped: u64,
    /// logship's own budget notices queued (`logship.notice` = `budget_warning` or
    /// `budget_exhausted`); included in `enqueued`, never charged to the budget.
    #[serde(default)]
    pub budget_notices: u64,
    /// Times the stall alarm went off: nothing delivered for `stall_after_ms` while events
    /// kept arriving (health `stalled` until delivery resumes).
    #[serde(default)]
    pub stalls: u64,
}

impl Stats {
    /// All events refused at the log call, whatever the reason.
    pub fn dropped(&self) -> u64 {
        self.dropped_queue_full + self.dropped_closed
    }

    /// Events held back by the user's own policy (burst limits, sampling, volume
    /// budgets): counted, not lost. For every log call: calls = `enqueued` -
    /// `budget_notices` + `dropped()` + `suppressed()`.
    pub fn suppressed(&self) -> u64 {
        self.burst_suppressed + self.sampled_out + self.over_budget()
    }

    /// Events accepted (and synthetic notices added) but not (yet) delivered, spilled or
    /// given up on.
    /// Events held back by a volume budget, by any of its three reasons: the user's
    /// policy, so not counted in [`Stats::lost`], but always counted and reported.
    pub fn over_budget(&self) -> u64 {
        self.budget_dropped_level + self.budget_sampled_out + self.budget_dropped
    }

    /// Events accepted but not (yet) delivered, spilled or given up on.
    pub fn pending(&self) -> u64 {
        (self.enqueued + self.notices).saturating_sub(
            self.events_delivered
                + self.events_failed
                + self.events_abandoned
                + self.events_spilled,
        )
    }

    /// Every event that was logged but will not reach the intake (spilled events are not
    /// lost: they are replayed later, unless the spill's own cap drops them).
    pub fn lost(&self) -> u64 {
        self.dropped() + self.events_failed + self.events_abandoned + self.spill_dropped
    }
}

/// How delivery is going, from the most recent request's outcome.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Health {
    /// Nothing sent yet, or the last request was delivered.
    #[default]
    Healthy,
    /// The last request failed with a transient error: retrying (or spilling).
    Degraded,
    /// The last request was rejected for good (bad key, wrong endpoint): fix the config.
    Failing,
    /// Requests go well, but 80 % or more of a volume budget is spent in its current
    /// window (past 100 % events are shed, see [`Stats::over_budget`]).
    BudgetWarning,
    /// Nothing has been delivered for `stall_after_ms` while events kept arriving (an
    /// intake that hangs, a network that black-holes). Clears when delivery resumes.
    Stalled,
}

impl Health {
    pub(crate) fn from_u8(v: u8) -> Health {
        match v {
            1 => Health::Degraded,
            2 => Health::Failing,
            _ => Health::Healthy,
        }
    }
}

/// Counters and gauges of a spill, for `Logship::stats` and the CLI.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct SpillStats {
    /// Live segments, the one being written included.
    pub segments: u64,
    /// Records on disk not acknowledged yet (handed out or not). Just after start it leaves
    /// out segments of an earlier run until the replayer has counted them (in the background).
    pub pending_records: u64,
    /// Bytes of the live segments.
    pub bytes: u64,
    /// Records appended since open.
    pub written_records: u64,
    /// Records acknowledged since open.
    pub acked_records: u64,
    /// Damaged regions found since open (torn tails and quarantined segments count one);
    /// those in segments of an earlier run are added when the replayer counts them.
    pub corrupt_records: u64,
    /// Records lost to the byte budget since open.
    pub dropped_records: u64,
    /// Segments deleted to make room since open.
    pub dropped_segments: u64,
    /// Records written to `dead/` since open.
    pub dead_letter_records: u64,
    /// Dead letters lost to the dead-letter budget since open.
    pub dead_letter_dropped_records: u64,
}
