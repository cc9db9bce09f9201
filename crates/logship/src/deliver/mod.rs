//! The sender pool: the threads that carry batches to the intake.
//!
//! Why it exists: network work must happen off the caller's thread and must not be capped
//! at one batch per round-trip. Up to `max_in_flight` sender threads (started as the
//! concurrency limit grows) share one keep-alive connection pool and each carries one
//! batch at a time through its whole life ([`deliver`]: gzip, POST under a permit of the
//! [`concurrency::Limiter`], and whatever the answer calls for). What happened to each
//! record is then settled in one place ([`settle`]): counted, spilled to disk, or kept as
//! a dead letter. The replayer ([`replayer`]) is one more sender, fed from the spill.
//! Every live batch ends in exactly one settlement that updates the counters, releases
//! its memory, and lets `flush` and `shutdown` make progress. Nothing here ever runs on
//! a caller's thread.

pub(crate) mod ack;
pub(crate) mod backoff;
pub(crate) mod concurrency;
pub(crate) mod deliver;
pub(crate) mod http;
pub(crate) mod network;
pub(crate) mod proxy;
pub(crate) mod replayer;
pub(crate) mod resolve;
pub(crate) mod settle;
pub(crate) mod tls;
pub(crate) mod watch;

pub use network::NetworkSummary;

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;

use crate::vendors::Codec;
use crate::capture::record::Record;
use crate::pipeline::shared::Shared;
use backoff::Backoff;
use concurrency::Limiter;
use deliver::Delivery;

/// A batch on its way to a sender: its records (kept for retries, splits and reporting),
/// its encoded body, and its sequence number for flush tracking.
#[derive(Debug)]
pub(crate) struct Job {
    /// The batch's sequence number (see `tracker`).
    pub seq: u64,
    /// Shared with [`Pool::in_flight`] while a sender carries the batch, so that shutdown
    /// can spill a batch whose request never returns.
    pub records: Arc<[Record]>,
    /// The encoded, uncompressed body.
    pub body: Vec<u8>,
    /// Bytes counted against the memory budget for these records; released when settled.
    pub held_bytes: usize,
}

/// What the sender threads (and the replayer) share besides the pipeline's state.
pub(crate) struct Pool {
    /// Permits for requests in flight (live senders and the replayer share them).
    pub concurrency: Limiter,
    /// Live sender threads started so far (they start as the concurrency limit grows).
    pub threads: AtomicUsize,
    /// The live batches senders are carrying right now (see [`InFlight`]).
    in_flight: Mutex<Vec<InFlight>>,
    /// Signalled when a batch is added to or leaves `in_flight` (see `watch`).
    in_flight_changed: Condvar,
    /// Splunk indexer acknowledgement, when `splunk_ack` is on (see [`ack`]). A batch
    /// waiting for its ack stays in `in_flight` (for shutdown and the watch thread).
    pub acks: Option<Arc<ack::Acks>>,
}

/// A live batch a sender is carrying: what shutdown needs to spill it if its request is
/// still out at the deadline.
pub(crate) struct InFlight {
    pub seq: u64,
    pub records: Arc<[Record]>,
    pub held_bytes: usize,
    /// When the sender took it.
    pub since: Instant,
    /// Its insurance copy on disk, once written (see `watch`); deleted when it settles.
    pub copy: Option<PathBuf>,
    /// The watch thread has dealt with it (the copy may have failed: reported, not retried).
    pub copied: bool,
}

impl InFlight {
    /// Deletes the insurance copy, if any: call only after the batch's own settlement is
    /// on disk (or counted).
    pub(crate) fn forget_copy(&mut self) {
        if let Some(path) = self.copy.take() {
            let _ = std::fs::remove_file(path);
        }
    }
}

impl Pool {
    /// A pool with no thread started yet.
    pub(crate) fn new(concurrency: Limiter) -> Pool {
        Pool {
            concurrency,
            threads: AtomicUsize::new(0),
            in_flight: Mutex::new(Vec::new()),
            in_flight_changed: Condvar::new(),
            acks: None,
        }
    }

    /// Registers a batch a sender starts carrying.
    fn carry(&self, entry: InFlight) {
        self.in_flight().push(entry);
        self.in_flight_changed.notify_all();
    }

    /// Unregisters a batch whose sender is done with it; returns its entry (still holding
    /// its insurance copy, if one was written) unless shutdown took it already.
    pub(crate) fn done(&self, seq: u64) -> Option<InFlight> {
        let mut in_flight = self.in_flight();
        let at = in_flight.iter().position(|f| f.seq == seq)?;
        let entry = in_flight.swap_remove(at);
        drop(in_flight);
        self.in_flight_changed.notify_all();
        Some(entry)
    }

