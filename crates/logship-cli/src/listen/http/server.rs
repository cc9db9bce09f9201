//! The HTTP server of `--listen http://...`: an accept loop, one thread per connection
//! under a connection limit, keep-alive, and the intake's hardened HTTP/1.1 parser
//! (`logship_http`: bounded head and body, chunked bodies, `Expect: 100-continue`).
//!
//! Why a thread per connection: clients are few and local (appenders, agents); a thread
//! blocked on a slow client costs only that client, and every wait is bounded: the idle
//! wait between requests, the head (from accept for a connection's first request) and
//! the body each have a deadline, so a client sending a byte a second is closed at its
//! deadline (408). At the connection limit, a connection waiting for a request gives its
//! slot to the new client (`slots.rs`): idle or dripping connections never delay others.
//!
//! Must never: answer 2xx before the request's events are queued (or delivered, with
//! `--listen-ack delivered`), decompress past the body limit (a gzip bomb is a 413),
//! keep reading once stopped (idle connections close at once; a request being read
//! gets [`STOP_GRACE`] to finish), or close a connection with a request unread right
//! after answering it (the kernel's reset can reach the client before the answer:
//! early answers linger, [`close_after_answer`]).

use std::io::{self, BufReader, Read};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use logship::{Logship, Offered, Record};
use logship_http::{
    close_after_answer, decoded_body, find_header, read_request, write_response, ReadError,
    Request, Response,
};

use super::ack;
use super::counters::Counters;
use super::generic;
use super::options::{Ack, Options};
use super::slots::{Slot, Slots};
use super::token::Token;
use super::vendor::{self, Decoded, Vendor};
use crate::listen::stop::STOP_TICK;

/// How long a request being read when the listener stops may still take.
const STOP_GRACE: Duration = Duration::from_secs(2);
/// How long an early answer (a refusal, a 413 or 400 before the body's end) waits for the
/// client to read it and close before the connection is closed unread
/// ([`close_after_answer`]): without it the close can reset the connection before the
/// client has read its answer.
const LINGER: Duration = Duration::from_millis(500);
/// What `Retry-After` says when the queue is full.
const RETRY_AFTER_SECS: u64 = 1;

/// Starts serving `listener`; the returned thread ends once `stop` is set and its
/// connections are answered (or [`STOP_GRACE`] passed).
pub(crate) fn serve(
    listener: TcpListener,
    logship: Logship,
    counters: Arc<Counters>,
    stop: Arc<AtomicBool>,
    options: Options,
) -> io::Result<JoinHandle<()>> {
    std::thread::Builder::new()
        .name("logship-listen-http".into())
        .spawn(move || accept_loop(&listener, &logship, &counters, &stop, &options))
}

fn accept_loop(
    listener: &TcpListener,
    logship: &Logship,
    counters: &Arc<Counters>,
    stop: &Arc<AtomicBool>,
    options: &Options,
) {
    let slots = Slots::new(options.max_connections);
    let lingering = Arc::new(AtomicUsize::new(0));
    let mut failures = 0u32;
    while !stop.load(Ordering::Acquire) {
        let stream = match listener.accept() {
            Ok((stream, _)) => stream,
            Err(e) => {
                failures += 1;
                if failures == 1 {
                    eprintln!("logship: warning: HTTP listener cannot accept ({e}); retrying");
                }
                // Out of file descriptors and the like: do not spin.
                std::thread::sleep(Duration::from_millis(50));
                continue;
            }
        };
        failures = 0;
        if stop.load(Ordering::Acquire) {
            // The wake-up connection, or a client too late (answered 503, counted).
            refuse_at_stop(stream, counters);
            break;
        }
        let _ = stream.set_nodelay(true);
        let slot = match slots.take(&stream) {
            Some((slot, reclaimed)) => {
                if reclaimed {
                    Counters::add(&counters.connections_reclaimed, 1);
                }
                slot
            }
            None => {
                Counters::add(&counters.connections_refused, 1);
                refuse(stream, &lingering);
                continue;
            }
        };
        let (logship, counters, stop, options) = (
            logship.clone(),
            Arc::clone(counters),
            Arc::clone(stop),
            options.clone(),
        );
        // A thread that cannot start drops its slot with the closure.
        let _ = std::thread::Builder::new()
            .name("logship-listen-conn".into())
            .spawn(move || connection(stream, slot, &logship, &counters, &stop, &options));
    }
    // Stopped: wait for the connections to answer what they are reading; a client that
    // arrives meanwhile is answered 503 (counted) rather than left to a reset.
    let deadline = Instant::now() + STOP_GRACE + STOP_TICK * 5;
    let _ = listener.set_nonblocking(true);
    loop {
        while let Ok((stream, _)) = listener.accept() {
            refuse_at_stop(stream, counters);
        }
        let now = Instant::now();
        if slots.wait_closed(deadline.min(now + STOP_TICK)) || now >= deadline {
            break;
        }
    }
}

