//! The key table on the command's surfaces: `logship config keys` lists every key with
//! every field, and keys that had no hand-written flag before the flags were generated
//! (`--gzip-level`, `--connect-timeout-ms`, `--spill-fsync`, `LOGSHIP_FOLLOW_*`) work end
//! to end, against the real binary and the in-process strict intake over loopback.

mod common;

use common::follow::{summary, wait_events, Follower, WAIT};
use common::{run, stderr, stdout, temp_path};
use logship_intake::{Intake, IntakeConfig};
use serde_json::Value;

#[test]
fn config_keys_json_lists_every_key_with_every_field() {
    let out = run(&["config", "keys", "--format", "json"], b"");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let all: Vec<Value> = serde_json::from_slice(&out.stdout).expect("a JSON array");
    let names: Vec<&str> = logship::keys().map(|k| k.name()).collect();
    assert_eq!(all.len(), names.len());
    let fields = [
        "name",
        "type",
        "default",
        "doc",
        "env",
        "flag",
        "file_key",
        "log4rs_key",
        "attribute",
        "section",
    ];
    for (object, key) in all.iter().zip(logship::keys()) {
        assert_eq!(object["name"], key.name(), "in the table's order");
        for field in fields {
            assert!(object.get(field).is_some(), "{}: no {field}", key.name());
        }
        for field in ["type", "default", "doc", "env", "flag", "file_key"] {
            let value = object[field].as_str().unwrap_or_default();
            assert!(!value.is_empty(), "{}: empty {field}", key.name());
        }
        assert!(object["flag"].as_str().is_some_and(|f| f.starts_with("--")));
        assert_eq!(object["env"], key.env());
        // A key of the command's sections has no log4rs key and no attribute.
        assert_eq!(object["section"].is_null(), key.section().is_none());
        assert_eq!(object["attribute"].is_null(), key.section().is_some());
    }
    let table = run(&["config", "keys"], b"");
    assert_eq!(table.status.code(), Some(0));
    let table = stdout(&table);
    for key in logship::keys() {
        assert!(
            table
                .lines()
                .any(|l| l.split_whitespace().next() == Some(key.name())
                    && l.contains(key.flag().long())
                    && l.contains(&key.env())),
            "{} missing from\n{table}",
            key.name()
        );
    }
}

#[test]
fn flags_of_keys_that_never_had_one_ship_like_any_other() {
    let intake = Intake::start(IntakeConfig::default()).expect("start intake");
    let url = intake.url("/logs");
    let out = run(
        &[
            "ship",
            "--endpoint",
            &url,
            "--no-spill",
            "--gzip-level",
            "9",
            "--connect-timeout-ms",
            "2500",
            "--request-timeout-ms",
            "20000",
            "--retry-initial-backoff-ms",
            "20",
            "--retry-max-backoff-ms",
            "50",
            "--spill-fsync",
            "always",
            "--max-event-bytes",
            "4096",
            "--block-timeout-ms",
            "1000",
        ],
        b"one\ntwo\nthree\n",
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("shipped 3 of 3 events"), "{err}");
    assert_eq!(intake.stats().events, 3);
    let bad = run(&["ship", "--endpoint", &url, "--gzip-level", "10"], b"");
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        stderr(&bad).contains("gzip_level = 10: must be 0..=9 (set gzip_level to a whole number from 0 to 9) [from flag --gzip-level]"),
        "{}",
        stderr(&bad)
    );
}

#[test]
fn logship_follow_variables_make_ship_follow() {
    let intake = Intake::start(IntakeConfig::default()).expect("start intake");
    let dir = temp_path("follow-env");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(dir.join("app.log"), "alpha\nbeta\ngamma\n").expect("write");
    let pattern = dir.join("*.log").display().to_string();
    // No --follow and no config file: the paths and the checkpoint come from variables.
    let env = [
        ("LOGSHIP_FOLLOW_PATHS", pattern.as_str()),
        ("LOGSHIP_FOLLOW_CHECKPOINT", "false"),
    ];
    let follower = Follower::start_with_env(&intake, 20, &env, &["--no-spill"]);
    follower.stderr.expect(
        &format!("logship: following {pattern} (no checkpoint)"),
        WAIT,
    );
    wait_events(&intake, 3);
    let (code, stderr) = follower.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    assert!(
        summary(&stderr).contains("shipped 3 of 3 events"),
        "{stderr:?}"
    );
}
