//! The harness of the `--follow` tests (`tests/follow_*.rs`): a writer process (the test
//! binary re-run as `writer`), a follower (the real `logship ship --follow`), the
//! in-process strict intake, and the checks every test makes. Every line carries a unique
//! id, so each test accounts for every line: none lost, none twice (or duplicates bounded
//! exactly as the checkpoint says), in order within a file.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use super::{logship, temp_path, watchdog, StderrLines};
use logship_intake::{Intake, IntakeConfig};

/// Generous bound for things that take seconds, so a hang fails instead of stalling.
pub const WAIT: Duration = Duration::from_secs(90);

// ---------------------------------------------------------------------------------------
// The writer process: `follow-<pid> writer` re-runs this binary with LOGSHIP_TEST_WRITER.

/// The writer process's work, when this test binary was started as the writer
/// (`LOGSHIP_TEST_WRITER`); nothing otherwise. Each test binary that starts a writer calls
/// it from a test named `writer`, which [`start_writer`] runs.
pub fn writer() {
    let Ok(dir) = std::env::var("LOGSHIP_TEST_WRITER") else {
        return;
    };
    let var = |name: &str| std::env::var(name).unwrap_or_default();
    let dir = PathBuf::from(dir);
    let lines: u64 = var("W_LINES").parse().expect("W_LINES");
    let rotate_every: u64 = var("W_ROTATE_EVERY").parse().unwrap_or(u64::MAX);
    let rate: u64 = var("W_RATE").parse().unwrap_or(5000);
    let mode = var("W_MODE");
    let path = dir.join("app.log");
    let open = || {
        std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .expect("open app.log")
    };
    let mut file = open();
    let started = Instant::now();
    let mut rotation = 0;
    for id in 0..lines {
        if id > 0 && id % rotate_every == 0 {
            rotation += 1;
            match mode.as_str() {
                "rename" => {
                    std::fs::rename(&path, dir.join(format!("app.log.{rotation}")))
                        .expect("rename");
                    file = open();
                }
                "copytruncate" => {
                    std::fs::copy(&path, dir.join(format!("app.log.{rotation}"))).expect("copy");
                    file.set_len(0).expect("truncate");
                }
                other => panic!("W_MODE {other:?} does not rotate"),
            }
        }
        writeln!(file, "{}", line_text(id)).expect("write");
        // Pace to `rate` lines/s (a writer burst, not synchronisation).
        let due = started + Duration::from_secs_f64(id as f64 / rate as f64);
        if let Some(wait) = due.checked_duration_since(Instant::now()) {
            std::thread::sleep(wait);
        }
    }
}

pub fn line_text(id: u64) -> String {
    format!("id={id:08} the quick brown fox jumps over the lazy dog")
}

/// Starts the writer process in `dir`.
pub fn start_writer(dir: &Path, lines: u64, rotate_every: u64, mode: &str, rate: u64) -> Child {
    std::process::Command::new(std::env::current_exe().expect("test binary"))
        .args(["--exact", "writer", "--nocapture", "--test-threads", "1"])
        .env("LOGSHIP_TEST_WRITER", dir)
        .env("W_LINES", lines.to_string())
        .env("W_ROTATE_EVERY", rotate_every.to_string())
        .env("W_MODE", mode)
        .env("W_RATE", rate.to_string())
        .stdout(Stdio::null())
        .spawn()
        .expect("spawn writer")
}

// ---------------------------------------------------------------------------------------
// The follower process.

/// A running `logship ship --follow ...`, its stderr collected, under a watchdog.
pub struct Follower {
    /// The process.
    pub child: Child,
    /// Its stderr, line by line.
    pub stderr: StderrLines,
    _watchdog: std::sync::mpsc::Sender<()>,
}

impl Follower {
    pub fn start(intake: &Intake, args: &[&str]) -> Follower {
        Follower::start_polling(intake, 20, args)
    }

    /// Like `start`, matching the patterns every `poll_ms`.
    pub fn start_polling(intake: &Intake, poll_ms: u64, args: &[&str]) -> Follower {
        Follower::start_with_env(intake, poll_ms, &[], args)
    }

