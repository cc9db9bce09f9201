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

/// Reads one HTTP answer's status line and headers (up to the blank line) and its body
/// by `Content-Length`.
fn read_answer(conn: &mut TcpStream) -> String {
    let mut got = Vec::new();
    let mut byte = [0u8; 1];
    while !got.ends_with(b"\r\n\r\n") {
        if conn.read(&mut byte).expect("an answer") == 0 {
            break;
        }
        got.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&got).into_owned();
    let len: usize = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length:")
                .map(|v| v.trim().parse().unwrap_or(0))
        })
        .unwrap_or(0);
    let mut body = vec![0u8; len];
    conn.read_exact(&mut body).expect("the body");
    head + &String::from_utf8_lossy(&body)
}

#[test]
fn an_http_client_arriving_while_stopping_is_answered_503_and_counted() {
    let intake = intake();
    let mut l = Listener::start(&intake, &[]);
    let pid = l.ship.child.id();
    // A keep-alive client, served once (so its connection is surely open), then in the
    // middle of its next request's body when the stop comes.
    let mut a = TcpStream::connect(("127.0.0.1", l.port)).expect("connect");
    a.set_read_timeout(Some(common::listen::WAIT)).unwrap();
    let first = "{\"message\":\"a-1\"}";
    write!(
        a,
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{first}",
        first.len()
    )
    .unwrap();
    assert!(read_answer(&mut a).starts_with("HTTP/1.1 200 "));
    let second = "{\"message\":\"a-2\"}";
    write!(
        a,
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\n\r\n{}",
        second.len(),
        &second[..5]
    )
    .unwrap();
    common::signal(pid, "TERM");
    l.ship
        .stderr
        .expect("signal received", common::listen::WAIT);
    // A new client while stopping: told 503, not reset (tried until the stop has reached
    // the listener: the signal's line is printed just before).
    let deadline = std::time::Instant::now() + common::listen::WAIT;
    loop {
        let (status, answer) =
            common::listen::try_post(l.port, "/", &[], b"{\"message\":\"late\"}")
                .unwrap_or_else(|e| panic!("{e}: {:?}", l.ship.stderr.lines()));
        if status == Some(503) {
            break;
        }
        assert_eq!(status, Some(200), "{answer:?}");
        assert!(std::time::Instant::now() < deadline, "never refused");
    }
    // A client that connects while stopping but is slow to send (a busy machine can hold
    // its write back past the listener's first look): answered 503 all the same, not
    // closed unanswered as if it were the listener's own wake-up connection. Its request
    // is longer than the listener reads before answering: the listener lingers, so the
    // rest is taken and the client reads its answer and a clean end, not a reset.
    let mut slow = TcpStream::connect(("127.0.0.1", l.port)).expect("connect");
    slow.set_read_timeout(Some(common::listen::WAIT)).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let late = "{\"message\":\"slow\"}";
    let padding = "p".repeat(2048);
    let request = format!(
        "POST / HTTP/1.1\r\nHost: x\r\nX-Padding: {padding}\r\nContent-Length: {}\r\n\r\n{late}",
        late.len()
    );
    slow.write_all(request.as_bytes()).expect("the request");
    let answer = read_answer(&mut slow);
    assert!(answer.starts_with("HTTP/1.1 503 "), "{answer:?}");
    let mut rest = Vec::new();
    slow.read_to_end(&mut rest)
        .expect("a clean end, not a reset");
    assert!(rest.is_empty(), "{rest:?}");
    // The request being read is finished and answered.
    a.write_all(&second.as_bytes()[5..]).unwrap();
    let answer = read_answer(&mut a);
    assert!(answer.starts_with("HTTP/1.1 "), "{answer:?}");
    let status = l.ship.child.wait().expect("wait");
    l.ship.stderr.expect("shipped", common::listen::WAIT);
    let text = l.ship.stderr.lines().join("\n");
    assert!(
        text.contains("2 connections refused while stopping (503)"),
        "{text}"
    );
    assert!(status.code().is_some(), "{text}");
}
