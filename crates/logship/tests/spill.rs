//! Delivery guarantees with the disk spill: outages, restarts, kill -9, corruption, caps,
//! dead letters, and one directory per process. Real HTTP on loopback; faults come from
//! the intake's controls or from the intake not being there, never from timing luck.

mod common;

use std::collections::BTreeSet;
use std::process::{Command, Stdio};
use std::time::Duration;

use common::*;
use logship::{BuildError, Builder, Logship, SpillFull};
use logship_intake::{Fault, Intake};

/// A pipeline that spills to `dir`, retries once, quickly, and is quiet.
fn spilling(endpoint: String, dir: &TempDir) -> Builder {
    Logship::builder()
        .endpoint(endpoint)
        .spill_dir(dir.path())
        .max_retries(1)
        .retry_backoff(Duration::from_millis(1), Duration::from_millis(20))
        .linger(Duration::from_millis(20))
        .max_batch_records(50)
        .shutdown_timeout(WAIT)
        .report_to_stderr(false)
}

/// Waits for n events, then checks every seq in 0..n arrived; returns how many arrived
/// more than once.
fn wait_all_arrived(intake: &Intake, n: u64) -> u64 {
    assert!(
        intake.wait_for_events(n as usize, WAIT),
        "only {} arrived",
        intake.stats().events
    );
    all_arrived(intake, n)
}

/// Every seq in 0..n arrived; returns how many arrived more than once.
fn all_arrived(intake: &Intake, n: u64) -> u64 {
    let seqs = received_seqs(intake);
    let unique: BTreeSet<u64> = seqs.iter().copied().collect();
    assert_eq!(unique, (0..n).collect::<BTreeSet<_>>(), "missing events");
    seqs.len() as u64 - n
}

#[test]
fn an_outage_spills_to_disk_and_everything_arrives_after_recovery() {
    let dir = TempDir::new("outage");
    let intake = intake();
    intake.set_down(true); // every connection is dropped unread
    let (logship, _guard) = spilling(intake.url("/logs"), &dir).build().unwrap();
    let n = 2000u64;
    for i in 0..n / 2 {
        logship.push(numbered(i as usize)).unwrap();
    }
    logship.flush(WAIT).unwrap();
    let during = logship.stats();
    assert_eq!(during.events_delivered, 0);
    assert_eq!(during.events_spilled, n / 2, "{during:?}");
    assert_eq!(during.spill_pending, n / 2);
    assert_eq!(during.health, logship::Health::Degraded);
    assert!(during.lost() == 0);
    // The intake comes back; the stream goes on.
    intake.set_down(false);
    for i in n / 2..n {
        logship.push(numbered(i as usize)).unwrap();
    }
    let duplicates = wait_all_arrived(&intake, n);
    // The intake records a batch before it answers: wait until the pipeline has counted
    // the answers too (live batches settled, spilled ones replayed and acknowledged).
    logship.flush(WAIT).unwrap();
    assert!(logship.wait_spill_drained(WAIT), "{:?}", logship.stats());
    let stats = logship.stats();
    assert_eq!(
        stats.events_replayed + stats.events_delivered,
        n + duplicates
    );
    assert!(duplicates <= 100, "{duplicates} duplicates");
    assert_eq!(stats.lost(), 0);
}

#[test]
fn connections_dropped_by_the_intake_are_recovered_without_loss() {
    let dir = TempDir::new("drops");
    let intake = intake();
    intake.fail_next(40, Fault::CloseConnection);
    let (logship, _guard) = spilling(intake.url("/logs"), &dir).build().unwrap();
    let n = 1500u64;
    for i in 0..n {
        logship.push(numbered(i as usize)).unwrap();
    }
    let duplicates = wait_all_arrived(&intake, n);
    assert!(duplicates <= 100, "{duplicates} duplicates");
    assert_eq!(logship.stats().lost(), 0);
}

