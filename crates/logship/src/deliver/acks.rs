//! Acknowledgement after acceptance: accepted batches wait here until the intake
//! confirms that their events are stored.
//!
//! Why it exists: some intakes answer a request as soon as it looks valid and confirm
//! later that its events are durable; until then nothing is "delivered". A sender hands
//! the accepted parts of a batch here ([`Acks::hold`]), each with the acknowledgement id
//! its answer gave, and goes on with the next batch. One thread (`logship-acks`, [`run`])
//! asks about every pending id in one query per poll (at most the endpoint's `max_ids`
//! per request), and settles a batch (through `settle`, exactly once) when every part of
//! it is confirmed. A part whose acknowledgement has not come the endpoint's `timeout`
//! after it was accepted goes back to the senders to be sent again (at-least-once: it may
//! be stored twice; counted in `ack_resends`), at most `max_retries` times, then it is
//! handed back as exhausted (spilled, or counted as failed). Bounded: at most
//! [`MAX_BATCHES`] batches wait (a sender with one more waits for room, sending resends
//! meanwhile), and at the shutdown deadline what is unconfirmed is settled as aborted
//! (spilled, or counted as abandoned).
//!
//! What a query and an answer look like is the vendor's (`Codec::ack_query`,
//! `Codec::acked`); the answers are untrusted input: read up to the endpoint's
//! `max_answer` bytes, and anything but the documented shape is a failed poll (counted in
//! `ack_poll_failures`, asked again at the next poll), never a confirmation and never a
//! panic. Polls use the senders' HTTP client, so TLS, proxy and headers are those of the
//! event requests. Another kind of confirmation (a broker's delivery report) can settle
//! through the same registry with [`Acks::confirm`].
//!
//! Must never: count an event delivered without a confirmation of its id, settle a batch
//! twice, hold its lock across I/O, or run on a caller's thread.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender as Channel};

use super::outcome::Delivery;
use super::sender::Sender;
use super::settle;
use crate::capture::record::Record;
use crate::observe::reporter::DeliveryError;
use crate::observe::stats::Counters;
use crate::vendors::protocol::AckEndpoint;

/// Most batches waiting for their acknowledgement; a sender with one more waits for room.
/// Their memory stays counted against `queue_max_bytes` until they settle.
pub(crate) const MAX_BATCHES: usize = 256;

/// Poll period while a flush or shutdown waits for acknowledgements.
const HURRY: Duration = Duration::from_millis(50);

/// Longest wait before the poll thread looks again at the abort signal, the clock and
/// the resend queue.
const SLICE: Duration = Duration::from_millis(100);

/// Longest wait before a sender waiting for room under [`MAX_BATCHES`] looks again at the
/// abort signal: shorter than the shutdown's grace after its deadline (50 ms without a
/// spill), so that the batch it holds is settled (abandoned or spilled) before the report
/// is taken rather than reported as still pending.
const HOLD_SLICE: Duration = Duration::from_millis(10);

/// Longest and shortest poll period: a fraction of the acknowledgement timeout, so that
/// an ack is asked about many times before its batch is resent. With a timeout of 5
/// minutes that is every 10 s.
const POLLS_PER_TIMEOUT: u32 = 30;
const MAX_POLL_EVERY: Duration = Duration::from_secs(10);
const MIN_POLL_EVERY: Duration = Duration::from_millis(50);

/// Whose parts they are: a live batch (its sequence number) or a replayed one (a key).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Owner {
    Live(u64),
    Replay(u64),
}

/// A batch with parts still unconfirmed.
struct Entry {
    /// Budget bytes of a live batch, released when it settles.
    held_bytes: usize,
    /// What was decided so far (confirmed parts count as delivered).
    settled: Delivery,
    /// Parts waiting for their ack or being resent.
    open: usize,
    /// Where a replayed batch's outcome goes.
    reply: Option<Channel<Delivery>>,
}

impl Entry {
    /// A new entry with one open part: the delivery about to be added.
    fn new(held_bytes: usize, reply: Option<Channel<Delivery>>) -> Entry {
        Entry {
            held_bytes,
            settled: Delivery::default(),
            open: 1,
            reply,
        }
    }
}

