//! End-to-end tests of `logship-lab` (the former `logship bench`): the real binary runs
//! the whole lab (its own intake, the lab service in a child process, the built-in load
//! generator) on 127.0.0.1 with short runs, and the lab service is also driven directly
//! against an intake in the test process. Assertions are about behaviour (every key present, events delivered, the stock
//! ring blocking and draining), never about machine speed.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, ChildStdout, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use common::{lab, run_with_stdin, temp_path};
use logship_intake::{Intake, IntakeConfig};
use serde_json::Value;

/// Longest any child may run before the watchdog kills it.
const WATCHDOG: Duration = Duration::from_secs(180);

fn run(command: &mut Command) -> Output {
    run_with_stdin(command, b"", WATCHDOG)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn lab_runs_both_modes_and_writes_json_report_and_charts() {
    let json_path = temp_path("bench").with_extension("json");
    let out_dir = temp_path("bench-out");
    let output = run(lab().args([
        "--duration-s",
        "1",
        "--connections",
        "8",
        "--ring",
        "16",
        "--json",
        json_path.to_str().expect("utf-8 path"),
        "--out",
        out_dir.to_str().expect("utf-8 path"),
    ]));
    let stdout = text(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        text(&output.stderr)
    );
    for label in [
        "requests/s",
        "latency p99",
        "ingest lag p99",
        "drain after load",
        "service peak RSS",
        "targets:",
    ] {
        assert!(
            stdout.contains(label),
            "no {label:?} in the table:\n{stdout}"
        );
    }

    let report: Value = serde_json::from_slice(&std::fs::read(&json_path).expect("--json written"))
        .expect("valid JSON");
    for mode in ["stock", "batch"] {
        let m = &report["modes"][mode];
        assert!(m["requests_per_sec"].as_f64().is_some(), "{mode}: {m}");
        for key in ["mean", "p90", "p99"] {
            assert!(
                m["latency_ms"][key].as_f64().is_some(),
                "{mode} latency_ms.{key}"
            );
        }
        for key in ["p50", "p99", "max"] {
            assert!(
                m["ingest_lag_ms"][key].as_f64().is_some(),
                "{mode} ingest_lag_ms.{key}"
            );
        }
        assert!(m["drain_after_load_s"].as_f64().is_some(), "{mode} drain");
        assert!(
            m["events_delivered"].as_u64().unwrap_or(0) > 0,
            "{mode} delivered nothing: {m}"
        );
        assert!(
            m["requests"].as_u64().unwrap_or(0) > 0,
            "{mode} answered nothing"
        );
        assert_eq!(
            m["runs"].as_array().map(Vec::len),
            Some(3),
            "{mode}: first, churn, long"
        );
        assert!(
            m["peak_rss_bytes"].as_u64().unwrap_or(0) > 0,
            "{mode}: service RSS read"
        );
        assert!(
            m["drain_complete"].as_bool().unwrap_or(false),
            "{mode} did not drain: {m}"
        );
        // Every event the service logged was delivered or counted as lost.
        let logged = m["events_logged"].as_u64().unwrap_or(0);
        let total = m["events_delivered_total"].as_u64().unwrap_or(0);
        let lost = m["events_lost"].as_u64().unwrap_or(0);
        assert!(
            logged > 0 && total + lost >= logged,
            "{mode}: {logged} logged, {total} delivered, {lost} lost"
        );
    }
    let stock = &report["modes"]["stock"];
    let batch = &report["modes"]["batch"];
    // The stock appender blocks instead of dropping: everything it was given arrived.
    assert_eq!(stock["events_lost"], 0);
    assert_eq!(stock["events_delivered_total"], stock["events_logged"]);
    // With a 16-slot ring and 8 connections the ring filled, so it kept posting after the
    // load stopped (each POST waits for the intake's 20 ms).
    assert!(stock["events_logged"].as_u64().unwrap_or(0) > 16, "{stock}");
    assert!(
        stock["drain_after_load_s"].as_f64().unwrap_or(0.0) > 0.0,
        "{stock}"
    );
    assert!(
        batch["events_delivered"].as_u64() >= stock["events_delivered"].as_u64(),
        "batch delivered less than stock during the load: {batch} vs {stock}"
    );
    assert!(report["targets"]["throughput_ratio"].as_f64().is_some());
    assert!(report["targets"]["batch_lag_p99_bound_ms"].as_f64() == Some(1060.0));

    let md = std::fs::read_to_string(out_dir.join("report.md")).expect("report.md");
    assert!(
        md.contains("| requests/s |") && md.contains("| ingest lag p99 |"),
        "{md}"
    );
    assert!(
        md.contains("(throughput.svg)") && md.contains("(lag.svg)"),
        "{md}"
    );
    let svg = |name: &str| {
        let s =
            std::fs::read_to_string(out_dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            s.starts_with("<svg") && s.trim_end().ends_with("</svg>"),
            "{name}: {s}"
        );
        s
    };
    let throughput = svg("throughput.svg");
    assert!(
        throughput.contains(">stock<") && throughput.contains(">batch<"),
        "{throughput}"
    );
    let latency = svg("latency.svg");
    for series in ["mean", "p90", "p99"] {
        assert!(
            latency.contains(&format!("data-series=\"{series}\"")),
            "{latency}"
        );
    }
    let lag = svg("lag.svg");
    for series in ["stock", "batch"] {
        assert!(lag.contains(&format!("data-series=\"{series}\"")), "{lag}");
    }
    assert!(lag.contains("<polyline"), "{lag}");
}

#[test]
fn lab_rejects_bad_options_with_exit_code_2() {
    let cases: [(&[&str], &str); 8] = [
        (&["--json", "/nonexistent-dir/x.json"], "does not exist"),
        (&["--rate", "0"], "--rate 0"),
        (&["--lines", "0"], "--lines 0"),
        (&["--connections", "0"], "--connections 0"),
        (&["--ring", "0"], "--ring 0"),
        (&["--duration-s", "0"], "--duration-s 0"),
        (
            &["--intake-latency-ms", "99999"],
            "--intake-latency-ms 99999",
        ),
        (&["--quick", "--full"], "cannot be used with"),
    ];
    for (args, expected) in cases {
        let output = run(lab().args(args));
        let stderr = text(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
    // --oha without oha on the PATH says so, before running anything.
    let empty = temp_path("empty-path");
    std::fs::create_dir_all(&empty).expect("mkdir");
    let output = run(lab().args(["--oha", "--quick"]).env("PATH", &empty));
    let stderr = text(&output.stderr);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--oha") && stderr.contains("oha"),
        "{stderr}"
    );
}

/// The lab service in its own process, logging to `intake`; stops when dropped.
struct LabService {
    child: Child,
    _stdout: BufReader<ChildStdout>,
    port: u16,
    _done: mpsc::Sender<()>,
}

impl LabService {
    fn start(mode: &str, intake: &Intake, lines: &str, ring: &str) -> LabService {
        let mut child = lab()
            .args(["--serve", mode, "--intake-url", &intake.url("/lab")])
            // Its own spill directory (the default one is under XDG_CACHE_HOME): a spill
            // another run left in the user's default would be replayed into this intake.
            .env("XDG_CACHE_HOME", temp_path("lab-cache"))
            .args(["--lines", lines, "--ring", ring])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("spawn the lab service");
        let done = common::watchdog(&child, WATCHDOG);
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout piped"));
        let mut line = String::new();
        stdout.read_line(&mut line).expect("listening line");
        let port = line
            .trim()
            .strip_prefix("listening ")
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"));
        LabService {
            child,
            _stdout: stdout,
            port,
            _done: done,
        }
    }

    /// Sends `GET path` on a new keep-alive connection.
    fn send(&self, path: &str) -> TcpStream {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).expect("connect");
        stream
            .write_all(format!("GET {path} HTTP/1.1\r\nHost: lab\r\n\r\n").as_bytes())
            .expect("write");
        stream
    }

    /// `GET path` and its whole answer.
    /// The service's `/_lab/stats` counters.
    fn stats(&self) -> Value {
        let answer = self.get("/_lab/stats");
        serde_json::from_str(answer.split("\r\n\r\n").nth(1).unwrap_or("")).expect("stats JSON")
    }

    fn get(&self, path: &str) -> String {
        let mut stream = self.send(path);
        read_answer(&mut stream)
    }
}

impl Drop for LabService {
    fn drop(&mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }
}

/// Reads one answer (headers and a Content-Length body).
fn read_answer(stream: &mut TcpStream) -> String {
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") {
        stream.read_exact(&mut byte).expect("read head");
        buf.push(byte[0]);
    }
    let head = text(&buf);
    let length: usize = head
        .lines()
        .find_map(|l| {
            l.to_ascii_lowercase()
                .strip_prefix("content-length:")
                .map(|v| v.trim().to_owned())
        })
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    stream.read_exact(&mut body).expect("read body");
    head + &text(&body)
}