#[test]
fn what_a_run_spilled_is_replayed_by_the_next_run() {
    let dir = TempDir::new("restart");
    let n = 300u64;
    {
        let (logship, guard) = spilling(dead_endpoint(), &dir).build().unwrap();
        for i in 0..n {
            logship.push(numbered(i as usize)).unwrap();
        }
        drop(guard);
        let stats = logship.stats();
        assert_eq!(stats.events_spilled, n, "{stats:?}");
        assert_eq!(stats.lost(), 0);
    }
    let intake = intake();
    let (logship, _guard) = spilling(intake.url("/logs"), &dir).build().unwrap();
    assert!(logship.wait_spill_drained(WAIT));
    assert_eq!(all_arrived(&intake, n), 0);
    assert_eq!(logship.stats().events_replayed, n);
}

/// Runs in a child process (see the test below): logs with the intake down and spill on,
/// reports, and waits to be killed.
#[test]
#[ignore = "run as a child process by a_process_killed_with_sigkill_loses_nothing_it_spilled"]
fn child_logs_with_the_intake_down_then_waits_to_be_killed() {
    let dir = std::env::var("LOGSHIP_CHILD_SPILL_DIR").expect("spill dir");
    let n: u64 = std::env::var("LOGSHIP_CHILD_EVENTS")
        .expect("events")
        .parse()
        .unwrap();
    let (logship, _guard) = Logship::builder()
        .endpoint(dead_endpoint())
        .spill_dir(dir)
        .max_retries(0)
        .max_batch_records(25)
        .report_to_stderr(false)
        .build()
        .unwrap();
    for i in 0..n {
        logship.push(numbered(i as usize)).unwrap();
    }
    logship.flush(WAIT).unwrap();
    println!("SPILLED {}", logship.stats().events_spilled);
    // Wait for SIGKILL: the guard never runs.
    let _ = std::io::stdin().read_line(&mut String::new());
    std::process::abort();
}

#[test]
fn a_process_killed_with_sigkill_loses_nothing_it_spilled() {
    let dir = TempDir::new("kill9");
    let n = 400u64;
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "child_logs_with_the_intake_down_then_waits_to_be_killed",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("LOGSHIP_CHILD_SPILL_DIR", dir.path())
        .env("LOGSHIP_CHILD_EVENTS", n.to_string())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let spilled = child_count(&mut child, "SPILLED ");
    assert_eq!(
        spilled,
        Some(n),
        "the child spilled everything before being killed"
    );
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    // A new process (here: a new pipeline) with the same directory, and the intake back.
    let intake = intake();
    let (logship, _guard) = spilling(intake.url("/logs"), &dir).build().unwrap();
    assert!(
        logship.wait_spill_drained(WAIT),
        "only {} arrived",
        intake.stats().events
    );
    assert_eq!(all_arrived(&intake, n), 0);
    assert_eq!(logship.stats().events_replayed, n);
}

#[test]
fn a_damaged_spill_replays_every_intact_record_and_counts_the_rest() {
    let dir = TempDir::new("corrupt");
    let n = 200u64;
    {
        let (logship, guard) = spilling(dead_endpoint(), &dir)
            .spill_segment_bytes(64 * 1024)
            .build()
            .unwrap();
        for i in 0..n {
            logship.push(numbered(i as usize)).unwrap();
        }
        drop(guard);
    }
    let mut segments: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "seg"))
        .collect();
    segments.sort();
    assert!(!segments.is_empty());
    let seg = &segments[0];
    let mut bytes = std::fs::read(seg).unwrap();
    let len = bytes.len();
    for at in [len / 3, len / 2] {
        bytes[at] ^= 0xff; // flip bytes in the middle
    }
    bytes.truncate(len - 7); // and tear the tail
    std::fs::write(seg, &bytes).unwrap();

    let intake = intake();
    let (logship, guard) = spilling(intake.url("/logs"), &dir).build().unwrap();
    // Damage is counted as the backlog is read, after start-up: wait until it is replayed.
    assert!(logship.wait_spill_drained(WAIT), "{:?}", logship.stats());
    let corrupt = logship.stats().spill_corrupt;
    assert!(corrupt >= 2, "damage must be counted, got {corrupt}");
    // Everything intact arrives: at most one record per damaged region is lost.
    let expected = n - corrupt;
    assert!(intake.wait_for_events(expected as usize, WAIT));
    let seqs: BTreeSet<u64> = received_seqs(&intake).into_iter().collect();
    assert!(
        seqs.len() as u64 >= expected,
        "{} of {expected}",
        seqs.len()
    );
    assert!(seqs.iter().all(|s| *s < n), "no invented records");
    drop(guard);
}

