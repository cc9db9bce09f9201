//! `serve_tcp`: the accept loop and one thread per connection, for `tcp://` and
//! `syslog+tcp://`.
//!
//! Why it exists: a TCP sender is read only as fast as the pipeline takes its events: an
//! event is offered (`Logship::offer`) and waits while the queue is full, so the
//! connection is not read, the sender's socket buffer fills, and its own policy applies.
//! An event the queue still refuses after the wait comes back and is offered again, never
//! dropped nor counted as dropped. Each wait is short (`OFFER_WAIT`), so a stop is noticed
//! between waits instead of after the pipeline's 60 s.
//!
//! Must never: serve more than `max_connections` at once (more are accepted and closed at
//! once, counted), keep a silent connection past `idle_timeout`, busy-loop (accept and
//! reads wake every `STOP_TICK` to notice `stop`), or lose an event silently: once stopping,
//! what was received is offered; what the queue can no longer take is counted
//! `not_taken` (what the pipeline refuses as shut down, it counts itself).
//!
//! On stop, a connection is not cut while its sender is still writing (that lost a Java
//! `Socket` appender's last events to "Broken pipe"): new connections are no longer
//! served (accepted and closed, counted `refused_at_stop`), and each open one is read
//! on until its sender pauses for [`DRAIN_QUIET`] or [`DRAIN_DEADLINE`] passes (a
//! connection still sending then is counted `cut_at_stop`). Stop the sidecar after the
//! application (docs/listen.md "Stopping").

use std::io::{self, ErrorKind, Read};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use logship::{Logship, Offered};

use super::counters::{bump, Counters};
use super::event::{build, count};
use super::framing::{Frame, Framer, Framing};
use super::limits::Limits;
use crate::listen::stop::STOP_TICK;
use crate::signals::OFFER_WAIT;

/// Bytes read from a connection at a time.
const READ_BUF: usize = 64 * 1024;
/// Once stopping, a sender silent this long is done: its connection is closed.
const DRAIN_QUIET: Duration = Duration::from_millis(300);
/// Once stopping, the longest a connection is read on (inside the listeners' 5 s stop
/// wait, with room for the pushes).
const DRAIN_DEADLINE: Duration = Duration::from_secs(3);

/// Serves `listener` until `stop`: each connection's events are framed by `framing` and
/// pushed into `logship`. The returned thread ends (after its connections) once `stop`
/// is set, within about `STOP_TICK` plus the time a push waits for room.
pub(crate) fn serve_tcp(
    listener: TcpListener,
    framing: Framing,
    logship: Logship,
    counters: Arc<Counters>,
    stop: Arc<AtomicBool>,
    limits: Limits,
) -> io::Result<JoinHandle<()>> {
    listener.set_nonblocking(true)?;
    std::thread::Builder::new()
        .name("logship-listen-tcp".into())
        .spawn(move || accept_loop(&listener, framing, &logship, &counters, &stop, limits))
}

fn accept_loop(
    listener: &TcpListener,
    framing: Framing,
    logship: &Logship,
    counters: &Arc<Counters>,
    stop: &Arc<AtomicBool>,
    limits: Limits,
) {
    let mut live: Vec<JoinHandle<()>> = Vec::new();
    let mut told_spawn = false;
    let mut stopped_at: Option<Instant> = None;
    loop {
        if stop.load(Ordering::Acquire) {
            // Draining: the open connections are read on; no new one is served.
            let at = *stopped_at.get_or_insert_with(Instant::now);
            live.retain(|h| !h.is_finished());
            if live.is_empty() || at.elapsed() >= DRAIN_DEADLINE + STOP_TICK * 2 {
                break;
            }
        }
        let stream = match listener.accept() {
            Ok((stream, _)) => stream,
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                std::thread::sleep(STOP_TICK);
                continue;
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(_) => {
                // Out of descriptors, a connection reset before accept: wait, go on.
                std::thread::sleep(STOP_TICK);
                continue;
            }
        };
        if stopped_at.is_some() {
            // The listeners' own wake-up, or a client too late: closed, and (when it is
            // not the wake-up, which sends nothing and closes) counted.
            refuse_at_stop(stream, counters);
            continue;
        }
        live.retain(|h| !h.is_finished());
        if live.len() >= limits.max_connections.max(1) {
            bump(&counters.connections_refused);
            drop(stream);
            continue;
        }
        let (logship, counters2, stop2) = (logship.clone(), Arc::clone(counters), Arc::clone(stop));
        let spawned = std::thread::Builder::new()
            .name("logship-listen-conn".into())
            .spawn(move || connection(stream, framing, &logship, &counters2, &stop2, limits));
        match spawned {
            Ok(handle) => {
                bump(&counters.connections);
                live.push(handle);
            }
            Err(e) => {
                bump(&counters.connections_refused);
                if !told_spawn {
                    told_spawn = true;
                    eprintln!("logship: warning: cannot start a thread for a TCP connection ({e}); the connection was closed (counted as refused)");
                }
            }
        }
    }
    for handle in live {
        let _ = handle.join();
    }
}

