//! `logship spill replay` against intakes and disks that do not cooperate: an intake that
//! rejects every event must not look like success, and a spill whose progress cannot be
//! written must not send the same events on every later run.

mod common;

use std::process::Output;
use std::time::Duration;

use common::hostile::{exit_meaning, Exit};
use common::{logship, run_with_stdin, temp_path};
use logship_intake::{Intake, IntakeConfig};

const WATCHDOG: Duration = Duration::from_secs(120);

fn run(args: &[&str], stdin: &[u8]) -> Output {
    run_with_stdin(logship().args(args), stdin, WATCHDOG)
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Spills `n` lines into `dir` (the intake is down: nothing listens on port 1).
fn spill(dir: &str, n: usize) {
    let input: String = (0..n).map(|i| format!("spilled {i}\n")).collect();
    let out = run(
        &[
            "ship",
            "--endpoint",
            "http://127.0.0.1:1/logs",
            "--spill-dir",
            dir,
            "--max-retries",
            "0",
            "--max-batch-records",
            "100",
        ],
        input.as_bytes(),
    );
    assert_eq!(
        exit_meaning(out.status.code()),
        Exit::Spilled,
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_replay_into_an_intake_that_rejects_the_key_fails_and_names_the_dead_letters() {
    let dir = temp_path("replay-401");
    let dir_arg = dir.to_string_lossy().into_owned();
    spill(&dir_arg, 300);
    let intake = Intake::start(IntakeConfig {
        api_key: Some("the-right-key".into()),
        ..IntakeConfig::default()
    })
    .expect("intake");
    let url = intake.url("");
    let out = run(
        &[
            "spill",
            "replay",
            "--dir",
            &dir_arg,
            "--vendor",
            "datadog",
            "--endpoint",
            &url,
            "--api-key",
            "a-wrong-key",
        ],
        b"",
    );
    let err = stderr(&out);
    assert!(
        !out.status.success(),
        "a replay that delivered nothing: {err}"
    );
    assert!(err.contains("replayed 0 events"), "{err}");
    assert!(
        err.contains("300 rejected for good by the intake and moved to"),
        "{err}"
    );
    assert!(err.contains("dead"), "{err}");
    assert!(!err.contains("a-wrong-key"), "{err}");
}

#[test]
fn a_replay_that_cannot_write_its_ack_file_does_not_send_the_events_again() {
    // The ACK file cannot be replaced (`ACK.tmp` is a directory, as on a full disk where
    // no new file can be written) while segments can still be deleted.
    let dir = temp_path("replay-noack");
    let dir_arg = dir.to_string_lossy().into_owned();
    spill(&dir_arg, 300);
    std::fs::create_dir(dir.join("ACK.tmp")).expect("block ACK.tmp");
    let intake = Intake::start(IntakeConfig::default()).expect("intake");
    let url = intake.url("/logs");
    let replay = || {
        run(
            &["spill", "replay", "--dir", &dir_arg, "--endpoint", &url],
            b"",
        )
    };
    let first = replay();
    let err = stderr(&first);
    assert!(first.status.success(), "{err}");
    assert!(err.contains("replayed 300 events"), "{err}");
    assert_eq!(
        err.lines()
            .filter(|l| l.starts_with("logship: could not record replay progress"))
            .count(),
        1,
        "said once (then as the last error): {err}"
    );
    assert_eq!(intake.stats().events, 300);
    let second = replay();
    assert!(second.status.success(), "{}", stderr(&second));
    assert!(
        stderr(&second).contains("replayed 0 events"),
        "{}",
        stderr(&second)
    );
    assert_eq!(intake.stats().events, 300, "nothing sent twice");
    let third = replay();
    assert!(third.status.success(), "{}", stderr(&third));
    assert_eq!(intake.stats().events, 300, "nothing sent three times");
}

/// The message of every event `intake` received, counted.
fn counted(intake: &Intake) -> std::collections::BTreeMap<String, usize> {
    let mut count = std::collections::BTreeMap::new();
    for e in intake.events() {
        let m = e.value["message"].as_str().unwrap_or("<none>").to_owned();
        *count.entry(m).or_insert(0) += 1;
    }
    count
}

#[test]
fn what_a_one_shot_run_spilled_is_delivered_once_by_a_later_run_and_then_removed() {
    let dir = temp_path("replay-once");
    let dir_arg = dir.to_string_lossy().into_owned();
    spill(&dir_arg, 300);
    let intake = Intake::start(IntakeConfig::default()).expect("intake");
    let url = intake.url("/logs");
    // Later one-shot runs of a few lines each, the intake healthy: the first delivers its
    // own lines and the 300 spilled ones, and the next ones send nothing of them again.
    for run_no in 0..3 {
        let input: String = (0..5).map(|i| format!("run {run_no} line {i}\n")).collect();
        let out = run(
            &[
                "ship",
                "--endpoint",
                &url,
                "--spill-dir",
                &dir_arg,
                "--max-batch-records",
                "100",
            ],
            input.as_bytes(),
        );
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(0), "run {run_no}: {err}");
        if run_no == 0 {
            assert!(
                err.contains("300 replayed from the spill directory"),
                "the summary says what it replayed: {err}"
            );
            assert!(
                err.contains("logship: outcome: delivered: every event read was delivered, and 300 events that earlier runs had spilled were replayed\n"),
                "{err}"
            );
        } else {
            assert!(!err.contains("replayed"), "run {run_no}: {err}");
        }
        let ls = run(&["spill", "ls", "--dir", &dir_arg], b"");
        assert!(
            common::stdout(&ls).contains("0 events waiting for replay"),
            "after run {run_no}: {}",
            common::stdout(&ls)
        );
    }
    let count = counted(&intake);
    let twice: Vec<_> = count.iter().filter(|(_, n)| **n > 1).collect();
    assert!(twice.is_empty(), "sent more than once: {twice:?}");
    assert_eq!(count.len(), 300 + 15, "every spilled and every live line");
    for i in 0..300 {
        assert!(count.contains_key(&format!("spilled {i}")), "spilled {i}");
    }
}

#[test]
fn a_sidecar_stopped_while_a_replayed_batch_is_out_records_it_and_no_later_run_resends_it() {
    let dir = temp_path("replay-stop");
    let dir_arg = dir.to_string_lossy().into_owned();
    spill(&dir_arg, 100);
    let intake = Intake::start(IntakeConfig::default()).expect("intake");
    // The intake answers after 1 s: the replayed batch (all 100 events) is out when the
    // sidecar is told to stop, and is answered well within the shutdown timeout.
    intake.set_delay(Duration::from_secs(1));
    let mut sidecar = common::ShipProcess::start(
        &intake.url("/logs"),
        &[
            "--listen",
            "http://127.0.0.1:0",
            "--spill-dir",
            &dir_arg,
            "--max-batch-records",
            "100",
        ],
        WATCHDOG,
    );
    assert!(
        intake.wait_for_requests(1, WATCHDOG),
        "the replayed batch reached the intake"
    );
    let (code, lines) = sidecar.stop();
    assert_eq!(code, Some(0), "{lines:?}");
    assert_eq!(intake.stats().events, 100);
    intake.set_delay(Duration::ZERO);
    let ls = run(&["spill", "ls", "--dir", &dir_arg], b"");
    assert!(
        common::stdout(&ls).contains("0 events waiting for replay"),
        "{}",
        common::stdout(&ls)
    );
    let again = run(
        &[
            "ship",
            "--endpoint",
            &intake.url("/logs"),
            "--spill-dir",
            &dir_arg,
        ],
        b"one more line\n",
    );
    assert_eq!(again.status.code(), Some(0), "{}", stderr(&again));
    assert_eq!(intake.stats().events, 101, "nothing replayed twice");
}
