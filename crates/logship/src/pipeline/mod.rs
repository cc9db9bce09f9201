//! The assembly: the builder, the cloneable handle, the guard, and the state the
//! pipeline's threads share.
//!
//! Why it exists: users need one obvious way to start shipping and one obvious way to stop
//! without losing what is queued. [`Builder::build`] validates everything and starts the
//! threads (`start`); [`Logship`] is a cheap handle for log calls (through admission and
//! the queue), `flush`, `shutdown` and `stats`; [`Guard`] flushes on drop within a
//! bounded time, so a program that returns from `main` does not lose its last logs, and
//! one whose intake is down still exits on time. `shared` is what every thread of one
//! pipeline shares, `tracker` which batches have not settled yet.
//!
//! Must never: block a log call on I/O, or let `flush` or `shutdown` wait past their
//! bound.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crossbeam_channel::Sender;

use crate::admit::control::{Site, Verdict};
use crate::batch::thread::Command;
use crate::capture::record::{Level, Record};
use crate::config::Overflow;
use crate::deliver::acks::Acks;
use crate::deliver::job::Job;
use crate::deliver::pool::Pool;
use crate::deliver::settle;
use crate::error::FlushTimeout;
use crate::observe::stats::{Counters, Stats};
use crate::queue::{Offered, Queue, Rejected};
use crate::spill::handover;
use shared::Shared;

mod builder;
pub(crate) mod shared;
mod start;
pub(crate) mod tracker;

pub use builder::Builder;

/// Printed once per pipeline when an event is logged after it was shut down: most often the
/// guard was dropped at once (`let (layer, _) = ...` drops it; `_guard` keeps it).
const CLOSED_NOTICE: &str = "warning: an event was logged after this pipeline shut down (its Guard was dropped, or shutdown was called); it and any later ones are not shipped and are counted as dropped_closed. Keep the guard alive as long as the program logs: `let (layer, _guard) = ...`, not `let (layer, _) = ...`";

/// The longest one call of [`Logship::push_with`] or [`Logship::offer`] waits for room (as
/// `block_timeout_ms`).
const MAX_BLOCK: Duration = Duration::from_secs(60);

/// Longest a panic waits for a pipeline's queued events to be delivered (see
/// `panic_hook`).
const PANIC_FLUSH_TIMEOUT: Duration = Duration::from_secs(2);

/// A running pipeline. Clone it freely: all clones feed the same queue.
#[derive(Clone)]
pub struct Logship {
    inner: Arc<Inner>,
}

struct Inner {
    queue: Queue,
    commands: Sender<Command>,
    shared: Arc<Shared>,
    /// The senders' concurrency limit (for stats, and to wake waiters at shutdown).
    pool: Arc<Pool>,
    /// Batches waiting for the intake's acknowledgement, when it confirms storage later.
    acks: Option<Arc<Acks>>,
    shutdown_timeout: Duration,
    report: OnceLock<ShutdownReport>,
    shutting_down: Mutex<()>,
    /// The senders' hand-off channel, so that shutdown can settle batches no sender took
    /// before the spill is closed.
    jobs: crossbeam_channel::Receiver<Job>,
    /// `tls_verify = false` (shown in every stats snapshot).
    tls_verify_disabled: bool,
}

impl std::fmt::Debug for Logship {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Logship")
            .field("stats", &self.stats())
            .finish()
    }
}

/// What `shutdown` achieved.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ShutdownReport {
    /// True when every accepted event was delivered: none dropped, failed, or left on disk.
    pub complete: bool,
    /// The counters at the end.
    pub stats: Stats,
    /// How long shutdown took.
    pub elapsed: Duration,
}

impl Logship {
    /// Starts configuring a pipeline.
    pub fn builder() -> Builder {
        Builder::default()
    }

