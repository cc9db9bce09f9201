//! The crash harness's deterministic kills (issue 32, item 13): `logship ship --follow`
//! built with the test-only `fault-points` feature is SIGKILLed exactly in the middle of a
//! checkpoint write and in the middle of a spill write (`LOGSHIP_FAULT_POINT`, see
//! `logship::fault_point`), where random kills rarely land. The next run must start
//! from what is on disk (the old checkpoint, the intact spilled frames) and every id must
//! arrive. Only with `--features fault-points` (CI's `--all-features` turns it on; the
//! product build never does).
#![cfg(feature = "fault-points")]

mod common;

use std::collections::BTreeSet;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;

use common::follow::*;

const LINES: u64 = 3_000;

fn args(dir: &Path) -> Vec<String> {
    [
        "--follow",
        s(&dir.join("app.log")),
        "--checkpoint",
        s(&dir.join("ckpt.json")),
        "--spill-dir",
        s(&dir.join("spill")),
        "--max-retries",
        "0",
        "--max-batch-records",
        "100",
        "--shutdown-timeout-ms",
        "5000",
    ]
    .iter()
    .map(|a| a.to_string())
    .collect()
}

/// Runs logship with the kill point armed; returns its stderr once SIGKILL ended it.
fn killed_at(intake: &logship_intake::Intake, point: &str, args: &[&str]) -> Vec<String> {
    let mut run = Follower::start_with_env(intake, 20, &[("LOGSHIP_FAULT_POINT", point)], args);
    let status = run.child.wait().expect("wait");
    assert_eq!(
        status.signal(),
        Some(9),
        "not killed at {point}: {status:?}"
    );
    let name = point.split(':').next().unwrap_or(point);
    run.stderr
        .expect(&format!("logship: fault point {name} reached"), WAIT);
    run.stderr.lines()
}

/// Runs logship normally until every id arrived; it must exit 0.
fn deliver_the_rest(intake: &logship_intake::Intake, args: &[&str]) -> Vec<String> {
    let run = Follower::start(intake, args);
    wait_until("every id delivered", || {
        let got: BTreeSet<u64> = received(intake).into_iter().map(|(id, _)| id).collect();
        (0..LINES).all(|id| got.contains(&id))
    });
    let (code, stderr) = run.stop();
    assert_eq!(code, Some(0), "{stderr:#?}");
    stderr
}

#[test]
fn a_kill_in_the_middle_of_a_checkpoint_write_leaves_the_old_checkpoint() {
    let dir = fresh_dir("kill-ckpt");
    let (log, ckpt) = (dir.join("app.log"), dir.join("ckpt.json"));
    let intake = intake();
    let a = args(&dir);
    let refs: Vec<&str> = a.iter().map(String::as_str).collect();
    // A first run leaves a whole checkpoint after the first half of the lines.
    write_lines(&log, 0..LINES / 2);
    let run = Follower::start(&intake, &refs);
    wait_events(&intake, (LINES / 2) as usize);
    let (code, stderr) = run.stop();
    assert_eq!(code, Some(0), "{stderr:#?}");
    let old = checkpoint_offset(&ckpt, &log);
    assert_eq!(old, Some(LINES / 2 * line_len()));
    // The next run is killed in the middle of its first checkpoint write.
    write_lines(&log, LINES / 2..LINES);
    let said = killed_at(&intake, "checkpoint-write:1", &refs);
    let torn = std::fs::read(dir.join("ckpt.json.tmp")).expect("the torn temporary file");
    assert!(
        serde_json::from_slice::<serde_json::Value>(&torn).is_err(),
        "the kill was not in the middle of the write: {}",
        String::from_utf8_lossy(&torn)
    );
    assert_eq!(checkpoint_offset(&ckpt, &log), old, "{said:#?}");
    // The run after it starts from the old checkpoint: every id arrives, none is skipped.
    let stderr = deliver_the_rest(&intake, &refs);
    assert!(
        !stderr.iter().any(|l| l.contains("corrupt")),
        "the next run found a damaged checkpoint: {stderr:#?}"
    );
    assert_eq!(checkpoint_offset(&ckpt, &log), Some(LINES * line_len()));
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_kill_in_the_middle_of_a_spill_write_loses_no_line() {
    let dir = fresh_dir("kill-spill");
    write_lines(&dir.join("app.log"), 0..LINES);
    let intake = intake();
    intake.set_down(true);
    let a = args(&dir);
    let refs: Vec<&str> = a.iter().map(String::as_str).collect();
    // The third spill write: two batches are whole on disk, the third torn.
    killed_at(&intake, "spill-write:3", &refs);
    intake.set_down(false);
    let stderr = deliver_the_rest(&intake, &refs);
    // The intact frames were replayed, the torn one skipped and said, the rest read again.
    let summary = stderr
        .iter()
        .find(|l| l.starts_with("logship: shipped"))
        .cloned()
        .unwrap_or_default();
    assert!(
        summary.contains("replayed") || summary.contains("spill"),
        "{stderr:#?}"
    );
    let _ = std::fs::remove_dir_all(dir);
}
