//! The pipeline's side of the spill: one lock around [`Spill`], counting, and a wake-up
//! for the replayer.
//!
//! Why it exists: the batcher, every sender and the replayer use the same spill
//! directory. They share it through this handle, which turns each spill outcome into the
//! pipeline's counters and reports I/O errors once (rate-limited), so a full or broken
//! disk degrades to counted loss instead of a dead worker. Only logship's own threads
//! call it: a log call never touches the disk.

use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

use super::count::CountJob;
use super::reader::Step;
use super::{ReplayBatch, Spill, SpillError, SpillStats};
use crate::capture::record::Record;
use crate::observe::reporter::{DeliveryError, Reporter};
use crate::observe::stats::Counters;

/// A spill shared by the pipeline's threads.
pub(crate) struct SpillHandle {
    /// `Err` once closed: the directory is released, the last counters kept.
    spill: Mutex<Result<Spill, Closed>>,
    has_data: Condvar,
    /// Signalled after every acknowledgement and count, for callers waiting for the spill
    /// to drain.
    progress: Condvar,
    /// Replay batches handed out and not yet acknowledged or given back: shutdown waits
    /// for them (see [`SpillHandle::wait_replay_settled`]) so that a batch the intake
    /// accepted is acknowledged on disk before the spill closes, instead of being sent
    /// again by every later run.
    out: Mutex<usize>,
}

/// What is left of a closed spill.
struct Closed {
    /// The last counters.
    stats: SpillStats,
    /// Whether nothing was left to replay (segments not counted yet included).
    empty: bool,
}

impl SpillHandle {
    pub(crate) fn new(spill: Spill) -> SpillHandle {
        SpillHandle {
            spill: Mutex::new(Ok(spill)),
            has_data: Condvar::new(),
            progress: Condvar::new(),
            out: Mutex::new(0),
        }
    }

    fn batches_out(&self) -> MutexGuard<'_, usize> {
        self.out.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Counts one replay batch back in, and wakes whoever waits for them.
    fn returned(&self) {
        let mut out = self.batches_out();
        *out = out.saturating_sub(1);
        drop(out);
        self.progress.notify_all();
    }

    /// Waits until no replay batch is out (each acknowledged or given back), or until
    /// `deadline`; returns whether none is. Shutdown calls it before closing the spill.
    pub(crate) fn wait_replay_settled(&self, deadline: std::time::Instant) -> bool {
        let mut out = self.batches_out();
        while *out > 0 {
            let now = std::time::Instant::now();
            if now >= deadline {
                return false;
            }
            // `progress` is notified under the spill's lock by others: a short wait
            // bounds a missed wake-up.
            let wait = (deadline - now).min(Duration::from_millis(20));
            drop(out);
            let guard = self.lock();
            let _ = self.progress.wait_timeout(guard, wait);
            out = self.batches_out();
        }
        true
    }

    /// The spill's directory (`None` once closed). The budget keeps its state file
    /// there.
    pub(crate) fn dir(&self) -> Option<std::path::PathBuf> {
        self.lock().as_ref().ok().map(|s| s.dir().to_path_buf())
    }

    fn lock(&self) -> MutexGuard<'_, Result<Spill, Closed>> {
        self.spill.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Appends records to be replayed later; returns how many reached the disk. The caller
    /// counts the rest (refused by the cap, or lost to an I/O error; both reported); older
    /// spilled records evicted to make room are counted here as `spill_dropped`.
    pub(crate) fn store(
        &self,
        records: &[Record],
        counters: &Counters,
        reporter: &Reporter,
    ) -> usize {
        self.append(records, counters, reporter, true)
    }

    /// Writes an insurance copy of a batch whose request is taking long (see
    /// `spill::in_flight`); `None` when it could not be written (reported) or the spill is
    /// closed. Not counted as spilled: the batch is still in flight.
    pub(crate) fn write_in_flight(
        &self,
        records: &[Record],
        counters: &Counters,
        reporter: &Reporter,
    ) -> Option<std::path::PathBuf> {
        let result = match &mut *self.lock() {
            Ok(spill) => spill.write_in_flight(records),
            Err(_) => return None,
        };
        match result {
            Ok(path) => Some(path),
            Err(e) => {
                reporter.error(
                    counters,
                    "spill-in-flight",
                    DeliveryError {
                        status: None,
                        message: format!("{e}; the batch stays in memory only"),
                        events: records.len(),
                        permanent: false,
                    },
                );
                None
            }
        }
    }

