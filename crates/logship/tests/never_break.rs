//! Logging never takes the program down and never loses events without saying so:
//! start-up with an unusable spill directory, a guard dropped at once, `process::exit`,
//! a panic, the shutdown deadline, and how errors read through `main`.
//!
//! Exit paths run in a child process (this test binary, re-run with one ignored test
//! selected), because only a real process exit shows what reaches the intake.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use common::{wait_for_stats, TempDir};
use logship::{Logship, Record};
use logship_intake::{Intake, IntakeConfig};

const WAIT: Duration = Duration::from_secs(30);

fn intake() -> Intake {
    Intake::start(IntakeConfig::default()).expect("start intake")
}

fn event(i: usize) -> Record {
    let mut r = Record::new(logship::Level::Info, "never_break");
    r.message(&format!("event {i}"));
    r
}

#[test]
fn a_spill_directory_held_by_another_process_never_stops_start_up() {
    let dir = TempDir::new("held");
    let intake = intake();
    let builder = || {
        Logship::builder()
            .endpoint(intake.url("/logs"))
            .spill_dir(dir.path())
            .linger(Duration::from_millis(10))
            .report_to_stderr(false)
    };
    let (_first, _first_guard) = builder().build().expect("the first owns the directory");
    let (second, _guard) = builder()
        .build()
        .expect("the second starts too, without spill");
    let stats = second.stats();
    let reason = stats
        .spill_unavailable
        .clone()
        .expect("says why spill is off");
    assert!(reason.contains("in use"), "{reason}");
    assert_eq!(stats.spill_pending, 0);
    for i in 0..20 {
        second.push(event(i)).unwrap();
    }
    second.flush(WAIT).unwrap();
    assert_eq!(second.stats().events_delivered, 20, "delivered from memory");
    assert!(intake.wait_for_events(20, WAIT));
}

#[test]
fn an_unwritable_spill_directory_never_stops_start_up() {
    let tmp = TempDir::new("unwritable");
    std::fs::create_dir_all(tmp.path()).unwrap();
    let file = tmp.path().join("a-file");
    std::fs::write(&file, b"not a directory").unwrap();
    let intake = intake();
    let (logship, _guard) = Logship::builder()
        .endpoint(intake.url("/logs"))
        .spill_dir(file.join("spill"))
        .report_to_stderr(false)
        .build()
        .expect("starts without spill");
    let reason = logship.stats().spill_unavailable.expect("says why");
    assert!(reason.contains("could not"), "{reason}");
    // Strict start-up is opt-in.
    let strict = Logship::builder()
        .endpoint(intake.url("/logs"))
        .spill_dir(file.join("spill"))
        .spill_required(true)
        .report_to_stderr(false)
        .build();
    let err = strict.expect_err("spill_required fails the build");
    assert!(matches!(err, logship::BuildError::Spill(_)), "{err}");
}

#[test]
fn a_build_error_reads_the_same_through_main_as_on_the_command_line() {
    // `fn main() -> Result<(), Box<dyn Error>>` prints the error with Debug.
    let err = Logship::builder()
        .endpoint("not a url")
        .build()
        .expect_err("bad endpoint");
    let boxed: Box<dyn std::error::Error> = Box::new(err);
    let debug = format!("{boxed:?}");
    assert_eq!(debug, boxed.to_string());
    assert!(debug.contains("endpoint = not a url"), "{debug}");
}

