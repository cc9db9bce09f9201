//! The listener, one thread per connection, and orderly shutdown.
//!
//! The intake is a real HTTP/1.1 server so logship is exercised through a real
//! TCP stack: connection reuse, concurrency and socket failures behave as in
//! production. It binds only to 127.0.0.1. Each accepted connection gets a
//! thread that serves requests until the client closes, asks for
//! `Connection: close`, idles past [`IDLE_TIMEOUT`], or the [`Intake`] is
//! dropped; dropping it wakes every blocked thread and joins them.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{BufReader, Read};
use std::net::{Ipv4Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use crate::control;
use crate::faults::{Fault, ItemFault};
use crate::protocol::splunk_ack::AckMode;
use crate::protocol::{Protocol, RejectionKind, Settings};
use crate::state::{
    ConnTrack, IntakeStats, ObserverFn, Outcome, ReceivedEvent, RequestRecord, Shared,
};
use logship_http::tls::{self, Conn, TlsServer};
use logship_http::{self as http, ReadError, Request, Response};

/// Largest request body accepted on the wire (413 beyond).
pub const MAX_BODY_BYTES: u64 = 64 * 1024 * 1024;
/// A connection idle (or stalled mid-request) this long is closed, so
/// abandoned keep-alive connections do not pin threads forever.
pub const IDLE_TIMEOUT: Duration = Duration::from_secs(30);
/// Longest time a TLS handshake may take.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// Longest time spent draining a rejected request before closing its socket.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(2);
/// Most bytes drained from a rejected request before closing its socket.
const DRAIN_LIMIT: usize = 4 * 1024 * 1024;

/// How to start an [`Intake`].
#[derive(Clone, Debug)]
pub struct IntakeConfig {
    /// Port on 127.0.0.1; 0 picks a free port (see [`Intake::addr`]).
    pub port: u16,
    /// Delay added before answering each request (changeable later with
    /// [`Intake::set_delay`]), to emulate a slow intake.
    pub delay: Duration,
    /// Keep every event and request record in memory (default `true`). Turn
    /// off for long benchmarks: only counters are kept, so memory stays
    /// bounded, and [`Intake::events`] / [`Intake::requests`] stay empty.
    pub keep_events: bool,
    /// The credential every vendor endpoint requires (Datadog `DD-API-KEY`,
    /// Splunk `Authorization: Splunk <token>`, New Relic `Api-Key`,
    /// Dynatrace `Authorization: Api-Token <token>`, Elasticsearch
    /// `Authorization: ApiKey <key>` or the password of `Basic`). `None` (the default)
    /// accepts any non-empty credential; a missing one is still refused.
    /// Changeable later with [`Intake::set_api_key`]. The generic protocol
    /// never checks credentials.
    pub api_key: Option<String>,
    /// Splunk HEC `max_content_length`: the largest decoded request body the
    /// Splunk endpoints accept (413 beyond). Default 1,000,000 bytes, the
    /// pre-6.5 Splunk default (docs/wire-formats.md 2.3); current Splunk uses 800 MB.
    pub splunk_max_content_length: usize,
    /// Serve HTTPS with this certificate (and, for mTLS, require client certificates);
    /// `None` (the default) serves plain HTTP. See [`TlsServer`].
    pub tls: Option<TlsServer>,
    /// Splunk indexer acknowledgement (default off: no channel needed, no `ackId`);
    /// changeable later with [`Intake::set_splunk_ack`]. See [`AckMode`].
    pub splunk_ack: AckMode,
    /// Count, do not check (default `false`): every `POST` outside `/_intake/` is
    /// answered `200 {"accepted":N}` once its body is read and decoded, N being its
    /// non-blank lines; nothing is parsed, validated or kept. For throughput benchmarks,
    /// where the strict checks would cost more CPU than the shipper being measured
    /// (docs/performance.md): the analogue of the discarding sinks peers measure against.
    pub count_only: bool,
    /// With `count_only`, a field to look for in each line without parsing it: where a
    /// line holds `"NAME":123` or `"NAME":"123"` (at any depth), the observer gets
    /// `{"NAME": 123}` for it. Default `None`. For a benchmark that needs one number per
    /// event (its log time, for the ingest lag) from a receiver that costs next to
    /// nothing.
    pub count_only_probe: Option<String>,
    /// With `count_only`, text markers each followed by an id: for each line holding one
    /// (`soak f=123` inside any string), the observer gets `{"marker": INDEX, "id": 123}`,
    /// INDEX being the first marker found's place in this list. Default empty. For the
    /// soak, which checks every id at 20,000 events/s (`logship-intake --record-ids`).
    pub count_only_markers: Vec<String>,
}

impl Default for IntakeConfig {
    fn default() -> Self {
        IntakeConfig {
            port: 0,
            delay: Duration::ZERO,
            keep_events: true,
            api_key: None,
            splunk_max_content_length: crate::protocol::shared::DEFAULT_MAX_CONTENT_LENGTH,
            tls: None,
            splunk_ack: AckMode::default(),
            count_only: false,
            count_only_probe: None,
            count_only_markers: Vec::new(),
        }
    }
}

/// Open connections, so shutdown can unblock their threads.
type ConnMap = Arc<Mutex<HashMap<u64, TcpStream>>>;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A running intake server. Dropping it stops the server: the listener is
/// closed, open connections are shut down, and all threads are joined.
pub struct Intake {
    shared: Arc<Shared>,
    addr: SocketAddr,
    accept: Option<JoinHandle<()>>,
    tls: bool,
}

impl std::fmt::Debug for Intake {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Intake")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl Intake {
    /// Binds 127.0.0.1:`cfg.port` and starts serving in background threads.
    pub fn start(cfg: IntakeConfig) -> std::io::Result<Intake> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, cfg.port))?;
        let addr = listener.local_addr()?;
        let settings = Settings {
            api_key: cfg.api_key,
            splunk_max_content_length: cfg.splunk_max_content_length,
            count_only: cfg.count_only,
            count_only_probe: cfg.count_only_probe.map(Arc::from),
            count_only_markers: cfg
                .count_only_markers
                .iter()
                .map(|m| Arc::from(m.as_str()))
                .collect(),
            ..Settings::default()
        };
        settings.splunk_ack.set_mode(cfg.splunk_ack);
        let shared = Arc::new(Shared::new(cfg.keep_events, cfg.delay, settings));
        let tls = cfg.tls.is_some();
        let accept = {
            let shared = Arc::clone(&shared);
            let server = cfg.tls;
            thread::Builder::new()
                .name(format!("logship-intake-accept-{}", addr.port()))
                .spawn(move || accept_loop(listener, shared, server))?
        };
        Ok(Intake {
            shared,
            addr,
            accept: Some(accept),
            tls,
        })
    }

    /// The bound address (always 127.0.0.1).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT` (`https://` when serving TLS) followed by `path` (which
    /// should start with `/`).
    pub fn url(&self, path: &str) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://{}{}", self.addr, path)
    }

    /// Whether this intake serves HTTPS.
    pub fn is_tls(&self) -> bool {
        self.tls
    }

    /// Accepted events in arrival order (empty when `keep_events` is off).
    pub fn events(&self) -> Vec<ReceivedEvent> {
        self.shared.events()
    }

    /// The string at JSON `pointer` (e.g. `/message`) of every accepted event that has
    /// one, sorted: what tests compare with the texts they sent, whatever the order of
    /// arrival. Events without a string there are left out (so a count shows them).
    pub fn sorted_strings_at(&self, pointer: &str) -> Vec<String> {
        let mut out: Vec<String> = self
            .events()
            .iter()
            .filter_map(|e| e.value.pointer(pointer)?.as_str().map(str::to_owned))
            .collect();
        out.sort();
        out
    }

    /// How many events each request carried, in arrival order (0 for a rejected one).
    pub fn events_per_request(&self) -> Vec<usize> {
        self.requests().iter().map(|r| r.events).collect()
    }

    /// Every intake request (accepted, rejected, faulted, malformed) in
    /// arrival order (empty when `keep_events` is off).
    pub fn requests(&self) -> Vec<RequestRecord> {
        self.shared.requests()
    }

    /// Protocol violations, each prefixed with the offending request's
    /// method and target (at most 10 000 are kept; `stats().violations` counts all).
    pub fn violations(&self) -> Vec<String> {
        self.shared.violations()
    }

    /// Snapshot of the counters.
    pub fn stats(&self) -> IntakeStats {
        self.shared.stats()
    }

    /// Blocks until at least `n` events were accepted (since start or the last
    /// [`reset`](Self::reset)) or `timeout` passes; returns whether they were.
    pub fn wait_for_events(&self, n: usize, timeout: Duration) -> bool {
        self.shared.wait_until(timeout, |s| s.events >= n as u64)
    }

    /// Blocks until the emulated Elasticsearch holds at least `n` documents (stored when
    /// a `_bulk` request is handled, before its answer is held by [`pause`](Self::pause)
    /// or sent) or `timeout` passes; returns whether it does.
    pub fn wait_for_documents(&self, n: u64, timeout: Duration) -> bool {
        self.shared.wait_for_documents(timeout, |c| c.stored >= n)
    }

    /// Blocks until at least `n` intake requests have been received (body
    /// fully read, not necessarily answered) or `timeout` passes.
    pub fn wait_for_requests(&self, n: usize, timeout: Duration) -> bool {
        self.shared.wait_until(timeout, |s| s.requests >= n as u64)
    }

    /// Peak number of requests handled at once, each counted from the end of
    /// its body until its response was written (so including delay and pause).
    pub fn max_concurrency(&self) -> usize {
        usize::try_from(self.shared.stats().max_concurrency).unwrap_or(usize::MAX)
    }

    /// Sets the credential the vendor endpoints require from now on: `Some(k)`
    /// accepts only `k`, `None` accepts any non-empty credential (see
    /// [`IntakeConfig::api_key`]). Refusals count in
    /// [`IntakeStats::auth_failures`], not as violations.
    pub fn set_api_key(&self, key: Option<String>) {
        self.shared.set_api_key(key);
    }

    /// Sets the delay added before answering each request from now on.
    pub fn set_delay(&self, d: Duration) {
        self.shared.set_delay(d);
    }

    /// Holds every answer (requests are still read and recorded with status 0)
    /// until [`resume`](Self::resume). Control endpoints keep answering.
    pub fn pause(&self) {
        self.shared.set_paused(true);
    }

    /// Plays dead (`true`) or comes back (`false`): while down, every new connection is
    /// closed at once without reading it, as an intake that is restarting or unreachable
    /// behind a load balancer. A request arriving on a connection opened before is
    /// dropped unanswered, so clients cannot keep using a pooled keep-alive connection.
    /// Control endpoints keep working on connections that are already open.
    pub fn set_down(&self, down: bool) {
        self.shared.set_down(down);
    }

    /// Releases the requests held by [`pause`](Self::pause).
    pub fn resume(&self) {
        self.shared.set_paused(false);
    }

    /// Serves `fault` to the next `n` intake requests instead of the normal
    /// answer; their events are not recorded as accepted. Calls queue up.
    pub fn fail_next(&self, n: usize, fault: Fault) {
        self.shared.fail_next(n, fault);
    }

    /// Fails single items of the coming Elasticsearch `_bulk` requests (the
    /// request still succeeds, answering `"errors":true`); calls queue up.
    /// See [`ItemFault`].
    pub fn fail_items(&self, fault: ItemFault) {
        self.shared.fail_items(fault);
    }

    /// Turns Splunk indexer acknowledgement emulation on or off, and sets which acks are
    /// lost on purpose (see [`AckMode`]); ids issued so far are kept.
    pub fn set_splunk_ack(&self, mode: AckMode) {
        self.shared.settings().splunk_ack.set_mode(mode);
    }

    /// Serves `fault` to the next `n` Splunk acknowledgement queries (`POST
    /// /services/collector/ack`) instead of their answer; event requests do not use these
    /// up, and ack queries do not use up [`Intake::fail_next`]'s faults.
    pub fn fail_splunk_ack_queries(&self, n: usize, fault: Fault) {
        self.shared.settings().splunk_ack.fail_queries(n, fault);
    }

    /// Whether Elasticsearch `_bulk` answers honour `?filter_path=` (on by default).
    /// Off, every answer is the full one, as behind a proxy that drops the query string.
    pub fn set_es_filter_path(&self, honour: bool) {
        self.shared.set_es_filter_path(honour);
    }

    /// Installs a callback run for each accepted event with its arrival time,
    /// e.g. to measure end-to-end latency without keeping events. Replaces
    /// any previous observer. It runs on connection threads before the
    /// response is written, so it should be quick.
    pub fn set_observer(&self, f: Box<ObserverFn>) {
        self.shared.set_observer(Arc::from(f));
    }

    /// Clears recorded events, requests, violations and counters. Settings
    /// (delay, pause, pending faults, observer) are kept; requests in flight
    /// during the reset are not counted afterwards.
    pub fn reset(&self) {
        self.shared.reset();
    }

    /// One-paragraph human summary of what was received, printed by the
    /// `logship-intake` binary when it stops.
    pub fn summary(&self) -> String {
        let s = self.stats();
        let mut out = format!(
            "logship-intake on {}: {} request{} ({} rejected) on {} connection{} carried {} event{}; \
             {} on the wire, {} decoded",
            self.addr,
            s.requests,
            plural(s.requests),
            s.rejected_requests,
            s.connections,
            plural(s.connections),
            s.events,
            plural(s.events),
            human_bytes(s.bytes_wire),
            human_bytes(s.bytes_decoded),
        );
        if s.bytes_wire > 0 && s.bytes_decoded > 0 {
            let _ = write!(
                out,
                " (compression ratio {:.2}x)",
                s.bytes_decoded as f64 / s.bytes_wire as f64
            );
        }
        if s.largest_request_wire > 0 {
            let _ = write!(
                out,
                "; largest request {} on the wire, {} decoded",
                human_bytes(s.largest_request_wire),
                human_bytes(s.largest_request_decoded)
            );
        }
        if s.es_documents.id_conflicts > 0 || s.es_documents.content_duplicates > 0 {
            let _ = write!(
                out,
                "; Elasticsearch: {} create{} of an existing _id refused (409), {} duplicate document{} by content",
                s.es_documents.id_conflicts,
                plural(s.es_documents.id_conflicts),
                s.es_documents.content_duplicates,
                plural(s.es_documents.content_duplicates),
            );
        }
        let _ = write!(out, "; max concurrency {}; ", s.max_concurrency);
        if s.violations == 0 {
            out.push_str("no protocol violations.");
        } else {
            let _ = write!(
                out,
                "{} protocol violation{}",
                s.violations,
                plural(s.violations)
            );
            if let Some(first) = self.violations().first() {
                let _ = write!(out, " (first: {first})");
            }
            out.push('.');
        }
        out
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn human_bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if n < 1024 {
        return format!("{n} B");
    }
    let mut v = n as f64;
    let mut unit = "B";
    for u in UNITS {
        if v < 1024.0 {
            break;
        }
        v /= 1024.0;
        unit = u;
    }
    format!("{v:.1} {unit}")
}

