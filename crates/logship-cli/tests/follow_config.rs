//! `logship ship --follow`, the config file's `[follow]` section is followed, and flags
//! override it. Real files on disk, the real `logship` binary, real HTTP to the in-
//! process strict intake (harness: `common/follow.rs`).

mod common;

use std::io::Write;

use common::follow::*;

#[test]
fn the_config_files_follow_section_is_followed_and_flags_override_it() {
    let intake = intake();
    let dir = fresh_dir("follow-config");
    let a = dir.join("a.log");
    let b = dir.join("b.log");
    let ckpt = dir.join("from-file.json");
    // JSON lines in a.log; the section says: follow a.log from its end, as JSON, with
    // this checkpoint.
    let json_lines = |ids: std::ops::Range<u64>| -> String {
        ids.map(|i| format!("{{\"message\":\"{}\",\"level\":\"warn\"}}\n", line_text(i)))
            .collect()
    };
    std::fs::write(&a, json_lines(0..100)).unwrap();
    write_lines(&b, 1000..1050);
    let config = dir.join("logship.toml");
    std::fs::write(
        &config,
        format!(
            "spill_enabled = false\n[follow]\npaths = [{:?}]\nstart_at = \"end\"\nformat = \"json\"\n\
             checkpoint = {:?}\n",
            s(&a),
            s(&ckpt)
        ),
    )
    .unwrap();
    let follower = Follower::start(&intake, &["--config", s(&config)]);
    wait_until("a.log positioned at its end", || {
        checkpoint_offset(&ckpt, &a) == Some(std::fs::metadata(&a).unwrap().len())
    });
    std::fs::OpenOptions::new()
        .append(true)
        .open(&a)
        .unwrap()
        .write_all(json_lines(100..200).as_bytes())
        .unwrap();
    wait_events(&intake, 100);
    let (code, stderr) = follower.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    let events = intake.events();
    let mut ids: Vec<u64> = received(&intake).iter().map(|(id, _)| *id).collect();
    ids.sort_unstable();
    assert_eq!(
        ids,
        (100..200).collect::<Vec<_>>(),
        "from the end, as the file says"
    );
    assert!(
        events.iter().all(|e| e.value["level"]
            .as_str()
            .is_some_and(|l| l.eq_ignore_ascii_case("warn"))),
        "read as JSON, as the file says"
    );

    // Flags win: another path, from its beginning, as text, no checkpoint.
    intake.reset();
    let follower = Follower::start(
        &intake,
        &[
            "--config",
            s(&config),
            "--follow",
            s(&b),
            "--start-at",
            "beginning",
            "--format",
            "text",
            "--no-checkpoint",
        ],
    );
    wait_events(&intake, 50);
    let (code, stderr) = follower.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    assert!(
        stderr.iter().any(|l| l.contains("(no checkpoint)")),
        "{stderr:?}"
    );
    let got = received(&intake);
    assert_eq!(
        got.iter().map(|(id, _)| *id).collect::<Vec<_>>(),
        (1000..1050).collect::<Vec<_>>()
    );
    assert!(got.iter().all(|(_, path)| path == s(&b)));
}

#[test]
fn a_checkpoint_path_under_a_regular_file_fails_at_start_up_naming_the_key() {
    let dir = fresh_dir("follow-ckpt-under-file");
    let log = dir.join("app.log");
    write_lines(&log, 0..10);
    let file = dir.join("not-a-dir");
    std::fs::write(&file, b"x").unwrap();
    let ckpt = file.join("ckpt.json");
    let out = common::run(
        &[
            "ship",
            "--endpoint",
            "http://127.0.0.1:1/logs",
            "--no-spill",
            "--follow",
            s(&log),
            "--checkpoint",
            s(&ckpt),
        ],
        b"",
    );
    let err = common::stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("checkpoint"), "{err}");
    assert!(
        err.contains(&format!("{} is a file, not a directory", s(&file))),
        "{err}"
    );
    assert!(!err.contains("os error"), "{err}");
}