/// How long a connection arriving while the listener stops may take to send its first
/// bytes or close: the listeners' own wake-up connection closes at once, a client sends
/// its request. A client still silent by then is answered too (on a busy machine its
/// write can come well after its connect: a shorter wait once left one with no answer).
const STOP_FIRST_BYTES: Duration = Duration::from_secs(1);

/// A connection arriving while the listener stops: a client is answered 503 with
/// `Retry-After` and counted, whether its request came or not; the listeners' own wake-up
/// connection (which sends nothing and closes at once) is closed.
fn refuse_at_stop(mut stream: TcpStream, counters: &Counters) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(STOP_FIRST_BYTES));
    let mut head = [0u8; 512];
    let client = match stream.read(&mut head) {
        Ok(n) => n > 0,
        Err(e) => matches!(
            e.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
        ),
    };
    if client {
        Counters::add(&counters.refused_at_stop, 1);
        let _ = stream.set_write_timeout(Some(STOP_TICK));
        if write_response(&mut stream, &busy_generic("logship is stopping"), true).is_ok() {
            close_after_answer(&stream, LINGER);
        }
    }
}

/// Connections over the limit whose refusal may linger at once, each on a short-lived
/// thread of its own; past it they are closed at once (the accept loop never waits for a
/// refused client, however many come).
const MAX_LINGERING: usize = 32;

/// Answers a connection over the limit with 503 and closes it, lingering on a thread of
/// its own (at most [`MAX_LINGERING`] at once) so that the client reads its answer.
fn refuse(mut stream: TcpStream, lingering: &Arc<AtomicUsize>) {
    let _ = stream.set_write_timeout(Some(STOP_TICK));
    if write_response(&mut stream, &busy_generic("too many connections"), true).is_err() {
        return;
    }
    if lingering.fetch_add(1, Ordering::AcqRel) >= MAX_LINGERING {
        lingering.fetch_sub(1, Ordering::AcqRel);
        return;
    }
    let done = Lingered(Arc::clone(lingering));
    // A thread that cannot start drops the stream (closed at once) and `done` with it.
    let _ = std::thread::Builder::new()
        .name("logship-listen-linger".into())
        .spawn(move || {
            close_after_answer(&stream, LINGER);
            drop(done);
        });
}

/// One lingering refusal, counted off when dropped (also when its thread never started).
struct Lingered(Arc<AtomicUsize>);

impl Drop for Lingered {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

fn busy_generic(why: &str) -> Response {
    let mut r = Response::error(503, why);
    r.headers
        .push(("Retry-After".into(), RETRY_AFTER_SECS.to_string()));
    r
}

/// Where a connection is in its request.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Waiting for a request's first byte (keep-alive idle).
    Idle,
    /// Reading the head.
    Head,
    /// Reading the body.
    Body,
}

/// The socket as the parser reads it: every read bounded by the phase's deadline, the
/// head's end (`\r\n\r\n`) seen as it passes, and `stop` obeyed.
struct Timed<'a> {
    stream: TcpStream,
    /// The connection's slot, told the phase (a waiting connection may be reclaimed).
    slot: Slot,
    /// No request has begun yet.
    first: bool,
    /// The current head's deadline runs from accept (the connection's first request).
    head_from_accept: bool,
    phase: Phase,
    deadline: Instant,
    /// Line ends in a row (`\r` aside) in the head.
    matched: usize,
    timed_out: Option<Phase>,
    stop: &'a AtomicBool,
    stopped_at: Option<Instant>,
    options: &'a Options,
}