    /// Records of batches in flight whose insurance copy is on disk now (for `stats`).
    pub(crate) fn copied_records(&self) -> u64 {
        self.in_flight()
            .iter()
            .filter(|f| f.copy.is_some())
            .map(|f| f.records.len() as u64)
            .sum()
    }

    /// Wakes the watch thread (at shutdown).
    pub(crate) fn wake_watch(&self) {
        self.in_flight_changed.notify_all();
    }

    fn in_flight(&self) -> MutexGuard<'_, Vec<InFlight>> {
        self.in_flight.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Every live batch a sender is still carrying, taken out of the registry (for
    /// shutdown at its deadline).
    pub(crate) fn take_in_flight(&self) -> Vec<InFlight> {
        std::mem::take(&mut *self.in_flight())
    }
}

/// What a sender needs to deliver batches.
#[derive(Clone)]
pub(crate) struct Sender {
    pub shared: Arc<Shared>,
    pub pool: Arc<Pool>,
    pub codec: Arc<Codec>,
    pub client: http::Client,
    pub gzip: Option<u32>,
    pub max_retries: u32,
    pub backoff: Backoff,
}

impl Sender {
    /// Runs one sender thread until the job channel closes (with `splunk_ack`, until
    /// then and no batch waits for an acknowledgement any more).
    pub(crate) fn run(self, jobs: Receiver<Job>) {
        let Some(acks) = self.pool.acks.clone() else {
            while let Ok(job) = jobs.recv() {
                self.carry(&jobs, job);
            }
            return;
        };
        // Resends of batches whose acknowledgement did not come are sent by the senders
        // too, also after the last batch was handed over.
        let never = crossbeam_channel::never();
        let mut jobs_open = true;
        loop {
            let next_job = if jobs_open { &jobs } else { &never };
            crossbeam_channel::select! {
                recv(acks.resends()) -> resend => {
                    if let Ok(resend) = resend {
                        acks.resend(&self, resend);
                    }
                }
                recv(next_job) -> job => match job {
                    Ok(job) => self.carry(&jobs, job),
                    Err(_) => jobs_open = false,
                },
                default(Duration::from_millis(100)) => {}
            }
            if !jobs_open && acks.idle() {
                return;
            }
        }
    }

    /// Carries one batch: delivers it and settles it (or, awaiting an acknowledgement,
    /// hands it to [`ack::Acks`], which settles it).
    fn carry(&self, jobs: &Receiver<Job>, job: Job) {
        self.grow_pool(jobs);
        let delivery = if self.shared.abort.is_raised() {
            Delivery {
                aborted: job.records.to_vec(),
                ..Delivery::default()
            }
        } else {
            self.pool.carry(InFlight {
                seq: job.seq,
                records: Arc::clone(&job.records),
                held_bytes: job.held_bytes,
                since: Instant::now(),
                copy: None,
                copied: false,
            });
            self.deliver(&job.records, job.body)
        };
        let delivery = match &self.pool.acks {
            Some(acks) => match acks.hold(self, job.seq, job.held_bytes, delivery) {
                Some(now) => now,
                None => return, // settled when acknowledged
            },
            None => delivery,
        };
        // Counts nothing when shutdown already settled this batch at its deadline. Once
        // counted (and spilled where it had to be), its insurance copy can go.
        let pool = &self.pool;
        settle::live_then(&self.shared, job.seq, job.held_bytes, delivery, || {
            if let Some(mut entry) = pool.done(job.seq) {
                entry.forget_copy();
            }
        });
    }

    /// Starts sender threads until there are as many as the concurrency limit wants (see
    /// [`concurrency::Limiter::threads_wanted`]). Threads start on demand rather than all
    /// at build time because each one keeps its own compressor state and allocator arena:
    /// a pipeline that never needs 16 requests in flight keeps a few megabytes instead of
    /// tens.
    fn grow_pool(&self, jobs: &Receiver<Job>) {
        let wanted = self.pool.concurrency.threads_wanted();
        let started = &self.pool.threads;
        let mut n = started.load(Ordering::Acquire);
        while n < wanted {
            match started.compare_exchange(n, n + 1, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => {
                    if let Err(e) = spawn_sender(self.clone(), jobs.clone(), n) {
                        // Keep going with the threads there are.
                        started.fetch_sub(1, Ordering::AcqRel);
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
}

/// Starts live sender thread number `index`, taking batches from `jobs`.
pub(crate) fn spawn_sender(
    sender: Sender,
    jobs: Receiver<Job>,
    index: usize,
) -> std::io::Result<()> {
    crate::support::threads::spawn(format!("logship-sender-{index}"), move || sender.run(jobs))
}
