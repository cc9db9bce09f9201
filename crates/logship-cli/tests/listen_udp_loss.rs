//! Datagrams the kernel drops because the UDP socket's buffer is full (issue 32, item 5)
//! are counted as lost with their reason, and the exit code says so. The real `logship`
//! binary with `--listen syslog+udp://`; the process is paused (SIGSTOP) while a burst
//! is sent, so the socket's buffer overflows whatever the machine's speed.

mod common;

use std::net::UdpSocket;

use common::listen::{intake, Listener};

/// The number before `what` in the summary (`; 1234 syslog/udp events`).
fn count_before(summary: &str, what: &str) -> u64 {
    let at = summary
        .find(what)
        .unwrap_or_else(|| panic!("no {what:?} in {summary}"));
    summary[..at]
        .trim_end()
        .rsplit([' ', '(', ';'])
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count before {what:?} in {summary}"))
}

#[test]
fn a_burst_the_socket_buffer_cannot_hold_is_counted_lost_by_the_kernel() {
    const SENT: u64 = 5000;
    let intake = intake();
    let mut l = Listener::start(
        &intake,
        &[
            "--listen",
            "syslog+udp://127.0.0.1:0",
            "--listen-udp-receive-buffer-bytes",
            "65536",
        ],
    );
    let udp = l.ship.port("syslog+udp");
    let pid = l.ship.child.id();
    common::signal(pid, "STOP");
    let sock = UdpSocket::bind("127.0.0.1:0").unwrap();
    for i in 0..SENT {
        let msg = format!("<14>1 2026-12-05T13:00:00Z h app - - - datagram {i:06} padding padding");
        sock.send_to(msg.as_bytes(), ("127.0.0.1", udp)).unwrap();
    }
    common::signal(pid, "CONT");
    let (code, stderr) = l.stop();
    let summary = stderr
        .iter()
        .find(|l| l.contains("shipped"))
        .cloned()
        .expect("summary");
    let received = count_before(&summary, "syslog/udp events");
    let kernel = count_before(&summary, "udp lost by the kernel");
    assert!(kernel > 0, "{summary}");
    assert_eq!(
        received + kernel,
        SENT,
        "every datagram accounted: {summary}"
    );
    assert_eq!(code, Some(1), "a loss is exit code 1: {summary}");
    assert_eq!(intake.events().len() as u64, received);
}