impl Drop for Intake {
    fn drop(&mut self) {
        self.shared.begin_shutdown();
        // Wake the blocking accept() so the accept thread sees the flag.
        let woke = TcpStream::connect_timeout(&self.addr, Duration::from_secs(2)).is_ok();
        if let Some(handle) = self.accept.take() {
            // If the wake-up connection failed, accept() may never return:
            // detach rather than hang the dropping thread.
            if woke {
                let _ = handle.join();
            }
        }
    }
}

/// Accepts connections until shutdown, then closes them all and joins their threads.
fn accept_loop(listener: TcpListener, shared: Arc<Shared>, tls: Option<TlsServer>) {
    let conns: ConnMap = Arc::default();
    let mut workers: Vec<JoinHandle<()>> = Vec::new();
    loop {
        let accepted = listener.accept();
        if shared.is_shutdown() {
            break;
        }
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(_) => {
                // Typically out of file descriptors: back off instead of spinning.
                thread::sleep(Duration::from_millis(10));
                continue;
            }
        };
        if shared.is_down() {
            // An outage: the connection is closed before a byte is read.
            drop(stream);
            continue;
        }
        let conn = shared.new_connection();
        let Ok(registered) = stream.try_clone() else {
            continue;
        };
        lock(&conns).insert(conn.id, registered);
        let id = conn.id;
        let spawned = {
            let shared = Arc::clone(&shared);
            let conns = Arc::clone(&conns);
            let tls = tls.clone();
            thread::Builder::new()
                .name(format!("logship-intake-conn-{id}"))
                .spawn(move || {
                    // Deregister even if a user observer panics on this thread,
                    // so the registered clone does not keep the socket open.
                    let _deregister = Deregister { conns, id };
                    let stream = match &tls {
                        None => Conn::Plain(stream),
                        Some(server) => match handshake(&shared, server, stream) {
                            Some(tls) => tls,
                            None => return,
                        },
                    };
                    serve_connection(&shared, stream, conn);
                })
        };
        match spawned {
            Ok(handle) => {
                workers.retain(|h| !h.is_finished());
                workers.push(handle);
            }
            Err(_) => {
                if let Some(s) = lock(&conns).remove(&id) {
                    let _ = s.shutdown(Shutdown::Both);
                }
            }
        }
    }
    drop(listener);
    let open: Vec<TcpStream> = lock(&conns).drain().map(|(_, s)| s).collect();
    for s in open {
        let _ = s.shutdown(Shutdown::Both);
    }
    for handle in workers {
        let _ = handle.join();
    }
}