/// Runs the ignored test `name` of this binary in a child process with `env`; returns
/// its stdout and stderr.
fn child(name: &str, intake: &Intake, env: &[(&str, &str)]) -> (String, String) {
    let mut command = Command::new(std::env::current_exe().unwrap());
    command
        .args([
            "--exact",
            name,
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("LOGSHIP_CHILD_ENDPOINT", intake.url("/logs"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    let output = command.output().expect("run the child");
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A pipeline that sends nothing on its own for a minute: whatever reaches the intake
/// before the child exits got there because of the exit path under test.
fn quiet_pipeline() -> logship::Builder {
    let endpoint = std::env::var("LOGSHIP_CHILD_ENDPOINT").expect("child endpoint");
    Logship::builder()
        .endpoint(endpoint)
        .spill(false)
        .linger(Duration::from_secs(60))
        .max_batch_records(100_000)
        .flush_on_panic(std::env::var("LOGSHIP_CHILD_NO_HOOK").is_err())
}

#[test]
#[ignore = "run as a child by process_exit_after_shutdown_delivers_everything"]
fn child_logs_then_calls_process_exit() {
    let (logship, _guard) = quiet_pipeline().build().unwrap();
    for i in 0..50 {
        logship.push(event(i)).unwrap();
    }
    if std::env::var("LOGSHIP_CHILD_SHUTDOWN").is_ok() {
        // What the crate docs tell a program that ends with process::exit to do.
        logship.shutdown(WAIT);
    }
    std::process::exit(0);
}

#[test]
fn process_exit_after_shutdown_delivers_everything_and_without_it_loses_what_is_queued() {
    let intake = intake();
    child(
        "child_logs_then_calls_process_exit",
        &intake,
        &[("LOGSHIP_CHILD_SHUTDOWN", "1")],
    );
    assert_eq!(
        intake.stats().events,
        50,
        "shutdown before exit delivers all"
    );
    // The documented loss: process::exit runs no destructor, so the guard never flushes.
    let bare = self::intake();
    child("child_logs_then_calls_process_exit", &bare, &[]);
    assert_eq!(bare.stats().events, 0, "as the crate docs say");
}

#[test]
#[ignore = "run as a child by a_panic_delivers_what_was_logged_before_it"]
fn child_logs_then_a_thread_panics_and_the_process_exits() {
    let (logship, _guard) = quiet_pipeline().build().unwrap();
    for i in 0..50 {
        logship.push(event(i)).unwrap();
    }
    let worker = std::thread::spawn(|| panic!("the worker failed"));
    let _ = worker.join();
    // A program that ends on a worker's failure, without unwinding main.
    std::process::exit(1);
}

#[test]
fn a_panic_delivers_what_was_logged_before_it() {
    let intake = intake();
    let (_, stderr) = child(
        "child_logs_then_a_thread_panics_and_the_process_exits",
        &intake,
        &[],
    );
    assert!(
        stderr.contains("the worker failed"),
        "the previous hook still runs: {stderr}"
    );
    assert_eq!(intake.stats().events, 50, "flush_on_panic delivered them");
    let off = self::intake();
    child(
        "child_logs_then_a_thread_panics_and_the_process_exits",
        &off,
        &[("LOGSHIP_CHILD_NO_HOOK", "1")],
    );
    assert_eq!(off.stats().events, 0, "without the hook they are lost");
}

#[test]
#[ignore = "run as a child by a_guard_dropped_at_once_is_reported_once"]
fn child_drops_the_guard_at_once_then_logs() {
    let endpoint = std::env::var("LOGSHIP_CHILD_ENDPOINT").expect("child endpoint");
    #[allow(clippy::let_underscore_untyped)]
    let (logship, _) = Logship::builder()
        .endpoint(endpoint)
        .spill(false)
        .build()
        .unwrap();
    let refused = (0..10).filter(|&i| logship.push(event(i)).is_err()).count();
    println!(
        "REFUSED {refused} DROPPED_CLOSED {}",
        logship.stats().dropped_closed
    );
}

#[test]
fn a_guard_dropped_at_once_is_reported_once() {
    let intake = intake();
    let (stdout, stderr) = child("child_drops_the_guard_at_once_then_logs", &intake, &[]);
    let line = BufReader::new(stdout.as_bytes())
        .lines()
        .map_while(Result::ok)
        .find(|l| l.contains("REFUSED"))
        .unwrap_or_else(|| panic!("child output: {stdout} {stderr}"));
    assert!(line.ends_with("REFUSED 10 DROPPED_CLOSED 10"), "{line}");
    let notices = stderr
        .matches("an event was logged after this pipeline shut down")
        .count();
    assert_eq!(notices, 1, "said once, not per event: {stderr}");
    assert!(stderr.contains("_guard"), "says how to fix it: {stderr}");
}

#[test]
fn at_the_deadline_a_batch_whose_request_never_returns_is_spilled_not_dropped() {
    let dir = TempDir::new("deadline");
    let intake = intake();
    intake.pause(); // accepts requests, never answers
    let (logship, _guard) = Logship::builder()
        .endpoint(intake.url("/logs"))
        .spill_dir(dir.path())
        .max_batch_records(100)
        .report_to_stderr(false)
        .build()
        .unwrap();
    for i in 0..1000 {
        logship.push(event(i)).unwrap();
    }
    let report = logship.shutdown(Duration::from_millis(500));
    intake.resume();
    let s = &report.stats;
    assert_eq!(
        s.events_delivered + s.events_spilled + s.lost(),
        1000,
        "{s:?}"
    );
    assert_eq!(s.events_spilled, 1000, "{s:?}");
    assert_eq!(s.lost(), 0, "{s:?}");
    assert_eq!(s.batches_in_flight, 0, "nothing left uncounted: {s:?}");
}

fn insured(endpoint: String, dir: &std::path::Path) -> logship::Builder {
    Logship::builder()
        .endpoint(endpoint)
        .spill_dir(dir)
        .spill_in_flight_after(Duration::from_millis(200))
        .max_batch_records(50)
        .max_in_flight(4)
        .adaptive_concurrency(false)
        .report_to_stderr(false)
}

#[test]
fn a_request_that_hangs_gets_a_copy_on_disk_deleted_once_it_is_delivered() {
    let dir = TempDir::new("insured-live");
    let intake = intake();
    intake.pause(); // accepts, does not answer yet
    let (logship, _guard) = insured(intake.url("/logs"), dir.path()).build().unwrap();
    for i in 0..100 {
        logship.push(event(i)).unwrap();
    }
    assert!(
        wait_for_stats(&logship, WAIT, |s| s.spill_in_flight_copies == 100),
        "{:?}",
        logship.stats()
    );
    intake.resume();
    logship.flush(WAIT).unwrap();
    let s = logship.stats();
    assert_eq!(s.events_delivered, 100, "{s:?}");
    assert_eq!(s.events_spilled, 0, "a copy is not a spill: {s:?}");
    assert_eq!(
        s.spill_in_flight_copies, 0,
        "copies deleted once delivered: {s:?}"
    );
    assert_eq!(s.spill_pending, 0, "{s:?}");
    let copies = std::fs::read_dir(dir.path().join("inflight"))
        .unwrap()
        .count();
    assert_eq!(copies, 0);
}

#[test]
#[ignore = "run as a child by a_sigkill_while_a_request_hangs_loses_nothing"]
fn child_ships_into_a_hanging_intake_then_waits_to_be_killed() {
    let endpoint = std::env::var("LOGSHIP_CHILD_ENDPOINT").expect("child endpoint");
    let dir = std::env::var("LOGSHIP_CHILD_SPILL_DIR").expect("child spill dir");
    let (logship, _guard) = insured(endpoint, std::path::Path::new(&dir))
        .build()
        .unwrap();
    for i in 0..100 {
        logship.push(event(i)).unwrap();
    }
    let copied = wait_for_stats(&logship, WAIT, |s| s.spill_in_flight_copies == 100);
    println!("COPIED {copied}");
    let _ = std::io::stdin().read_line(&mut String::new());
    std::process::abort();
}

#[test]
fn a_sigkill_while_a_request_hangs_loses_nothing() {
    let dir = TempDir::new("insured-kill");
    let hanging = intake();
    hanging.pause();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_ships_into_a_hanging_intake_then_waits_to_be_killed",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("LOGSHIP_CHILD_ENDPOINT", hanging.url("/logs"))
        .env("LOGSHIP_CHILD_SPILL_DIR", dir.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let copied = BufReader::new(child.stdout.take().unwrap())
        .lines()
        .map_while(Result::ok)
        .find_map(|l| l.split_once("COPIED ").map(|(_, v)| v.trim() == "true"));
    assert_eq!(copied, Some(true), "the child's batches got their copies");
    child.kill().unwrap(); // SIGKILL, with every request still unanswered
    child.wait().unwrap();
    // The next process on the same directory replays the copies.
    let intake = intake();
    let (logship, _guard) = insured(intake.url("/logs"), dir.path()).build().unwrap();
    assert!(logship.wait_spill_drained(WAIT), "{:?}", logship.stats());
    assert!(intake.wait_for_events(100, WAIT), "{:?}", intake.stats());
    let mut messages = intake.sorted_strings_at("/message");
    messages.dedup();
    assert_eq!(messages.len(), 100, "every event arrived");
}
