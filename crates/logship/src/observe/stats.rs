//! Counters for everything the pipeline does, and the snapshot users read: both generated
//! from one list.
//!
//! Why it exists: a shipper that drops silently is worse than none. Every event the
//! pipeline accepts ends in exactly one counted outcome (delivered, failed, abandoned at
//! shutdown), and every event it refuses is counted by reason. Counters are relaxed
//! atomics: reading them never slows a log call.
//!
//! One fact, one place: the list at the end of this file ([`stats!`]) names every field
//! once, with its doc and its kind, and expands into the live [`Counters`], the public
//! [`Stats`] snapshot (its fields, docs and JSON), the copy from one to the other, the
//! visit that the `metrics` export and [`Stats`]' `Display` walk, and the metric kind of
//! each field. A field added to the list is in all of them. Kinds:
//!
//! - `counter`: a total since start, an atomic the pipeline adds to;
//! - `striped`: the same, written on every log call, so [`Striped`] over cache lines;
//! - `total`: a total since start kept by its owner (the spill, the redaction rules, the
//!   reporter), read when the snapshot is taken;
//! - `level`: a value right now (a gauge), read from its owner when the snapshot is taken;
//! - `state`: a value of another type (the health, a flag, a reason, a count per rule),
//!   read from its owner when the snapshot is taken;
//! - `text`: free text (the last error): shown, never exported as a metric.
//!
//! Must never: lock or allocate on the adding side.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use super::health::Health;
use super::striped::Striped;
use crate::spill::SpillStats;

