//! The batcher thread: drains the queue, cuts batches, hands them to the senders.
//!
//! Why it exists: batching needs one owner of the "current batch" and its linger
//! deadline. This thread blocks on the queue, a command channel and the linger deadline
//! together (`select!`), so an idle pipeline uses no CPU, and it never does network I/O:
//! when every sender is busy it waits for one, and the queue absorbs the burst.
//!
//! While records keep coming, it does not wait on the queue between them: it naps on the
//! command channel alone for at most [`NAP`] and then takes everything queued at once.
//! A log call whose record lands in a queue nobody waits on costs no wake-up; waking this
//! thread for every record (a futex call, and on a busy machine a context switch that
//! preempts the caller) was the largest part of the log call's tail latency. A nap that
//! finds nothing ends the napping, so a quiet pipeline still sleeps until the next record
//! or linger deadline. A queue already holding more than a batch is taken at once, without
//! the nap: a busy reader blocked on a full queue must not wait for it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{select, Receiver, Sender, TryRecvError};

use super::{Batch, Batcher};
use crate::admit::control::notice::{Ticker, ROOM_NEEDED};
use crate::capture::record::Record;
use crate::deliver::job::Job;
use crate::deliver::settle;
use crate::observe::health::Health;
use crate::observe::stats::Counters;
use crate::pipeline::shared::Shared;

/// Requests from the handle to the batcher (the pipeline's commands: not to be confused
/// with `admit::control`, the burst limits and sampling).
pub(crate) enum Command {
    /// Ship everything queued now; reply with the last batch's sequence number.
    Flush(Sender<u64>),
    /// Ship everything queued, then stop.
    Shutdown,
}

/// Longest nap between two bulk takes from the queue while records keep coming. Bounds
/// the delay it adds before a full batch is cut; the queue absorbs what arrives meanwhile.
pub(crate) const NAP: Duration = Duration::from_millis(1);

/// Records waiting in the queue from which the batcher takes them at once instead of
/// napping first: past a default batch (200 records), a nap saves no wake-up, it only
/// delays the batch.
const NO_NAP_FROM: usize = 256;

/// Runs the batcher until shutdown (or until every handle is gone), on its own thread
/// (`logship-batcher`).
pub(crate) fn run(
    shared: Arc<Shared>,
    mut batcher: Batcher,
    linger: Duration,
    records: Receiver<Record>,
    commands: Receiver<Command>,
    jobs: Sender<Job>,
) {
    let mut backlogged = false;
    let mut emit = |batch: Batch| hand_off(&shared, &jobs, batch, &mut backlogged);
    // True while records keep coming (see the module doc).
    let mut napping = false;
    // Burst summaries and drop notices (issue #17), when asked for.
    let mut ticker = Ticker::new(&shared.control);
    loop {
        if let Some(t) = ticker.as_mut().filter(|t| t.due() <= Instant::now()) {
            add_notices(&shared, &mut batcher, t, false, &mut emit);
        }
        let cut_at = batcher.deadline(linger);
        let deadline = match (cut_at, ticker.as_ref().map(Ticker::due)) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let now = Instant::now();
        let event = match deadline {
            Some(at) if at <= now => Event::Linger,
            // A batch's worth is already waiting: no nap, take it now (a nap would only
            // leave the queue full, and a blocked reader waiting, for its length).
            Some(_) if napping && records.len() >= NO_NAP_FROM => match commands.try_recv() {
                Ok(c) => Event::Command(Some(c)),
                Err(TryRecvError::Empty) => Event::Nap,
                Err(TryRecvError::Disconnected) => Event::Command(None),
            },
            Some(at) if napping => select! {
                recv(commands) -> c => Event::Command(c.ok()),
                default(NAP.min(at - now)) => Event::Nap,
            },
            Some(at) => select! {
                recv(records) -> r => Event::Record(r.ok()),
                recv(commands) -> c => Event::Command(c.ok()),
                default(at - now) => Event::Linger,
            },
            None => select! {
                recv(records) -> r => Event::Record(r.ok()),
                recv(commands) -> c => Event::Command(c.ok()),
            },
        };
        match event {
            Event::Record(Some(record)) => {
                shared.memory.notify_room();
                // Not the `now` read before the wait: a record after a long idle wait
                // would open a batch already past its linger.
                add(&shared, &mut batcher, record, Instant::now(), &mut emit);
                napping = true;
            }
            Event::Nap => {
                // What is queued now, not what keeps coming meanwhile: a producer that
                // keeps the queue full would otherwise keep the batcher here for ever,
                // deaf to `flush` and `shutdown`.
                let queued = records.len();
                napping = drain_up_to(&shared, &mut batcher, &records, queued, &mut emit) > 0;
            }
            Event::Linger => {
                // The wake-up may be the ticker's, before the batch is due.
                if cut_at.is_some_and(|at| at <= Instant::now()) {
                    batcher.cut(&mut emit);
                }
            }
            Event::Command(Some(Command::Flush(reply))) => {
                // Only what is queued now (everything queued before the call is): a
                // producer that keeps the queue full would otherwise keep the drain,
                // and so the flush, from ever finishing.
                let queued = records.len();
                drain_up_to(&shared, &mut batcher, &records, queued, &mut emit);
                batcher.cut(&mut emit);
                let _ = reply.send(shared.tracker.last_seq());
            }
            Event::Command(Some(Command::Shutdown))
            | Event::Command(None)
            | Event::Record(None) => {
                drain(&shared, &mut batcher, &records, &mut emit);
                if let Some(t) = ticker.as_mut() {
                    add_notices(&shared, &mut batcher, t, true, &mut emit);
                }
                batcher.cut(&mut emit);
                break;
            }
        }
    }
    drop(jobs);
    shared.tracker.batcher_done();
}