#[test]
fn a_full_spill_drops_the_oldest_and_counts_it() {
    let dir = TempDir::new("cap");
    let cap = 256 * 1024u64;
    let (logship, guard) = spilling(dead_endpoint(), &dir)
        .spill_segment_bytes(64 * 1024)
        .spill_max_bytes(cap, SpillFull::DropOldest)
        .build()
        .unwrap();
    let n = 3000u64;
    for i in 0..n {
        let mut r = numbered(i as usize);
        r.field("pad", "x".repeat(300).as_str());
        logship.push(r).unwrap();
    }
    logship.flush(WAIT).unwrap();
    let stats = logship.stats();
    assert!(
        stats.spill_bytes <= cap,
        "{} bytes on disk over the cap",
        stats.spill_bytes
    );
    assert!(stats.spill_dropped > 0, "{stats:?}");
    assert_eq!(stats.events_spilled, n, "every event went to disk first");
    assert_eq!(stats.spill_pending + stats.spill_dropped, n, "{stats:?}");
    drop(guard);
}

#[test]
fn rejected_events_are_dead_lettered_not_retried() {
    let dir = TempDir::new("dead");
    let intake = intake();
    intake.fail_next(
        1000,
        Fault::Status {
            status: 401,
            headers: vec![],
            body: "{\"error\":\"bad key\"}".into(),
        },
    );
    let (logship, guard) = spilling(intake.url("/logs"), &dir).build().unwrap();
    for i in 0..100 {
        logship.push(numbered(i)).unwrap();
    }
    logship.flush(WAIT).unwrap();
    let stats = logship.stats();
    assert_eq!(stats.events_failed, 100);
    assert_eq!(stats.dead_lettered, 100);
    assert_eq!(stats.events_spilled, 0, "permanent errors are not replayed");
    assert_eq!(stats.retries, 0);
    assert_eq!(stats.health, logship::Health::Failing);
    assert_eq!(intake.requests().len(), 2, "one attempt per batch of 50");
    drop(guard);
    let dead: u64 = logship::inspect(dir.path())
        .unwrap()
        .iter()
        .filter(|s| s.dead_letter)
        .map(|s| s.records)
        .sum();
    assert_eq!(dead, 100);
}

#[test]
fn two_pipelines_cannot_share_a_spill_directory() {
    let dir = TempDir::new("lock");
    let intake = intake();
    let (_first, _guard) = spilling(intake.url("/logs"), &dir).build().unwrap();
    // With spill_required (strict start-up); by default the second one starts without
    // spill instead (see the test below).
    let second = spilling(intake.url("/logs"), &dir)
        .spill_required(true)
        .build();
    let err = second.expect_err("the second pipeline must be refused");
    assert!(matches!(err, BuildError::Spill(_)), "{err:?}");
    let message = err.to_string();
    assert!(
        message.contains(&dir.path().display().to_string()),
        "{message}"
    );
    assert!(
        message.contains("spill_dir"),
        "the message says how to fix it: {message}"
    );
}

#[test]
fn during_an_outage_batches_go_to_disk_at_once_instead_of_waiting_for_busy_senders() {
    let dir = TempDir::new("outage-rate");
    // Senders keep cycling: each batch is retried once after up to 300 ms, then spilled,
    // and the sender takes the next. Batches that wait for such a sender drain at a few
    // per second; going to disk at once, they drain as fast as the disk takes them.
    let (logship, _guard) = Logship::builder()
        .endpoint(dead_endpoint())
        .spill_dir(dir.path())
        .max_retries(1)
        .retry_backoff(Duration::from_millis(300), Duration::from_millis(300))
        .max_batch_records(50)
        .queue_capacity(100_000)
        .queue_max_bytes(1 << 30)
        .report_to_stderr(false)
        .build()
        .unwrap();
    let n = 20_000u64;
    for i in 0..n {
        logship.push(numbered(i as usize)).unwrap();
    }
    // Every batch settles (here: onto disk) well within the time 400 batches would need
    // at a few per second.
    logship
        .flush(Duration::from_secs(10))
        .expect("all batches settled in time");
    let stats = logship.stats();
    assert_eq!(stats.events_spilled, n, "{stats:?}");
    assert_eq!(stats.dropped_queue_full, 0);
}