/// Removes a connection from the shutdown registry when its thread ends.
struct Deregister {
    conns: ConnMap,
    id: u64,
}

impl Drop for Deregister {
    fn drop(&mut self) {
        lock(&self.conns).remove(&self.id);
    }
}

/// Runs the TLS handshake of a new connection (bounded by [`HANDSHAKE_TIMEOUT`]) and
/// counts it; `None` when it failed (the socket is closed).
fn handshake(shared: &Shared, server: &TlsServer, stream: TcpStream) -> Option<Conn> {
    let _ = stream.set_read_timeout(Some(HANDSHAKE_TIMEOUT));
    let _ = stream.set_write_timeout(Some(HANDSHAKE_TIMEOUT));
    let _ = stream.set_nodelay(true);
    let Ok(registered) = stream.try_clone() else {
        return None;
    };
    match tls::accept(server, stream) {
        Ok(conn) => {
            shared.count_tls_handshake(None);
            Some(conn)
        }
        Err(reason) => {
            shared.count_tls_handshake(Some(reason));
            let _ = registered.shutdown(Shutdown::Both);
            None
        }
    }
}

/// Serves requests on one keep-alive connection until it ends.
fn serve_connection(shared: &Arc<Shared>, stream: Conn, mut conn: ConnTrack) {
    if let Conn::Plain(tcp) = &stream {
        let _ = tcp.set_write_timeout(Some(IDLE_TIMEOUT));
        let _ = tcp.set_nodelay(true);
    }
    let _ = stream.set_read_timeout(Some(IDLE_TIMEOUT));
    if let Conn::Tls(tls) = &stream {
        let _ = tls.borrow().sock.set_write_timeout(Some(IDLE_TIMEOUT));
    }
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let mut writer = stream;
    while !shared.is_shutdown() {
        let req = match http::read_request(&mut reader, &mut writer, MAX_BODY_BYTES) {
            Ok(Some(req)) => req,
            Ok(None) | Err(ReadError::Io(_)) => break,
            Err(ReadError::Bad {
                status,
                message,
                partial,
            }) => {
                let path = partial.target.split('?').next().unwrap_or("");
                let vendor = Protocol::route(path).name();
                shared.record_malformed(&mut conn, &partial, status, &message, vendor);
                let _ = http::write_response(&mut writer, &Response::error(status, &message), true);
                close_gracefully(&writer, &mut reader);
                return;
            }
        };
        if shared.is_down() && !req.path().starts_with(control::PREFIX) {
            // Down while this keep-alive connection was open: drop it unanswered.
            return;
        }
        let close = req.wants_close();
        let keep_going = if req.path().starts_with(control::PREFIX) {
            let resp = control::handle(shared, &req);
            http::write_response(&mut writer, &resp, close).is_ok()
        } else {
            serve_intake(shared, &mut conn, &req, &mut writer, close)
        };
        if !keep_going || close {
            break;
        }
    }
    // A connection a fault mode resets (linger 0) must close with RST, not a FIN first.
    let resetting = writer.with_socket(|s| socket2::SockRef::from(s).linger().ok().flatten())
        == Some(Duration::ZERO);
    if !resetting {
        let _ = writer.shutdown(Shutdown::Both);
    }
}

