//! `serve_udp`: `syslog+udp://`, one message per datagram.
//!
//! Why it exists: syslog daemons and devices that only speak UDP. A datagram cannot be
//! held back, so a full queue refuses it at once (`Overflow::DropNewest`) and the drop
//! is counted (`udp_dropped`, lost with reason "queue full"). Datagrams the kernel dropped
//! before they were read (a full socket buffer) are read from the kernel's counter when
//! the listener stops and counted as lost (`udp_kernel_dropped`); the buffer's size is
//! `listen.udp_receive_buffer_bytes`.
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
use super::udp_drops;
use crate::listen::stop::STOP_TICK;

/// The largest datagram (a UDP payload is at most 65,507 bytes over IPv4).
const DATAGRAM: usize = 64 * 1024;
/// Most datagrams taken from the socket's buffer at stop (a default buffer holds a few
/// hundred; a raised one some thousands): bounded, so a flood cannot hold the stop.
const DRAIN_AT_STOP: usize = 100_000;

/// Serves `socket` until `stop`: each datagram is one syslog message.
pub(crate) fn serve_udp(
    socket: UdpSocket,
    logship: Logship,
    counters: Arc<Counters>,
    stop: Arc<AtomicBool>,
    limits: Limits,
) -> io::Result<JoinHandle<()>> {
    socket.set_read_timeout(Some(STOP_TICK))?;
    if limits.udp_receive_buffer > 0 {
        let sock = socket2::SockRef::from(&socket);
        sock.set_recv_buffer_size(limits.udp_receive_buffer)?;
        // Linux reports twice what it grants (its bookkeeping), capped by rmem_max.
        let got = sock.recv_buffer_size().unwrap_or(0) / 2;
        if got < limits.udp_receive_buffer {
            eprintln!(
                "logship: warning: asked for a {} byte UDP receive buffer, the kernel gave {got} (raise net.core.rmem_max)",
                limits.udp_receive_buffer
            );
        }
    }
    // Read before serving (the thread may start late): drops before this are not ours.
    let inode = udp_drops::inode(&socket);
    let dropped_before = inode.and_then(udp_drops::dropped).unwrap_or(0);
    std::thread::Builder::new()
        .name("logship-listen-udp".into())
        .spawn(move || {
            receive(&socket, &logship, &counters, &stop, limits);
            // What the kernel dropped while we served is lost, with its reason (read
            // after the last datagram was taken, while the socket is still open).
            if let Some(now) = inode.and_then(udp_drops::dropped) {
                counters
                    .udp_kernel_dropped
                    .fetch_add(now.saturating_sub(dropped_before), Ordering::AcqRel);
            }
        })
}

fn receive(
    socket: &UdpSocket,
    logship: &Logship,
    counters: &Counters,
    stop: &AtomicBool,
    limits: Limits,
) {
    let mut buf = vec![0u8; DATAGRAM];
    // A datagram is already in memory whole: it is parsed whole, and the pipeline
    // truncates an event over `max_event_bytes` keeping its structure.
    let max = limits.read_cap.max(1);
    receive_until_stop(socket, logship, counters, stop, &mut buf, max);
    // Stopped: the datagrams already in the socket's buffer were received by the
    // kernel for us; take them (without waiting for more).
    if socket.set_nonblocking(true).is_ok() {
        let mut taken = 0usize;
        while taken < DRAIN_AT_STOP {
            let Ok((n, _)) = socket.recv_from(&mut buf) else {
                break;
            };
            take(&buf[..n], logship, counters, max);
            taken += 1;
        }
    }
}

fn receive_until_stop(
    socket: &UdpSocket,
    logship: &Logship,
    counters: &Counters,
    stop: &AtomicBool,
    buf: &mut [u8],
    max: usize,
) {
    while !stop.load(Ordering::Acquire) {
        let n = match socket.recv_from(buf) {
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
        take(&buf[..n], logship, counters, max);
    }
}

/// Pushes one datagram's event (a refusal counted with its reason).
fn take(datagram: &[u8], logship: &Logship, counters: &Counters, max: usize) {
    {
        let mut message = datagram;
        while let [rest @ .., b'\n' | b'\r' | 0] = message {
            message = rest;
        }
        let real = message.len();
        let Some(built) = build(Framing::Syslog, &message[..real.min(max)], real) else {
            return;
        };
        bump(&counters.syslog_udp_events);
        count(counters, &built, real > max, real);
        match logship.push_with(built.record, Overflow::DropNewest) {
            // Held back by the user's policy, or alone larger than the queue holds:
            // counted by the pipeline.
            Ok(()) | Err(Rejected::Suppressed | Rejected::OverBudget | Rejected::TooLarge) => {}
            Err(Rejected::QueueFull) => bump(&counters.udp_dropped),
            // Shut down (or a reason added later): counted by the pipeline
            // (`dropped_closed`), so not again here.
            Err(_) => {}
        }
    }
}
