//! Shared recorded state: what the intake received, its counters, and the
//! knobs (delay, pause, faults) that change how it answers.
//!
//! Tests observe logship through this state, so every change is made under one
//! mutex and announced on one condvar: [`Intake::wait_for_events`] and friends
//! block on it instead of sleep-polling, and `pause`/`resume` and shutdown wake
//! held requests through it too.
//!
//! [`Intake::wait_for_events`]: crate::Intake::wait_for_events

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use serde_json::Value;

use crate::faults::{Fault, FaultQueue, ItemFault};
use crate::protocol::Settings;
use logship_http::{find_header, PartialHead, Request};

/// Most violation messages kept in memory; the counter keeps counting beyond.
const MAX_STORED_VIOLATIONS: usize = 10_000;

/// Callback type for [`Intake::set_observer`](crate::Intake::set_observer):
/// called with every accepted event and the time its request arrived.
pub type ObserverFn = dyn Fn(&Value, SystemTime) + Send + Sync;

/// Shared form of the observer, cloned out of the lock before being called.
pub(crate) type Observer = Arc<ObserverFn>;

/// One event accepted by the intake.
#[derive(Clone, Debug)]
pub struct ReceivedEvent {
    /// The event as decoded from the request body (a JSON object).
    pub value: Value,
    /// [`RequestRecord::id`] of the request that carried it.
    pub request_id: u64,
    /// When the request body had been fully read.
    pub arrival: SystemTime,
}

/// One intake request (control requests under `/_intake/` are not recorded).
///
/// The record is created as soon as the body has been read, with `status` 0,
/// and completed when the answer is decided; so while the intake is paused
/// the held requests are visible with `status == 0`.
#[derive(Clone, Debug)]
pub struct RequestRecord {
    /// Unique, increasing request id (not reset by [`Intake::reset`](crate::Intake::reset)).
    pub id: u64,
    /// Request method as sent.
    pub method: String,
    /// Request target, path plus query string.
    pub path: String,
    /// Request headers in wire order, names lowercased.
    pub headers: Vec<(String, String)>,
    /// Body size as sent on the wire (before decompression; de-chunked).
    pub body_bytes: usize,
    /// Body size after `Content-Encoding` decoding (0 if decoding failed).
    pub decoded_bytes: usize,
    /// Number of events accepted from this request.
    pub events: usize,
    /// Status answered; 0 while not answered yet or when the connection was
    /// closed without an answer ([`Fault::CloseConnection`]).
    pub status: u16,
    /// When the body had been fully read.
    pub arrival: SystemTime,
    /// Monotonic twin of `arrival`, for measuring intervals between requests.
    pub arrival_instant: Instant,
    /// Id of the TCP connection the request came on; equal ids mean the
    /// client reused a keep-alive connection.
    pub connection_id: u64,
    /// Body size of the answer (0 while not answered yet, when closed without an
    /// answer, and for requests too malformed to be routed).
    pub response_bytes: usize,
    /// Protocol that served the request, chosen by path: `"generic"`,
    /// `"datadog"`, `"splunk"`, `"newrelic"` or `"dynatrace"`.
    pub vendor: String,
}

impl RequestRecord {
    /// First value of header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }
}

/// Aggregate counters, kept even when events are not (`keep_events: false`).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct IntakeStats {
    /// Intake requests received (every one, including rejected and faulted).
    pub requests: u64,
    /// Events accepted.
    pub events: u64,
    /// Request body bytes as sent on the wire.
    pub bytes_wire: u64,
    /// Request body bytes after decompression (requests whose body decoded).
    pub bytes_decoded: u64,
    /// Requests answered with a non-2xx status or not answered at all.
    pub rejected_requests: u64,
    /// Protocol violations detected (see [`Intake::violations`](crate::Intake::violations)).
    pub violations: u64,
    /// Peak number of requests handled at once.
    pub max_concurrency: u64,
    /// Largest accepted request body as sent on the wire (compressed when gzip is used).
    pub largest_request_wire: u64,
    /// Largest accepted request body after decompression.
    pub largest_request_decoded: u64,
    /// Connections that carried at least one intake request.
    pub connections: u64,
    /// Requests refused because their vendor credential was missing or
    /// wrong. Not protocol violations (tests provoke them on purpose), and
    /// also counted in `rejected_requests`.
    pub auth_failures: u64,
    /// TLS handshakes completed (an HTTPS intake): with connection reuse, about the
    /// number of connections, not of requests.
    pub tls_handshakes: u64,
    /// TLS handshakes that failed (the client sent plain HTTP, refused the certificate,
    /// or sent no client certificate when one is required).
    pub tls_handshake_failures: u64,
    /// Why the most recent TLS handshake failed, as rustls words it.
    pub last_tls_failure: Option<String>,
    /// What the emulated Elasticsearch holds: documents by `_id`, 409s for existing
    /// ids, duplicates by content.
    pub es_documents: crate::DocumentCounts,
    /// Splunk indexer acknowledgement: ids issued, queries, confirmations, losses.
    pub splunk_ack: crate::protocol::splunk_ack::AckStats,
}