    /// Hands a record to the pipeline. Never performs I/O and never blocks an accepted
    /// record (unless the opt-in `Block` overflow policy is configured); a refused record
    /// is counted. Under overload, a thread whose records have been refused without a
    /// break for 200 µs waits until the queue has room, at most 50 ms (only while the
    /// queue keeps draining, never when it is stuck): this is what lets the pipeline keep
    /// delivering when many threads log flat out (docs/performance.md).
    ///
    /// With burst limits or sampling configured, a record handed over here is checked
    /// first: its call site is its target (logger name) and level, so give each source its
    /// own target; one held back returns `Err(Rejected::Suppressed)` (counted in
    /// `Stats::suppressed`, not lost).
    pub fn push(&self, record: Record) -> Result<(), Rejected> {
        self.push_checked(record, true)
    }

    /// [`Logship::push`] for a caller that must never wait beyond the configured overflow
    /// policy: under the default `DropNewest`, a full queue refuses the record at once
    /// (counted in `dropped_queue_full`), and a thread refused without a break never backs
    /// off; under `Block(d)` it waits at most `d`, as `push` does. For integrations whose
    /// contract is a non-blocking enqueue (the JVM's Log4j2 and Logback appenders, like
    /// Log4j2's `AsyncAppender blocking="false"` and Logback's `neverBlock`): their
    /// callers are the application's own threads, which must not be slowed by logging.
    /// The price, measured (docs/performance.md): with many threads logging flat out on
    /// few cores, fewer events are delivered than with `push`'s back-off.
    pub fn push_at_once(&self, record: Record) -> Result<(), Rejected> {
        self.push_checked(record, false)
    }

    /// `push` and `push_at_once`: closed, then admission, then the queue with the
    /// pipeline's policy (`back_off` as `Queue::push_with`).
    fn push_checked(&self, mut record: Record, back_off: bool) -> Result<(), Rejected> {
        if let Some(rejected) = self.refuse_closed() {
            return Err(rejected);
        }
        if !self.admit_once(&mut record) {
            return Err(Rejected::Suppressed);
        }
        self.push_queue(record, None, back_off)
    }

    /// Refuses (and counts in `dropped_queue_full`) a call while the queue is known to be
    /// full, before the caller builds its record, without backing off: the cheap refusal
    /// of [`Logship::push_at_once`]'s callers. Only under `DropNewest`; never after
    /// shutdown (the record then goes on to be refused and counted as closed). True when
    /// the call was refused.
    #[inline]
    pub fn shed_at_once(&self) -> bool {
        self.shed_with(false)
    }

    /// [`Logship::push`] with this call's own overflow policy in place of the pipeline's:
    /// `Overflow::DropNewest` never waits (a listener answers `503` and the client sends
    /// again), `Overflow::Block(d)` waits at most `d` (at most 60 s, the builder's limit) for room.
    /// A refusal is counted in `Stats` like any other; a caller that keeps a refused record
    /// and offers it again uses [`Logship::offer`] instead, which gives it back uncounted
    /// as a drop.
    pub fn push_with(&self, mut record: Record, overflow: Overflow) -> Result<(), Rejected> {
        if let Some(rejected) = self.refuse_closed() {
            return Err(rejected);
        }
        if !self.admit_once(&mut record) {
            return Err(Rejected::Suppressed);
        }
        let overflow = match overflow {
            Overflow::Block(d) => Overflow::Block(d.min(MAX_BLOCK)),
            drop => drop,
        };
        self.push_queue(record, Some(overflow), true)
    }