    /// Writes back records that came from the spill and were not delivered on replay:
    /// like [`SpillHandle::store`], but they were already counted as spilled.
    pub(crate) fn restore(
        &self,
        records: &[Record],
        counters: &Counters,
        reporter: &Reporter,
    ) -> usize {
        self.append(records, counters, reporter, false)
    }

    fn append(
        &self,
        records: &[Record],
        counters: &Counters,
        reporter: &Reporter,
        new: bool,
    ) -> usize {
        if records.is_empty() {
            return 0;
        }
        let result = match self.lock().as_mut() {
            Ok(spill) => spill.append(records),
            Err(_) => return 0, // closed at shutdown: the caller counts them
        };
        match result {
            Ok(outcome) => {
                if new {
                    Counters::add(&counters.events_spilled, outcome.written as u64);
                }
                // This call's refused records are the caller's to count (as failed or
                // abandoned); what else was dropped is older, already-spilled records.
                let refused = (records.len() - outcome.written) as u64;
                Counters::add(
                    &counters.spill_dropped,
                    outcome.dropped_records.saturating_sub(refused),
                );
                if outcome.dropped_records > 0 {
                    reporter.error(
                        counters,
                        "spill-full",
                        DeliveryError {
                            status: None,
                            message: format!(
                                "the spill directory reached spill_max_bytes; {} events were dropped (raise spill_max_bytes to keep more)",
                                outcome.dropped_records
                            ),
                            events: outcome.dropped_records as usize,
                            permanent: true,
                        },
                    );
                }
                self.has_data.notify_all();
                outcome.written
            }
            Err(e) => {
                reporter.error(
                    counters,
                    "spill-io",
                    DeliveryError {
                        status: None,
                        message: format!("could not spill {} events to disk: {e}", records.len()),
                        events: records.len(),
                        permanent: true,
                    },
                );
                0
            }
        }
    }

    /// Keeps records the intake rejected for good, for a person to look at.
    pub(crate) fn dead_letter(&self, records: &[Record], counters: &Counters, reporter: &Reporter) {
        if records.is_empty() {
            return;
        }
        let result = match self.lock().as_mut() {
            Ok(spill) => spill.dead_letter(records),
            Err(_) => return,
        };
        match result {
            Ok(()) => Counters::add(&counters.dead_lettered, records.len() as u64),
            Err(e) => reporter.error(
                counters,
                "spill-io",
                DeliveryError {
                    status: None,
                    message: format!("could not write {} dead letters: {e}", records.len()),
                    events: records.len(),
                    permanent: true,
                },
            ),
        }
    }

    /// The oldest spilled records not handed out yet, if any. A segment of an earlier run
    /// that has to be counted first is counted without holding the lock.
    pub(crate) fn next_batch(&self, max_records: usize, max_bytes: usize) -> Option<ReplayBatch> {
        loop {
            let step = match self.lock().as_mut() {
                Ok(spill) => {
                    let step = spill.next_step(max_records, max_bytes).ok()?;
                    if let Step::Batch(Some(_)) = &step {
                        // Counted under the spill's lock, before shutdown can close it.
                        *self.batches_out() += 1;
                    }
                    step
                }
                Err(_) => return None,
            };
            match step {
                Step::Batch(batch) => return batch,
                Step::Count(job) => {
                    // A failed count leaves the segment to replay, which reports errors.
                    let _ = self.count(&job, &|| false);
                }
            }
        }
    }

    /// Counts every segment an earlier run left (oldest first), one at a time and without
    /// holding the lock while reading, so appends go on meanwhile. Returns false when
    /// `stop` ended it early (it is asked before every record, so it must be cheap).
    pub(crate) fn count_backlog(
        &self,
        stop: &dyn Fn() -> bool,
        counters: &Counters,
        reporter: &Reporter,
    ) -> bool {
        loop {
            let job = match self.lock().as_ref() {
                Ok(spill) => spill.next_count_job(),
                Err(_) => None,
            };
            let Some(job) = job else {
                return true;
            };
            match self.count(&job, stop) {
                Ok(true) => {}
                Ok(false) => return false,
                Err(e) => reporter.error(
                    counters,
                    "spill-io",
                    DeliveryError {
                        status: None,
                        message: format!("could not count the spilled events on disk: {e}"),
                        events: 0,
                        permanent: false,
                    },
                ),
            }
        }
    }

