//! Running `logship ship` against a misbehaving intake and checking what every such run
//! must guarantee: it ends in time, its exit code tells the truth, every line is counted
//! as delivered, spilled or lost, no secret and no raw control character reaches stderr,
//! and its peak RSS stays under the byte budget plus a fixed margin.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::{logship, temp_path, watchdog};

/// The byte budget every hostile run gets (`--queue-max-bytes`).
pub const BUDGET: u64 = 16 * 1024 * 1024;
/// What a run may hold beyond the budget: the binary, its threads' stacks and arenas, one
/// batch being encoded and compressed, the answer being read (measured at about 20 MiB
/// on the happy path; a run that grows per answer exceeds it at once).
pub const MARGIN: u64 = 64 * 1024 * 1024;

/// Secret values every hostile run is configured with; none may ever be printed.
pub const API_KEY: &str = "key-Zq8vW3nT5sLp";
/// A header value (a bearer token).
pub const HEADER_SECRET: &str = "hdr-Xy7Rk2Lm9Qw4";
/// A token in the endpoint's query string.
pub const QUERY_SECRET: &str = "qry-Bn6Tg1Vc8Hd3";

/// What an exit code means (README "Exit codes"); the one place that maps numbers, so a
/// renumbering is a one-line change here.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// Every line was delivered.
    Delivered,
    /// Nothing lost, but some events wait in the spill directory.
    Spilled,
    /// Some lines were lost (rejected, failed, dropped, not delivered in time).
    Lost,
    /// Bad options or configuration.
    Usage,
    /// Killed by a signal (a crash, or the watchdog).
    Killed,
}

/// The meaning of `code` (`None`: killed by a signal).
pub fn exit_meaning(code: Option<i32>) -> Exit {
    match code {
        Some(0) => Exit::Delivered,
        Some(3) => Exit::Spilled,
        Some(2) => Exit::Usage,
        Some(1) => Exit::Lost,
        _ => Exit::Killed,
    }
}

/// What a run did.
#[derive(Debug)]
pub struct Run {
    /// What the exit code means.
    pub exit: Exit,
    /// Its stderr.
    pub stderr: String,
    /// The final stats (`--stats-json`), `Null` when the run did not write them.
    pub stats: Value,
    /// Wall time from spawn to exit.
    pub wall: Duration,
    /// Peak resident memory (VmHWM of `/proc/PID/status`, sampled every 5 ms until exit).
    pub peak_rss: u64,
    /// The spill directory the run used.
    pub spill_dir: PathBuf,
}

impl Run {
    /// A counter of the final stats.
    pub fn stat(&self, name: &str) -> u64 {
        self.stats[name].as_u64().unwrap_or(0)
    }

    /// Events the intake took (as logship counts them).
    pub fn delivered(&self) -> u64 {
        self.stat("events_delivered")
    }

    /// Events written to the spill directory for a later replay.
    pub fn spilled(&self) -> u64 {
        self.stat("events_spilled")
    }

    /// Events that will not reach the intake (`Stats::lost`).
    pub fn lost(&self) -> u64 {
        [
            "dropped_queue_full",
            "dropped_closed",
            "events_failed",
            "events_abandoned",
            "spill_dropped",
        ]
        .iter()
        .map(|n| self.stat(n))
        .sum()
    }

    /// One row of the fault-mode matrix.
    pub fn row(&self, mode: &str) -> String {
        format!(
            "| {mode} | {:?} | {:.2} s | {:.1} MiB | {}/{}/{} |",
            self.exit,
            self.wall.as_secs_f64(),
            self.peak_rss as f64 / (1024.0 * 1024.0),
            self.delivered(),
            self.spilled(),
            self.lost()
        )
    }
}

/// `lines` lines of about `len` bytes each.
pub fn lines(n: usize, len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n * (len + 1));
    for i in 0..n {
        let head = format!("event {i} ");
        out.extend_from_slice(head.as_bytes());
        out.extend(std::iter::repeat_n(
            b'a' + (i % 26) as u8,
            len.saturating_sub(head.len()),
        ));
        out.push(b'\n');
    }
    out
}

