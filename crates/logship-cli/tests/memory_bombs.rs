//! Memory bombs against every input (issue 32, item 1): a JSON line of nested objects
//! under long keys, through a followed file, a TCP line and an HTTP POST; OTLP protobuf
//! bodies of empty containers. The real `logship` binary, real sockets and files; each
//! test reads the child's peak RSS (`VmHWM`) and holds it to the documented bound
//! (docs/listen.md "Memory": peak RSS stays under 100 MiB whatever the input).

mod common;

use std::io::Write;
use std::net::TcpStream;

use common::follow::{follow_without_checkpoint, fresh_dir, proc_number, wait_until};
use common::listen::{intake, post, Listener};

/// The documented bound on the process's peak RSS, whatever the input.
const PEAK_RSS: u64 = 100 * 1024 * 1024;

/// A line of `depth` nested objects under 1,000-byte keys over `leaves` members: about
/// 100 KB + 8 bytes per leaf, whose leaves' dotted names would each copy the 100 KB path
/// (3,000 leaves: 300 MB of names, and the event built from them as much again).
fn bomb(message: &str, depth: usize, leaves: usize) -> String {
    let key = "k".repeat(1000);
    let mut line = format!(r#"{{"message":"{message}","level":"error","x":"#);
    for _ in 0..depth {
        line.push_str(&format!(r#"{{"{key}":"#));
    }
    line.push('{');
    for i in 0..leaves {
        line.push_str(&format!(r#""{i}":1,"#));
    }
    line.push_str(r#""end":1}"#);
    line.push_str(&"}".repeat(depth + 1));
    line
}

/// Peak resident memory of process `pid`, bytes.
fn peak_rss(pid: u32) -> u64 {
    proc_number(pid, "status", "VmHWM:") * 1024
}

/// The received event whose message is `message`.
fn event(intake: &logship_intake::Intake, message: &str) -> Option<serde_json::Value> {
    intake
        .events()
        .into_iter()
        .map(|e| e.value)
        .find(|v| v["message"].as_str() == Some(message))
}

/// The bomb arrived whole as one event: its level and message kept, its nested part one
/// field of JSON text, not a field per leaf.
fn assert_bomb_shipped(intake: &logship_intake::Intake, message: &str) {
    let e = event(intake, message).expect("the bomb's event");
    let text = e.to_string();
    assert!(
        text.contains("error") || text.contains("ERROR"),
        "level kept"
    );
    let fields = e.as_object().map_or(0, |o| o.len());
    assert!(fields < 20, "{fields} fields: a field per leaf");
}

#[test]
fn a_followed_name_bomb_is_shipped_once_in_bounded_memory_and_the_next_lines_follow() {
    let intake = intake();
    let dir = fresh_dir("bomb-follow");
    let log = dir.join("app.log");
    let mut data = String::from("{\"message\":\"before\"}\n");
    data.push_str(&bomb("bomb", 100, 3000));
    data.push_str("\n{\"message\":\"after\"}\n");
    std::fs::write(&log, data).unwrap();
    let follower = follow_without_checkpoint(&intake, &log, &["--format", "json"]);
    wait_until("the line after the bomb", || {
        event(&intake, "after").is_some()
    });
    let peak = peak_rss(follower.child.id());
    let (code, stderr) = follower.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    assert_bomb_shipped(&intake, "bomb");
    assert!(event(&intake, "before").is_some());
    println!("peak RSS {:.1} MiB", peak as f64 / 1048576.0);
    assert!(peak < PEAK_RSS, "peak RSS {} MiB", peak >> 20);
}

#[test]
fn a_name_bomb_over_tcp_and_http_is_shipped_in_bounded_memory() {
    let intake = intake();
    let mut l = Listener::start(&intake, &["--listen", "tcp://127.0.0.1:0"]);
    let tcp = l.ship.port("tcp");
    let mut conn = TcpStream::connect(("127.0.0.1", tcp)).expect("connect tcp");
    conn.write_all(format!("{}\n", bomb("tcp-bomb", 100, 3000)).as_bytes())
        .expect("send");
    drop(conn);
    let body = bomb("http-bomb", 100, 3000);
    let (status, answer) = post(
        l.port,
        "/",
        &[("Content-Type", "application/json")],
        body.as_bytes(),
    );
    assert_eq!(status, 200, "{answer}");
    wait_until("both bombs", || {
        event(&intake, "tcp-bomb").is_some() && event(&intake, "http-bomb").is_some()
    });
    let peak = peak_rss(l.ship.child.id());
    let (code, stderr) = l.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    assert_bomb_shipped(&intake, "tcp-bomb");
    assert_bomb_shipped(&intake, "http-bomb");
    println!("peak RSS {:.1} MiB", peak as f64 / 1048576.0);
    assert!(peak < PEAK_RSS, "peak RSS {} MiB", peak >> 20);
}

/// Protobuf field 1 (length-delimited) holding `inner`.
fn field_1(inner: &[u8]) -> Vec<u8> {
    let mut b = vec![0x0a];
    let mut n = inner.len();
    while n >= 0x80 {
        b.push((n as u8) | 0x80);
        n >>= 7;
    }
    b.push(n as u8);
    b.extend_from_slice(inner);
    b
}

/// `bytes` bytes of repeats of `unit` (protobuf field entries).
fn otlp_body(unit: &[u8], bytes: usize) -> Vec<u8> {
    unit.iter()
        .copied()
        .cycle()
        .take(bytes / unit.len() * unit.len())
        .collect()
}

#[test]
fn otlp_bodies_of_empty_containers_stay_under_the_documented_peak() {
    let intake = intake();
    let mut l = Listener::start(&intake, &["--listen-max-body-bytes", "10485760"]);
    let ten_mib = 10 * 1024 * 1024;
    let bodies = [
        // Empty ResourceLogs.
        otlp_body(&[0x0a, 0x00], ten_mib),
        // ResourceLogs each holding one empty ScopeLogs.
        otlp_body(&[0x0a, 0x02, 0x12, 0x00], ten_mib),
        // One ResourceLogs of empty ScopeLogs.
        field_1(&otlp_body(&[0x12, 0x00], ten_mib - 8)),
        // Resource attributes: empty KeyValues (request > resource_logs > resource).
        field_1(&field_1(&otlp_body(&[0x0a, 0x00], ten_mib - 16))),
    ];
    // And OTLP JSON: 3.8 MB of empty `ResourceLogs` (each `{}` a whole struct decoded).
    let json = format!("{{\"resourceLogs\":[{}{{}}]}}", "{},".repeat(1_270_000)).into_bytes();
    let bodies = bodies
        .into_iter()
        .map(|b| ("application/x-protobuf", b))
        .chain([("application/json", json)]);
    let threads: Vec<_> = bodies
        .map(|(content_type, body)| {
            let port = l.port;
            std::thread::spawn(move || {
                post(port, "/v1/logs", &[("Content-Type", content_type)], &body)
            })
        })
        .collect();
    for t in threads {
        let (status, answer) = t.join().expect("client");
        assert!(
            status == 200 || status == 413,
            "an empty container is no event: {status} {answer:?}"
        );
    }
    let peak = peak_rss(l.ship.child.id());
    // Still serving.
    let (status, _) = post(l.port, "/", &[], b"{\"message\":\"still here\"}");
    assert_eq!(status, 200);
    wait_until("the next event", || event(&intake, "still here").is_some());
    let (code, stderr) = l.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    println!("peak RSS {:.1} MiB", peak as f64 / 1048576.0);
    assert!(peak < PEAK_RSS, "peak RSS {} MiB", peak >> 20);
}

#[test]
fn a_followed_line_that_can_never_fit_the_queue_is_skipped_counted_and_reported() {
    // A 200 KB line against a 64 KiB queue: it can never be queued. Before, the follower
    // retried it forever and never read the next line.
    let intake = intake();
    let dir = fresh_dir("poison-follow");
    let log = dir.join("app.log");
    let data = format!(
        "{{\"message\":\"before\"}}\n{{\"message\":\"poison\",\"pad\":\"{}\"}}\n{{\"message\":\"after\"}}\n",
        "p".repeat(200_000)
    );
    std::fs::write(&log, data).unwrap();
    let follower = follow_without_checkpoint(
        &intake,
        &log,
        &["--format", "json", "--queue-max-bytes", "65536"],
    );
    wait_until("the line after the poison", || {
        event(&intake, "after").is_some()
    });
    let (code, stderr) = follower.stop();
    assert!(event(&intake, "poison").is_none());
    let text = stderr.join("\n");
    assert!(
        text.contains("1 dropped because each alone was larger than queue_max_bytes"),
        "{text}"
    );
    assert_eq!(code, Some(1), "a loss, told by the exit code: {text}");
}

#[test]
fn many_connections_each_sending_a_line_past_the_event_limit_share_one_bounded_pool() {
    // 24 connections each send 6 MiB of one JSON line (under the 8 MiB read cap, over
    // the 1 MiB event limit) before its newline: held whole, they would take 144 MiB.
    // Past the event limit a line borrows from one 8 MiB pool; the lines that find
    // none are cut at 1 MiB while reading, counted. Every line arrives as one event.
    const CONNECTIONS: usize = 24;
    let intake = intake();
    let mut l = Listener::start(&intake, &["--listen", "tcp://127.0.0.1:0"]);
    let tcp = l.ship.port("tcp");
    let senders: Vec<_> = (0..CONNECTIONS)
        .map(|i| {
            std::thread::spawn(move || {
                let mut conn = TcpStream::connect(("127.0.0.1", tcp)).expect("connect tcp");
                let line = format!(
                    "{{\"level\":\"warn\",\"request_id\":\"long-{i}\",\"message\":\"{}\"}}\n",
                    "m".repeat(6 << 20)
                );
                conn.write_all(line.as_bytes()).expect("send");
            })
        })
        .collect();
    for s in senders {
        s.join().expect("sender");
    }
    wait_until("every long line", || intake.events().len() >= CONNECTIONS);
    let peak = peak_rss(l.ship.child.id());
    let (code, stderr) = l.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    assert_eq!(intake.events().len(), CONNECTIONS);
    let parsed = intake
        .events()
        .iter()
        .filter(|e| e.value["level"] == "WARN")
        .count();
    println!(
        "peak RSS {:.1} MiB, {parsed} of {CONNECTIONS} lines read whole",
        peak as f64 / 1048576.0
    );
    assert!(
        parsed >= 1,
        "the pool lends a line its room: {parsed} parsed"
    );
    assert!(peak < PEAK_RSS, "peak RSS {} MiB", peak >> 20);
}