#[test]
fn a_pipeline_taking_over_a_directory_after_shutdown_replays_exactly_what_was_left() {
    let dir = TempDir::new("handover");
    let intake = intake();
    intake.pause();
    let (a, a_guard) = spilling(intake.url("/logs"), &dir)
        .max_batch_records(5)
        .shutdown_timeout(Duration::from_millis(500))
        .build()
        .unwrap();
    for i in 0..40usize {
        a.push(numbered(i)).unwrap();
    }
    let report = a.shutdown(Duration::from_millis(500));
    drop(a_guard);
    let spilled = report.stats.events_spilled;
    assert!(spilled > 0, "{:?}", report.stats);
    // A's senders still hold requests to the paused intake; the directory is free anyway.
    let (b, _b_guard) = spilling(intake.url("/logs"), &dir).build().unwrap();
    intake.resume();
    assert!(b.wait_spill_drained(WAIT));
    assert_eq!(b.stats().events_replayed, spilled);
    let arrived = intake.wait_for_events(40, WAIT);
    let seqs = received_seqs(&intake);
    assert!(arrived, "{seqs:?} {:?} {:?}", b.stats(), intake.stats());
    // Every event at least once. A's requests that were still out at its deadline were
    // spilled too (nothing in flight is left uncounted), so when the paused intake answers
    // them after all, those events arrive twice: at most what A spilled.
    let duplicates = all_arrived(&intake, 40);
    assert!(
        duplicates <= spilled,
        "{duplicates} duplicates, {spilled} spilled: {seqs:?}"
    );
}

#[test]
fn with_handover_a_second_pipeline_joins_the_directory_and_replays_what_the_first_left() {
    // What a log4rs reload does: the new pipeline is built while the old one still runs,
    // then the old one is shut down.
    let dir = TempDir::new("handover-live");
    let intake = intake();
    intake.set_down(true);
    let (a, _a_guard) = spilling(intake.url("/logs"), &dir)
        .spill_handover(true)
        .build()
        .unwrap();
    let n = 500u64;
    for i in 0..n / 2 {
        a.push(numbered(i as usize)).unwrap();
    }
    // Without hand-over the directory is refused, as before (strict start-up).
    let strict = spilling(intake.url("/logs"), &dir)
        .spill_required(true)
        .build();
    assert!(
        matches!(strict, Err(BuildError::Spill(_))),
        "a pipeline without hand-over must not join"
    );
    let (b, _b_guard) = spilling(intake.url("/logs"), &dir)
        .spill_handover(true)
        .build()
        .expect("a pipeline with hand-over joins the owner");
    for i in n / 2..n {
        a.push(numbered(i as usize)).unwrap();
    }
    // A stops while the intake is still down: what it holds goes to the shared spill.
    let report = a.shutdown(Duration::from_secs(2));
    assert_eq!(report.stats.lost(), 0, "{:?}", report.stats);
    assert_eq!(report.stats.events_spilled, n, "{:?}", report.stats);
    // The directory is still B's: a strict pipeline is still refused.
    assert!(spilling(intake.url("/logs"), &dir)
        .spill_required(true)
        .build()
        .is_err());
    intake.set_down(false);
    assert!(b.wait_spill_drained(WAIT), "{:?}", b.stats());
    let duplicates = wait_all_arrived(&intake, n);
    assert!(duplicates <= 100, "{duplicates} duplicates");
    assert!(b.stats().events_replayed >= n);
    // When the last user shuts down the directory is sealed and released.
    b.shutdown(WAIT);
    // With the intake down nothing can be replayed: drained means nothing was left.
    intake.set_down(true);
    let (c, _c_guard) = spilling(intake.url("/logs"), &dir)
        .build()
        .expect("the directory is free once every sharing pipeline stopped");
    assert!(c.wait_spill_drained(WAIT), "{:?}", c.stats());
    assert_eq!(c.stats().spill_pending, 0);
}