    /// Hands a record to the pipeline for a caller that keeps what a full queue refuses
    /// and offers it again later (a followed file, a TCP connection, a consumer holding a
    /// message, a listener whose client sends again). Waits at most `wait` for room (at
    /// most 60 s; `Duration::ZERO` never waits); when the queue stays full, the record
    /// comes back as `Err(Offered::Full(record))`, counted in `Stats::queue_full_returned`
    /// and not as a drop: nothing is lost while the caller holds it. The refusal neither
    /// marks the queue full for other callers nor makes this thread back off.
    ///
    /// After shutdown the record comes back as `Err(Offered::Closed(record))`, counted in
    /// `Stats::closed_returned` and not as a drop either: the caller decides whether it is
    /// kept (and for whom) or lost, and counts that loss itself.
    ///
    /// Every other outcome is [`Logship::push_with`]'s, counted as it counts them, in
    /// `Err(Offered::Refused(_))`: `Suppressed` (burst limits and sampling decide once per
    /// record: one handed back as `Full` and offered again is not charged a second
    /// time), `OverBudget`, `TooLarge` (the volume budget is charged only for a record
    /// the queue takes).
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use logship::{Logship, Offered, Record};
    /// # fn keep_offering(logship: &Logship, mut record: Record) {
    /// loop {
    ///     match logship.offer(record, Duration::from_millis(250)) {
    ///         Err(Offered::Full(back)) => record = back, // still ours: offer it again
    ///         _ => return,                               // taken, or refused and counted
    ///     }
    /// }
    /// # }
    /// ```
    pub fn offer(&self, mut record: Record, wait: Duration) -> Result<(), Offered> {
        let shared = &self.inner.shared;
        if shared.closed.load(Ordering::Acquire) {
            Counters::add(&shared.counters.closed_returned, 1);
            return Err(Offered::Closed(record));
        }
        if !self.admit_once(&mut record) {
            return Err(Rejected::Suppressed.into());
        }
        let wait = wait.min(MAX_BLOCK);
        self.enqueue(record, |r| {
            self.inner
                .queue
                .offer(&shared.memory, &shared.counters, r, wait)
        })
    }

    /// Pushes a record of an integration that [`Logship::admit`] let through before it
    /// was built: only the part of sampling that needs the record (its trace id) is left.
    pub(crate) fn push_admitted(&self, record: Record) -> Result<(), Rejected> {
        if let Some(rejected) = self.refuse_closed() {
            return Err(rejected);
        }
        let shared = &self.inner.shared;
        if !shared.control.admit_built(&record, &shared.counters) {
            return Err(Rejected::Suppressed);
        }
        self.push_queue(record, None, true)
    }

    /// The burst limits and sampling, once per record: a record offered again after the
    /// queue handed it back (`Offered::Full`) was charged then, and is not charged (or
    /// sampled) again. True when it goes on.
    fn admit_once(&self, record: &mut Record) -> bool {
        if record.admitted() {
            return true;
        }
        let shared = &self.inner.shared;
        if shared.control.admit_record(record, &shared.counters) != Verdict::Keep {
            return false;
        }
        record.mark_admitted();
        true
    }

    /// Counts (and tells once) a call after shutdown began.
    fn refuse_closed(&self) -> Option<Rejected> {
        let shared = &self.inner.shared;
        if shared.closed.load(Ordering::Acquire) {
            Counters::add(&shared.counters.dropped_closed, 1);
            if !shared.told_closed.swap(true, Ordering::AcqRel) {
                shared.reporter.notice(CLOSED_NOTICE);
            }
            return Some(Rejected::Closed);
        }
        None
    }

