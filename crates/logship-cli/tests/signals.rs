//! `logship ship` stopped the way supervisors stop a sidecar (SIGTERM, SIGINT, a second
//! signal), at its shutdown deadline against an intake that never answers, and with a
//! stderr nobody reads: every line read is delivered, spilled or counted as lost, the
//! summary and `--stats-json` are written, and the exit code says which (0 delivered,
//! 1 lost, 2 bad usage only, 3 nothing lost but some spilled).

mod common;

use std::io::Write;
use std::process::{Child, ChildStdin, Stdio};
use std::time::{Duration, Instant};

use common::{logship, temp_path, watchdog, StderrLines};
use logship_intake::{Intake, IntakeConfig};

/// Generous bound for things that take milliseconds, so a hang fails instead of stalling.
const WAIT: Duration = Duration::from_secs(60);

/// A running `logship ship` with its stdin open and its stderr collected line by line.
struct Shipper {
    child: Child,
    stdin: Option<ChildStdin>,
    stderr: StderrLines,
    stats_json: std::path::PathBuf,
    _watchdog: std::sync::mpsc::Sender<()>,
}

impl Shipper {
    fn start(args: &[&str]) -> Shipper {
        let stats_json = temp_path("stats").with_extension("json");
        let mut child = logship()
            .arg("ship")
            .args(args)
            .arg("--stats-json")
            .arg(&stats_json)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn logship ship");
        let watchdog = watchdog(&child, Duration::from_secs(120));
        let stderr = StderrLines::collect(&mut child);
        Shipper {
            stdin: child.stdin.take(),
            child,
            stderr,
            stats_json,
            _watchdog: watchdog,
        }
    }

    fn write_lines(&mut self, range: std::ops::Range<u32>) {
        let text: String = range.map(|i| format!("line {i}\n")).collect();
        let stdin = self.stdin.as_mut().expect("stdin still open");
        stdin.write_all(text.as_bytes()).expect("write to logship");
        stdin.flush().expect("flush");
    }

    fn signal(&self, name: &str) {
        let status = std::process::Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(status.success());
    }

    /// Waits until a stderr line contains `text`.
    fn wait_for_stderr(&self, text: &str) {
        self.stderr.expect(text, WAIT);
    }

    /// Waits for the exit; returns the code, the stderr lines and the stats JSON.
    fn finish(mut self) -> (Option<i32>, Vec<String>, serde_json::Value, Duration) {
        let started = Instant::now();
        let status = self.child.wait().expect("wait for logship");
        let took = started.elapsed();
        // The collector thread ends at EOF: give it the last lines.
        self.stderr.wait_for("shipped ", WAIT);
        let lines = self.stderr.lines();
        let stats = std::fs::read_to_string(&self.stats_json)
            .map(|t| serde_json::from_str(&t).expect("stats JSON parses"))
            .unwrap_or(serde_json::Value::Null);
        (status.code(), lines, stats, took)
    }
}

fn n(stats: &serde_json::Value, key: &str) -> u64 {
    stats[key]
        .as_u64()
        .unwrap_or_else(|| panic!("no {key} in {stats}"))
}

/// Events lost by the library's own definition (`Stats::lost`).
fn lost(stats: &serde_json::Value) -> u64 {
    n(stats, "dropped_queue_full")
        + n(stats, "dropped_closed")
        + n(stats, "events_failed")
        + n(stats, "events_abandoned")
        + n(stats, "spill_dropped")
}

/// "shipped X of Y" from the summary line.
fn shipped_of(lines: &[String]) -> (u64, u64) {
    let line = lines
        .iter()
        .find(|l| l.contains("shipped "))
        .unwrap_or_else(|| panic!("no summary line: {lines:?}"));
    let rest = line.split("shipped ").nth(1).unwrap();
    let mut words = rest.split_whitespace();
    let x = words.next().unwrap().parse().unwrap();
    assert_eq!(words.next(), Some("of"));
    let y = words.next().unwrap().parse().unwrap();
    (x, y)
}

