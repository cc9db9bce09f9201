//! The sender threads: take batches from the batcher, deliver each, settle it.
//!
//! Why it exists: network work must happen off the caller's thread and must not be capped
//! at one batch per round-trip. Up to `max_in_flight` sender threads (started as the
//! concurrency limit grows) share one keep-alive connection pool and each carries one
//! batch at a time through its whole life: the attempt (`attempt`), then its settlement
//! (`settle`), or, when the intake acknowledges later, the hand-over to `acks`, which
//! settles it. With acknowledgements on, the senders also send again the parts whose
//! acknowledgement did not come. Must never: run on a caller's thread, or leave a batch
//! it took unsettled.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::Receiver;

use super::acks::Acks;
use super::job::{InFlight, Job};
use super::outcome::Delivery;
use super::sender::Sender;
use super::settle;

/// One sender thread's view: the sender and, with acknowledgements on, their registry.
#[derive(Clone)]
pub(crate) struct SenderThread {
    pub sender: Sender,
    pub acks: Option<Arc<Acks>>,
}

impl SenderThread {
    /// Runs one sender thread until the job channel closes (with acknowledgements on,
    /// until then and no batch waits for one any more).
    pub(crate) fn run(self, jobs: Receiver<Job>) {
        let Some(acks) = self.acks.clone() else {
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
                        acks.resend(&self.sender, resend);
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
    /// hands it to [`Acks`], which settles it).
    fn carry(&self, jobs: &Receiver<Job>, job: Job) {
        self.grow_pool(jobs);
        let sender = &self.sender;
        let delivery = if sender.shared.abort.is_raised() {
            Delivery {
                aborted: job.records.to_vec(),
                ..Delivery::default()
            }
        } else {
            sender.pool.carry(InFlight {
                seq: job.seq,
                records: Arc::clone(&job.records),
                held_bytes: job.held_bytes,
                since: Instant::now(),
                copy: None,
                copied: false,
            });
            sender.deliver(&job.records, job.body)
        };
        let delivery = match &self.acks {
            Some(acks) => match acks.hold(sender, job.seq, job.held_bytes, delivery) {
                Some(now) => now,
                None => return, // settled when acknowledged
            },
            None => delivery,
        };
        // Counts nothing when shutdown already settled this batch at its deadline. Once
        // counted (and spilled where it had to be), its insurance copy can go.
        let pool = &sender.pool;
        settle::live_then(&sender.shared, job.seq, job.held_bytes, delivery, || {
            if let Some(mut entry) = pool.done(job.seq) {
                entry.forget_copy();
            }
        });
    }

    /// Starts sender threads until there are as many as the concurrency limit wants (see
    /// [`super::concurrency::Limiter::threads_wanted`]). Threads start on demand rather
    /// than all at build time because each one keeps its own compressor state and
    /// allocator arena: a pipeline that never needs 16 requests in flight keeps a few
    /// megabytes instead of tens.
    fn grow_pool(&self, jobs: &Receiver<Job>) {
        let pool = &self.sender.pool;
        let wanted = pool.concurrency.threads_wanted();
        let started = &pool.threads;
        let mut n = started.load(Ordering::Acquire);
        while n < wanted {
            match started.compare_exchange(n, n + 1, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => {
                    if let Err(e) = spawn_sender(self.clone(), jobs.clone(), n) {
                        // Keep going with the threads there are.
                        started.fetch_sub(1, Ordering::AcqRel);
                        self.sender.shared.reporter.notice(&format!(
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
    thread: SenderThread,
    jobs: Receiver<Job>,
    index: usize,
) -> std::io::Result<()> {
    crate::support::threads::spawn(format!("logship-sender-{index}"), move || thread.run(jobs))
}