impl Timed<'_> {
    fn begin_request(&mut self) {
        self.phase = Phase::Idle;
        self.matched = 0;
        self.slot.waiting();
        // A connection that never sends its first head gets the head's timeout from
        // accept, not the idle wait (and not from its first byte, which it may never
        // send, or send a byte at a time).
        self.head_from_accept = std::mem::take(&mut self.first);
        let wait = if self.head_from_accept {
            self.options.header_timeout
        } else {
            self.options.idle_timeout
        };
        self.deadline = Instant::now() + wait;
    }

    /// Whether a request's first bytes already wait in the socket (sent before the stop,
    /// not yet read): such a request is read and answered, not cut.
    fn request_waiting(&self) -> bool {
        if self.stream.set_nonblocking(true).is_err() {
            return false;
        }
        let waiting = matches!(self.stream.peek(&mut [0u8; 1]), Ok(n) if n > 0);
        let _ = self.stream.set_nonblocking(false);
        waiting
    }

    /// The head has been read: the request is work, never reclaimed.
    fn busy(&mut self) {
        self.slot.busy();
    }

    fn saw(&mut self, bytes: &[u8]) {
        for &b in bytes {
            if self.phase == Phase::Idle {
                self.phase = Phase::Head;
                self.slot.head();
                // The first head's deadline runs from accept already.
                if !self.head_from_accept {
                    self.deadline = Instant::now() + self.options.header_timeout;
                }
            }
            if self.phase != Phase::Head {
                return;
            }
            // A blank line ends the head (`\r\n\r\n`, or `\n\n`, which the parser accepts).
            match b {
                b'\n' => self.matched += 1,
                b'\r' => {}
                _ => self.matched = 0,
            }
            if self.matched == 2 {
                self.phase = Phase::Body;
                self.slot.busy();
                self.deadline = Instant::now() + self.options.body_timeout;
            }
        }
    }
}

impl Read for Timed<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let now = Instant::now();
            if self.stop.load(Ordering::Acquire) {
                if self.phase == Phase::Idle && !self.request_waiting() {
                    return Ok(0); // close between requests
                }
                let at = *self.stopped_at.get_or_insert(now);
                self.deadline = self.deadline.min(at + STOP_GRACE);
            }
            let Some(left) = self
                .deadline
                .checked_duration_since(now)
                .filter(|d| !d.is_zero())
            else {
                self.timed_out = Some(self.phase);
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    "read deadline passed",
                ));
            };
            self.stream.set_read_timeout(Some(left.min(STOP_TICK)))?;
            match self.stream.read(buf) {
                Ok(n) => {
                    self.saw(&buf[..n]);
                    return Ok(n);
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::WouldBlock
                            | io::ErrorKind::TimedOut
                            | io::ErrorKind::Interrupted
                    ) =>
                {
                    continue
                }
                Err(e) => return Err(e),
            }
        }
    }
}

fn connection(
    stream: TcpStream,
    slot: Slot,
    logship: &Logship,
    counters: &Counters,
    stop: &AtomicBool,
    options: &Options,
) {
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let _ = writer.set_write_timeout(Some(options.body_timeout));
    let timed = Timed {
        stream,
        slot,
        first: true,
        head_from_accept: false,
        phase: Phase::Idle,
        deadline: Instant::now(),
        matched: 0,
        timed_out: None,
        stop,
        stopped_at: None,
        options,
    };
    let mut reader = BufReader::with_capacity(64 * 1024, timed);
    loop {
        reader.get_mut().begin_request();
        let req = match read_request(&mut reader, &mut writer, options.max_body as u64) {
            Ok(Some(req)) => req,
            Ok(None) => return,
            Err(ReadError::Io(_)) => {
                if let Some(Phase::Head | Phase::Body) = reader.get_ref().timed_out {
                    Counters::add(&counters.timeouts, 1);
                    let _ = write_response(
                        &mut writer,
                        &Response::error(408, "request not received within the listener's timeout"),
                        true,
                    );
                }
                return;
            }
            Err(ReadError::Bad {
                status,
                message,
                partial,
            }) => {
                let path = partial.target.split('?').next().unwrap_or("");
                let resp = match (status, vendor::route(path)) {
                    (413, Some(v)) => answer(vendor::too_large(v, options.max_body)),
                    _ => Response::error(status, &message),
                };
                if status == 413 {
                    Counters::add(&counters.too_large, 1);
                } else {
                    Counters::add(&counters.bad_requests, 1);
                }
                if write_response(&mut writer, &resp, true).is_ok() {
                    close_after_answer(&writer, LINGER);
                }
                return;
            }
        };
        reader.get_mut().busy();
        let close = req.wants_close() || stop.load(Ordering::Acquire);
        let mut resp = handle(&req, logship, counters, options);
        Counters::add(&counters.requests, 1);
        if !close {
            resp.headers.push((
                "Keep-Alive".into(),
                format!("timeout={}", options.idle_timeout.as_secs().max(1)),
            ));
        }
        if write_response(&mut writer, &resp, close).is_err() || close {
            return;
        }
    }
}