/// What a visit of the snapshot's fields is told about each (see [`Stats::visit`]).
pub(crate) trait Visit {
    /// A total since start.
    fn total(&mut self, name: &'static str, value: u64);
    /// A value right now.
    fn level(&mut self, name: &'static str, value: u64);
    /// A value of another type.
    fn state(&mut self, name: &'static str, value: &dyn State);
    /// Free text.
    fn text(&mut self, name: &'static str, value: Option<&str>);
}

/// A snapshot field that is neither a count nor text: how it shows and what number it is.
pub(crate) trait State {
    /// Whether it differs from its resting value (shown in the summary).
    fn is_set(&self) -> bool;
    /// As shown in the summary.
    fn show(&self) -> String;
    /// As a gauge: each `(label, value)`; a label of `None` is the field itself.
    #[cfg_attr(not(feature = "metrics"), allow(dead_code))]
    fn numbers(&self) -> Vec<(Option<&str>, f64)>;
    /// Whether its numbers are totals (counters) rather than levels (gauges).
    #[cfg_attr(not(feature = "metrics"), allow(dead_code))]
    fn is_total(&self) -> bool {
        false
    }
}

impl State for Health {
    fn is_set(&self) -> bool {
        true
    }
    fn show(&self) -> String {
        match self {
            Health::Healthy => "healthy",
            Health::Degraded => "degraded",
            Health::Failing => "failing",
            Health::BudgetWarning => "budget warning",
            Health::Stalled => "stalled",
        }
        .to_owned()
    }
    fn numbers(&self) -> Vec<(Option<&str>, f64)> {
        let code = match self {
            Health::Healthy => 0.0,
            Health::Degraded => 1.0,
            Health::Failing => 2.0,
            Health::BudgetWarning => 3.0,
            Health::Stalled => 4.0,
        };
        vec![(None, code)]
    }
}

impl State for bool {
    fn is_set(&self) -> bool {
        *self
    }
    fn show(&self) -> String {
        self.to_string()
    }
    fn numbers(&self) -> Vec<(Option<&str>, f64)> {
        vec![(None, if *self { 1.0 } else { 0.0 })]
    }
}

/// A reason, when there is one: 1 with a reason, 0 without.
impl State for Option<String> {
    fn is_set(&self) -> bool {
        self.is_some()
    }
    fn show(&self) -> String {
        self.clone().unwrap_or_default()
    }
    fn numbers(&self) -> Vec<(Option<&str>, f64)> {
        vec![(None, if self.is_some() { 1.0 } else { 0.0 })]
    }
}

/// A count per name (per redaction rule): one labelled total each.
impl State for BTreeMap<String, u64> {
    fn is_set(&self) -> bool {
        self.values().any(|n| *n > 0)
    }
    fn show(&self) -> String {
        let parts: Vec<String> = self.iter().map(|(k, n)| format!("{k} {n}")).collect();
        parts.join(", ")
    }
    fn numbers(&self) -> Vec<(Option<&str>, f64)> {
        self.iter()
            .map(|(k, n)| (Some(k.as_str()), *n as f64))
            .collect()
    }
    fn is_total(&self) -> bool {
        true
    }
}

/// The `Counters` struct: a live cell for each `counter` and `striped` field of the list,
/// and the last error.
macro_rules! counters_struct {
    (@acc [$($out:tt)*]) => {
        /// Live counters, shared by the caller path and the worker threads.
        ///
        /// The counters every log call writes are [`Striped`]: one atomic written from
        /// every core on every call would pass its cache line between the cores.
        #[derive(Default, Debug)]
        pub(crate) struct Counters {
            $($out)*
            pub last_error: Mutex<Option<String>>,
        }
    };
    (@acc [$($out:tt)*] counter $name:ident; $($rest:tt)*) => {
        counters_struct!(@acc [$($out)* pub $name: AtomicU64,] $($rest)*);
    };
    (@acc [$($out:tt)*] striped $name:ident; $($rest:tt)*) => {
        counters_struct!(@acc [$($out)* pub $name: Striped,] $($rest)*);
    };
    (@acc [$($out:tt)*] $other:ident $name:ident; $($rest:tt)*) => {
        counters_struct!(@acc [$($out)*] $($rest)*);
    };
}

/// The names of the `level` fields of the list.
macro_rules! level_names {
    (@acc [$($out:tt)*]) => {
        /// The snapshot's fields that are levels right now (gauges) rather than totals.
        #[cfg_attr(not(feature = "metrics"), allow(dead_code))]
        pub(crate) const LEVELS: &[&str] = &[$($out)*];
    };
    (@acc [$($out:tt)*] level $name:ident; $($rest:tt)*) => {
        level_names!(@acc [$($out)* stringify!($name),] $($rest)*);
    };
    (@acc [$($out:tt)*] $other:ident $name:ident; $($rest:tt)*) => {
        level_names!(@acc [$($out)*] $($rest)*);
    };
}

/// One field's value in a fresh snapshot: counted ones are read, the others start at
/// their default and are filled in by their owner.
macro_rules! read_field {
    (counter, $c:ident, $name:ident) => {
        $c.$name.load(Relaxed)
    };
    (striped, $c:ident, $name:ident) => {
        $c.$name.get()
    };
    ($other:ident, $c:ident, $name:ident) => {
        Default::default()
    };
}

/// One field told to a visitor, by kind.
macro_rules! visit_field {
    (counter, $v:ident, $s:ident, $name:ident) => {
        $v.total(stringify!($name), $s.$name)
    };
    (striped, $v:ident, $s:ident, $name:ident) => {
        $v.total(stringify!($name), $s.$name)
    };
    (total, $v:ident, $s:ident, $name:ident) => {
        $v.total(stringify!($name), $s.$name)
    };
    (level, $v:ident, $s:ident, $name:ident) => {
        $v.level(stringify!($name), $s.$name)
    };
    (state, $v:ident, $s:ident, $name:ident) => {
        $v.state(stringify!($name), &$s.$name)
    };
    (text, $v:ident, $s:ident, $name:ident) => {
        $v.text(stringify!($name), $s.$name.as_deref())
    };
}

/// Expands the one list of counters (see the module doc) into everything that follows
/// from it.
macro_rules! stats {
    ($(
        $(#[$attr:meta])*
        $kind:ident $name:ident: $ty:ty;
    )*) => {
        counters_struct!(@acc [] $($kind $name;)*);
        level_names!(@acc [] $($kind $name;)*);

        /// A point-in-time copy of the pipeline's counters.
        ///
        /// Its JSON form (serde) uses the field names; its `Display` is a readable summary,
        /// one line per field that is not zero (the health always).
        #[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
        #[serde(default)]
        #[non_exhaustive]
        pub struct Stats {
            $(
                $(#[$attr])*
                pub $name: $ty,
            )*
        }

        impl Counters {
            /// The counted fields, read now; the others at their default.
            fn counted(&self) -> Stats {
                let c = self;
                Stats {
                    $($name: read_field!($kind, c, $name),)*
                }
            }
        }

        impl Stats {
            /// Tells `visitor` about every field, in the list's order, by kind.
            pub(crate) fn visit(&self, visitor: &mut impl Visit) {
                let s = self;
                $(visit_field!($kind, visitor, s, $name);)*
            }
        }
    };
}

stats! {
    /// Events accepted into the queue.
    striped enqueued: u64;
    /// Events refused because the queue (records or bytes) was full.
    striped dropped_queue_full: u64;
    /// Refusals of a full queue handed back to a caller that keeps the event
    /// ([`Logship::offer`](crate::Logship::offer): a followed file's line, a TCP
    /// connection's event, an HTTP request answered 503, a message a consumer holds) and
    /// offers it again: not a loss, so neither in `dropped_queue_full` nor in
    /// [`Stats::lost`]. One event refused several times counts each time.
    counter queue_full_returned: u64;
    /// Records [`Logship::offer`](crate::Logship::offer) handed back because the pipeline
    /// had already shut down: the caller keeps them (a followed line read again by the
    /// next run, a request answered 503, a message left uncommitted), so they are not lost
    /// and not in `dropped_closed`.
    counter closed_returned: u64;
    /// Events refused because the pipeline was already shut down.
    counter dropped_closed: u64;
    /// Events refused because one alone is larger than `queue_max_bytes` (it could never
    /// fit; the queue was not full).
    counter dropped_too_large: u64;
    /// Events cut to `max_event_bytes` (still shipped, with a marker).
    counter truncated: u64;
    /// Events whose text had invalid UTF-8 replaced by U+FFFD (still shipped, with the
    /// field `logship.invalid_utf8`; see `Record::mark_invalid_utf8`).
    counter invalid_utf8: u64;
    /// Batches cut (each is sent as one request, or more if split).
    counter batches: u64;
    /// Events the intake acknowledged.
    counter events_delivered: u64;
    /// Of `events_delivered` (and `events_replayed`), the events the intake already held
    /// from an earlier request, so it did not store them twice: an intake that keys
    /// documents by the event's id answering `409` to a second copy after a replay (a
    /// crash, or an answer that never came). Never failed, never resent.
    counter already_delivered: u64;
    /// Events given up on: rejected permanently by the intake, or retries exhausted.
    counter events_failed: u64;
    /// Events still queued or in flight when the shutdown timeout ran out.
    counter events_abandoned: u64;
    /// Uncompressed body bytes of delivered requests.
    counter bytes_raw: u64;
    /// Body bytes on the wire of delivered requests (compressed when gzip is on).
    counter bytes_compressed: u64;
    /// HTTP requests attempted (including retries).
    counter requests: u64;
    /// Requests that were retries of an earlier attempt.
    counter retries: u64;
    /// Requests that did not end in a 2xx (network errors included).
    counter failed_requests: u64;
    /// Times a batch was split in two because the intake said it was too large.
    counter splits: u64;
    /// Times a vendor's own client (not HTTP: a message broker's producer) hit an error it
    /// cannot recover from and was replaced by a new one; its unsettled events were sent
    /// again (or spilled), not lost.
    counter client_rebuilds: u64;
    /// Requests the intake accepted only in part: a partial success (its events count as
    /// delivered, none is resent), a count of rejected records (those count as failed, the
    /// rest as delivered, none is resent), or a per-item answer with failed items (only
    /// those that failed transiently are resent; the others count as failed).
    counter partial_requests: u64;
    /// Events written to the disk spill, to be replayed later (not lost).
    counter events_spilled: u64;
    /// Spilled events (from this run or an earlier one) delivered by the replayer.
    counter events_replayed: u64;
    /// Spilled events dropped because the spill reached `spill_max_bytes`.
    counter spill_dropped: u64;
    /// Events the intake rejected for good, kept in the spill's `dead/` area.
    counter dead_lettered: u64;
    /// Spilled events waiting on disk right now. Just after start it leaves out what an
    /// earlier run left until the replayer has counted it (in the background, soon after).
    level spill_pending: u64;
    /// Bytes of spill segments on disk right now.
    level spill_bytes: u64;
    /// Damaged records found in the spill (skipped, the rest replayed); damage in what an
    /// earlier run left is added when the replayer counts it, soon after start.
    total spill_corrupt: u64;
    /// How delivery is going.
    state health: Health;
    /// Events waiting in the queue right now.
    level queue_depth: u64;
    /// Batches cut and not yet settled right now.
    level batches_in_flight: u64;
    /// Requests allowed in flight right now (adaptive between 1 and `max_in_flight`, or
    /// `max_in_flight` when adaptive concurrency is off).
    level concurrency_limit: u64;
    /// The highest `concurrency_limit` so far.
    level concurrency_peak: u64;
    /// The most recent delivery error, if any (never contains a secret).
    text last_error: Option<String>;
    /// True when `tls_verify = false`: the intake's certificate is not checked
    /// (development only; also warned about at start-up).
    state tls_verify_disabled: bool;
    /// Why this pipeline runs without spill although spill is enabled (the spill
    /// directory was held by another process, or could not be written at start-up);
    /// `None` when the spill is in use or turned off.
    state spill_unavailable: Option<String>;
    /// Report lines (warnings, errors, the shutdown report) that could not be written to
    /// stderr because it was closed or full: counted, never a crash.
    total report_write_errors: u64;
    /// Records of batches still in flight whose insurance copy is on disk right now
    /// (requests out longer than `spill_in_flight_after`): a crash cannot lose them.
    level spill_in_flight_copies: u64;
    /// With acknowledgements on (an intake that confirms storage after it accepted a
    /// request; a vendor option turns them on): acknowledgement queries sent (each asks
    /// about every batch waiting, up to the intake's limit of ids per query).
    counter ack_polls: u64;
    /// With acknowledgements on: queries that failed (network error, non-200, an answer
    /// not of the documented shape); asked again at the next poll.
    counter ack_poll_failures: u64;
    /// With acknowledgements on: events sent again because their acknowledgement did not
    /// come in time (the intake may then store them twice).
    counter ack_resends: u64;
    /// With acknowledgements on: events the intake accepted that wait for their
    /// acknowledgement right now (not counted as delivered yet).
    level events_awaiting_ack: u64;
    /// Events in which redaction replaced or removed something (see `Config::redaction`).
    total events_redacted: u64;
    /// Redactions per rule (`field`, `card`, `jwt`, `bearer`, `aws_key_id`, `aws_secret`,
    /// `private_key`, `email`, `regex1`, ...): one per value or text match replaced. Rules
    /// that never matched are left out.
    state redactions: BTreeMap<String, u64>;
    /// Events held back by a burst limit (`burst_limits`): not lost, the user asked for it;
    /// summarised in `logship.notice = "burst_summary"` events.
    counter burst_suppressed: u64;
    /// Events left out by sampling (`sample_rates`): not lost, the user asked for it.
    counter sampled_out: u64;
    /// Of the events checked against a burst limit, those whose call site found no free
    /// slot in the table (`burst_sites`) and shared its overflow bucket.
    counter burst_sites_full: u64;
    /// Synthetic events logship itself put in the stream (burst summaries, drop
    /// notices); not in `enqueued`, but delivered, spilled or counted like the others.
    counter notices: u64;
    /// Past a volume budget's cap: TRACE and DEBUG events dropped first (held back by the
    /// user's policy, not lost; see [`Stats::over_budget`]).
    counter budget_dropped_level: u64;
    /// Past a volume budget's cap: INFO and WARN events not kept by the budget's sampling.
    counter budget_sampled_out: u64;
    /// Past a volume budget's cap and its overdraft: events of any level dropped.
    counter budget_dropped: u64;
    /// logship's own budget notices queued (`logship.notice` = `budget_warning` or
    /// `budget_exhausted`); included in `enqueued`, never charged to the budget.
    counter budget_notices: u64;
    /// Times the stall alarm went off: nothing delivered for `stall_after_ms` while events
    /// kept arriving (health `stalled` until delivery resumes).
    counter stalls: u64;
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

    /// The counters now, with the levels the caller knows: the queue's depth, the batches
    /// in flight, the spill's own figures and the health. The pipeline's handle fills in
    /// the rest (see `Logship::stats`).
    pub(crate) fn snapshot(
        &self,
        queue_depth: usize,
        batches_in_flight: usize,
        spill: Option<SpillStats>,
        health: Health,
    ) -> Stats {
        let spill = spill.unwrap_or_default();
        Stats {
            spill_pending: spill.pending_records,
            spill_bytes: spill.bytes,
            spill_corrupt: spill.corrupt_records,
            health,
            queue_depth: queue_depth as u64,
            batches_in_flight: batches_in_flight as u64,
            last_error: self.last_error.lock().ok().and_then(|e| e.clone()),
            ..self.counted()
        }
    }
}

impl Stats {
    /// All events refused at the log call, whatever the reason.
    pub fn dropped(&self) -> u64 {
        self.dropped_queue_full + self.dropped_closed + self.dropped_too_large
    }

    /// Events held back by the user's own policy (burst limits, sampling, volume
    /// budgets): counted, not lost. For every log call: calls = `enqueued` -
    /// `budget_notices` + `dropped()` + `suppressed()` + `queue_full_returned` +
    /// `closed_returned`.
    pub fn suppressed(&self) -> u64 {
        self.burst_suppressed + self.sampled_out + self.over_budget()
    }

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

/// One line per field that is not zero, in the list's order (the health always):
/// `events_delivered: 1200`.
impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        struct Lines(Vec<String>);
        impl Visit for Lines {
            fn total(&mut self, name: &'static str, value: u64) {
                self.level(name, value);
            }
            fn level(&mut self, name: &'static str, value: u64) {
                if value != 0 {
                    self.0.push(format!("{name}: {value}"));
                }
            }
            fn state(&mut self, name: &'static str, value: &dyn State) {
                if value.is_set() {
                    self.0.push(format!("{name}: {}", value.show()));
                }
            }
            fn text(&mut self, name: &'static str, value: Option<&str>) {
                if let Some(text) = value {
                    self.0.push(format!("{name}: {text}"));
                }
            }
        }
        let mut lines = Lines(Vec::new());
        self.visit(&mut lines);
        f.write_str(&lines.0.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_shows_every_field_that_is_not_zero_and_the_health() {
        let stats = Stats {
            enqueued: 3,
            events_delivered: 2,
            last_error: Some("the intake answered 503".into()),
            redactions: [("card".to_owned(), 4)].into_iter().collect(),
            ..Stats::default()
        };
        assert_eq!(
            stats.to_string(),
            "enqueued: 3\nevents_delivered: 2\nhealth: healthy\nlast_error: the intake answered 503\nredactions: card 4"
        );
    }

    #[test]
    fn counted_fields_are_read_and_written_to_json_under_their_names() {
        let c = Counters::default();
        c.enqueued.add(5);
        Counters::add(&c.ack_polls, 2);
        let stats = c.snapshot(1, 0, None, Health::Degraded);
        assert_eq!(
            (stats.enqueued, stats.ack_polls, stats.queue_depth),
            (5, 2, 1)
        );
        let json = serde_json::to_value(&stats).unwrap();
        assert_eq!(json["ack_polls"], 2);
        assert_eq!(json["health"], "degraded");
        let back: Stats = serde_json::from_value(json).unwrap();
        assert_eq!(back, stats);
        assert_eq!(
            LEVELS,
            [
                "spill_pending",
                "spill_bytes",
                "queue_depth",
                "batches_in_flight",
                "concurrency_limit",
                "concurrency_peak",
                "spill_in_flight_copies",
                "events_awaiting_ack"
            ]
        );
    }
}