#[test]
fn stock_service_posts_one_event_per_request_line_and_blocks_when_the_ring_is_full() {
    let intake = Intake::start(IntakeConfig::default()).expect("intake");
    let lab = LabService::start("stock", &intake, "2", "2");

    let answer = lab.get("/");
    assert!(
        answer.starts_with("HTTP/1.1 200") && answer.ends_with("hello"),
        "{answer}"
    );
    assert!(intake.wait_for_events(2, Duration::from_secs(30)));
    let requests = intake.requests();
    assert_eq!(requests.len(), 2, "one POST per event");
    let events = intake.events();
    for e in &events {
        assert!(e.value["t_us"].as_u64().unwrap_or(0) > 0, "{}", e.value);
        assert_eq!(e.value["target"], "lab.service");
    }

    // Hold the intake: the sender thread keeps one event in hand, the ring (2 slots)
    // takes two more, so the second request cannot finish logging its lines.
    intake.pause();
    let first = lab.send("/");
    assert!(
        intake.wait_for_requests(3, Duration::from_secs(30)),
        "first event posted and held"
    );
    let mut first = first;
    assert!(read_answer(&mut first).ends_with("hello"));
    let mut second = lab.send("/");
    second
        .set_read_timeout(Some(Duration::from_millis(300)))
        .expect("timeout");
    let mut byte = [0u8; 1];
    assert!(
        second.read(&mut byte).is_err(),
        "the request should be blocked on the full ring"
    );
    let stats = lab.stats();
    assert_eq!(stats["queued"], 3, "{stats}");
    intake.resume();
    assert!(read_answer(&mut second).ends_with("hello"));
    assert!(intake.wait_for_events(6, Duration::from_secs(30)));
    let stats = lab.stats();
    assert_eq!(stats["requests"], 3, "{stats}");
    assert_eq!(stats["logged"], 6, "{stats}");
    assert_eq!(stats["lost"], 0, "{stats}");
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
}

#[test]
fn batch_service_ships_through_logship_with_timestamps() {
    let intake = Intake::start(IntakeConfig::default()).expect("intake");
    let lab = LabService::start("batch", &intake, "3", "256");
    for _ in 0..2 {
        assert!(lab.get("/").ends_with("hello"));
    }
    assert!(intake.wait_for_events(6, Duration::from_secs(30)));
    let requests = intake.requests();
    assert!(
        requests.len() < 6,
        "batched: {} requests for 6 events",
        requests.len()
    );
    let events = intake.events();
    let mut seqs: Vec<(u64, u64)> = events
        .iter()
        .map(|e| {
            assert!(e.value["t_us"].as_u64().unwrap_or(0) > 0, "{}", e.value);
            (
                e.value["seq"].as_u64().unwrap_or(99),
                e.value["line"].as_u64().unwrap_or(99),
            )
        })
        .collect();
    seqs.sort_unstable();
    assert_eq!(seqs, vec![(0, 1), (0, 2), (0, 3), (1, 1), (1, 2), (1, 3)]);
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
}
