//! Stopping the sidecar while an application still sends (issue 32, item 12): on
//! SIGTERM a `tcp://` connection is read on until its sender pauses, so what the sender
//! wrote before the stop is delivered and the sender sees no "Broken pipe". The real
//! `logship` binary; it is paused (SIGSTOP) while the sender writes and the SIGTERM is
//! queued, so the stop always finds the lines unread, whatever the machine's speed.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;

use common::listen::{intake, Listener};

#[test]
fn lines_written_before_a_sigterm_are_delivered_and_the_sender_sees_no_error() {
    const LINES: usize = 2000;
    let intake = intake();
    let mut l = Listener::start(&intake, &["--listen", "tcp://127.0.0.1:0"]);
    let tcp = l.ship.port("tcp");
    let pid = l.ship.child.id();
    let mut conn = TcpStream::connect(("127.0.0.1", tcp)).expect("connect");
    // Served (accepted and read) before the pause.
    conn.write_all(b"{\"message\":\"first\"}\n").unwrap();
    common::follow::wait_until("the first line", || {
        intake
            .events()
            .iter()
            .any(|e| e.value["message"] == "first")
    });
    common::signal(pid, "STOP");
    let writer = std::thread::spawn(move || {
        for i in 0..LINES {
            conn.write_all(
                format!("{{\"message\":\"line-{i:05}\",\"pad\":\"xxxxxxxx\"}}\n").as_bytes(),
            )?;
        }
        conn.flush()?;
        // The sender pauses, keeping its connection open until logship closes it.
        let mut rest = Vec::new();
        conn.read_to_end(&mut rest)?;
        Ok::<_, std::io::Error>(())
    });
    // Queued while stopped: the stop begins before a single line is read.
    common::signal(pid, "TERM");
    common::signal(pid, "CONT");
    let status = l.ship.child.wait().expect("wait");
    writer
        .join()
        .expect("writer")
        .expect("the sender saw no error (no Broken pipe, no reset)");
    l.ship.stderr.expect("shipped", common::listen::WAIT);
    let stderr = l.ship.stderr.lines();
    assert_eq!(status.code(), Some(0), "{stderr:?}");
    let got = intake
        .events()
        .iter()
        .filter(|e| {
            e.value["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("line-"))
        })
        .count();
    assert_eq!(got, LINES, "every line written before the stop: {stderr:?}");
}