    /// Like `start_polling`, with the variables `env` set.
    pub fn start_with_env(
        intake: &Intake,
        poll_ms: u64,
        env: &[(&str, &str)],
        args: &[&str],
    ) -> Follower {
        let mut child = logship()
            .envs(env.iter().copied())
            .arg("ship")
            .args(["--endpoint", &intake.url("/logs"), "--max-in-flight", "1"])
            .args(["--poll-interval-ms", &poll_ms.to_string()])
            .args(["--rotate-wait-ms", "200"])
            .args(["--checkpoint-interval-ms", "100"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn logship ship --follow");
        let watchdog = watchdog(&child, Duration::from_secs(240));
        let stderr = StderrLines::collect(&mut child);
        let f = Follower {
            child,
            stderr,
            _watchdog: watchdog,
        };
        f.wait_for_stderr("logship: following");
        f
    }

    pub fn wait_for_stderr(&self, text: &str) {
        self.stderr.expect(text, WAIT);
    }

    pub fn signal(&self, name: &str) {
        let status = std::process::Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(status.success());
    }

    /// SIGTERM, then the exit code and stderr.
    pub fn stop(mut self) -> (Option<i32>, Vec<String>) {
        self.signal("TERM");
        let status = self.child.wait().expect("wait");
        self.wait_for_stderr("logship: shipped");
        let lines = self.stderr.lines();
        (status.code(), lines)
    }

    /// SIGKILL; returns what it had written on stderr.
    pub fn kill(mut self) -> Vec<String> {
        self.signal("KILL");
        let _ = self.child.wait();
        self.stderr.lines()
    }
}

pub fn intake() -> Intake {
    Intake::start(IntakeConfig::default()).expect("start intake")
}

/// The id of every received line, in arrival order, with its file path.
pub fn received(intake: &Intake) -> Vec<(u64, String)> {
    intake
        .events()
        .iter()
        .filter_map(|e| {
            let message = e.value.pointer("/message")?.as_str()?;
            let id = message.strip_prefix("id=")?.get(..8)?.parse().ok()?;
            let path = e
                .value
                .get("log.file.path")
                .and_then(|p| p.as_str())
                .unwrap_or("")
                .to_owned();
            Some((id, path))
        })
        .collect()
}

/// Waits until the intake holds `n` events.
pub fn wait_events(intake: &Intake, n: usize) {
    assert!(
        intake.wait_for_events(n, WAIT),
        "{} of {n} events arrived",
        intake.stats().events
    );
}

/// Asserts that ids `0..n` arrived exactly once each and in order within each path.
pub fn assert_exactly_once_in_order(got: &[(u64, String)], n: u64) {
    let mut count: BTreeMap<u64, u32> = BTreeMap::new();
    for (id, _) in got {
        *count.entry(*id).or_default() += 1;
    }
    let missing: Vec<u64> = (0..n).filter(|id| !count.contains_key(id)).collect();
    let twice: Vec<u64> = count
        .iter()
        .filter(|(_, c)| **c > 1)
        .map(|(i, _)| *i)
        .collect();
    assert!(
        missing.is_empty() && twice.is_empty(),
        "{} lines lost, first {:?}; {} lines twice, first {:?}",
        missing.len(),
        &missing[..missing.len().min(10)],
        twice.len(),
        &twice[..twice.len().min(10)]
    );
    assert_eq!(got.len() as u64, n);
    let mut last: BTreeMap<&str, u64> = BTreeMap::new();
    for (id, path) in got {
        if let Some(prev) = last.insert(path, *id) {
            assert!(prev < *id, "{path}: id {id} arrived after {prev}");
        }
    }
}

/// An intake, a fresh directory `name` holding an empty `app.log`, and a follower of it
/// with a checkpoint (`ckpt.json` there) and spill off.
pub fn follow_an_empty_app_log(name: &str) -> (Intake, PathBuf, PathBuf, PathBuf, Follower) {
    let intake = intake();
    let dir = fresh_dir(name);
    let ckpt = dir.join("ckpt.json");
    let log = dir.join("app.log");
    std::fs::write(&log, b"").unwrap();
    let follower = Follower::start(
        &intake,
        &["--follow", s(&log), "--checkpoint", s(&ckpt), "--no-spill"],
    );
    (intake, dir, ckpt, log, follower)
}

/// A follower of `log` with no checkpoint, spill off, and `extra` arguments.
pub fn follow_without_checkpoint(intake: &Intake, log: &Path, extra: &[&str]) -> Follower {
    let mut args = vec!["--follow", s(log), "--no-checkpoint", "--no-spill"];
    args.extend_from_slice(extra);
    Follower::start(intake, &args)
}

/// SIGTERM; checks exit code 0 and that ids `0..n` arrived once each, in order within
/// each file; returns the summary line.
pub fn stop_with_every_line_once(follower: Follower, intake: &Intake, n: u64) -> String {
    let (code, stderr) = follower.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    assert_exactly_once_in_order(&received(intake), n);
    summary(&stderr).to_owned()
}

/// The summary line of a run's stderr.
pub fn summary(stderr: &[String]) -> &str {
    stderr
        .iter()
        .find(|l| l.contains("file opens"))
        .expect("summary")
}

/// The run's outcome line (`logship: outcome: …`), empty when it printed none.
pub fn outcome(stderr: &[String]) -> String {
    stderr
        .iter()
        .find(|l| l.starts_with("logship: outcome: "))
        .cloned()
        .unwrap_or_default()
}

pub fn write_lines(path: &Path, ids: std::ops::Range<u64>) {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .expect("open");
    let text: String = ids.map(|i| line_text(i) + "\n").collect();
    f.write_all(text.as_bytes()).expect("write");
}

pub fn fresh_dir(name: &str) -> PathBuf {
    let dir = temp_path(name);
    std::fs::create_dir_all(&dir).expect("dir");
    dir
}

pub fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// Bytes of every test line, newline included (ids are zero-padded).
pub fn line_len() -> u64 {
    line_text(0).len() as u64 + 1
}

/// The offset the checkpoint file holds for `path`, if it holds one.
pub fn checkpoint_offset(ckpt: &Path, path: &Path) -> Option<u64> {
    let text = std::fs::read_to_string(ckpt).ok()?;
    let json: serde_json::Value = serde_json::from_str(&text).ok()?;
    json["files"]
        .as_array()?
        .iter()
        .find(|e| e["path"].as_str() == path.to_str())?["offset"]
        .as_u64()
}

/// Waits until `done` holds, polling (the condition is on disk, written by another
/// process).
pub fn wait_until(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + WAIT;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A spill that is full after about 1,500 test lines: its cap (128 KiB) refuses new
/// events (`drop_newest`), as a full disk would.
pub const FULL_SPILL: [&str; 6] = [
    "--spill-max-bytes",
    "131072",
    "--spill-segment-bytes",
    "65536",
    "--spill-full",
    "drop_newest",
];

/// A slow intake and small batches, so a run is stopped in the middle of the file.
pub const SLOW: [&str; 6] = [
    "--max-batch-records",
    "100",
    "--queue-capacity",
    "500",
    "--linger-ms",
    "5",
];

/// After a SIGKILL in the middle of `log` (`n` lines): the line the checkpoint stands at,
/// and the ids the first run delivered. Checks that the checkpoint is at a line boundary,
/// that the kill landed before the end, and that the checkpoint claims no line that was
/// not delivered.
pub fn after_kill(
    intake: &Intake,
    ckpt: &Path,
    log: &Path,
    n: u64,
    stderr: &[String],
) -> (u64, Vec<u64>) {
    let offset = checkpoint_offset(ckpt, log).expect("checkpoint");
    assert_eq!(offset % line_len(), 0, "a checkpoint is at a line boundary");
    let k = offset / line_len();
    let first_run: Vec<u64> = received(intake).into_iter().map(|(id, _)| id).collect();
    assert!(
        (first_run.len() as u64) < n,
        "killed in the middle of the file: {stderr:?}"
    );
    let delivered: std::collections::BTreeSet<u64> = first_run.iter().copied().collect();
    assert!(
        (0..k).all(|id| delivered.contains(&id)),
        "line before the checkpoint not delivered"
    );
    (k, first_run)
}

/// A number from `/proc/<pid>/<file>` on the line starting with `key`.
pub fn proc_number(pid: u32, file: &str, key: &str) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/{file}")).expect("read /proc");
    text.lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no {key} in /proc/{pid}/{file}"))
}

/// The largest number of events one request carried.
pub fn largest_request(intake: &Intake) -> usize {
    intake
        .requests()
        .iter()
        .map(|r| r.events)
        .max()
        .unwrap_or(0)
}
