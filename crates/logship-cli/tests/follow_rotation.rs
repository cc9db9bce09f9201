//! `logship ship --follow`, rotation by rename and copytruncate during write bursts,
//! truncation, deletion, symlink swaps, late files, many files at once, a busy file
//! beside a quiet one, and where a file seen at start-up is read from. Real files on
//! disk, the real `logship` binary, real HTTP to the in-process strict intake (harness:
//! `common/follow.rs`).

mod common;

use std::collections::BTreeMap;

use common::follow::*;

/// The writer process (`start_writer` re-runs this binary as it); nothing otherwise.
#[test]
fn writer() {
    common::follow::writer();
}

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