/// Runs `logship ship ARGS` (plus the budget, a spill directory, `--stats-json`, and the
/// hostile run's secrets as a header) with `stdin`, with `env` set, under a watchdog.
pub fn ship(args: &[&str], env: &[(&str, &str)], stdin: &[u8]) -> Run {
    let spill_dir = temp_path("hostile-spill");
    let stats_path = temp_path("hostile-stats.json");
    let budget = BUDGET.to_string();
    let auth = format!("Authorization: Bearer {HEADER_SECRET}");
    let mut command = logship();
    command
        .arg("ship")
        .args(args)
        .args(["--queue-max-bytes", &budget, "--header", &auth])
        .arg("--spill-dir")
        .arg(&spill_dir)
        .arg("--stats-json")
        .arg(&stats_path)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = command.spawn().expect("spawn logship");
    let done = watchdog(&child, Duration::from_secs(180));
    let status_path = format!("/proc/{}/status", child.id());
    let mut input = child.stdin.take().expect("stdin piped");
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&data);
    });
    let mut err = child.stderr.take().expect("stderr piped");
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        s
    });
    let mut peak_rss = 0u64;
    let status = loop {
        // Only once the child runs `logship` (its `Name:`): between fork and exec it is a
        // copy of this test process, whose in-process intake may hold a 100 MiB answer,
        // and a sample taken then (on a busy machine the window is wide) is this
        // process's memory, not logship's.
        if let Some(kb) = std::fs::read_to_string(&status_path).ok().and_then(|s| {
            let name = s.lines().find_map(|l| l.strip_prefix("Name:"))?;
            if name.trim() != "logship" {
                return None;
            }
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        }) {
            peak_rss = peak_rss.max(kb * 1024);
        }
        if let Some(status) = child.try_wait().expect("wait for logship") {
            break status;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let wall = started.elapsed();
    let _ = done.send(());
    let _ = writer.join();
    let stderr = String::from_utf8_lossy(&reader.join().unwrap_or_default()).into_owned();
    let stats = std::fs::read_to_string(&stats_path)
        .ok()
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or(Value::Null);
    Run {
        exit: exit_meaning(status.code()),
        stderr,
        stats,
        wall,
        peak_rss,
        spill_dir,
    }
}

/// Checks what every hostile run must guarantee; `expect` is the outcome the fault calls
/// for and `bound` the longest the run may take.
pub fn check(run: &Run, mode: &str, lines: u64, expect: Exit, bound: Duration) {
    let ctx = format!("{mode}: {run:?}");
    assert_eq!(run.exit, expect, "exit: {ctx}");
    assert!(
        run.wall < bound,
        "took {:?}, bound {bound:?}: {ctx}",
        run.wall
    );
    assert!(run.stats.is_object(), "no stats written: {ctx}");
    assert_eq!(
        run.delivered() + run.spilled() + run.lost(),
        lines,
        "delivered + spilled + lost must be every line: {ctx}"
    );
    let honest = if run.delivered() == lines {
        Exit::Delivered
    } else if run.lost() == 0 {
        Exit::Spilled
    } else {
        Exit::Lost
    };
    assert_eq!(
        run.exit, honest,
        "the exit code must match the counts: {ctx}"
    );
    for secret in [API_KEY, HEADER_SECRET, QUERY_SECRET] {
        assert!(
            !run.stderr.contains(secret),
            "secret {secret} printed: {ctx}"
        );
        assert!(
            !run.stats.to_string().contains(secret),
            "secret {secret} in the stats: {ctx}"
        );
    }
    assert!(
        !run.stderr.chars().any(|c| c.is_control() && c != '\n'),
        "raw control character on stderr: {:?}",
        run.stderr
    );
    assert!(
        run.peak_rss < BUDGET + MARGIN,
        "peak RSS {} MiB over budget + margin: {ctx}",
        run.peak_rss >> 20
    );
    assert!(run.peak_rss > 0, "VmHWM must be readable: {ctx}");
}
