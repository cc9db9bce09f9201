//! TEMPORARY STUB (owner: the stream engineer's branch `l19-stream` replaces this file at
//! merge): the interface of the TCP line and syslog TCP/UDP inputs, as
//! `/tmp/l19-design.md` fixes it, so that `listen/mod.rs` compiles and dispatches to it.
//! Every `serve_*` here refuses to start (a usage error naming the URL at start-up).
//!
//! Must never: be shipped as the stream inputs (it serves nothing).
// A stub: parts of the interface are used only by the real file.
#![allow(dead_code)]

use std::io;
use std::net::{TcpListener, UdpSocket};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// How a TCP stream is cut into events.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Framing {
    /// Newline- or NUL-delimited JSON or text.
    Lines,
    /// Syslog: octet counting or LF/NUL framing, RFC 5424 or RFC 3164.
    Syslog,
}

/// Bounds of a stream input.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    /// The pipeline's max_event_bytes.
    pub max_event_bytes: usize,
    /// More connections are accepted and closed at once, counted.
    pub max_connections: usize,
    /// A connection silent this long is closed.
    pub idle_timeout: Duration,
}

/// What the stream inputs counted.
#[derive(Default)]
pub(crate) struct Counters {
    received: AtomicU64,
    udp_dropped: AtomicU64,
}

impl Counters {
    /// Events received (handed to the pipeline or counted as dropped).
    pub(crate) fn received(&self) -> u64 {
        self.received.load(Ordering::Acquire)
    }

    /// Received and never handed to the pipeline (UDP drops): lost, with reason.
    pub(crate) fn lost(&self) -> u64 {
        self.udp_dropped.load(Ordering::Acquire)
    }

    /// "; N syslog/tcp events (..)" for the summary line, empty when nothing happened.
    pub(crate) fn describe(&self) -> String {
        String::new()
    }
}

fn not_built() -> io::Error {
    io::Error::other("the TCP and syslog inputs are not in this build (stub)")
}

/// Serves a TCP listener (stub: refuses).
pub(crate) fn serve_tcp(
    listener: TcpListener,
    framing: Framing,
    logship: logship::Logship,
    counters: Arc<Counters>,
    stop: Arc<AtomicBool>,
    limits: Limits,
) -> io::Result<JoinHandle<()>> {
    let _ = (listener, framing, logship, counters, stop, limits);
    Err(not_built())
}

/// Serves a UDP socket (stub: refuses).
pub(crate) fn serve_udp(
    socket: UdpSocket,
    logship: logship::Logship,
    counters: Arc<Counters>,
    stop: Arc<AtomicBool>,
    limits: Limits,
) -> io::Result<JoinHandle<()>> {
    let _ = (socket, logship, counters, stop, limits);
    Err(not_built())
}
