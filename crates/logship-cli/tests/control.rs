//! `logship ship` with burst limits and drop notices (issue #17): held-back lines are
//! counted and summarised in the stream, the summary line says so, and the run still
//! exits 0 (the user asked for them to go: nothing was lost).

mod common;

use std::time::Duration;

use common::{logship, run_with_stdin, temp_path};
use logship_intake::{Intake, IntakeConfig};
use serde_json::Value;

#[test]
fn ship_with_a_burst_limit_summarises_what_it_held_back_and_exits_0() {
    let intake = Intake::start(IntakeConfig::default()).expect("intake");
    let n = 5000u64;
    let input: String = (0..n).map(|i| format!("event number {i}\n")).collect();
    let stats_path = temp_path("control-stats.json");
    let stats_arg = stats_path.to_string_lossy().into_owned();
    let out = run_with_stdin(
        logship().args([
            "ship",
            "--endpoint",
            &intake.url("/logs"),
            "--burst-limits",
            "info=10/100",
            "--drop-notices",
            "--no-spill",
            "--stats-json",
            &stats_arg,
        ]),
        input.as_bytes(),
        Duration::from_secs(120),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "stderr: {stderr}");
    assert!(stderr.contains("held back by your limits"), "{stderr}");
    let stats: Value =
        serde_json::from_str(&std::fs::read_to_string(&stats_path).expect("stats file"))
            .expect("stats JSON");
    let suppressed = stats["burst_suppressed"].as_u64().unwrap();
    assert!(suppressed > 0);
    assert_eq!(stats["enqueued"].as_u64().unwrap() + suppressed, n);
    let events: Vec<Value> = intake.events().into_iter().map(|e| e.value).collect();
    let summarised: u64 = events
        .iter()
        .filter(|e| e["logship.notice"] == "burst_summary")
        .map(|e| e["logship.suppressed"].as_u64().unwrap())
        .sum();
    assert_eq!(summarised, suppressed, "the summaries add up");
    let noticed: u64 = events
        .iter()
        .filter(|e| e["logship.notice"] == "dropped")
        .map(|e| e["logship.dropped.burst_limit"].as_u64().unwrap_or(0))
        .sum();
    assert_eq!(noticed, suppressed, "the drop notices add up");
    let _ = std::fs::remove_file(&stats_path);
}

#[test]
fn a_bad_burst_limit_is_a_usage_error_naming_the_key() {
    let out = run_with_stdin(
        logship().args([
            "ship",
            "--endpoint",
            "http://127.0.0.1:1/logs",
            "--burst-limits",
            "info=fast",
            "--no-spill",
        ]),
        b"",
        Duration::from_secs(60),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("burst_limits"), "{stderr}");
}