    /// The caller-side decision of the burst limits and sampling, before an integration
    /// builds its record (see `control::Control::admit`). True when the event goes.
    #[inline]
    pub(crate) fn admit<'a>(&self, level: Level, site: impl FnOnce() -> Site<'a>) -> bool {
        let shared = &self.inner.shared;
        shared.control.admit(level, site, &shared.counters)
    }

    /// Hands an admitted record to the queue (the pipeline's policy, or `overflow`);
    /// `back_off` false for [`Logship::push_at_once`].
    fn push_queue(
        &self,
        record: Record,
        overflow: Option<Overflow>,
        back_off: bool,
    ) -> Result<(), Rejected> {
        let shared = &self.inner.shared;
        self.enqueue(record, |r| {
            self.inner
                .queue
                .push_with(&shared.memory, &shared.counters, r, overflow, back_off)
        })
    }

    /// Hands an admitted record to the queue with `push`, through the volume budget when
    /// one is set (a record the queue then refuses is refunded, so the budget's count
    /// stays exact).
    fn enqueue<E: From<Rejected>>(
        &self,
        record: Record,
        push: impl FnOnce(Record) -> Result<(), E>,
    ) -> Result<(), E> {
        let shared = &self.inner.shared;
        let Some(budget) = &shared.budget else {
            return push(record);
        };
        let bytes = record.size() as u64;
        let level = record.level();
        if !budget.admit(level, bytes, &shared.counters) {
            return Err(Rejected::OverBudget.into());
        }
        let pushed = push(record);
        if pushed.is_err() {
            budget.refund(level, bytes);
        }
        if budget.has_notices() {
            self.ship_notices();
        }
        pushed
    }

    /// Queues the budget's waiting notices, as far as there is room (the rest wait).
    pub(crate) fn ship_notices(&self) {
        let shared = &self.inner.shared;
        if let Some(budget) = &shared.budget {
            budget.ship_notices(&|r| {
                self.inner.queue.push_notice(
                    &shared.memory,
                    &shared.counters,
                    &shared.counters.budget_notices,
                    r,
                )
            });
        }
    }

    /// Refuses (and counts) a log call while the queue is known to be full, before the
    /// integration builds its record; see `Queue::shed`. True when the call was refused.
    #[inline]
    pub(crate) fn shed(&self) -> bool {
        self.shed_with(true)
    }

    /// `shed` and `shed_at_once` (`back_off` as `Queue::shed`).
    #[inline]
    fn shed_with(&self, back_off: bool) -> bool {
        let shared = &self.inner.shared;
        !shared.closed.load(Ordering::Relaxed)
            && self
                .inner
                .queue
                .shed(&shared.memory, &shared.counters, back_off)
    }

    /// A snapshot of the counters.
    pub fn stats(&self) -> Stats {
        let shared = &self.inner.shared;
        let mut stats = shared.counters.snapshot(
            self.inner.queue.len(),
            shared.tracker.in_flight(),
            shared.spill.as_ref().map(|s| s.stats()),
            shared.health(),
        );
        stats.spill_unavailable = shared.spill_unavailable.clone();
        stats.report_write_errors = shared.reporter.write_failures();
        stats.spill_in_flight_copies = self.inner.pool.copied_records();
        let concurrency = &self.inner.pool.concurrency;
        stats.concurrency_limit = concurrency.limit() as u64;
        stats.concurrency_peak = concurrency.peak() as u64;
        stats.tls_verify_disabled = self.inner.tls_verify_disabled;
        if let Some(r) = &shared.redaction {
            stats.events_redacted = r.events();
            stats.redactions = r.counts();
        }
        if let Some(acks) = &self.inner.acks {
            stats.events_awaiting_ack = acks.awaiting_records();
        }
        stats
    }

    /// Sends everything queued before this call and waits until it is settled (delivered
    /// or given up on), at most `timeout`. Log calls may continue meanwhile.
    pub fn flush(&self, timeout: Duration) -> Result<(), FlushTimeout> {
        let deadline = Instant::now() + timeout;
        if let Some(acks) = &self.inner.acks {
            acks.hurry(deadline); // acknowledgements are asked for at a short period
        }
        let timed_out = || FlushTimeout {
            timeout,
            pending: self.stats().pending(),
        };
        let (reply_tx, reply_rx) = crossbeam_channel::bounded(1);
        if self.inner.commands.send(Command::Flush(reply_tx)).is_err() {
            // The batcher has stopped (after shutdown): wait for what is still out.
            let ok = self
                .inner
                .shared
                .tracker
                .wait_until(deadline, |s| s.idle_and_done());
            return if ok { Ok(()) } else { Err(timed_out()) };
        }
        let seq = match reply_rx.recv_deadline(deadline) {
            Ok(seq) => seq,
            Err(_) => return Err(timed_out()),
        };
        if self
            .inner
            .shared
            .tracker
            .wait_until(deadline, |s| s.settled_through(seq))
        {
            Ok(())
        } else {
            Err(timed_out())
        }
    }

    /// Stops accepting events, delivers what is queued within `timeout`, and reports on
    /// stderr anything that was dropped or not delivered. Later calls return the first
    /// call's report at once. Never hangs: when time runs out, in-flight retries stop and
    /// what is left is counted as abandoned.
    pub fn shutdown(&self, timeout: Duration) -> ShutdownReport {
        let _one_at_a_time = self.inner.shutting_down.lock();
        if let Some(report) = self.inner.report.get() {
            return report.clone();
        }
        let started = Instant::now();
        let deadline = started + timeout;
        let shared = &self.inner.shared;
        shared.closed.store(true, Ordering::Release);
        if let Some(budget) = &shared.budget {
            budget.save(&shared.reporter);
        }
        self.inner.pool.wake_watch();
        let _ = self.inner.commands.send(Command::Shutdown);
        if let Some(spill) = &shared.spill {
            spill.wake(); // the replayer stops: shutdown began
        }
        // `cut_short` (a second signal) ends the wait at once.
        shared
            .tracker
            .wait_until(deadline, |s| s.idle_and_done() || shared.abort.is_raised());
        let finished = shared
            .tracker
            .wait_until(Instant::now(), |s| s.idle_and_done());
        if !finished {
            shared.abort.raise();
            self.inner.pool.concurrency.wake_all();
            // Settling what is left takes microseconds (milliseconds when it is written to
            // the spill); in-flight requests are not waited for (their threads finish on
            // their own, bounded by the request timeout).
            let grace = if shared.spill.is_some() { 500 } else { 50 };
            let grace = Instant::now() + Duration::from_millis(grace);
            // Batches waiting for a sender that is stuck in a request would otherwise be
            // settled only when it returns, after the spill is closed: settle them here
            // (spilled, or counted as abandoned), before and after the batcher stops (it
            // may hand one more over while this drains).
            let drain = || {
                while let Ok(job) = self.inner.jobs.try_recv() {
                    settle::abandon(shared, job);
                }
            };
            drain();
            shared.tracker.wait_until(grace, |s| s.batcher_done);
            drain();
            shared.tracker.wait_until(grace, |s| s.idle_and_done());
            // Batches whose request is still out (an intake that accepted it and never
            // answers) are spilled now, or counted as abandoned: never left uncounted. If
            // the request succeeds after all, the event may arrive twice (at-least-once).
            for stuck in self.inner.pool.take_in_flight() {
                settle::stuck(shared, stuck);
            }
        }
        if let Some(spill) = &shared.spill {
            // A replay batch the intake is answering now is acknowledged on disk before
            // the spill closes; otherwise every later run would send it again. Bounded by
            // the shutdown's deadline (a short grace once that has passed).
            let grace = Instant::now() + Duration::from_millis(500);
            spill.wait_replay_settled(deadline.max(grace));
            // What was spilled is durable and replayable, and the directory is released
            // for the next pipeline even if a request of this one is still in flight
            // (unless a pipeline it was handed over to still uses it).
            handover::release(spill);
        }
        let stats = self.stats();
        let report = ShutdownReport {
            complete: finished
                && stats.lost() == 0
                && stats.pending() == 0
                && stats.events_spilled == 0,
            stats,
            elapsed: started.elapsed(),
        };
        // Events the volume budget held back are the user's policy, not a loss, but
        // they are said too.
        if !report.complete || report.stats.over_budget() > 0 {
            shared.reporter.notice(&describe_loss(&report));
        }
        let _ = self.inner.report.set(report.clone());
        report
    }

    /// Ends a shutdown in progress (or the next one) at once, as a second SIGTERM or
    /// Ctrl-C should: retries stop, requests in flight are no longer waited for, and what
    /// was not delivered is spilled (or counted as abandoned without spill). Returns at
    /// once; the `shutdown` call returns its report shortly after.
    pub fn cut_short(&self) {
        let shared = &self.inner.shared;
        shared.abort.raise();
        self.inner.pool.concurrency.wake_all();
        self.inner.pool.wake_watch();
        shared.tracker.poke();
    }

    /// Waits until every spilled event (from this run or an earlier one) has been
    /// replayed, at most `timeout`; returns whether the spill is empty. True at once when
    /// spill is off. The replayer works only while the intake accepts requests. Returns
    /// early (false) once [`Logship::cut_short`] was called.
    pub fn wait_spill_drained(&self, timeout: Duration) -> bool {
        let Some(spill) = &self.inner.shared.spill else {
            return true;
        };
        let deadline = Instant::now() + timeout;
        loop {
            let slice = (Instant::now() + Duration::from_millis(50)).min(deadline);
            if spill.wait_until_drained(slice) {
                return true;
            }
            if Instant::now() >= deadline || self.inner.shared.abort.is_raised() {
                return false;
            }
        }
    }

    /// The configured shutdown timeout (what the guard's drop uses).
    pub fn shutdown_timeout(&self) -> Duration {
        self.inner.shutdown_timeout
    }

    /// A guard that shuts this pipeline down when dropped.
    pub fn guard(&self) -> Guard {
        Guard {
            logship: Some(self.clone()),
        }
    }
}