    /// Runs `job` without the lock, then publishes its result under it. `Ok(false)`: `stop`
    /// ended it early and nothing was published.
    fn count(&self, job: &CountJob, stop: &dyn Fn() -> bool) -> Result<bool, SpillError> {
        let totals = match job.run(stop) {
            Ok(Some(t)) => Ok(t),
            Ok(None) => return Ok(false),
            Err(e) => Err(e),
        };
        let result = match self.lock().as_mut() {
            Ok(spill) => spill.publish_count(job, totals),
            Err(_) => return Ok(false),
        };
        // Counts changed (and the segment may be finished): wake whoever waits on them.
        self.progress.notify_all();
        result.map(|()| true)
    }

    /// The batch was delivered (or dealt with): it will not be replayed again.
    pub(crate) fn ack(&self, batch: ReplayBatch, counters: &Counters, reporter: &Reporter) {
        let result = match self.lock().as_mut() {
            Ok(spill) => spill.ack(batch),
            Err(_) => Ok(()), // closed: the next run replays it (at-least-once)
        };
        self.returned();
        if let Err(e) = result {
            reporter.error(
                counters,
                "spill-io",
                DeliveryError {
                    status: None,
                    message: format!(
                        "could not record replay progress: {e}; this run keeps it in memory and does not resend what was delivered, and deletes each segment once all of it is delivered, but a restart before that sends the rest of that segment again"
                    ),
                    events: 0,
                    permanent: false,
                },
            );
        }
    }

    /// The batch could not be delivered: it will be handed out again.
    pub(crate) fn nack(&self, batch: ReplayBatch) {
        if let Ok(spill) = self.lock().as_mut() {
            spill.nack(batch);
        }
        self.returned();
    }

    /// Makes everything written so far durable and replayable, and releases the directory
    /// (at the end of shutdown), so that a new pipeline can take it over at once even while
    /// a request of this one is still in flight. Later appends are refused (counted by
    /// their callers).
    pub(crate) fn close(&self) {
        let mut guard = self.lock();
        if let Ok(spill) = guard.as_mut() {
            let _ = spill.seal();
            let closed = Closed {
                stats: spill.stats(),
                empty: spill.is_empty(),
            };
            *guard = Err(closed); // drops the Spill: segment closed, lock released
        }
        drop(guard);
        self.progress.notify_all();
        self.has_data.notify_all();
    }

    /// Counters and gauges of the spill (the last ones, once closed).
    pub(crate) fn stats(&self) -> SpillStats {
        match &*self.lock() {
            Ok(spill) => spill.stats(),
            Err(last) => last.stats.clone(),
        }
    }

    /// Waits until nothing is left to replay (every spilled record acknowledged), or until
    /// `deadline`; returns whether the spill is empty.
    pub(crate) fn wait_until_drained(&self, deadline: std::time::Instant) -> bool {
        let mut guard = self.lock();
        loop {
            match &*guard {
                Ok(spill) if !spill.is_empty() => {}
                Ok(_) => return true,
                Err(last) => return last.empty,
            }
            let now = std::time::Instant::now();
            if now >= deadline {
                return false;
            }
            guard = match self.progress.wait_timeout(guard, deadline - now) {
                Ok((g, _)) => g,
                Err(e) => e.into_inner().0,
            };
        }
    }

    /// Waits up to `timeout` for new spilled data.
    pub(crate) fn wait_for_data(&self, timeout: Duration) {
        let guard = self.lock();
        if matches!(&*guard, Ok(spill) if spill.is_empty()) {
            let _ = self.has_data.wait_timeout(guard, timeout);
        }
    }

    /// Wakes the replayer (at shutdown).
    pub(crate) fn wake(&self) {
        self.has_data.notify_all();
    }
}
