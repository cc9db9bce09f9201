//! `logship ship --follow`, restarts: after SIGTERM, after SIGKILL (also in the middle of
//! a large backlog) and with a corrupt checkpoint, the checkpoint says where to resume,
//! with nothing lost and nothing shipped twice beyond what followed it. Real files on
//! disk, the real `logship` binary, real HTTP to the in-process strict intake (harness:
//! `common/follow.rs`).

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::follow::*;

/// The writer process (`start_writer` re-runs this binary as it); nothing otherwise.
#[test]
fn writer() {
    common::follow::writer();
}

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

#[test]
fn a_full_spill_holds_the_checkpoint_before_the_first_line_it_could_not_keep() {
    // The intake is down and the spill is full after about 1,500 lines (its cap, with
    // `drop_newest`): the lines after that are neither delivered nor spilled, and the
    // checkpoint must not pass them, neither while running nor at shutdown.
    let intake = intake();
    intake.set_down(true);
    let dir = fresh_dir("follow-spill-full");
    let ckpt = dir.join("ckpt.json");
    let log = dir.join("app.log");
    let spill = dir.join("spill");
    let n = 20_000u64;
    write_lines(&log, 0..n);
    let mut a = vec![
        "--follow",
        s(&log),
        "--checkpoint",
        s(&ckpt),
        "--spill-dir",
        s(&spill),
        "--max-retries",
        "0",
        "--max-batch-records",
        "100",
    ];
    a.extend(FULL_SPILL);
    let first = Follower::start(&intake, &a);
    // The spill refused its first lines; wait for a checkpoint interval after that.
    first.wait_for_stderr("reached spill_max_bytes");
    first.wait_for_stderr("could be neither delivered nor kept in the spill");
    let (code, stderr) = first.stop();
    assert_eq!(code, Some(1), "lines were lost in this run: {stderr:?}");
    let line = summary(&stderr);
    assert!(
        line.contains("checkpoint held before") && !line.contains("checkpoint written"),
        "{line}"
    );
    let spilled = common::run(&["spill", "ls", "--dir", s(&spill)], b"");
    let listing = common::stdout(&spilled);
    let waiting: u64 = listing
        .split(" events waiting for replay")
        .next()
        .and_then(|head| head.split_whitespace().last())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{listing}"));
    assert!(waiting > 0 && waiting < n, "{listing}");
    // Lines 0..waiting are on disk; the checkpoint may not pass line `waiting`.
    let k = checkpoint_offset(&ckpt, &log).unwrap_or(0) / line_len();
    assert!(
        k <= waiting,
        "the checkpoint passed line {k}, but only {waiting} lines were spilled: {line}"
    );
    // The next run, the intake back: every line arrives (the spilled ones replayed, the
    // rest read again from the checkpoint).
    intake.set_down(false);
    let second = Follower::start(&intake, &a);
    wait_until("every line delivered", || {
        let got: std::collections::BTreeSet<u64> =
            received(&intake).into_iter().map(|(id, _)| id).collect();
        got.len() as u64 == n
    });
    let (code, stderr) = second.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    assert_eq!(checkpoint_offset(&ckpt, &log), Some(n * line_len()));
}