/// A connection arriving while the listener stops: closed unread. The listeners' own
/// wake-up connection sends nothing and closes at once; anything else is counted.
fn refuse_at_stop(mut stream: TcpStream, counters: &Counters) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(STOP_TICK));
    let mut byte = [0u8; 1];
    if matches!(stream.read(&mut byte), Ok(n) if n > 0) {
        bump(&counters.refused_at_stop);
    }
}

/// Reads one connection to its end, its idle timeout, or `stop`, pushing each event.
fn connection(
    mut stream: TcpStream,
    framing: Framing,
    logship: &Logship,
    counters: &Counters,
    stop: &AtomicBool,
    limits: Limits,
) {
    let mut push = Pusher {
        logship,
        counters,
        stop,
        framing,
        halted: false,
    };
    // An event over `max_event_bytes` is read whole up to the read cap (with room from
    // the process's pool), so that it is parsed and the pipeline truncates it keeping
    // its structure; past the cap, it is cut here and counted.
    let (max, cap) = (limits.max_event_bytes, limits.read_cap);
    let mut framer = Framer::with_cap(framing, max, cap, crate::lines::room::Room::shared());
    if stream.set_nonblocking(false).is_err() || stream.set_read_timeout(Some(STOP_TICK)).is_err() {
        bump(&counters.read_errors);
        return;
    }
    let mut buf = vec![0u8; READ_BUF];
    let mut heard = Instant::now();
    let mut stopped_at: Option<Instant> = None;
    loop {
        if stop.load(Ordering::Acquire) {
            let at = *stopped_at.get_or_insert_with(Instant::now);
            // Read on while the sender sends; done once it pauses, or at the deadline.
            let quiet = heard.elapsed() >= DRAIN_QUIET && at.elapsed() >= DRAIN_QUIET;
            let late = at.elapsed() >= DRAIN_DEADLINE;
            if quiet || late || push.halted {
                if late && !quiet {
                    bump(&counters.cut_at_stop);
                }
                // The start of an event whose end never came is not an event: counted.
                if !framer.is_idle() {
                    bump(&counters.partial_at_stop);
                }
                return;
            }
        }
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                framer.feed(&buf[..n], &mut |f| push.frame(f));
                // After the pushes: time spent waiting for room in the queue is not
                // the client's silence.
                heard = Instant::now();
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                if heard.elapsed() >= limits.idle_timeout {
                    bump(&counters.idle_closed);
                    break;
                }
            }
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(_) => {
                bump(&counters.read_errors);
                break;
            }
        }
    }
    // The sender ended (or went silent): a last event without its delimiter is shipped.
    framer.finish(&mut |f| push.frame(f));
}

/// Pushes a connection's events, in order; once one is not taken, none after it is.
struct Pusher<'a> {
    logship: &'a Logship,
    counters: &'a Counters,
    stop: &'a AtomicBool,
    framing: Framing,
    halted: bool,
}

impl Pusher<'_> {
    fn frame(&mut self, f: Frame<'_>) {
        let Some(built) = build(self.framing, f.bytes, f.real_len) else {
            return;
        };
        let counters = self.counters;
        bump(match self.framing {
            Framing::Lines => &counters.tcp_events,
            Framing::Syslog => &counters.syslog_tcp_events,
        });
        if f.bad_count {
            bump(&counters.bad_counts);
        }
        count(counters, &built, f.cut(), f.real_len);
        if self.halted {
            bump(&counters.not_taken);
            return;
        }
        let mut record = built.record;
        loop {
            match self.logship.offer(record, OFFER_WAIT) {
                Ok(()) => return,
                // Shut down (the reader outlived its stop): received, never handed over,
                // and none after it is offered. The client will not send it again: lost,
                // counted here (the pipeline handed it back uncounted).
                Err(Offered::Closed(_)) => {
                    self.halted = true;
                    bump(&counters.not_taken);
                    return;
                }
                Err(Offered::Full(back)) if !self.stop.load(Ordering::Acquire) => {
                    bump(&counters.refusals_retried);
                    record = back;
                }
                // Stopping with the queue full: received, never handed over.
                Err(Offered::Full(_)) => {
                    self.halted = true;
                    bump(&counters.not_taken);
                    return;
                }
                // Held back by the user's burst limit, sampling or budget, or alone
                // larger than the queue holds (it never fits: retrying would stall the
                // connection), or a reason added later: counted by the pipeline, done
                // with.
                Err(_) => return,
            }
        }
    }
}