/// Handles one intake request: record, validate, delay/pause, fault, answer.
/// Returns whether the connection can serve another request.
fn serve_intake(
    shared: &Arc<Shared>,
    conn: &mut ConnTrack,
    req: &Request,
    writer: &mut Conn,
    close: bool,
) -> bool {
    let protocol = Protocol::route(req.path());
    let ticket = shared.begin(conn, req, protocol.name());
    let mut settings = shared.settings();
    if ticket.fault.is_some() {
        // The whole request is faulted: its items must not use item faults up, its
        // documents are not stored (its events are not recorded either), and it must
        // neither be issued a Splunk ackId nor use acknowledgements up (its answer never
        // reaches the client): it works on a scratch copy of the ack mode.
        settings.item_faults = Default::default();
        settings.documents = Default::default();
        settings.splunk_ack = Arc::new(settings.splunk_ack.scratch());
    }
    let handled = if settings.count_only {
        crate::protocol::count_only::handle(
            req,
            settings.count_only_probe.as_deref(),
            &settings.count_only_markers,
        )
    } else {
        protocol.handle(req, &settings)
    };
    let (response, mut outcome) = match handled {
        Ok(mut accepted) => {
            if !settings.count_only {
                if let Some(duplicate) = crate::protocol::unique::check(protocol, req) {
                    accepted.violations.push(duplicate);
                }
            }
            let outcome = Outcome {
                status: accepted.response.status,
                events: accepted.events,
                counted: accepted.counted,
                probes: accepted.probes,
                decoded_bytes: Some(accepted.decoded_bytes),
                violations: accepted.violations,
                auth_failure: false,
                response_bytes: 0,
            };
            (Some(accepted.response), outcome)
        }
        Err(rejection) => {
            let auth_failure = rejection.kind == RejectionKind::AuthFailure;
            let outcome = Outcome {
                status: rejection.response.status,
                events: Vec::new(),
                counted: 0,
                probes: Vec::new(),
                decoded_bytes: rejection.decoded_bytes,
                violations: if auth_failure {
                    Vec::new()
                } else {
                    vec![rejection.violation]
                },
                auth_failure,
                response_bytes: 0,
            };
            (Some(rejection.response), outcome)
        }
    };
    let response = match &ticket.fault {
        Some(fault) => {
            outcome.status = fault.status();
            outcome.events.clear();
            outcome.counted = 0;
            outcome.probes.clear();
            fault.response()
        }
        None => response,
    };
    outcome.response_bytes = response.as_ref().map_or(0, |r| r.body.len());
    if !shared.hold() {
        return false; // shutting down
    }
    ticket.commit(outcome);
    if let Some(Fault::Wire(wire)) = &ticket.fault {
        crate::wire::serve(writer, wire, req, &|| shared.is_shutdown());
        drop(ticket);
        return false;
    }
    let keep_going = match response {
        Some(resp) => http::write_response(writer, &resp, close).is_ok(),
        None => {
            let _ = writer.shutdown(Shutdown::Both);
            false
        }
    };
    drop(ticket); // the request stops counting as in flight once answered
    keep_going
}

/// Closes a connection whose framing is lost, after the error response was
/// written: half-close, then drain what the client is still sending so the
/// kernel does not reset the connection before the client reads the answer.
fn close_gracefully(writer: &Conn, reader: &mut BufReader<Conn>) {
    let _ = writer.shutdown(Shutdown::Write);
    let _ = reader.get_ref().set_read_timeout(Some(DRAIN_TIMEOUT));
    let mut sink = [0u8; 8192];
    let mut drained = 0;
    while drained < DRAIN_LIMIT {
        match reader.read(&mut sink) {
            Ok(0) | Err(_) => break,
            Ok(n) => drained += n,
        }
    }
    let _ = writer.shutdown(Shutdown::Both);
}
