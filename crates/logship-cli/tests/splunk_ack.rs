//! `logship ship --vendor splunk --splunk-ack` end to end against `logship-intake
//! --splunk-ack` as a child process (real HTTP on 127.0.0.1): every line is delivered,
//! counted as delivered only once acknowledged; acks the intake loses are resent, and the
//! intake's duplicates equal the resends `ship` counts.

mod common;

use std::time::Duration;

use common::{http, logship, run_with_stdin, start_intake, temp_path};
use serde_json::Value;

const WATCHDOG: Duration = Duration::from_secs(120);
const KEY: &str = "cli-ack-key-0123";

/// `GET /_intake/stats` of the child intake.
fn intake_stats(port: u16) -> Value {
    let response = http(port, "GET /_intake/stats HTTP/1.1", b"");
    let body = response.split("\r\n\r\n").nth(1).unwrap_or_default();
    serde_json::from_str(body).expect("stats JSON")
}

#[test]
fn ship_with_splunk_ack_delivers_everything_through_lost_acks_to_a_child_intake() {
    let (mut intake, mut out, port) = start_intake(&[
        "--key",
        KEY,
        "--splunk-ack",
        "--splunk-ack-lose-every",
        "4",
        "--duration",
        "110",
    ]);
    // Keep draining its stdout so the child never blocks on a full pipe.
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    let done = common::watchdog(&intake, WATCHDOG);
    let n = 1000;
    let input: String = (0..n).map(|i| format!("acked line {i}\n")).collect();
    let stats_path = temp_path("ack-stats.json");
    let stats_arg = stats_path.to_string_lossy().into_owned();
    let endpoint = format!("http://127.0.0.1:{port}");
    let out = run_with_stdin(
        logship().args([
            "ship",
            "--vendor",
            "splunk",
            "--endpoint",
            &endpoint,
            "--api-key",
            KEY,
            "--splunk-ack",
            "--splunk-ack-timeout-ms",
            "500",
            "--max-batch-records",
            "50",
            "--max-retries",
            "8",
            "--no-spill",
            "--stats-json",
            &stats_arg,
        ]),
        input.as_bytes(),
        WATCHDOG,
    );
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains(&format!("shipped {n} of {n} events")), "{err}");
    assert!(!err.contains(KEY));
    let stats: Value =
        serde_json::from_str(&std::fs::read_to_string(&stats_path).expect("stats file"))
            .expect("stats JSON");
    assert_eq!(stats["events_delivered"], n, "{stats}");
    assert_eq!(stats["events_awaiting_ack"], 0);
    let resends = stats["ack_resends"].as_u64().expect("resends");
    assert!(resends > 0, "every 4th ack is lost: {stats}");
    assert!(stats["ack_polls"].as_u64() > Some(0));

    let received = intake_stats(port);
    assert_eq!(received["violations"], 0, "{received}");
    assert_eq!(received["events"].as_u64(), Some(n + resends), "{received}");
    let acks = &received["splunk_ack"];
    assert!(acks["lost"].as_u64() > Some(0), "{acks}");
    assert_eq!(acks["missing_channel"], 0, "a channel is always sent");
    let _ = intake.kill();
    let _ = intake.wait();
    let _ = done.send(());
    let _ = std::fs::remove_file(&stats_path);
}
