//! log4rs reloads its file by building new appenders and dropping the old ones on an
//! application thread. The old appender's drop must not wait for its shutdown, the new
//! appender must get the spill directory the old one holds, and no event may be lost.

#![cfg(feature = "log4rs")]

mod common;

use std::time::{Duration, Instant};

use common::*;

fn config_file(dir: &TempDir, name: &str, endpoint: &str, service: &str) -> std::path::PathBuf {
    let spill = dir.path().join("spill");
    let yaml = format!(
        r#"appenders:
  ship:
    kind: batch_http
    vendor: datadog
    apiKey: test-key
    endpoint: {endpoint}
    service: {service}
    lingerMillis: 20
    maxBatchRecords: 50
    spill_dir: {spill}
    shutdown_timeout_ms: 120000
    report_to_stderr: false
root:
  level: info
  appenders: [ship]
"#,
        spill = spill.display()
    );
    std::fs::create_dir_all(dir.path()).unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, yaml).unwrap();
    path
}

#[test]
fn a_reload_neither_blocks_the_thread_that_drops_the_old_appender_nor_loses_events() {
    let dir = TempDir::new("log4rs-reload");
    let intake = intake();
    let url = intake.url("");
    let first = config_file(&dir, "v1.yaml", &url, "v1");
    let second = config_file(&dir, "v2.yaml", &url, "v2");
    let load = |path| {
        log4rs::config::load_config_file(path, logship::log4rs::deserializers())
            .expect("valid log4rs file")
    };
    let handle = log4rs::init_config(load(&first)).expect("install log4rs");
    // Requests hang while the intake is paused: an old appender whose drop waited for
    // its shutdown would hold `set_config` for the shutdown timeout (120 s).
    intake.pause();
    let n = 400u64;
    for seq in 0..n / 2 {
        log::info!(seq; "event {seq}");
    }
    assert!(
        intake.wait_for_requests(1, WAIT),
        "the old appender sent a batch"
    );
    let config = load(&second); // builds the new appender while the old one runs
    let swapped = Instant::now();
    handle.set_config(config); // drops the old appender on this thread
    let took = swapped.elapsed();
    assert!(
        took < Duration::from_secs(60),
        "dropping the old appender blocked for {took:?}"
    );
    for seq in n / 2..n {
        log::info!(seq; "event {seq}");
    }
    intake.resume();
    log::logger().flush();
    assert!(
        intake.wait_for_events(n as usize, WAIT),
        "only {} of {n} arrived",
        intake.stats().events
    );
    let seqs = received_seqs(&intake);
    let unique: std::collections::BTreeSet<u64> = seqs.iter().copied().collect();
    assert_eq!(unique, (0..n).collect(), "every event arrived");
    // Each half went through the appender that was configured when it was logged.
    for event in intake.events() {
        let seq = event.value["seq"].as_u64().unwrap();
        let want = if seq < n / 2 { "v1" } else { "v2" };
        assert_eq!(event.value["service"], want, "{:?}", event.value);
    }
}
