//! Shared helpers for the end-to-end tests: a real intake on loopback and a pipeline
//! pointed at it.
#![allow(dead_code)]

pub mod vendors;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use logship::{Builder, Level, Logship, Offered, Record};
use logship_intake::{Intake, IntakeConfig};

/// Generous upper bound for waits that normally finish in milliseconds.
pub const WAIT: Duration = Duration::from_secs(30);

pub fn intake() -> Intake {
    Intake::start(IntakeConfig::default()).expect("start intake")
}

/// A builder pointed at `intake`, quiet on stderr, with short linger so tests don't idle,
/// and no disk spill (tests that spill use their own directory: see `temp_dir`).
pub fn builder(intake: &Intake) -> Builder {
    Logship::builder()
        .endpoint(intake.url("/logs"))
        .linger(Duration::from_millis(50))
        .report_to_stderr(false)
        .spill(false)
}

/// `builder` made to fill up behind a request a paused intake holds: a queue of 4, one
/// request in flight, 2 events per batch.
pub fn held_queue(builder: Builder) -> Builder {
    builder
        .queue_capacity(4)
        .max_in_flight(1)
        .max_batch_records(2)
}

/// Offers numbered records (from 0) until the pipeline is saturated and the full queue
/// hands one back (unchanged); returns how many were taken and the record handed back.
///
/// Each offer waits up to [`SATURATED`] for room: the queue alone is full long before the
/// batcher has filled and handed over its batches (a batcher not yet scheduled would
/// make room a moment later), so a record refused without waiting does not prove that
/// nothing will make room until the intake answers. One refused after that wait does.
pub fn offer_until_full(logship: &Logship) -> (usize, Record) {
    let mut taken = 0;
    loop {
        let record = numbered(taken);
        let sent = record.clone();
        match logship.offer(record, SATURATED) {
            Ok(()) => taken += 1,
            Err(Offered::Full(back)) => {
                assert_eq!(back, sent, "the refused record came back changed");
                return (taken, back);
            }
            Err(other) => panic!("refused for another reason: {other:?}"),
        }
        assert!(taken < 100, "a queue of 4 took {taken}");
    }
}

/// How long [`offer_until_full`] waits for room before it takes the pipeline as saturated.
pub const SATURATED: Duration = Duration::from_secs(1);

/// A fresh, empty directory under the system temp dir, removed on drop.
pub struct TempDir(pub std::path::PathBuf);

impl TempDir {
    pub fn new(name: &str) -> TempDir {
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("logship-test-{name}-{}-{n}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        TempDir(dir)
    }

    pub fn path(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A loopback URL where nothing listens (connections are refused). Port 1 is outside the
/// ephemeral range, so no test's intake can ever be given it.
pub fn dead_endpoint() -> String {
    "http://127.0.0.1:1/logs".to_owned()
}

pub fn rec(message: &str) -> Record {
    let mut r = Record::new(Level::Info, "test");
    r.message(message);
    r
}

pub fn numbered(i: usize) -> Record {
    let mut r = Record::new(Level::Info, "test");
    r.message(&format!("event {i}")).field("seq", i as u64);
    r
}

/// The `seq` fields the intake received, sorted.
pub fn received_seqs(intake: &Intake) -> Vec<u64> {
    let mut seqs: Vec<u64> = intake
        .events()
        .iter()
        .filter_map(|e| e.value.get("seq").and_then(|v| v.as_u64()))
        .collect();
    seqs.sort_unstable();
    seqs
}

/// Builds the pipeline, pushes `events`, and shuts it down (dropping its guard), so every
/// event has been delivered or given up on when it returns.
pub fn ship(builder: Builder, events: impl IntoIterator<Item = Record>) -> Logship {
    let (logship, guard) = builder.build().unwrap();
    for r in events {
        logship.push(r).unwrap();
    }
    drop(guard);
    logship
}

/// Asserts that `secret` appears in none of the pipeline's `Debug` output, its stats'
/// `Debug`, or its stats as JSON.
pub fn assert_no_secret(logship: &Logship, secret: &str) {
    let stats = logship.stats();
    let shown = format!(
        "{logship:?} {stats:?} {}",
        serde_json::to_string(&stats).unwrap()
    );
    assert!(!shown.contains(secret), "secret leaked: {shown}");
}

/// Messages, targets, field names and span names no application should send, but some do.
pub const ODD_TEXTS: &[&str] = &[
    "quotes \" and backslashes \\ and \\\" mixed",
    "control \u{0}\u{1}\u{7}\u{8}\u{b}\u{c}\u{1b}\u{1f}\u{7f} chars",
    "lines\nand\r\nreturns\tand tabs",
    "unicode: é ß 中文 日本語 🚀👩‍👩‍👧 \u{2028}\u{2029} \u{feff}",
    "",
    "{\"looks\":\"like json\"}",
    "dots.in.a.name",
    "message",
    "@timestamp",
    "_id",
];

/// Reads a child test process's stdout until a line holding `marker` followed by a
/// number (libtest prints the test's name first, on the same line); returns the number,
/// or `None` when the child ended without printing it.
pub fn child_count(child: &mut std::process::Child, marker: &str) -> Option<u64> {
    use std::io::BufRead;
    let stdout = child.stdout.take()?;
    for line in std::io::BufReader::new(stdout).lines() {
        let line = line.ok()?;
        if let Some((_, count)) = line.split_once(marker) {
            return count.trim().parse().ok();
        }
    }
    None
}

/// Takes the event id a vendor wrote under `key` out of `object`, checking its form (32
/// lowercase hex digits) and that `seen` did not hold it yet.
pub fn take_event_id(
    object: &mut serde_json::Value,
    key: &str,
    seen: &mut std::collections::HashSet<String>,
) {
    let id = object
        .as_object_mut()
        .and_then(|o| o.remove(key))
        .unwrap_or_else(|| panic!("no {key} in {object}"));
    let id = id.as_str().expect("the id is a string").to_owned();
    assert!(
        id.len() == 32
            && id
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
        "{id}"
    );
    assert!(seen.insert(id.clone()), "id {id} arrived twice");
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

/// Waits (polling the counters: stats have no wait API) until `done` holds or `timeout`
/// passes; returns whether it held.
pub fn wait_for_stats(
    logship: &Logship,
    timeout: std::time::Duration,
    done: impl Fn(&logship::Stats) -> bool,
) -> bool {
    let deadline = std::time::Instant::now() + timeout;
    loop {
        if done(&logship.stats()) {
            return true;
        }
        if std::time::Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}