/// One accepted request's records, waiting for its acknowledgement id.
struct Part {
    owner: Owner,
    records: Vec<Record>,
    accepted: Instant,
    resends: u32,
}

/// A part to send again because its acknowledgement did not come in time.
pub(crate) struct Resend {
    owner: Owner,
    records: Vec<Record>,
    resends: u32,
}

#[derive(Default)]
struct State {
    entries: HashMap<Owner, Entry>,
    /// Unconfirmed parts by acknowledgement id (unique per connection to the intake).
    parts: BTreeMap<u64, Part>,
    /// Records in `parts`, for `stats`.
    records: usize,
    /// Poll at [`HURRY`] until then (a flush is waiting).
    hurry_until: Option<Instant>,
    next_replay: u64,
}

/// The acknowledgement registry of one pipeline (see the module docs).
pub(crate) struct Acks {
    url: String,
    timeout: Duration,
    max_ids: usize,
    max_answer: u64,
    poll_every: Duration,
    state: Mutex<State>,
    changed: Condvar,
    resend_tx: Channel<Resend>,
    resend_rx: Receiver<Resend>,
}

/// What finishing an entry takes: its owner and the entry, settled outside the lock.
type Finished = (Owner, Entry);

impl Acks {
    /// A registry polling `endpoint`; parts not confirmed its `timeout` after they were
    /// accepted are resent.
    pub(crate) fn new(endpoint: &AckEndpoint) -> Acks {
        let (resend_tx, resend_rx) = crossbeam_channel::unbounded();
        let timeout = endpoint.timeout;
        Acks {
            url: endpoint.url.clone(),
            timeout,
            max_ids: endpoint.max_ids.max(1),
            max_answer: endpoint.max_answer,
            poll_every: (timeout / POLLS_PER_TIMEOUT).clamp(MIN_POLL_EVERY, MAX_POLL_EVERY),
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
            resend_tx,
            resend_rx,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Parts to send again (the senders take them besides new batches).
    pub(crate) fn resends(&self) -> &Receiver<Resend> {
        &self.resend_rx
    }

    /// True when no batch waits for an acknowledgement.
    pub(crate) fn idle(&self) -> bool {
        self.lock().entries.is_empty()
    }

    /// Events accepted by the intake and not confirmed yet (for `stats`).
    pub(crate) fn awaiting_records(&self) -> u64 {
        self.lock().records as u64
    }

    /// Polls at a short period until `until` (a flush waits for acknowledgements).
    pub(crate) fn hurry(&self, until: Instant) {
        let mut s = self.lock();
        s.hurry_until = Some(s.hurry_until.map_or(until, |t| t.max(until)));
        drop(s);
        self.changed.notify_all();
    }

    /// Takes over the unconfirmed parts of live batch `seq` just delivered; returns the
    /// delivery for the caller to settle at once when nothing of it awaits an ack. Waits
    /// while [`MAX_BATCHES`] batches wait already (sending resends meanwhile); at the
    /// shutdown deadline, hands the unconfirmed parts back as aborted.
    pub(crate) fn hold(
        &self,
        sender: &Sender,
        seq: u64,
        held_bytes: usize,
        mut delivery: Delivery,
    ) -> Option<Delivery> {
        if delivery.awaiting.is_empty() {
            return Some(delivery);
        }
        loop {
            if sender.shared.abort.is_raised() {
                let unconfirmed = std::mem::take(&mut delivery.awaiting);
                delivery
                    .aborted
                    .extend(unconfirmed.into_iter().flat_map(|a| a.records));
                return Some(delivery);
            }
            let mut s = self.lock();
            if s.entries.len() < MAX_BATCHES {
                // Taken under the same lock as the check, so the cap is exact. `open: 1`
                // stands for the delivery `add` brings in.
                s.entries
                    .insert(Owner::Live(seq), Entry::new(held_bytes, None));
                break;
            }
            drop(s);
            // Full: a resend frees room sooner than waiting does.
            match self.resend_rx.recv_timeout(HOLD_SLICE) {
                Ok(resend) => self.resend(sender, resend),
                Err(_) => continue,
            }
        }
        let finished = self.add(sender, Owner::Live(seq), delivery, 0);
        self.finish(sender, finished);
        None
    }

    /// For the replayer: waits until every unconfirmed part of a replayed batch is
    /// confirmed (delivered), out of time (exhausted: the replayer keeps it on disk) or
    /// cut short by shutdown (aborted); returns the whole outcome.
    pub(crate) fn replay(&self, sender: &Sender, delivery: Delivery) -> Delivery {
        if delivery.awaiting.is_empty() {
            return delivery;
        }
        let (tx, rx) = crossbeam_channel::bounded(1);
        let owner = {
            let mut s = self.lock();
            s.next_replay += 1;
            let owner = Owner::Replay(s.next_replay);
            s.entries.insert(owner, Entry::new(0, Some(tx)));
            owner
        };
        let finished = self.add(sender, owner, delivery, 0);
        self.finish(sender, finished);
        // The poll thread answers every entry, at the latest at the shutdown deadline.
        rx.recv().unwrap_or_default()
    }

    /// Sends a part again and takes over what its new answer left unconfirmed.
    pub(crate) fn resend(&self, sender: &Sender, resend: Resend) {
        Counters::add(
            &sender.shared.counters.ack_resends,
            resend.records.len() as u64,
        );
        let body = sender.codec.encode(&resend.records);
        let delivery = sender.deliver(&resend.records, body);
        let finished = self.add(sender, resend.owner, delivery, resend.resends);
        self.finish(sender, finished);
    }

    /// Adds `delivery` to `owner`'s entry, closing the one open part it answers for (the
    /// new batch itself, or a part that was resent): its unconfirmed parts wait, the rest
    /// is settled in the entry. Returns the entry when nothing of it is open any more.
    /// (An entry is never removed while a part of it is open, so one is always found.)
    fn add(
        &self,
        sender: &Sender,
        owner: Owner,
        mut delivery: Delivery,
        resends: u32,
    ) -> Option<Finished> {
        let now = Instant::now();
        let mut s = self.lock();
        let awaiting = std::mem::take(&mut delivery.awaiting);
        let mut expired = Vec::new();
        {
            let State {
                entries,
                parts,
                records,
                ..
            } = &mut *s;
            let entry = entries.get_mut(&owner)?;
            entry.open = entry.open.saturating_sub(1);
            entry.settled.merge(delivery);
            for part in awaiting {
                entry.open += 1;
                *records += part.records.len();
                let new = Part {
                    owner,
                    records: part.records,
                    accepted: now,
                    resends,
                };
                // An id seen twice (the intake restarted and counts from 0 again): the older
                // part will never be confirmed, so it goes the way of a late one.
                if let Some(old) = parts.insert(part.ack_id, new) {
                    *records -= old.records.len();
                    expired.push(old);
                }
            }
        }
        let (mut finished, mut reports) = (Vec::new(), Vec::new());
        for part in expired {
            finished.extend(self.expire_part(sender, &mut s, part, &mut reports));
        }
        let done = take_if_done(&mut s, owner);
        drop(s);
        self.changed.notify_all();
        self.report(sender, reports);
        for f in finished {
            self.finish(sender, Some(f));
        }
        done
    }

    /// Settles an entry nothing of which is open any more: a live batch through
    /// `settle` (exactly once: a batch settled at the shutdown deadline counts nothing
    /// again), a replayed one by answering the replayer.
    fn finish(&self, sender: &Sender, finished: Option<Finished>) {
        let Some((owner, entry)) = finished else {
            return;
        };
        match (owner, entry.reply) {
            (Owner::Replay(_), Some(reply)) => {
                let _ = reply.send(entry.settled);
            }
            (Owner::Live(seq), _) => {
                let pool = &sender.pool;
                settle::live_then(&sender.shared, seq, entry.held_bytes, entry.settled, || {
                    if let Some(mut in_flight) = pool.done(seq) {
                        in_flight.forget_copy();
                    }
                });
            }
            (Owner::Replay(_), None) => {}
        }
    }

    /// A part whose acknowledgement did not come: resent while resends are left (live
    /// batches), else handed back as exhausted. Returns its entry when that closed it;
    /// what to report goes to `reports` (printed once the lock is released).
    fn expire_part(
        &self,
        sender: &Sender,
        s: &mut State,
        part: Part,
        reports: &mut Vec<(usize, String)>,
    ) -> Option<Finished> {
        let owner = part.owner;
        let entry = s.entries.get_mut(&owner)?;
        let n = part.records.len();
        let waited = self.timeout.as_millis();
        if matches!(owner, Owner::Live(_)) && part.resends < sender.max_retries {
            reports.push((
                n,
                format!("the intake did not acknowledge {n} events within {waited} ms; sending them again (they may be stored twice)"),
            ));
            // The part stays open in its entry while it is resent.
            let _ = self.resend_tx.send(Resend {
                owner,
                records: part.records,
                resends: part.resends + 1,
            });
            return None;
        }
        entry.settled.exhausted.extend(part.records);
        entry.open = entry.open.saturating_sub(1);
        reports.push((
            n,
            format!(
                "the intake did not acknowledge {n} events within {waited} ms after {} resends; giving up on them here (kept in the spill when it is on)",
                part.resends
            ),
        ));
        take_if_done(s, owner)
    }

    /// Reports late acknowledgements (rate-limited with other ack errors).
    fn report(&self, sender: &Sender, reports: Vec<(usize, String)>) {
        for (events, message) in reports {
            sender.shared.reporter.error(
                &sender.shared.counters,
                "ack",
                DeliveryError {
                    status: None,
                    message,
                    events,
                    permanent: false,
                },
            );
        }
    }

    /// Parts accepted longer ago than the timeout leave the wait: resent or exhausted.
    fn expire(&self, sender: &Sender) {
        let now = Instant::now();
        let mut s = self.lock();
        let late: Vec<u64> = s
            .parts
            .iter()
            .filter(|(_, p)| now.duration_since(p.accepted) >= self.timeout)
            .map(|(&id, _)| id)
            .collect();
        let (mut finished, mut reports) = (Vec::new(), Vec::new());
        for id in late {
            if let Some(part) = s.parts.remove(&id) {
                s.records -= part.records.len();
                finished.extend(self.expire_part(sender, &mut s, part, &mut reports));
            }
        }
        drop(s);
        self.report(sender, reports);
        for f in finished {
            self.finish(sender, Some(f));
        }
    }

    /// Asks about every pending id (in queries of at most `max_ids`) and settles what is
    /// confirmed.
    fn poll(&self, sender: &Sender) {
        let ids: Vec<u64> = self.lock().parts.keys().copied().collect();
        for chunk in ids.chunks(self.max_ids) {
            if sender.shared.abort.is_raised() {
                return;
            }
            match self.query(sender, chunk) {
                Ok(confirmed) => self.confirm(sender, chunk, &confirmed),
                Err(why) => {
                    let c = &sender.shared.counters;
                    Counters::add(&c.ack_poll_failures, 1);
                    sender.shared.reporter.error(
                        c,
                        "ack",
                        DeliveryError {
                            status: None,
                            message: format!(
                                "the acknowledgement query failed ({why}); asking again at the next poll"
                            ),
                            events: 0,
                            permanent: false,
                        },
                    );
                }
            }
        }
    }

    /// One acknowledgement query: the ids the answer confirms, or why it is not usable.
    fn query(&self, sender: &Sender, ids: &[u64]) -> Result<Vec<u64>, String> {
        Counters::add(&sender.shared.counters.ack_polls, 1);
        let body = sender.codec.ack_query(ids);
        let resp = sender
            .client
            .post(
                &self.url,
                "application/json",
                false,
                sender.codec.headers(),
                &body,
                self.max_answer,
            )
            .map_err(|e| e.message)?;
        let shown = || sender.shared.reporter.clean(resp.body.trim(), 200);
        if resp.status != 200 {
            return Err(format!("it answered {}: {}", resp.status, shown()));
        }
        sender
            .codec
            .acked(&resp.raw)
            .ok_or_else(|| format!("the answer is not of the documented shape: {}", shown()))
    }

    /// Settles the parts among `asked` whose id is in `confirmed` as delivered (`asked`
    /// sorted): what an answer to a query, or another source of confirmations, says.
    pub(crate) fn confirm(&self, sender: &Sender, asked: &[u64], confirmed: &[u64]) {
        let mut s = self.lock();
        let mut finished = Vec::new();
        for id in confirmed {
            // Only what was asked: an answer naming other ids proves nothing about them.
            if asked.binary_search(id).is_err() {
                continue;
            }
            let Some(part) = s.parts.remove(id) else {
                continue;
            };
            s.records -= part.records.len();
            let owner = part.owner;
            if let Some(entry) = s.entries.get_mut(&owner) {
                entry.settled.delivered += part.records.len();
                entry.open = entry.open.saturating_sub(1);
            }
            finished.extend(take_if_done(&mut s, owner));
        }
        drop(s);
        for f in finished {
            self.finish(sender, Some(f));
        }
    }

    /// At the shutdown deadline: what is unconfirmed is settled as aborted (spilled, or
    /// counted as abandoned) with the rest of its batch. A batch with a part out for a
    /// resend stays until that resend returns (its delivery sees the abort too and hands
    /// the part back as aborted), or is settled whole by shutdown's own last resort.
    fn abort_all(&self, sender: &Sender) {
        let mut s = self.lock();
        let parts = std::mem::take(&mut s.parts);
        s.records = 0;
        for part in parts.into_values() {
            if let Some(entry) = s.entries.get_mut(&part.owner) {
                entry.settled.aborted.extend(part.records);
                entry.open = entry.open.saturating_sub(1);
            }
        }
        let owners: Vec<Owner> = s.entries.keys().copied().collect();
        let finished: Vec<Finished> = owners
            .into_iter()
            .filter_map(|o| take_if_done(&mut s, o))
            .collect();
        drop(s);
        for f in finished {
            self.finish(sender, Some(f));
        }
        self.changed.notify_all();
    }
}

/// Removes `owner`'s entry when nothing of it is open.
fn take_if_done(s: &mut State, owner: Owner) -> Option<Finished> {
    if s.entries.get(&owner).is_some_and(|e| e.open == 0) {
        return s.entries.remove(&owner).map(|e| (owner, e));
    }
    None
}

/// The poll thread (`logship-acks`): polls while parts wait, fast during a flush or
/// shutdown; resends late parts; ends when the pipeline has shut down and nothing
/// waits, or at the shutdown deadline (settling what is left as aborted).
pub(crate) fn run(acks: Arc<Acks>, sender: Sender) {
    let shared = Arc::clone(&sender.shared);
    let mut last_poll: Option<Instant> = None;
    loop {
        if shared.abort.is_raised() {
            acks.abort_all(&sender);
            return;
        }
        let closed = shared.closed.load(Ordering::Acquire);
        let s = acks.lock();
        let now = Instant::now();
        if s.entries.is_empty() {
            if closed && shared.tracker.wait_until(now, |t| t.idle_and_done()) {
                return;
            }
            let _ = acks.changed.wait_timeout(s, SLICE * 10);
            continue;
        }
        let hurry = closed || s.hurry_until.is_some_and(|t| now < t);
        let every = if hurry { HURRY } else { acks.poll_every };
        let due = last_poll.map_or(now, |t| t + every);
        let oldest = s.parts.values().map(|p| p.accepted).min();
        // A part's first poll waits one period after it was accepted, as later ones do.
        let due = due.max(oldest.map_or(now, |t| t + every.min(acks.poll_every)));
        if now < due {
            let _ = acks.changed.wait_timeout(s, (due - now).min(SLICE));
            continue;
        }
        drop(s);
        last_poll = Some(now);
        acks.poll(&sender);
        acks.expire(&sender);
    }
}