fn intake() -> Intake {
    Intake::start(IntakeConfig::default()).expect("start intake")
}

#[test]
fn sigterm_delivers_what_is_in_memory_then_reports_and_exits_0() {
    let intake = intake();
    let endpoint = intake.url("/logs");
    // Batches of 10 and a minute of linger: the last 5 lines can only leave because of
    // the shutdown that SIGTERM starts.
    let mut ship = Shipper::start(&[
        "--endpoint",
        &endpoint,
        "--no-spill",
        "--max-batch-records",
        "10",
        "--linger-ms",
        "60000",
    ]);
    ship.write_lines(0..55);
    assert!(intake.wait_for_events(50, WAIT), "{:?}", intake.stats());
    ship.signal("TERM");
    let (code, lines, stats, _) = ship.finish();
    let (delivered, read) = shipped_of(&lines);
    assert_eq!(code, Some(0), "{lines:?}");
    assert!(read >= 50, "{lines:?}");
    assert_eq!(delivered, read, "{lines:?}");
    assert_eq!(intake.stats().events, read);
    assert_eq!(n(&stats, "events_delivered"), read);
    assert!(
        lines.iter().any(|l| l.contains("signal received")),
        "{lines:?}"
    );
}

#[test]
fn sigint_in_an_outage_spills_everything_and_exits_3() {
    let intake = intake();
    intake.set_down(true);
    let endpoint = intake.url("/logs");
    let dir = temp_path("sigint-spill");
    let mut ship = Shipper::start(&[
        "--endpoint",
        &endpoint,
        "--spill-dir",
        dir.to_str().unwrap(),
        "--max-retries",
        "0",
        "--max-batch-records",
        "100",
    ]);
    ship.write_lines(0..1000);
    // The first batches fail and are spilled: the outage is under way.
    ship.wait_for_stderr("events go to the spill");
    ship.signal("INT");
    let (code, lines, stats, _) = ship.finish();
    let (delivered, read) = shipped_of(&lines);
    assert_eq!(code, Some(3), "nothing lost, some spilled: {lines:?}");
    assert_eq!(delivered, 0);
    assert_eq!(n(&stats, "events_spilled"), read, "{stats}");
    assert_eq!(lost(&stats), 0, "{stats}");
}

#[test]
fn at_the_deadline_requests_still_out_are_spilled_and_the_timeout_is_honoured() {
    // An intake that accepts requests and never answers (30 s request timeout).
    let intake = intake();
    intake.pause();
    let endpoint = intake.url("/logs");
    let dir = temp_path("deadline-spill");
    let mut ship = Shipper::start(&[
        "--endpoint",
        &endpoint,
        "--spill-dir",
        dir.to_str().unwrap(),
        "--max-batch-records",
        "100",
        "--shutdown-timeout-ms",
        "1000",
    ]);
    ship.write_lines(0..1000);
    drop(ship.stdin.take()); // end of input: shutdown begins
    let (code, lines, stats, took) = ship.finish();
    intake.resume();
    let (_, read) = shipped_of(&lines);
    assert_eq!(read, 1000);
    assert_eq!(code, Some(3), "every event spilled, none lost: {lines:?}");
    assert_eq!(n(&stats, "events_spilled"), 1000, "{stats}");
    assert_eq!(lost(&stats), 0, "{stats}");
    // The deadline is the shutdown timeout plus a short grace, not the request timeout.
    assert!(took < Duration::from_secs(15), "took {took:?}");
}

#[test]
fn without_spill_requests_still_out_at_the_deadline_are_counted_lost_and_exit_1() {
    let intake = intake();
    intake.pause();
    let endpoint = intake.url("/logs");
    let mut ship = Shipper::start(&[
        "--endpoint",
        &endpoint,
        "--no-spill",
        "--max-batch-records",
        "100",
        "--shutdown-timeout-ms",
        "500",
    ]);
    ship.write_lines(0..400);
    drop(ship.stdin.take());
    let (code, lines, stats, _) = ship.finish();
    intake.resume();
    let (delivered, read) = shipped_of(&lines);
    assert_eq!((delivered, read), (0, 400), "{lines:?}");
    assert_eq!(code, Some(1), "{lines:?}");
    assert_eq!(lost(&stats), 400, "every event counted lost: {stats}");
    assert_eq!(n(&stats, "events_abandoned"), 400, "{stats}");
}

