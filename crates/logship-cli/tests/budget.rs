//! `logship ship` with a volume budget (issue 17 part 3): events over the cap are held
//! back and counted, named in the summary, and not a loss (exit code 0).

mod common;

use std::time::Duration;

use common::{logship, run_with_stdin, temp_path};
use logship_intake::{Intake, IntakeConfig};

#[test]
fn ship_holds_back_what_is_over_the_budget_says_so_and_exits_0() {
    let intake = Intake::start(IntakeConfig::default()).expect("intake");
    let input: String = (0..30).map(|i| format!("line {i}\n")).collect();
    let stats_path = temp_path("budget-stats.json");
    let out = run_with_stdin(
        logship().args([
            "ship",
            "--endpoint",
            &intake.url("/logs"),
            "--no-spill",
            "--budget-hour-events",
            "10",
            "--budget-overdraft-percent",
            "0",
            "--stats-json",
            &stats_path.to_string_lossy(),
        ]),
        input.as_bytes(),
        Duration::from_secs(120),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");
    assert!(
        stderr.contains("held back by the volume budget"),
        "{stderr}"
    );
    let stats: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&stats_path).unwrap()).unwrap();
    let _ = std::fs::remove_file(&stats_path);
    let n = |k: &str| stats[k].as_u64().unwrap();
    // (A run that crosses an hour boundary admits more: the sum holds either way.)
    assert_eq!(
        n("enqueued") - n("budget_notices") + n("budget_dropped"),
        30,
        "{stats}"
    );
    assert!(n("budget_dropped") > 0);
    assert_eq!(n("dropped_queue_full") + n("events_failed"), 0);
}

#[test]
fn a_level_cap_from_the_command_line_holds_back_that_level_and_a_bad_one_exits_2() {
    let intake = Intake::start(IntakeConfig::default()).expect("intake");
    // `ship` reads every line at INFO: a cap of its own on INFO holds back the rest.
    let input: String = (0..200)
        .map(|i| format!("line {i:04} {}\n", "x".repeat(60)))
        .collect();
    let stats_path = temp_path("budget-level-stats.json");
    let out = run_with_stdin(
        logship().args([
            "ship",
            "--endpoint",
            &intake.url("/logs"),
            "--no-spill",
            "--budget-level-hour-bytes",
            "info=4096",
            "--stats-json",
            &stats_path.to_string_lossy(),
        ]),
        input.as_bytes(),
        Duration::from_secs(120),
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr: {stderr}");
    let stats: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&stats_path).unwrap()).unwrap();
    let _ = std::fs::remove_file(&stats_path);
    let n = |k: &str| stats[k].as_u64().unwrap();
    assert!(n("budget_dropped_level") > 0, "{stats}");
    assert_eq!(
        n("enqueued") - n("budget_notices") + n("budget_dropped_level"),
        200,
        "{stats}"
    );

    let bad = run_with_stdin(
        logship().args([
            "ship",
            "--endpoint",
            &intake.url("/logs"),
            "--no-spill",
            "--budget-level-day-bytes",
            "loud=5000",
        ]),
        b"one line\n",
        Duration::from_secs(60),
    );
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(2), "stderr: {stderr}");
    assert!(stderr.contains("budget_level_day_bytes"), "{stderr}");
}