fn answer(a: vendor::Answer) -> Response {
    Response {
        status: a.status,
        headers: a.headers,
        body: a.body,
    }
}

fn handle(req: &Request, logship: &Logship, counters: &Counters, options: &Options) -> Response {
    let path = req.path();
    let vendor = vendor::route(path);
    let body = match decoded_body(req, options.max_body) {
        Ok(b) => b,
        Err(logship_http::BodyError { status, message }) => {
            if status == 413 {
                Counters::add(&counters.too_large, 1);
                if let Some(v) = vendor {
                    return answer(vendor::too_large(v, options.max_body));
                }
            } else {
                Counters::add(&counters.bad_bodies, 1);
            }
            return Response::error(status, &message);
        }
    };
    match vendor {
        Some(v) => handle_vendor(v, req, &body, logship, counters, options),
        None => handle_generic(req, &body, logship, counters, options),
    }
}

fn handle_vendor(
    v: Vendor,
    req: &Request,
    body: &[u8],
    logship: &Logship,
    counters: &Counters,
    options: &Options,
) -> Response {
    let vreq = vendor::Request {
        method: &req.method,
        path: req.path(),
        query: req.query(),
        headers: &req.headers,
        body,
        max_events: options.max_events,
        max_body: options.max_body,
    };
    // Splunk's health endpoint answers without a token, as real Splunk's does (load
    // balancers and HEC clients probe it unauthenticated); it reveals nothing.
    let needs_token = v != Vendor::SplunkHealth;
    if let Some(token) = options.token.as_ref().filter(|_| needs_token) {
        let presented = vendor::credential(v, &vreq);
        if !token.matches(presented.as_deref()) {
            Counters::add(&counters.unauthorized, 1);
            // The vendors answer a missing credential and a wrong one differently.
            return answer(match presented {
                None => vendor::missing_credential(v),
                Some(_) => vendor::unauthorized(v),
            });
        }
    }
    let too_many = || {
        Counters::add(&counters.too_large, 1);
        answer(vendor::too_many(
            v,
            &vendor::too_many_message(options.max_events),
        ))
    };
    let budget = options
        .max_events
        .saturating_mul(super::generic::VALUES_PER_EVENT);
    let decoded = {
        let _permit = options.decoding.enter();
        crate::lines::json::with_value_budget(budget, || vendor::decode(v, &vreq))
    };
    match decoded {
        // The decoder's own 413 first: it answers in the request's encoding (OTLP JSON).
        (Decoded::Answer(a), _) if a.status == 413 => {
            Counters::add(&counters.too_large, 1);
            answer(a)
        }
        (_, true) => too_many(),
        (Decoded::Events(records, _), false) if records.len() > options.max_events => too_many(),
        (Decoded::Events(records, _), false) if over_bytes(&records, options) => {
            Counters::add(&counters.too_large, 1);
            answer(vendor::too_many(v, &too_big_message(options.max_bytes)))
        }
        (Decoded::Answer(a), false) => {
            if a.status == 400 {
                Counters::add(&counters.bad_bodies, 1);
            }
            answer(a)
        }
        (Decoded::Events(records, ok), false) => match admit(records, logship, counters, options) {
            Outcome::Queued => answer(ok),
            Outcome::Busy | Outcome::NotDelivered => answer(vendor::busy(v, RETRY_AFTER_SECS)),
        },
    }
}

