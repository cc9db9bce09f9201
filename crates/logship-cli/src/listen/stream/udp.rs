//! `serve_udp`: `syslog+udp://`, one message per datagram.
//!
//! Why it exists: syslog daemons and devices that only speak UDP. A datagram cannot be
//! held back, so a full queue refuses it at once (`Overflow::DropNewest`) and the drop
//! is counted (`udp_dropped`, lost with reason "queue full").
//!
//! Must never: block on the queue (the socket's own buffer would overflow unseen),
//! keep more than `max_event_bytes` of a datagram, or busy-loop (reads wake every `STOP_TICK`
//! to notice `stop`).

use std::io::{self, ErrorKind};
use std::net::UdpSocket;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use logship::{Logship, Overflow, Rejected};

use super::counters::{bump, Counters};
use super::event::{build, count};
use super::framing::Framing;
use super::limits::Limits;
use crate::listen::stop::STOP_TICK;

/// The largest datagram (a UDP payload is at most 65,507 bytes over IPv4).
const DATAGRAM: usize = 64 * 1024;

/// Serves `socket` until `stop`: each datagram is one syslog message.
pub(crate) fn serve_udp(
    socket: UdpSocket,
    logship: Logship,
    counters: Arc<Counters>,
    stop: Arc<AtomicBool>,
    limits: Limits,
) -> io::Result<JoinHandle<()>> {
    socket.set_read_timeout(Some(STOP_TICK))?;
    std::thread::Builder::new()
        .name("logship-listen-udp".into())
        .spawn(move || receive(&socket, &logship, &counters, &stop, limits))
}

fn receive(
    socket: &UdpSocket,
    logship: &Logship,
    counters: &Counters,
    stop: &AtomicBool,
    limits: Limits,
) {
    let mut buf = vec![0u8; DATAGRAM];
    let max = limits.max_event_bytes.max(1);
    while !stop.load(Ordering::Acquire) {
        let n = match socket.recv_from(&mut buf) {
            Ok((n, _)) => n,
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::WouldBlock | ErrorKind::TimedOut | ErrorKind::Interrupted
                ) =>
            {
                continue
            }
            Err(_) => {
                bump(&counters.read_errors);
                std::thread::sleep(STOP_TICK);
                continue;
            }
        };
        let mut message = &buf[..n];
        while let [rest @ .., b'\n' | b'\r' | 0] = message {
            message = rest;
        }
        let real = message.len();
        let Some(built) = build(Framing::Syslog, &message[..real.min(max)], real) else {
            continue;
        };
        bump(&counters.syslog_udp_events);
        count(counters, &built, real > max);
        match logship.push_with(built.record, Overflow::DropNewest) {
            Ok(()) | Err(Rejected::Suppressed) | Err(Rejected::OverBudget) => {}
            Err(Rejected::QueueFull) => bump(&counters.udp_dropped),
            Err(_) => bump(&counters.not_taken),
        }
    }
}