fn describe_loss(report: &ShutdownReport) -> String {
    let s = &report.stats;
    let mut parts = vec![format!("{} delivered", s.events_delivered)];
    if s.dropped_queue_full > 0 {
        parts.push(format!(
            "{} dropped because the queue was full",
            s.dropped_queue_full
        ));
    }
    if s.dropped_closed > 0 {
        parts.push(format!("{} dropped after shutdown began", s.dropped_closed));
    }
    if s.dropped_too_large > 0 {
        parts.push(format!(
            "{} dropped because each alone was larger than queue_max_bytes",
            s.dropped_too_large
        ));
    }
    if s.over_budget() > 0 {
        parts.push(format!(
            "{} held back by the volume budget ({} TRACE/DEBUG, {} sampled out, {} past the overdraft)",
            s.over_budget(),
            s.budget_dropped_level,
            s.budget_sampled_out,
            s.budget_dropped
        ));
    }
    if s.events_failed > 0 {
        parts.push(format!(
            "{} rejected or failed after retries",
            s.events_failed
        ));
    }
    if s.burst_suppressed > 0 {
        parts.push(format!(
            "{} held back by burst limits (summarised in the stream)",
            s.burst_suppressed
        ));
    }
    if s.sampled_out > 0 {
        parts.push(format!("{} sampled out", s.sampled_out));
    }
    let not_delivered = s.events_abandoned + s.pending();
    if not_delivered > 0 {
        parts.push(format!(
            "{not_delivered} not delivered within the shutdown timeout of {:?}",
            report.elapsed
        ));
    }
    let mut line = format!("shutdown: {}", parts.join(", "));
    if let Some(e) = &s.last_error {
        line.push_str(&format!("; last error: {e}"));
    }
    line
}

/// Flushes and stops the pipeline when dropped, within the configured shutdown timeout.
/// Keep it alive in `main` for as long as the program logs.
#[must_use = "dropping the guard shuts the pipeline down at once"]
pub struct Guard {
    logship: Option<Logship>,
}

impl Guard {
    /// The pipeline this guard stops.
    pub fn logship(&self) -> Option<&Logship> {
        self.logship.as_ref()
    }
}

impl std::fmt::Debug for Guard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Guard")
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let Some(l) = self.logship.take() {
            l.shutdown(l.shutdown_timeout());
        }
    }
}
