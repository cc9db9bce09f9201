//! `logship ship --follow`, signals: SIGHUP rescans during a write burst and picks up
//! new, renamed and deleted files at once; SIGTERM is not held by the pipeline's wait for
//! room. Real files on disk, the real `logship` binary, real HTTP to the in-process
//! strict intake (harness: `common/follow.rs`).

mod common;

use std::time::{Duration, Instant};

use common::follow::*;

/// The writer process (`start_writer` re-runs this binary as it); nothing otherwise.
#[test]
fn writer() {
    common::follow::writer();
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
