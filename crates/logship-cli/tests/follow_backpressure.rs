//! `logship ship --follow`, backpressure and batches: a backlog is read only as fast as
//! it ships (memory stays flat with the intake paused), in batches of a thousand at gzip
//! level 2 unless set otherwise. Real files on disk, the real `logship` binary, real HTTP
//! to the in-process strict intake (harness: `common/follow.rs`).

mod common;

use std::io::Write;
use std::time::{Duration, Instant};

use common::follow::*;

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
fn a_queue_far_smaller_than_the_backlog_hands_its_refusals_back_and_drops_nothing() {
    // 2,000 lines into a queue of 4, behind an intake that holds its first request for
    // 5 s: meanwhile the queue stays full, and each of the follower's offers (waiting
    // 250 ms) comes back to it and is offered again. The hold is a window, not a wait
    // for a condition (the refusals are seen only in the final stats): 1.5 s was once
    // too short in CI, where another test's gigabyte backlog kept the follower off the
    // cores for most of it.
    let intake = intake();
    intake.pause();
    let dir = fresh_dir("follow-offer-tiny-queue");
    let (log, stats_json) = (dir.join("app.log"), dir.join("stats.json"));
    write_lines(&log, 0..2_000);
    let follower = follow_without_checkpoint(
        &intake,
        &log,
        &[
            "--queue-capacity",
            "4",
            "--max-batch-records",
            "4",
            "--stats-json",
            s(&stats_json),
        ],
    );
    assert!(
        intake.wait_for_requests(1, Duration::from_secs(60)),
        "the first request arrived"
    );
    std::thread::sleep(Duration::from_secs(5));
    intake.resume();
    wait_events(&intake, 2_000);
    let summary = stop_with_every_line_once(follower, &intake, 2_000);
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats_json).unwrap()).unwrap();
    assert_eq!(stats["dropped_queue_full"], 0, "{stats}");
    assert!(
        stats["queue_full_returned"].as_u64().unwrap() > 0,
        "{stats}"
    );
    assert!(summary.contains("; 0 dropped, 0 failed"), "{summary}");
    assert!(
        summary.contains("waited out a full queue and were retried (not lost)"),
        "{summary}"
    );
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