fn handle_generic(
    req: &Request,
    body: &[u8],
    logship: &Logship,
    counters: &Counters,
    options: &Options,
) -> Response {
    if let Some(token) = &options.token {
        if !token.matches(Token::generic_credential(&req.headers)) {
            Counters::add(&counters.unauthorized, 1);
            let mut r = Response::error(
                401,
                "missing or wrong token (send Authorization: Bearer TOKEN or X-Logship-Token)",
            );
            r.headers.push(("WWW-Authenticate".into(), "Bearer".into()));
            return r;
        }
    }
    match req.method.as_str() {
        "POST" | "PUT" => {}
        "GET" | "HEAD" if req.path() == "/" => {
            return Response::json(200, &serde_json::json!({"status": "ok"}))
        }
        _ => {
            let mut r = Response::error(405, "send logs with POST");
            r.headers.push(("Allow".into(), "POST, PUT".into()));
            return r;
        }
    }
    let decoded = {
        let _permit = options.decoding.enter();
        generic::decode(
            find_header(&req.headers, "content-type"),
            body,
            options.max_events,
        )
    };
    let records = match decoded {
        Ok(r) => r,
        Err(generic::Refused::Malformed(problem)) => {
            Counters::add(&counters.bad_bodies, 1);
            return Response::error(400, &problem);
        }
        Err(generic::Refused::TooMany) => {
            Counters::add(&counters.too_large, 1);
            return Response::error(413, &vendor::too_many_message(options.max_events));
        }
    };
    if over_bytes(&records, options) {
        Counters::add(&counters.too_large, 1);
        return Response::error(413, &too_big_message(options.max_bytes));
    }
    let n = records.len();
    match admit(records, logship, counters, options) {
        Outcome::Queued => Response::json(200, &serde_json::json!({ "accepted": n })),
        Outcome::Busy => busy_generic("logship's queue is full: send again after Retry-After"),
        Outcome::NotDelivered => busy_generic(
            "not delivered within --listen-ack-timeout-ms: send again after Retry-After",
        ),
    }
}

/// Whether the request's events take more bytes than the queue may hold at all: it can
/// never be admitted whole, so it is refused on its own (413) and leaves no state.
fn over_bytes(records: &[Record], options: &Options) -> bool {
    records
        .iter()
        .map(Record::size)
        .fold(0usize, usize::saturating_add)
        > options.max_bytes
}

fn too_big_message(max_bytes: usize) -> String {
    format!(
        "the request's events take more than {max_bytes} bytes, the most logship's queue \
         holds (queue_max_bytes): send smaller batches"
    )
}

enum Outcome {
    /// Every event is queued (or held back by the user's own limits).
    Queued,
    /// The queue was full or the pipeline is stopping: the client sends again.
    Busy,
    /// `--listen-ack delivered`: not settled in time.
    NotDelivered,
}

/// Hands the request's events to the pipeline without waiting for room.
fn admit(
    records: Vec<Record>,
    logship: &Logship,
    counters: &Counters,
    options: &Options,
) -> Outcome {
    let total = records.len() as u64;
    Counters::add(&counters.received, total);
    let mark = (options.ack == Ack::Delivered).then(|| ack::Mark::take(logship));
    let mut queued = 0u64;
    for record in records {
        // The refused records are the client's to send again: a full queue hands them back
        // (not counted as dropped), without waiting.
        match logship.offer(record, Duration::ZERO) {
            Ok(()) => queued += 1,
            // Full, or shut down (the listener outlived its stop): handed back, the
            // client's to send again.
            Err(Offered::Full(_) | Offered::Closed(_)) => {
                // Records before this one stay queued (at-least-once: the client sends
                // the whole request again).
                Counters::add(&counters.accepted, queued);
                Counters::add(&counters.refused, total - queued);
                return Outcome::Busy;
            }
            // Held back by the user's policy, or (in a request under the byte bound, which
            // cannot happen) alone too large, or a reason added later: counted by the
            // pipeline, treated as held back, never as queued-and-lost.
            Err(_) => queued += 1,
        }
    }
    Counters::add(&counters.accepted, queued);
    match mark.map(|m| m.settled(logship, options.ack_timeout)) {
        Some(false) => {
            Counters::add(&counters.ack_timeouts, 1);
            Outcome::NotDelivered
        }
        _ => Outcome::Queued,
    }
}
