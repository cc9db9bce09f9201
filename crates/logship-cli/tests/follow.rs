//! `logship ship --follow`: real files on disk, a real writer process (this test binary
//! re-run as `writer`), the real `logship` binary, real HTTP to the in-process strict
//! intake. Every line carries a unique id, so each test accounts for every line: none
//! lost, none twice (or duplicates bounded exactly as the checkpoint says), in order
//! within a file.

mod common;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::{logship, temp_path, watchdog, StderrLines};
use logship_intake::{Intake, IntakeConfig};

/// Generous bound for things that take seconds, so a hang fails instead of stalling.
const WAIT: Duration = Duration::from_secs(90);

// ---------------------------------------------------------------------------------------
// The writer process: `follow-<pid> writer` re-runs this binary with LOGSHIP_TEST_WRITER.

/// Runs as the writer process when asked to (a test of its own otherwise does nothing).
#[test]
fn writer() {
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

fn line_text(id: u64) -> String {
    format!("id={id:08} the quick brown fox jumps over the lazy dog")
}

/// Starts the writer process in `dir`.
fn start_writer(dir: &Path, lines: u64, rotate_every: u64, mode: &str, rate: u64) -> Child {
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

struct Follower {
    child: Child,
    stderr: StderrLines,
    _watchdog: std::sync::mpsc::Sender<()>,
}

impl Follower {
    fn start(intake: &Intake, args: &[&str]) -> Follower {
        Follower::start_polling(intake, 20, args)
    }

    /// Like `start`, matching the patterns every `poll_ms`.
    fn start_polling(intake: &Intake, poll_ms: u64, args: &[&str]) -> Follower {
        Follower::start_with_env(intake, poll_ms, &[], args)
    }

    /// Like `start_polling`, with the variables `env` set.
    fn start_with_env(
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

    fn wait_for_stderr(&self, text: &str) {
        self.stderr.expect(text, WAIT);
    }

    fn signal(&self, name: &str) {
        let status = std::process::Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status()
            .expect("run kill");
        assert!(status.success());
    }

    /// SIGTERM, then the exit code and stderr.
    fn stop(mut self) -> (Option<i32>, Vec<String>) {
        self.signal("TERM");
        let status = self.child.wait().expect("wait");
        self.wait_for_stderr("logship: shipped");
        let lines = self.stderr.lines();
        (status.code(), lines)
    }

    /// SIGKILL; returns what it had written on stderr.
    fn kill(mut self) -> Vec<String> {
        self.signal("KILL");
        let _ = self.child.wait();
        self.stderr.lines()
    }
}

fn intake() -> Intake {
    Intake::start(IntakeConfig::default()).expect("start intake")
}

/// The id of every received line, in arrival order, with its file path.
fn received(intake: &Intake) -> Vec<(u64, String)> {
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
fn wait_events(intake: &Intake, n: usize) {
    assert!(
        intake.wait_for_events(n, WAIT),
        "{} of {n} events arrived",
        intake.stats().events
    );
}

/// Asserts that ids `0..n` arrived exactly once each and in order within each path.
fn assert_exactly_once_in_order(got: &[(u64, String)], n: u64) {
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
fn follow_an_empty_app_log(name: &str) -> (Intake, PathBuf, PathBuf, PathBuf, Follower) {
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
fn follow_without_checkpoint(intake: &Intake, log: &Path, extra: &[&str]) -> Follower {
    let mut args = vec!["--follow", s(log), "--no-checkpoint", "--no-spill"];
    args.extend_from_slice(extra);
    Follower::start(intake, &args)
}

/// SIGTERM; checks exit code 0 and that ids `0..n` arrived once each, in order within
/// each file; returns the summary line.
fn stop_with_every_line_once(follower: Follower, intake: &Intake, n: u64) -> String {
    let (code, stderr) = follower.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    assert_exactly_once_in_order(&received(intake), n);
    summary(&stderr).to_owned()
}

/// The summary line of a run's stderr.
fn summary(stderr: &[String]) -> &str {
    stderr
        .iter()
        .find(|l| l.contains("file opens"))
        .expect("summary")
}

fn write_lines(path: &Path, ids: std::ops::Range<u64>) {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .expect("open");
    let text: String = ids.map(|i| line_text(i) + "\n").collect();
    f.write_all(text.as_bytes()).expect("write");
}

fn fresh_dir(name: &str) -> PathBuf {
    let dir = temp_path(name);
    std::fs::create_dir_all(&dir).expect("dir");
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

// ---------------------------------------------------------------------------------------

#[test]
fn rotation_by_rename_during_a_write_burst_loses_nothing_and_keeps_order() {
    let (intake, dir, _ckpt, _log, follower) = follow_an_empty_app_log("follow-rename");
    // 20,000 lines at 5,000 lines/s, renamed away every 3,000 (only app.log is followed:
    // the rest of each renamed file is read through the open handle, before the new one).
    let n = 20_000;
    let mut writer = start_writer(&dir, n, 3_000, "rename", 5_000);
    assert!(writer.wait().expect("writer").success());
    wait_events(&intake, n as usize);
    let (code, stderr) = follower.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    let got = received(&intake);
    assert_exactly_once_in_order(&got, n);
    // In order across the rotated files too (one path, one writer).
    assert!(
        got.windows(2).all(|w| w[0].0 < w[1].0),
        "out of order across rotations"
    );
    assert!(
        stderr.iter().any(|l| l.contains("6 rotated away")),
        "{stderr:?}"
    );
}

#[test]
fn rotation_by_copytruncate_during_a_write_burst_loses_nothing_and_ships_nothing_twice() {
    let intake = intake();
    let dir = fresh_dir("follow-copytruncate");
    let ckpt = dir.join("ckpt.json");
    std::fs::write(dir.join("app.log"), b"").unwrap();
    let pattern = format!("{}/app.log*", s(&dir));
    let follower = Follower::start(
        &intake,
        &["--follow", &pattern, "--checkpoint", s(&ckpt), "--no-spill"],
    );
    // The copies match the pattern: what the follower had not read of app.log before it
    // was truncated is read from the copy, from where it was (recognised by its first
    // bytes), and nothing before that is read again.
    let n = 20_000;
    let mut writer = start_writer(&dir, n, 3_000, "copytruncate", 5_000);
    assert!(writer.wait().expect("writer").success());
    wait_events(&intake, n as usize);
    let (code, stderr) = follower.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    assert_exactly_once_in_order(&received(&intake), n);
    assert!(
        stderr.iter().any(|l| l.contains("6 truncated")),
        "{stderr:?}"
    );
}

#[test]
fn truncation_deletion_while_open_a_symlink_swap_and_late_files_are_all_followed() {
    let intake = intake();
    let dir = fresh_dir("follow-cases");
    let ckpt = dir.join("ckpt.json");
    let trunc = dir.join("trunc.log");
    let deleted = dir.join("deleted.log");
    write_lines(&trunc, 0..1000);
    write_lines(&deleted, 1000..2000);
    // Kubernetes style: the followed path is a symlink whose target is swapped.
    std::fs::create_dir_all(dir.join("v1")).unwrap();
    std::fs::create_dir_all(dir.join("v2")).unwrap();
    write_lines(&dir.join("v1/0.log"), 2000..3000);
    std::os::unix::fs::symlink(dir.join("v1/0.log"), dir.join("link.log")).unwrap();
    let pattern = format!("{}/*.log", s(&dir));
    let follower = Follower::start(
        &intake,
        &["--follow", &pattern, "--checkpoint", s(&ckpt), "--no-spill"],
    );
    wait_events(&intake, 3000);
    // copytruncate without a copy: the file shrinks, then grows again.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&trunc)
        .unwrap()
        .set_len(0)
        .unwrap();
    write_lines(&trunc, 3000..3500);
    // Written and deleted at once: what was written is read through the open handle.
    write_lines(&deleted, 3500..4000);
    std::fs::remove_file(&deleted).unwrap();
    // The symlink now names another file; the old one is read to its end first.
    write_lines(&dir.join("v1/0.log"), 4000..4500);
    write_lines(&dir.join("v2/0.log"), 4500..5000);
    std::os::unix::fs::symlink(dir.join("v2/0.log"), dir.join("link.tmp")).unwrap();
    std::fs::rename(dir.join("link.tmp"), dir.join("link.log")).unwrap();
    // A file that appears after start is read from its beginning.
    write_lines(&dir.join("late.log"), 5000..6000);
    wait_events(&intake, 6000);
    let summary = stop_with_every_line_once(follower, &intake, 6000);
    assert!(summary.contains("1 truncated"), "{summary}");
    assert!(summary.contains("2 rotated away"), "{summary}");
}

#[test]
fn a_hundred_files_written_at_once_are_all_shipped_fairly() {
    let intake = intake();
    let dir = fresh_dir("follow-hundred");
    let pattern = format!("{}/*.log", s(&dir));
    // Fewer open files than files: the rest wait their turn.
    let follower = Follower::start(
        &intake,
        &[
            "--follow",
            &pattern,
            "--no-checkpoint",
            "--no-spill",
            "--max-open-files",
            "10",
        ],
    );
    for f in 0..100u64 {
        write_lines(&dir.join(format!("f{f:03}.log")), f * 1000..f * 1000 + 200);
    }
    wait_events(&intake, 20_000);
    let (code, stderr) = follower.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    let got = received(&intake);
    let mut ids: Vec<u64> = got.iter().map(|(id, _)| *id).collect();
    ids.sort_unstable();
    let want: Vec<u64> = (0..100u64).flat_map(|f| f * 1000..f * 1000 + 200).collect();
    assert_eq!(ids, want, "every line of every file exactly once");
    let mut last: BTreeMap<&str, u64> = BTreeMap::new();
    for (id, path) in &got {
        if let Some(prev) = last.insert(path, *id) {
            assert!(prev < *id, "{path}: {id} after {prev}");
        }
    }
    assert_eq!(last.len(), 100);
}

/// Bytes of every test line, newline included (ids are zero-padded).
fn line_len() -> u64 {
    line_text(0).len() as u64 + 1
}

/// The offset the checkpoint file holds for `path`, if it holds one.
fn checkpoint_offset(ckpt: &Path, path: &Path) -> Option<u64> {
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
fn wait_until(what: &str, done: impl Fn() -> bool) {
    let deadline = Instant::now() + WAIT;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A slow intake and small batches, so a run is stopped in the middle of the file.
const SLOW: [&str; 6] = [
    "--max-batch-records",
    "100",
    "--queue-capacity",
    "500",
    "--linger-ms",
    "5",
];

#[test]
fn restart_after_sigterm_resumes_where_it_stopped_with_nothing_lost_or_twice() {
    let intake = intake();
    intake.set_delay(Duration::from_millis(10));
    let dir = fresh_dir("follow-sigterm");
    let ckpt = dir.join("ckpt.json");
    let log = dir.join("app.log");
    let n = 20_000;
    write_lines(&log, 0..n);
    let args = |extra: &[&str]| -> Vec<String> {
        let mut v: Vec<String> = ["--follow", s(&log), "--checkpoint", s(&ckpt), "--no-spill"]
            .iter()
            .map(|a| a.to_string())
            .collect();
        v.extend(SLOW.iter().map(|a| a.to_string()));
        v.extend(extra.iter().map(|a| a.to_string()));
        v
    };
    let a = args(&[]);
    let refs: Vec<&str> = a.iter().map(String::as_str).collect();
    let first = Follower::start(&intake, &refs);
    wait_events(&intake, 3_000);
    let (code, stderr) = first.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    let after_first = intake.stats().events;
    assert!(after_first < n, "stopped in the middle of the file");
    // SIGTERM delivered what was read, then wrote the checkpoint just past it.
    assert_eq!(
        checkpoint_offset(&ckpt, &log),
        Some(after_first * line_len()),
        "{stderr:?}"
    );
    intake.set_delay(Duration::ZERO);
    let second = Follower::start(&intake, &refs);
    wait_events(&intake, n as usize);
    let (code, stderr) = second.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    assert_exactly_once_in_order(&received(&intake), n);
}

/// After a SIGKILL in the middle of `log` (`n` lines): the line the checkpoint stands at,
/// and the ids the first run delivered. Checks that the checkpoint is at a line boundary,
/// that the kill landed before the end, and that the checkpoint claims no line that was
/// not delivered.
fn after_kill(
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

#[test]
fn restart_after_sigkill_loses_nothing_and_reships_only_what_followed_the_checkpoint() {
    let intake = intake();
    let dir = fresh_dir("follow-sigkill");
    let ckpt = dir.join("ckpt.json");
    let log = dir.join("app.log");
    std::fs::write(&log, b"").unwrap();
    // The writer appends 50,000 lines at 5,000 lines/s: the kill lands in the middle.
    let n = 50_000;
    let mut writer = start_writer(&dir, n, u64::MAX, "none", 5_000);
    let mut a: Vec<&str> = vec!["--follow", s(&log), "--checkpoint", s(&ckpt), "--no-spill"];
    a.extend(SLOW);
    let first = Follower::start(&intake, &a);
    wait_events(&intake, 3_000);
    wait_until("a checkpoint", || {
        checkpoint_offset(&ckpt, &log).is_some_and(|o| o > 0)
    });
    let stderr = first.kill();
    // No clean shutdown: the checkpoint is the last one the checkpointer wrote.
    let (k, first_run) = after_kill(&intake, &ckpt, &log, n, &stderr);
    let duplicates_expected = first_run.iter().filter(|id| **id >= k).count();

    assert!(writer.wait().expect("writer").success());
    let second = Follower::start(&intake, &a);
    wait_events(&intake, first_run.len() + (n - k) as usize);
    let (code, stderr) = second.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    let all = received(&intake);
    let second_run: Vec<u64> = all[first_run.len()..].iter().map(|(id, _)| *id).collect();
    // The second run starts exactly at the checkpoint: the only duplicates are the lines
    // the first run delivered after its last checkpoint.
    assert_eq!(second_run, (k..n).collect::<Vec<_>>());
    let mut count: BTreeMap<u64, u32> = BTreeMap::new();
    for (id, _) in &all {
        *count.entry(*id).or_default() += 1;
    }
    assert_eq!(count.len() as u64, n, "every line arrived");
    let twice = count.values().filter(|c| **c > 1).count();
    assert_eq!(twice, duplicates_expected);
    eprintln!(
        "SIGKILL after {} lines, checkpoint at {k}: {twice} duplicates",
        first_run.len()
    );
}

#[test]
fn a_corrupt_checkpoint_is_reported_and_never_blocks_start_up() {
    let intake = intake();
    let dir = fresh_dir("follow-corrupt");
    let ckpt = dir.join("ckpt.json");
    let log = dir.join("app.log");
    std::fs::write(
        &ckpt,
        b"{\"version\":1,\"files\":[{\"dev\":\x00\xff garbage",
    )
    .unwrap();
    write_lines(&log, 0..1000);
    let a = ["--follow", s(&log), "--checkpoint", s(&ckpt), "--no-spill"];
    let first = Follower::start(&intake, &a);
    first.wait_for_stderr("is corrupt");
    wait_events(&intake, 1000);
    let (code, stderr) = first.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    // Replaced by a good one.
    assert_eq!(checkpoint_offset(&ckpt, &log), Some(1000 * line_len()));
    // The next run ships only what is new.
    write_lines(&log, 1000..1500);
    let second = Follower::start(&intake, &a);
    wait_events(&intake, 1500);
    let (code, stderr) = second.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    assert!(
        !stderr.iter().any(|l| l.contains("is corrupt")),
        "{stderr:?}"
    );
    assert_exactly_once_in_order(&received(&intake), 1500);
}

/// A number from `/proc/<pid>/<file>` on the line starting with `key`.
fn proc_number(pid: u32, file: &str, key: &str) -> u64 {
    let text = std::fs::read_to_string(format!("/proc/{pid}/{file}")).expect("read /proc");
    text.lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no {key} in /proc/{pid}/{file}"))
}

#[test]
fn a_gigabyte_backlog_with_the_intake_paused_is_read_only_as_fast_as_it_ships() {
    let intake = intake();
    intake.pause();
    let dir = fresh_dir("follow-gigabyte");
    let log = dir.join("big.log");
    {
        let mut w =
            std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&log).unwrap());
        let mut id = 0u64;
        let mut written = 0u64;
        while written < 1 << 30 {
            let line = line_text(id) + " and some padding to make a line of one hundred bytes\n";
            w.write_all(line.as_bytes()).unwrap();
            written += line.len() as u64;
            id += 1;
        }
        w.flush().unwrap();
    }
    let follower = Follower::start(
        &intake,
        &["--follow", s(&log), "--no-checkpoint", "--no-spill"],
    );
    let pid = follower.child.id();
    // The pipeline is blocked: a request is held and unanswered.
    wait_until("a held request", || !intake.requests().is_empty());
    // Watch for two seconds (a measurement window, not synchronisation): the follower
    // reads only what the bounded queue and the requests in flight hold.
    let watch_until = Instant::now() + Duration::from_secs(2);
    let mut samples = Vec::new();
    while Instant::now() < watch_until {
        samples.push(proc_number(pid, "status", "VmRSS:"));
        std::thread::sleep(Duration::from_millis(100));
    }
    let peak_kib = proc_number(pid, "status", "VmHWM:");
    let read_bytes = proc_number(pid, "io", "rchar:");
    std::fs::remove_file(&log).unwrap();
    intake.resume();
    let (code, stderr) = follower.stop();
    eprintln!("1 GiB file, intake paused: peak RSS {peak_kib} KiB, {read_bytes} bytes read; RSS samples {samples:?}");
    assert!(
        read_bytes < 128 << 20,
        "read {read_bytes} bytes of a 1 GiB file while nothing was delivered"
    );
    assert!(peak_kib < 256 * 1024, "peak RSS {peak_kib} KiB");
    assert_eq!(code, Some(0), "{stderr:?}");
}

#[test]
fn a_busy_file_does_not_starve_a_quiet_one() {
    let intake = intake();
    let dir = fresh_dir("follow-fair");
    // 200,000 lines (11 MB) in one file, 100 in another, both there at start-up.
    write_lines(&dir.join("busy.log"), 0..200_000);
    write_lines(&dir.join("quiet.log"), 1_000_000..1_000_100);
    let pattern = format!("{}/*.log", s(&dir));
    let follower = Follower::start(
        &intake,
        &[
            "--follow",
            &pattern,
            "--no-checkpoint",
            "--no-spill",
            "--max-batch-records",
            "500",
        ],
    );
    let quiet_done = || {
        received(&intake)
            .iter()
            .filter(|(id, _)| *id >= 1_000_000)
            .count()
            == 100
    };
    wait_until("the quiet file's lines", quiet_done);
    let busy_so_far = received(&intake)
        .iter()
        .filter(|(id, _)| *id < 1_000_000)
        .count();
    // Files take turns of at most 256 KiB: the quiet file's lines went out after the
    // busy file's first turn, not after its 11 MB.
    assert!(busy_so_far < 50_000, "{busy_so_far} busy lines went first");
    wait_events(&intake, 200_100);
    let (code, stderr) = follower.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
}

#[test]
fn long_lines_are_cut_and_invalid_utf8_replaced_and_both_are_counted() {
    let intake = intake();
    let dir = fresh_dir("follow-bad-lines");
    let log = dir.join("app.log");
    let stats = dir.join("stats.json");
    let mut data = Vec::new();
    data.extend_from_slice(format!("{}\n", line_text(0)).as_bytes());
    data.extend_from_slice(b"id=00000001 ");
    data.extend(std::iter::repeat_n(b'x', 3 << 20)); // 3 MiB, over the 1 MiB default
    data.extend_from_slice(b"\nid=00000002 bad \xff\xfe bytes\n");
    std::fs::write(&log, &data).unwrap();
    let follower = follow_without_checkpoint(&intake, &log, &["--stats-json", s(&stats)]);
    wait_events(&intake, 3);
    let (code, stderr) = follower.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    let got = received(&intake);
    assert_eq!(got.iter().map(|(id, _)| *id).collect::<Vec<_>>(), [0, 1, 2]);
    let events = intake.events();
    let cut = &events[1].value;
    assert_eq!(
        cut["logship.truncated"],
        true,
        "{}",
        &cut.to_string()[..200]
    );
    assert_eq!(cut["logship.original_bytes"], (3 << 20) + 12);
    assert!(cut["message"].as_str().unwrap().len() <= 1 << 20);
    assert!(events[2].value["message"]
        .as_str()
        .unwrap()
        .contains('\u{fffd}'));
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert_eq!(stats["invalid_utf8"], 1, "{stats}");
    assert!(stats["truncated"].as_u64().unwrap() >= 1, "{stats}");
}

#[test]
fn java_stack_traces_from_a_real_jvm_arrive_as_one_event_each() {
    // Written by OpenJDK 17 (tests/fixtures/java/Traces.java): nested causes, suppressed
    // exceptions, "... N more", a helpful NullPointerException message.
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/java");
    let log_text = std::fs::read_to_string(fixtures.join("java-traces.log")).unwrap();
    let expected: Vec<usize> = std::fs::read_to_string(fixtures.join("java-traces.expected"))
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    let intake = intake();
    let dir = fresh_dir("follow-java");
    let log = dir.join("app.log");
    std::fs::write(&log, &log_text).unwrap();
    let follower = Follower::start(
        &intake,
        &[
            "--follow",
            s(&log),
            "--no-checkpoint",
            "--no-spill",
            "--multiline",
            "java",
            "--multiline-timeout-ms",
            "200",
        ],
    );
    // The file ends quiet: its last event leaves after the timeout, not at shutdown.
    wait_events(&intake, expected.len());
    let (code, stderr) = follower.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    let messages: Vec<String> = intake
        .events()
        .iter()
        .map(|e| e.value["message"].as_str().unwrap().to_owned())
        .collect();
    let lines: Vec<usize> = messages.iter().map(|m| m.lines().count()).collect();
    assert_eq!(lines, expected, "lines per event");
    assert_eq!(
        messages.join("\n") + "\n",
        log_text,
        "every line, once, in order"
    );
    assert!(
        messages.iter().all(|m| m.starts_with("2026-12-01T12:00:")),
        "each event starts at its log line"
    );
    let traces = expected.iter().filter(|n| **n > 1).count();
    assert!(
        stderr
            .iter()
            .any(|l| l.contains(&format!("{traces} multi-line events"))),
        "{stderr:?}"
    );
}

#[test]
fn multiline_a_held_event_stays_out_of_the_checkpoint_and_sigterm_ships_it() {
    let intake = intake();
    let dir = fresh_dir("follow-java-restart");
    let log = dir.join("app.log");
    let ckpt = dir.join("ckpt.json");
    let a = [
        "--follow",
        s(&log),
        "--checkpoint",
        s(&ckpt),
        "--no-spill",
        "--multiline",
        "java",
        "--multiline-timeout-ms",
        "600000",
    ];
    std::fs::write(
        &log,
        "2026-12-01T12:00:00Z ERROR a\njava.lang.Error: x\n\tat A.b(A.java:1)\n",
    )
    .unwrap();
    let follower = Follower::start(&intake, &a);
    // Read and held (its next line may still come): the checkpoint stays before it.
    wait_until("a checkpoint of the held event", || {
        checkpoint_offset(&ckpt, &log) == Some(0)
    });
    assert_eq!(intake.stats().events, 0);
    // SIGTERM ships what is held and checkpoints past it.
    let (code, stderr) = follower.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    assert_eq!(intake.stats().events, 1);
    assert_eq!(
        checkpoint_offset(&ckpt, &log),
        Some(std::fs::metadata(&log).unwrap().len())
    );
}

#[test]
fn cri_and_docker_json_file_lines_are_unwrapped_partials_joined_and_pods_named() {
    let intake = intake();
    let root = fresh_dir("follow-containers");
    // containerd / CRI-O under the kubelet's standard path.
    let pod_dir =
        root.join("var/log/pods/shop_checkout-7d4b9_0f1e2d3c-aaaa-bbbb-cccc-1234567890ab/app");
    std::fs::create_dir_all(&pod_dir).unwrap();
    let cri_log = pod_dir.join("0.log");
    let long = "x".repeat(20_000);
    std::fs::write(
        &cri_log,
        format!(
            "2026-12-01T12:00:00.000000001Z stdout F id=00000000 plain\n\
             2026-12-01T12:00:00.000000002Z stderr P id=00000001 {}\n\
             2026-12-01T12:00:00.000000003Z stderr P {}\n\
             2026-12-01T12:00:00.000000004Z stderr F  tail\n\
             this is not a CRI line\n",
            &long[..10_000],
            &long[10_000..]
        ),
    )
    .unwrap();
    let cri = Follower::start(
        &intake,
        &[
            "--follow",
            s(&cri_log),
            "--format",
            "cri",
            "--no-checkpoint",
            "--no-spill",
        ],
    );
    wait_events(&intake, 3);
    let (code, stderr) = cri.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    let events = intake.events();
    let v: Vec<&serde_json::Value> = events.iter().map(|e| &e.value).collect();
    assert_eq!(v[0]["message"], "id=00000000 plain");
    assert_eq!(v[0]["log.iostream"], "stdout");
    assert_eq!(v[0]["timestamp"], "2026-12-01T12:00:00.000Z");
    assert_eq!(v[0]["k8s.namespace.name"], "shop");
    assert_eq!(v[0]["k8s.pod.name"], "checkout-7d4b9");
    assert_eq!(v[0]["k8s.container.name"], "app");
    assert_eq!(v[0]["k8s.pod.uid"], "0f1e2d3c-aaaa-bbbb-cccc-1234567890ab");
    // Three pieces, one line: P, P, F.
    assert_eq!(v[1]["message"], format!("id=00000001 {long} tail"));
    assert_eq!(v[1]["log.iostream"], "stderr");
    assert_eq!(v[2]["message"], "this is not a CRI line");
    assert_eq!(v[2]["logship.parse_error"], true);
    assert_eq!(v.len(), 3);

    // Docker's json-file driver: a line over 16 KiB is split into pieces without "\n".
    intake.reset();
    let id = "c0ffee".repeat(10) + "abcd";
    let docker_dir = root.join("docker/containers").join(&id);
    std::fs::create_dir_all(&docker_dir).unwrap();
    let docker_log = docker_dir.join(format!("{id}-json.log"));
    let piece = |log: &str, stream: &str, ns: u32| {
        serde_json::json!({"log": log, "stream": stream, "time": format!("2026-12-01T12:00:01.{ns:09}Z")})
            .to_string()
    };
    std::fs::write(
        &docker_log,
        [
            piece("id=00000010 hello\n", "stdout", 1),
            piece(&format!("id=00000011 {}", &long[..16_384]), "stderr", 2),
            piece(&format!("{}\n", &long[16_384..]), "stderr", 3),
            "{\"log\": truncated".to_owned(),
            String::new(),
        ]
        .join("\n"),
    )
    .unwrap();
    let docker = Follower::start(
        &intake,
        &[
            "--follow",
            s(&docker_log),
            "--format",
            "docker",
            "--no-checkpoint",
            "--no-spill",
        ],
    );
    wait_events(&intake, 3);
    let (code, stderr) = docker.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    let events = intake.events();
    let v: Vec<&serde_json::Value> = events.iter().map(|e| &e.value).collect();
    assert_eq!(v[0]["message"], "id=00000010 hello");
    assert_eq!(v[0]["timestamp"], "2026-12-01T12:00:01.000Z");
    assert_eq!(v[1]["message"], format!("id=00000011 {long}"));
    assert_eq!(v[1]["log.iostream"], "stderr");
    assert_eq!(v[2]["logship.parse_error"], true);
    assert!(v[0].get("k8s.pod.name").is_none(), "not a Kubernetes path");
}

#[test]
fn start_at_end_skips_what_a_file_held_at_start_up_but_not_later_files() {
    let intake = intake();
    let dir = fresh_dir("follow-start-at-end");
    let ckpt = dir.join("ckpt.json");
    let old = dir.join("old.log");
    write_lines(&old, 0..100);
    let pattern = format!("{}/*.log", s(&dir));
    let a = [
        "--follow",
        &pattern,
        "--checkpoint",
        s(&ckpt),
        "--no-spill",
        "--start-at",
        "end",
    ];
    let follower = Follower::start(&intake, &a);
    // Seen, and positioned at its end (the checkpoint says so).
    wait_until("the file to be positioned at its end", || {
        checkpoint_offset(&ckpt, &old) == Some(100 * line_len())
    });
    write_lines(&old, 100..150);
    // A file that appears later is read from its beginning.
    write_lines(&dir.join("new.log"), 150..200);
    wait_events(&intake, 100);
    let (code, stderr) = follower.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    let mut ids: Vec<u64> = received(&intake).iter().map(|(id, _)| *id).collect();
    ids.sort_unstable();
    assert_eq!(ids, (100..200).collect::<Vec<_>>());
}

#[test]
fn sighup_during_a_write_burst_rescans_and_goes_on_with_nothing_lost_or_twice() {
    let (intake, dir, ckpt, log, follower) = follow_an_empty_app_log("follow-sighup-burst");
    // 15,000 lines at 5,000 lines/s, renamed away every 4,000, with a SIGHUP every time
    // 2,000 more lines arrived: each one lands while the writer writes.
    let n = 15_000;
    let mut writer = start_writer(&dir, n, 4_000, "rename", 5_000);
    for k in 1..=5 {
        wait_events(&intake, k * 2_000);
        follower.signal("HUP");
        follower.wait_for_stderr(&format!("SIGHUP (rescan {k})"));
    }
    assert!(writer.wait().expect("writer").success());
    // More lines after the writer is done, into the file it left: still followed.
    write_lines(&log, n..n + 1_000);
    wait_events(&intake, (n + 1_000) as usize);
    let mut follower = follower;
    assert!(
        follower.child.try_wait().expect("try_wait").is_none(),
        "still running after five SIGHUPs"
    );
    let summary = stop_with_every_line_once(follower, &intake, n + 1_000);
    assert!(summary.contains("5 SIGHUP rescans"), "{summary}");
    assert!(summary.contains("3 rotated away"), "{summary}");
    // The checkpoint covers every line.
    assert_eq!(
        checkpoint_offset(&ckpt, &log),
        Some(std::fs::metadata(&log).unwrap().len())
    );
}

#[test]
fn sighup_picks_up_new_renamed_and_deleted_files_without_waiting_for_the_poll() {
    let intake = intake();
    let dir = fresh_dir("follow-sighup-rescan");
    let app = dir.join("app.log");
    let gone = dir.join("gone.log");
    write_lines(&app, 0..100);
    write_lines(&gone, 100..200);
    let pattern = format!("{}/*.log", s(&dir));
    // Patterns matched every 10 minutes: only the SIGHUP makes the follower look again.
    let follower = Follower::start_polling(
        &intake,
        600_000,
        &["--follow", &pattern, "--no-checkpoint", "--no-spill"],
    );
    wait_events(&intake, 200);
    // Rotation by rename: the rest of app.log is in app.log.1 (no longer matched), a new
    // app.log holds what follows. gone.log gets its last lines and is deleted. A new file
    // appears.
    write_lines(&app, 200..300);
    std::fs::rename(&app, dir.join("app.log.1")).unwrap();
    write_lines(&app, 300..400);
    write_lines(&gone, 400..500);
    std::fs::remove_file(&gone).unwrap();
    write_lines(&dir.join("new.log"), 500..600);
    follower.signal("HUP");
    follower.wait_for_stderr("logship: SIGHUP");
    wait_events(&intake, 600);
    let summary = stop_with_every_line_once(follower, &intake, 600);
    // app.log, gone.log; then the new app.log and new.log.
    assert!(summary.contains("4 file opens"), "{summary}");
    assert!(summary.contains("2 rotated away"), "{summary}");
    assert!(summary.contains("1 SIGHUP rescan"), "{summary}");
}

#[test]
fn the_config_files_follow_section_is_followed_and_flags_override_it() {
    let intake = intake();
    let dir = fresh_dir("follow-config");
    let a = dir.join("a.log");
    let b = dir.join("b.log");
    let ckpt = dir.join("from-file.json");
    // JSON lines in a.log; the section says: follow a.log from its end, as JSON, with
    // this checkpoint.
    let json_lines = |ids: std::ops::Range<u64>| -> String {
        ids.map(|i| format!("{{\"message\":\"{}\",\"level\":\"warn\"}}\n", line_text(i)))
            .collect()
    };
    std::fs::write(&a, json_lines(0..100)).unwrap();
    write_lines(&b, 1000..1050);
    let config = dir.join("logship.toml");
    std::fs::write(
        &config,
        format!(
            "spill_enabled = false\n[follow]\npaths = [{:?}]\nstart_at = \"end\"\nformat = \"json\"\n\
             checkpoint = {:?}\n",
            s(&a),
            s(&ckpt)
        ),
    )
    .unwrap();
    let follower = Follower::start(&intake, &["--config", s(&config)]);
    wait_until("a.log positioned at its end", || {
        checkpoint_offset(&ckpt, &a) == Some(std::fs::metadata(&a).unwrap().len())
    });
    std::fs::OpenOptions::new()
        .append(true)
        .open(&a)
        .unwrap()
        .write_all(json_lines(100..200).as_bytes())
        .unwrap();
    wait_events(&intake, 100);
    let (code, stderr) = follower.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    let events = intake.events();
    let mut ids: Vec<u64> = received(&intake).iter().map(|(id, _)| *id).collect();
    ids.sort_unstable();
    assert_eq!(
        ids,
        (100..200).collect::<Vec<_>>(),
        "from the end, as the file says"
    );
    assert!(
        events.iter().all(|e| e.value["level"]
            .as_str()
            .is_some_and(|l| l.eq_ignore_ascii_case("warn"))),
        "read as JSON, as the file says"
    );

    // Flags win: another path, from its beginning, as text, no checkpoint.
    intake.reset();
    let follower = Follower::start(
        &intake,
        &[
            "--config",
            s(&config),
            "--follow",
            s(&b),
            "--start-at",
            "beginning",
            "--format",
            "text",
            "--no-checkpoint",
        ],
    );
    wait_events(&intake, 50);
    let (code, stderr) = follower.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    assert!(
        stderr.iter().any(|l| l.contains("(no checkpoint)")),
        "{stderr:?}"
    );
    let got = received(&intake);
    assert_eq!(
        got.iter().map(|(id, _)| *id).collect::<Vec<_>>(),
        (1000..1050).collect::<Vec<_>>()
    );
    assert!(got.iter().all(|(_, path)| path == s(&b)));
}

#[test]
fn sigkill_in_the_middle_of_a_large_backlog_reships_about_a_queue_not_the_file() {
    let intake = intake();
    // 200 ms a request of 100 events: settling a full queue of 3,000 takes about six
    // seconds, longer than the checkpointer once waited for a flush (5 s), so the
    // checkpoint stayed where it was until the backlog was gone and a kill re-shipped
    // everything read so far.
    intake.set_delay(Duration::from_millis(200));
    let dir = fresh_dir("follow-sigkill-backlog");
    let ckpt = dir.join("ckpt.json");
    let log = dir.join("big.log");
    let n = 20_000u64;
    write_lines(&log, 0..n);
    let (queue, batch) = (3_000u64, 100u64);
    let (queue_s, batch_s) = (queue.to_string(), batch.to_string());
    let a = [
        "--follow",
        s(&log),
        "--checkpoint",
        s(&ckpt),
        "--no-spill",
        "--queue-capacity",
        &queue_s,
        "--max-batch-records",
        &batch_s,
        "--linger-ms",
        "5",
    ];
    let first = Follower::start(&intake, &a);
    wait_until("a checkpoint while the backlog ships", || {
        checkpoint_offset(&ckpt, &log).is_some_and(|o| o > 0)
    });
    let stderr = first.kill();
    // Requests the intake was still holding (its delay) are answered after the kill:
    // count them with the first run.
    wait_until("the intake to answer every request", || {
        intake.requests().iter().all(|r| r.status != 0)
    });
    let (k, first_run) = after_kill(&intake, &ckpt, &log, n, &stderr);
    // What the restart ships again: every line the first run delivered past the
    // checkpoint. Bounded by the queue and the batch in flight when the checkpoint's
    // positions were taken, what was read while that flush settled them (up to two
    // queues more), and one checkpoint interval; not by the file.
    let again = first_run.iter().filter(|id| **id >= k).count() as u64;
    let bound = 4 * (queue + batch);
    assert!(
        again <= bound,
        "checkpoint at line {k} of {} delivered: {again} lines would ship twice (bound {bound})",
        first_run.len()
    );
    intake.set_delay(Duration::ZERO);
    let second = Follower::start(&intake, &a);
    wait_events(&intake, first_run.len() + (n - k) as usize);
    let (code, stderr) = second.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    let all = received(&intake);
    let second_run: Vec<u64> = all[first_run.len()..].iter().map(|(id, _)| *id).collect();
    assert!(
        second_run.iter().copied().eq(k..n),
        "the second run ships exactly from the checkpoint: {} lines, first {:?}",
        second_run.len(),
        second_run.first()
    );
    eprintln!(
        "SIGKILL after {} of {n} lines delivered, checkpoint at {k}: {again} shipped twice",
        first_run.len()
    );
}

/// The largest number of events one request carried.
fn largest_request(intake: &Intake) -> usize {
    intake
        .requests()
        .iter()
        .map(|r| r.events)
        .max()
        .unwrap_or(0)
}

#[test]
fn a_backlog_ships_in_batches_of_a_thousand_unless_the_flag_says_otherwise() {
    // The service's default (the library's is 200): 3,000 lines written at once fill
    // batches of exactly 1,000, never more.
    let (first, _dir, _ckpt, log, follower) = follow_an_empty_app_log("follow-batch-default");
    write_lines(&log, 0..3_000);
    wait_events(&first, 3_000);
    stop_with_every_line_once(follower, &first, 3_000);
    assert_eq!(largest_request(&first), 1_000);

    // The flag replaces the default.
    let intake = intake();
    let dir = fresh_dir("follow-batch-flag");
    let log = dir.join("app.log");
    std::fs::write(&log, b"").unwrap();
    let follower = follow_without_checkpoint(&intake, &log, &["--max-batch-records", "300"]);
    write_lines(&log, 0..3_000);
    wait_events(&intake, 3_000);
    stop_with_every_line_once(follower, &intake, 3_000);
    assert_eq!(largest_request(&intake), 300);
}

#[test]
fn sigterm_while_the_follower_waits_for_room_is_not_held_by_the_pipelines_60_s_wait() {
    let intake = intake();
    intake.pause();
    let dir = fresh_dir("follow-stop-blocked");
    let log = dir.join("app.log");
    // Far more than a queue of 16, a batch of 16 and one held request take.
    write_lines(&log, 0..5_000);
    let follower = Follower::start(
        &intake,
        &[
            "--follow",
            s(&log),
            "--no-checkpoint",
            "--no-spill",
            "--queue-capacity",
            "16",
            "--max-batch-records",
            "16",
            "--shutdown-timeout-ms",
            "1000",
        ],
    );
    // A request is held: the queue fills behind it and the follower's push waits (a
    // SIGTERM before that moment would only make this test pass untested, never fail).
    wait_until("a held request", || !intake.requests().is_empty());
    let started = Instant::now();
    let (code, stderr) = follower.stop();
    let took = started.elapsed();
    // The pipeline's own wait for room is 60 s: the command must not sit it out (it gives
    // the reader a short grace, then shuts the pipeline down, which ends the wait), then
    // the 1 s shutdown timeout.
    assert!(
        took < Duration::from_secs(20),
        "stopped in {took:?}: {stderr:?}"
    );
    // Nothing delivered and no spill: an honest failure exit, and a summary.
    assert_eq!(code, Some(1), "{stderr:?}");
    assert!(
        stderr.iter().any(|l| l.contains("logship: shipped")),
        "{stderr:?}"
    );
    intake.resume();
}

#[test]
fn the_service_ships_1000_event_batches_at_gzip_level_2_unless_the_config_says_otherwise() {
    // Lines that carry their own time, and no event id: the bodies are the same bytes
    // in every run, so the compressed sizes tell the gzip levels apart.
    let dir = fresh_dir("service-gzip-level");
    let log = dir.join("app.log");
    let text: String = (0..3000)
        .map(|i| {
            format!(
                "{{\"timestamp\":\"2026-12-02T10:00:{:02}.{:06}Z\",\"level\":\"INFO\",\"message\":\"order {i} shipped to customer {} in region eu-{}\",\"n\":{}}}\n",
                i % 60,
                i * 7,
                i * 31 % 977,
                i % 3,
                i * i % 10_007
            )
        })
        .collect();
    std::fs::write(&log, text).expect("write the log");
    let run = |env: &[(&str, &str)]| {
        let intake = intake();
        let args = [
            "--follow",
            s(&log),
            "--format",
            "json",
            "--no-checkpoint",
            "--no-spill",
            "--no-event-id",
        ];
        let follower = Follower::start_with_env(&intake, 20, env, &args);
        wait_events(&intake, 3000);
        let (code, stderr) = follower.stop();
        assert_eq!(code, Some(0), "{stderr:?}");
        intake.stats()
    };
    let default = run(&[]);
    let level2 = run(&[("LOGSHIP_GZIP_LEVEL", "2")]);
    let level3 = run(&[("LOGSHIP_GZIP_LEVEL", "3")]);
    for (name, stats) in [("default", &default), ("2", &level2), ("3", &level3)] {
        assert_eq!(stats.events, 3000, "level {name}");
        assert_eq!(stats.requests, 3, "level {name}: 1,000 events per batch");
        assert_eq!(stats.bytes_decoded, default.bytes_decoded, "level {name}");
    }
    assert_eq!(
        default.bytes_wire, level2.bytes_wire,
        "the default is level 2"
    );
    assert!(
        level3.bytes_wire < level2.bytes_wire,
        "the variable replaces the default: level 3 {} B, level 2 {} B",
        level3.bytes_wire,
        level2.bytes_wire
    );
}