/// One spill frame holding `record`, as the documented segment format lays it out.
fn frame(record: &logship::Record) -> Vec<u8> {
    let mut payload = Vec::new();
    record.to_bytes(&mut payload);
    let len = (payload.len() as u32).to_le_bytes();
    let mut crc = crc32fast::Hasher::new();
    crc.update(&len);
    crc.update(&payload);
    let mut out = 0x5246_534Cu32.to_le_bytes().to_vec();
    out.extend_from_slice(&len);
    out.extend_from_slice(&crc.finalize().to_le_bytes());
    out.extend_from_slice(&payload);
    out
}

/// Writes segment `id` holding events `seqs` into `dir`; returns each frame's end offset.
fn write_segment(dir: &TempDir, id: u64, seqs: std::ops::Range<usize>) -> (Vec<u8>, Vec<usize>) {
    let mut bytes = b"LGSHSPIL".to_vec();
    bytes.extend_from_slice(&1u32.to_le_bytes());
    let mut ends = Vec::new();
    for i in seqs {
        bytes.extend(frame(&numbered(i)));
        ends.push(bytes.len());
    }
    std::fs::write(dir.path().join(format!("{id:020}.seg")), &bytes).unwrap();
    (bytes, ends)
}

/// Polls `stats()` until `done` holds (the backlog of an earlier run is counted in the
/// background), at most `WAIT`.
fn wait_stats(logship: &Logship, done: impl Fn(&logship::Stats) -> bool) -> logship::Stats {
    let deadline = std::time::Instant::now() + WAIT;
    loop {
        let stats = logship.stats();
        if done(&stats) || std::time::Instant::now() >= deadline {
            return stats;
        }
        std::thread::sleep(Duration::from_millis(5)); // polling a condition, not timing
    }
}

#[test]
fn a_restart_counts_the_backlog_in_the_background_and_replays_it_exactly_once() {
    let dir = TempDir::new("lazy-count");
    std::fs::create_dir_all(dir.path()).unwrap();
    // An earlier run left three segments: the first with 30 events acknowledged, the
    // second with a torn tail (event 199), the third with a damaged event (250).
    let (_, ends) = write_segment(&dir, 1, 0..100);
    let ack = format!("logship-spill-ack 1\n1 30 {}\n", ends[29]);
    std::fs::write(dir.path().join("ACK"), ack).unwrap();
    let (torn, _) = write_segment(&dir, 2, 100..200);
    std::fs::write(
        dir.path().join(format!("{:020}.seg", 2)),
        &torn[..torn.len() - 5],
    )
    .unwrap();
    let (mut damaged, ends) = write_segment(&dir, 3, 200..300);
    damaged[ends[49] + 20] ^= 0xff; // inside event 250
    std::fs::write(dir.path().join(format!("{:020}.seg", 3)), &damaged).unwrap();

    let intake = intake();
    intake.set_down(true); // nothing can be replayed: the counts alone must converge
    let (logship, _guard) = spilling(intake.url("/logs"), &dir).build().unwrap();
    let expected = 300 - 30 - 2;
    let stats = wait_stats(&logship, |s| {
        s.spill_pending == expected && s.spill_corrupt == 2
    });
    assert_eq!(
        (stats.spill_pending, stats.spill_corrupt),
        (expected, 2),
        "{stats:?}"
    );
    assert_eq!(stats.events_replayed, 0);

    intake.set_down(false);
    assert!(logship.wait_spill_drained(WAIT), "{:?}", logship.stats());
    let want: Vec<u64> = (30..300).filter(|i| ![199, 250].contains(i)).collect();
    assert!(intake.wait_for_events(want.len(), WAIT));
    assert_eq!(
        received_seqs(&intake),
        want,
        "each unacknowledged event exactly once"
    );
    let stats = logship.stats();
    assert_eq!(stats.events_replayed, expected);
    assert_eq!(
        (stats.spill_corrupt, stats.spill_pending),
        (2, 0),
        "counted once"
    );
}
