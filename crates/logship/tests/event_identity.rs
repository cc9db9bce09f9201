//! Event identity end to end: a process killed with SIGKILL in the middle of an
//! Elasticsearch delivery, restarted, replays what it had in flight, and the intake ends
//! up holding each event once (counted by `_id` and by content), because every event
//! carries its id as `_id` and a `create` of an existing `_id` answers 409. The same
//! scenario with ids off is the baseline: every replayed event is stored twice.
//!
//! Deterministic: the intake stores the documents and then holds its answer (paused), the
//! child waits until the batch's insurance copy is on disk, and only then is it killed, so
//! the replay always resends documents the intake already holds.

mod common;

use std::process::{Command, Stdio};
use std::time::Duration;

use common::*;
use logship::{Builder, Logship, Vendor};
use logship_intake::{DocumentCounts, Intake, IntakeConfig};

const KEY: &str = "es-key-identity-0123";
const CHILD: &str = "child_ships_to_a_held_elasticsearch_then_waits_to_be_killed";

fn es_builder(endpoint: String, dir: &std::path::Path, event_id: bool) -> Builder {
    Logship::builder()
        .vendor(Vendor::Elasticsearch)
        .endpoint(endpoint)
        .api_key(KEY)
        .service("checkout")
        .hostname("web-1")
        .event_id(event_id)
        .spill_dir(dir)
        .spill_in_flight_after(Duration::from_millis(100))
        .max_batch_records(10_000)
        .linger(Duration::from_millis(20))
        .timeouts(Duration::from_secs(5), Duration::from_secs(600))
        .retry_backoff(Duration::from_millis(1), Duration::from_millis(20))
        .shutdown_timeout(WAIT)
        .report_to_stderr(false)
}

/// Runs in a child process (see [`killed_mid_delivery_then_replayed`]): ships `n` events to
/// an intake that holds its answer, waits until the in-flight batch's insurance copy is on
/// disk, says so, and waits to be killed.
#[test]
#[ignore = "run as a child process by the kill -9 tests below"]
fn child_ships_to_a_held_elasticsearch_then_waits_to_be_killed() {
    let var = |name: &str| std::env::var(name).expect(name);
    let n: u64 = var("LOGSHIP_CHILD_EVENTS").parse().unwrap();
    let event_id = var("LOGSHIP_CHILD_EVENT_ID") == "true";
    let dir = var("LOGSHIP_CHILD_SPILL_DIR");
    let (logship, _guard) = es_builder(var("LOGSHIP_CHILD_ENDPOINT"), dir.as_ref(), event_id)
        .build()
        .unwrap();
    for i in 0..n {
        logship.push(numbered(i as usize)).unwrap();
    }
    assert!(
        wait_for_stats(&logship, WAIT, |s| s.spill_in_flight_copies == n),
        "{:?}",
        logship.stats()
    );
    println!("COPIED {}", logship.stats().spill_in_flight_copies);
    // Wait for SIGKILL: the guard never runs, the answer never comes.
    let _ = std::io::stdin().read_line(&mut String::new());
    std::process::abort();
}

/// A child ships `n` events to a paused intake and is killed with SIGKILL once the intake
/// stored them and the batch's copy is on disk; then the intake answers (to nobody) and a
/// new pipeline on the same spill directory replays. Returns what the intake holds and
/// the new pipeline's stats.
fn killed_mid_delivery_then_replayed(n: u64, event_id: bool) -> (DocumentCounts, logship::Stats) {
    let dir = TempDir::new(if event_id { "ids-on" } else { "ids-off" });
    let intake = Intake::start(IntakeConfig {
        api_key: Some(KEY.into()),
        ..IntakeConfig::default()
    })
    .unwrap();
    intake.pause();
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            CHILD,
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("LOGSHIP_CHILD_SPILL_DIR", dir.path())
        .env("LOGSHIP_CHILD_ENDPOINT", intake.url(""))
        .env("LOGSHIP_CHILD_EVENTS", n.to_string())
        .env("LOGSHIP_CHILD_EVENT_ID", event_id.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let copied = child_count(&mut child, "COPIED ");
    assert_eq!(copied, Some(n), "the child's batch has its copy on disk");
    assert!(
        intake.wait_for_documents(n, WAIT),
        "the intake stored the documents before holding its answer: {:?}",
        intake.stats().es_documents
    );
    child.kill().unwrap(); // SIGKILL, mid-delivery: the answer is still held
    child.wait().unwrap();
    intake.resume();
    // The restart: a new pipeline with the same directory replays the batch's copy.
    let (logship, _guard) = es_builder(intake.url(""), dir.path(), event_id)
        .build()
        .unwrap();
    assert!(logship.wait_spill_drained(WAIT), "{:?}", logship.stats());
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
    let docs = intake.stats().es_documents;
    eprintln!("kill -9 replay, event_id = {event_id}, {n} events: intake holds {docs:?}");
    (docs, logship.stats())
}

#[test]
fn a_kill_9_mid_delivery_and_a_replay_leave_zero_duplicates_at_elasticsearch() {
    let n = 300;
    let (docs, stats) = killed_mid_delivery_then_replayed(n, true);
    assert_eq!(docs.stored, n, "each event stored once: {docs:?}");
    assert_eq!(docs.ids, n, "one document per _id: {docs:?}");
    assert_eq!(
        docs.content_duplicates, 0,
        "no duplicate by content: {docs:?}"
    );
    assert_eq!(
        docs.id_conflicts, n,
        "the replay was refused with 409: {docs:?}"
    );
    // The replay counts them delivered (they are at the intake), already there, not failed.
    assert_eq!(stats.events_replayed, n, "{stats:?}");
    assert_eq!(stats.already_delivered, n, "{stats:?}");
    assert_eq!(stats.events_failed, 0, "{stats:?}");
    assert_eq!(stats.lost(), 0, "{stats:?}");
}

/// The baseline, as logship behaved before event ids (and behaves with `event_id =
/// false`): the replay stores every event a second time.
#[test]
fn without_event_ids_the_same_replay_stores_every_event_twice() {
    let n = 300;
    let (docs, stats) = killed_mid_delivery_then_replayed(n, false);
    assert_eq!(docs.stored, 2 * n, "{docs:?}");
    assert_eq!(docs.content_duplicates, n, "{docs:?}");
    assert_eq!((docs.ids, docs.id_conflicts), (0, 0), "{docs:?}");
    assert_eq!(stats.events_replayed, n, "{stats:?}");
    assert_eq!(stats.already_delivered, 0, "{stats:?}");
}