/// How many of the latest accepted events are kept for `GET /_intake/events`, whatever
/// `keep_events` says (bounded, so a long-running intake does not grow).
pub(crate) const RECENT_EVENTS: usize = 1000;

/// Everything guarded by the state mutex.
#[derive(Default)]
struct Inner {
    events: Vec<ReceivedEvent>,
    /// The last [`RECENT_EVENTS`] accepted events, kept even without `keep_events`
    /// (`GET /_intake/events`): the vendor that decoded each, and the event.
    recent: std::collections::VecDeque<(&'static str, Value)>,
    requests: Vec<RequestRecord>,
    violations: Vec<String>,
    stats: IntakeStats,
    in_flight: usize,
    paused: bool,
    delay: Duration,
    faults: FaultQueue,
    /// Bumped by `reset`, so requests in flight across a reset do not add
    /// their results to the fresh counters.
    epoch: u64,
    shutdown: bool,
}

/// State shared by the [`Intake`](crate::Intake) handle and all server threads.
pub(crate) struct Shared {
    inner: Mutex<Inner>,
    cond: Condvar,
    keep_events: bool,
    shutdown: AtomicBool,
    /// Playing dead: every new connection is closed at once, unread.
    down: AtomicBool,
    observer: Mutex<Option<Observer>>,
    /// Vendor settings (API key, limits), read once per request.
    settings: Mutex<Settings>,
    next_request_id: AtomicU64,
    next_connection_id: AtomicU64,
}

/// Per-connection bookkeeping owned by the connection thread.
pub(crate) struct ConnTrack {
    /// Connection id given at accept time.
    pub id: u64,
    /// Epoch in which this connection was last counted in `stats.connections`.
    counted_epoch: Option<u64>,
}

/// A request between "body read" and "answered": holds its slot in the
/// concurrency gauge until dropped.
pub(crate) struct Ticket {
    shared: Arc<Shared>,
    id: u64,
    /// The protocol that decoded the request.
    vendor: &'static str,
    epoch: u64,
    arrival: SystemTime,
    /// Fault to serve instead of the normal answer.
    pub fault: Option<Fault>,
    /// Request description used to prefix violation messages.
    label: String,
    /// Body bytes as received on the wire.
    wire_bytes: usize,
}

/// The result of handling a request, to be recorded by [`Ticket::commit`].
pub(crate) struct Outcome {
    /// Status answered (0 = closed without answering).
    pub status: u16,
    /// Events to record as accepted.
    pub events: Vec<Value>,
    /// Events accepted and counted but not kept (the count-only mode).
    pub counted: usize,
    /// Values for the observer only (the count-only mode's probe).
    pub probes: Vec<Value>,
    /// Decoded body size, if decoding succeeded.
    pub decoded_bytes: Option<usize>,
    /// Protocol violations found in the request (usually zero or one).
    pub violations: Vec<String>,
    /// Whether the request was refused for a missing or wrong credential.
    pub auth_failure: bool,
    /// Body size of the answer sent.
    pub response_bytes: usize,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panicking observer must not make the whole intake unusable.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Counts one more intake request, and its connection once per epoch (since the last
/// reset).
fn count_request(inner: &mut Inner, conn: &mut ConnTrack) {
    if conn.counted_epoch != Some(inner.epoch) {
        conn.counted_epoch = Some(inner.epoch);
        inner.stats.connections += 1;
    }
    inner.stats.requests += 1;
}

impl Shared {
    pub fn new(keep_events: bool, delay: Duration, settings: Settings) -> Shared {
        Shared {
            inner: Mutex::new(Inner {
                delay,
                ..Inner::default()
            }),
            cond: Condvar::new(),
            keep_events,
            shutdown: AtomicBool::new(false),
            down: AtomicBool::new(false),
            observer: Mutex::new(None),
            settings: Mutex::new(settings),
            next_request_id: AtomicU64::new(1),
            next_connection_id: AtomicU64::new(1),
        }
    }

    /// Counts a TLS handshake: completed (`None`) or failed, with why.
    pub fn count_tls_handshake(&self, failure: Option<String>) {
        let mut inner = lock(&self.inner);
        match failure {
            None => inner.stats.tls_handshakes += 1,
            Some(why) => {
                inner.stats.tls_handshake_failures += 1;
                inner.stats.last_tls_failure = Some(why);
            }
        }
        drop(inner);
        self.cond.notify_all();
    }

    /// Allocates the id for a newly accepted connection.
    pub fn new_connection(&self) -> ConnTrack {
        ConnTrack {
            id: self.next_connection_id.fetch_add(1, Ordering::Relaxed),
            counted_epoch: None,
        }
    }

    /// Whether the intake is shutting down.
    /// True while the intake plays dead (see [`crate::Intake::set_down`]).
    pub fn is_down(&self) -> bool {
        self.down.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Starts or stops playing dead.
    pub fn set_down(&self, down: bool) {
        self.down.store(down, std::sync::atomic::Ordering::Release);
    }

    pub fn is_shutdown(&self) -> bool {
        self.shutdown.load(Ordering::SeqCst)
    }

    /// Flags shutdown and wakes every waiting thread (paused or delayed requests).
    pub fn begin_shutdown(&self) {
        let mut inner = lock(&self.inner);
        inner.shutdown = true;
        self.shutdown.store(true, Ordering::SeqCst);
        drop(inner);
        self.cond.notify_all();
    }

    /// Snapshot of the vendor settings.
    pub fn settings(&self) -> Settings {
        lock(&self.settings).clone()
    }

    /// Queues a failure of single `_bulk` items.
    pub fn fail_items(&self, fault: ItemFault) {
        lock(&self.settings().item_faults).push(fault);
    }

    /// Whether `_bulk` answers honour `?filter_path=`.
    pub fn set_es_filter_path(&self, honour: bool) {
        lock(&self.settings).es_filter_path = honour;
    }

    /// Sets the credential vendors must present (`None` = any non-empty one).
    pub fn set_api_key(&self, key: Option<String>) {
        lock(&self.settings).api_key = key;
    }

    /// Registers a request whose body has been fully read: assigns its id,
    /// records it (status 0), counts it and takes a fault if one is pending.
    /// `vendor` is the name of the protocol serving it.
    pub fn begin(
        self: &Arc<Self>,
        conn: &mut ConnTrack,
        req: &Request,
        vendor: &'static str,
    ) -> Ticket {
        let arrival = SystemTime::now();
        let arrival_instant = Instant::now();
        // Splunk ack queries take only the faults meant for them, so a test can fault the
        // event requests and the ack queries each on their own.
        let ack_query = crate::protocol::splunk_ack::ACK_PATHS.contains(&req.path());
        let ack_fault = if ack_query {
            self.settings().splunk_ack.take_query_fault()
        } else {
            None
        };
        let mut inner = lock(&self.inner);
        // Taken under the lock so ids are pushed in order: `commit` finds its
        // record by binary search.
        let id = self.next_request_id.fetch_add(1, Ordering::Relaxed);
        let epoch = inner.epoch;
        count_request(&mut inner, conn);
        inner.stats.bytes_wire += req.body.len() as u64;
        inner.in_flight += 1;
        let in_flight = inner.in_flight as u64;
        if in_flight > inner.stats.max_concurrency {
            inner.stats.max_concurrency = in_flight;
        }
        let fault = if ack_query {
            ack_fault
        } else {
            inner.faults.take()
        };
        if self.keep_events {
            inner.requests.push(RequestRecord {
                id,
                method: req.method.clone(),
                path: req.target.clone(),
                headers: req.headers.clone(),
                body_bytes: req.body.len(),
                decoded_bytes: 0,
                events: 0,
                status: 0,
                arrival,
                arrival_instant,
                connection_id: conn.id,
                response_bytes: 0,
                vendor: vendor.to_string(),
            });
        }
        drop(inner);
        self.cond.notify_all();
        Ticket {
            shared: Arc::clone(self),
            id,
            vendor,
            epoch,
            arrival,
            fault,
            label: format!("{} {}", req.method, req.target),
            wire_bytes: req.body.len(),
        }
    }

    /// Records a request that could not even be parsed (it never gets a
    /// [`Ticket`]): counts it, its violation and its rejection. `vendor` is
    /// the protocol its target would have been routed to.
    pub fn record_malformed(
        &self,
        conn: &mut ConnTrack,
        partial: &PartialHead,
        status: u16,
        message: &str,
        vendor: &str,
    ) {
        let label = if partial.method.is_empty() {
            "malformed request".to_string()
        } else {
            format!("{} {}", partial.method, partial.target)
        };
        let mut inner = lock(&self.inner);
        let id = self.next_request_id.fetch_add(1, Ordering::Relaxed);
        count_request(&mut inner, conn);
        inner.stats.rejected_requests += 1;
        push_violation(&mut inner, format!("{label}: {message}"));
        if self.keep_events {
            inner.requests.push(RequestRecord {
                id,
                method: partial.method.clone(),
                path: partial.target.clone(),
                headers: partial.headers.clone(),
                body_bytes: 0,
                decoded_bytes: 0,
                events: 0,
                status,
                arrival: SystemTime::now(),
                arrival_instant: Instant::now(),
                connection_id: conn.id,
                response_bytes: 0,
                vendor: vendor.to_string(),
            });
        }
        drop(inner);
        self.cond.notify_all();
    }

    /// Waits out the configured delay, then waits while paused. Both waits end
    /// early on shutdown; returns `false` in that case.
    pub fn hold(&self) -> bool {
        let mut inner = lock(&self.inner);
        let delay = inner.delay;
        if !delay.is_zero() {
            inner = self
                .cond
                .wait_timeout_while(inner, delay, |i| !i.shutdown)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        while inner.paused && !inner.shutdown {
            inner = self
                .cond
                .wait(inner)
                .unwrap_or_else(PoisonError::into_inner);
        }
        !inner.shutdown
    }

    pub fn set_delay(&self, d: Duration) {
        lock(&self.inner).delay = d;
    }

    pub fn set_paused(&self, paused: bool) {
        lock(&self.inner).paused = paused;
        self.cond.notify_all();
    }

    pub fn fail_next(&self, n: usize, fault: Fault) {
        lock(&self.inner).faults.push(n, fault);
    }

    /// Drops the request faults still pending (`fail`, `close`, `misbehave`).
    pub fn clear_faults(&self) {
        lock(&self.inner).faults.clear();
    }

    pub fn set_observer(&self, observer: Observer) {
        *lock(&self.observer) = Some(observer);
    }

    /// Clears recorded events, requests, violations and counters. Settings
    /// (delay, pause, pending faults, observer) are kept.
    pub fn reset(&self) {
        let mut inner = lock(&self.inner);
        inner.events = Vec::new();
        inner.recent.clear();
        inner.requests = Vec::new();
        inner.violations = Vec::new();
        inner.stats = IntakeStats::default();
        inner.epoch += 1;
        drop(inner);
        self.settings().documents.clear();
        self.settings().splunk_ack.reset();
        self.cond.notify_all();
    }

    pub fn events(&self) -> Vec<ReceivedEvent> {
        lock(&self.inner).events.clone()
    }

    /// The last `n` (at most [`RECENT_EVENTS`]) accepted events, oldest first, with the
    /// vendor that decoded each.
    pub fn recent_events(&self, n: usize) -> Vec<(&'static str, Value)> {
        let inner = lock(&self.inner);
        let skip = inner.recent.len().saturating_sub(n);
        inner.recent.iter().skip(skip).cloned().collect()
    }

    pub fn requests(&self) -> Vec<RequestRecord> {
        lock(&self.inner).requests.clone()
    }

    pub fn violations(&self) -> Vec<String> {
        lock(&self.inner).violations.clone()
    }

    pub fn stats(&self) -> IntakeStats {
        let mut stats = lock(&self.inner).stats.clone();
        stats.es_documents = self.settings().documents.counts();
        stats.splunk_ack = self.settings().splunk_ack.stats();
        stats
    }

    /// Blocks until the emulated Elasticsearch's counts satisfy `pred` or `timeout`
    /// passes (documents are stored before the answer is held or sent).
    pub fn wait_for_documents(
        &self,
        timeout: Duration,
        pred: impl Fn(&crate::DocumentCounts) -> bool,
    ) -> bool {
        self.settings().documents.wait_until(timeout, pred)
    }

    /// Blocks until `pred(stats)` holds or `timeout` passes; returns whether it holds.
    pub fn wait_until(&self, timeout: Duration, pred: impl Fn(&IntakeStats) -> bool) -> bool {
        let inner = lock(&self.inner);
        let (inner, _) = self
            .cond
            .wait_timeout_while(inner, timeout, |i| !pred(&i.stats))
            .unwrap_or_else(PoisonError::into_inner);
        pred(&inner.stats)
    }
}

fn push_violation(inner: &mut Inner, message: String) {
    inner.stats.violations += 1;
    if inner.violations.len() < MAX_STORED_VIOLATIONS {
        inner.violations.push(message);
    }
}

impl Ticket {
    /// Records the outcome: accepted events (also passed to the observer),
    /// violation, counters and the request's final status. Called before the
    /// response is written, so a client that got its answer can rely on the
    /// state already reflecting it.
    pub fn commit(&self, outcome: Outcome) {
        let shared = &self.shared;
        if !outcome.events.is_empty() || !outcome.probes.is_empty() {
            let observer = lock(&shared.observer).clone();
            if let Some(observer) = observer {
                for event in outcome.events.iter().chain(&outcome.probes) {
                    observer(event, self.arrival);
                }
            }
        }
        let mut inner = lock(&shared.inner);
        if inner.epoch == self.epoch {
            let n = outcome.events.len() + outcome.counted;
            inner.stats.events += n as u64;
            let decoded = outcome.decoded_bytes.unwrap_or(0) as u64;
            inner.stats.bytes_decoded += decoded;
            if !(200..300).contains(&outcome.status) {
                inner.stats.rejected_requests += 1;
            } else {
                let wire = self.wire_bytes as u64;
                inner.stats.largest_request_wire = inner.stats.largest_request_wire.max(wire);
                inner.stats.largest_request_decoded =
                    inner.stats.largest_request_decoded.max(decoded);
            }
            if outcome.auth_failure {
                inner.stats.auth_failures += 1;
            }
            for v in outcome.violations {
                push_violation(&mut inner, format!("{}: {v}", self.label));
            }
            if let Ok(i) = inner.requests.binary_search_by_key(&self.id, |r| r.id) {
                let record = &mut inner.requests[i];
                record.status = outcome.status;
                record.events = n;
                record.decoded_bytes = outcome.decoded_bytes.unwrap_or(0);
                record.response_bytes = outcome.response_bytes;
            }
            for event in outcome.events.iter().rev().take(RECENT_EVENTS).rev() {
                if inner.recent.len() == RECENT_EVENTS {
                    inner.recent.pop_front();
                }
                inner.recent.push_back((self.vendor, event.clone()));
            }
            if shared.keep_events {
                let (request_id, arrival) = (self.id, self.arrival);
                inner
                    .events
                    .extend(outcome.events.into_iter().map(|value| ReceivedEvent {
                        value,
                        request_id,
                        arrival,
                    }));
            }
        }
        drop(inner);
        shared.cond.notify_all();
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut inner = lock(&self.shared.inner);
        inner.in_flight = inner.in_flight.saturating_sub(1);
    }
}