#[test]
fn a_second_signal_stops_at_once_and_spills_what_is_left() {
    let intake = intake();
    intake.pause();
    let endpoint = intake.url("/logs");
    let dir = temp_path("second-signal");
    let mut ship = Shipper::start(&[
        "--endpoint",
        &endpoint,
        "--spill-dir",
        dir.to_str().unwrap(),
        "--max-batch-records",
        "50",
        "--shutdown-timeout-ms",
        "600000",
    ]);
    ship.write_lines(0..300);
    assert!(intake.wait_for_requests(1, WAIT) || intake.max_concurrency() > 0);
    ship.signal("TERM");
    ship.wait_for_stderr("signal received");
    ship.signal("TERM");
    let (code, lines, stats, took) = ship.finish();
    intake.resume();
    let (_, read) = shipped_of(&lines);
    assert!(
        lines.iter().any(|l| l.contains("second signal")),
        "{lines:?}"
    );
    assert_eq!(code, Some(3), "{lines:?}");
    assert_eq!(n(&stats, "events_spilled"), read, "{stats}");
    assert_eq!(lost(&stats), 0, "{stats}");
    // Far sooner than the ten-minute shutdown timeout.
    assert!(took < Duration::from_secs(30), "took {took:?}");
}

#[test]
fn a_closed_stderr_is_no_crash_and_the_stats_still_tell() {
    // An intake refusing every request (401) makes logship report errors on stderr,
    // which nobody reads any more.
    let intake = Intake::start(IntakeConfig {
        api_key: Some("right".into()),
        ..IntakeConfig::default()
    })
    .expect("start intake");
    let stats_json = temp_path("closed-stderr").with_extension("json");
    let mut child = logship()
        .args([
            "ship",
            "--vendor",
            "datadog",
            "--api-key",
            "wrong",
            "--no-spill",
        ])
        .arg("--endpoint")
        .arg(intake.url(""))
        .arg("--stats-json")
        .arg(&stats_json)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let done = watchdog(&child, Duration::from_secs(120));
    drop(child.stderr.take()); // the reader is gone: writes fail with EPIPE
    let mut stdin = child.stdin.take().unwrap();
    let text: String = (0..20).map(|i| format!("line {i}\n")).collect();
    stdin.write_all(text.as_bytes()).unwrap();
    drop(stdin);
    let status = child.wait().unwrap();
    let _ = done.send(());
    assert_eq!(
        status.code(),
        Some(1),
        "lost events, not a panic (101): {status:?}"
    );
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats_json).expect("stats written"))
            .unwrap();
    assert_eq!(n(&stats, "events_failed"), 20, "{stats}");
    assert!(n(&stats, "report_write_errors") > 0, "{stats}");
}

#[test]
fn a_shutdown_timeout_equal_to_the_librarys_default_is_honoured_too() {
    // 5000 ms is the library's default; the CLI's own default is 30 s. Given as a flag, it
    // is the user's choice and must not be taken for "not set".
    let intake = intake();
    intake.pause();
    let endpoint = intake.url("/logs");
    let dir = temp_path("deadline-5000");
    let mut ship = Shipper::start(&[
        "--endpoint",
        &endpoint,
        "--spill-dir",
        dir.to_str().unwrap(),
        "--shutdown-timeout-ms",
        "5000",
    ]);
    ship.write_lines(0..100);
    drop(ship.stdin.take());
    let (code, lines, stats, took) = ship.finish();
    intake.resume();
    assert_eq!(code, Some(3), "{lines:?}");
    assert_eq!(n(&stats, "events_spilled"), 100, "{stats}");
    assert!(took < Duration::from_secs(20), "5 s asked, took {took:?}");
}