enum Event {
    Record(Option<Record>),
    Command(Option<Command>),
    Linger,
    /// A nap ended: take what was queued meanwhile.
    Nap,
}

/// Adds one record; `now` (read once per wake-up or bulk take, not per record: a batch's
/// age is measured in milliseconds) stamps the batch it opens.
fn add(
    shared: &Shared,
    batcher: &mut Batcher,
    record: Record,
    now: Instant,
    emit: &mut impl FnMut(Batch),
) {
    if record.had_invalid_utf8() {
        Counters::add(&shared.counters.invalid_utf8, 1);
    }
    // Redaction before the record is encoded, truncated or can reach the spill: every
    // batch (and so every spill write) is made of records that passed here.
    let record = match &shared.redaction {
        Some(r) => r.apply(record),
        None => record,
    };
    let effects = batcher.push(record, now, emit);
    if effects.truncated {
        Counters::add(&shared.counters.truncated, 1);
    }
}

/// Adds the synthetic events the ticker has due to the batch, straight past the queue
/// (never refused, never counted as enqueued or dropped: counted in `notices`). Their
/// bytes are reserved like a queued record's; the ticker builds nothing while the memory bound
/// lacks room, except at shutdown (`last`), when the last counts must not be lost.
fn add_notices(
    shared: &Shared,
    batcher: &mut Batcher,
    ticker: &mut Ticker,
    last: bool,
    emit: &mut impl FnMut(Batch),
) {
    let room = shared.memory.has_room(ROOM_NEEDED);
    for record in ticker.tick(&shared.control, &shared.counters, room, last) {
        shared.memory.force_reserve(record.size());
        Counters::add(&shared.counters.notices, 1);
        add(shared, batcher, record, Instant::now(), emit);
    }
}

/// Takes everything already in the queue; returns how many records that was.
fn drain(
    shared: &Shared,
    batcher: &mut Batcher,
    records: &Receiver<Record>,
    emit: &mut impl FnMut(Batch),
) -> usize {
    drain_up_to(shared, batcher, records, usize::MAX, emit)
}

/// Takes at most `limit` records from the queue; returns how many that was.
fn drain_up_to(
    shared: &Shared,
    batcher: &mut Batcher,
    records: &Receiver<Record>,
    limit: usize,
    emit: &mut impl FnMut(Batch),
) -> usize {
    let mut taken = 0;
    let now = Instant::now();
    while taken < limit {
        let Ok(record) = records.try_recv() else {
            break;
        };
        add(shared, batcher, record, now, emit);
        taken += 1;
        if taken % ROOM_EVERY == 0 {
            shared.memory.notify_room();
        }
    }
    shared.memory.notify_room();
    taken
}

/// Records a bulk take moves to batches between two wake-ups of callers waiting for
/// room: a caller blocked on a full queue (the `Block` policy: followed files, TCP
/// inputs) refills it while the rest is batched, instead of waiting for the whole take
/// (up to the queue's capacity, milliseconds of encoding) and leaving the batcher idle
/// afterwards. Cheap: a wake-up is one atomic load when nobody waits.
const ROOM_EVERY: usize = 1024;

/// How long a batch waits for a free sender before it is spilled to disk instead, while
/// delivery is healthy (a slow intake, not a failing one). While the last request failed,
/// or once one batch has been spilled for want of a sender, batches that find every
/// sender busy go to disk at once, so the queue keeps draining during an outage.
const BACKLOG_SPILL_AFTER: Duration = Duration::from_secs(1);

/// Gives a batch to the senders, waiting while all are busy. With spill on, a backlog
/// goes to disk rather than stall the queue; if shutdown has run out of time, the batch
/// is settled at once (spilled, or counted as abandoned).
fn hand_off(shared: &Shared, jobs: &Sender<Job>, batch: Batch, backlogged: &mut bool) {
    let seq = shared.tracker.open();
    Counters::add(&shared.counters.batches, 1);
    let mut job = Job {
        seq,
        records: batch.records.into(),
        body: batch.body,
        held_bytes: batch.held_bytes,
    };
    let started = Instant::now();
    loop {
        if shared.abort.is_raised() {
            settle::abandon(shared, job);
            return;
        }
        let spill_now =
            shared.spill.is_some() && (*backlogged || shared.health() != Health::Healthy);
        let wait = if spill_now {
            Duration::ZERO
        } else {
            Duration::from_millis(100)
        };
        match jobs.send_timeout(job, wait) {
            Ok(()) => {
                if shared.health() == Health::Healthy {
                    *backlogged = false;
                }
                return;
            }
            Err(crossbeam_channel::SendTimeoutError::Timeout(j)) => job = j,
            Err(crossbeam_channel::SendTimeoutError::Disconnected(j)) => {
                settle::abandon(shared, j);
                return;
            }
        }
        if spill_now || (shared.spill.is_some() && started.elapsed() >= BACKLOG_SPILL_AFTER) {
            *backlogged = true;
            match settle::spill_backlog(shared, job) {
                None => return,
                Some(j) => job = j,
            }
        }
    }
}
