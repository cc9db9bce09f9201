//! The crash harness's unreadable files (issue 32, item 13): `logship ship --follow`
//! runs as an unprivileged user (`setpriv --reuid=65534`, since root reads any file
//! whatever its mode) over two files, one of which it may not read. It must keep
//! shipping the readable one, say once which file it cannot open and why, count the
//! failed opens, and read the other one in full once it is made readable: nothing in it
//! is skipped or lost.
//!
//! Needs root (to change user) and `setpriv` (util-linux): without them the test prints
//! why and passes outside CI; under `CI=true` it fails.

mod common;

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::{Command, Stdio};

use common::follow::*;
use common::StderrLines;

/// The unprivileged user and group (`nobody`, `nogroup` on Debian).
const NOBODY: &str = "65534";

/// `None` (with the reason printed) when this process cannot run a child as `nobody`;
/// that fails the test under `CI=true`.
fn can_change_user() -> Option<()> {
    let out = Command::new("setpriv")
        .args([
            &format!("--reuid={NOBODY}"),
            &format!("--regid={NOBODY}"),
            "--clear-groups",
            "true",
        ])
        .output();
    match out {
        Ok(o) if o.status.success() => Some(()),
        other => {
            let why = format!(
                "cannot run a child as uid {NOBODY} with setpriv (needs root and util-linux): {:?}",
                other.map(|o| String::from_utf8_lossy(&o.stderr).into_owned())
            );
            assert!(std::env::var("CI").as_deref() != Ok("true"), "{why}");
            eprintln!("SKIPPED: {why}");
            None
        }
    }
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

#[test]
fn an_unreadable_file_is_said_once_counted_and_read_in_full_once_readable() {
    if can_change_user().is_none() {
        return;
    }
    // Under the temp directory: every parent must be searchable by `nobody`.
    let dir = std::env::temp_dir().join(format!("logship-unreadable-{}", std::process::id()));
    let state = dir.join("state");
    std::fs::create_dir_all(&state).expect("dirs");
    chmod(&dir, 0o755);
    let chown = Command::new("chown")
        .args([&format!("{NOBODY}:{NOBODY}"), s(&state)])
        .status()
        .expect("chown");
    assert!(chown.success());
    let (open, closed) = (dir.join("a.log"), dir.join("b.log"));
    write_lines(&open, 0..1_000);
    write_lines(&closed, 1_000..2_000);
    chmod(&open, 0o644);
    chmod(&closed, 0o600); // owned by root: `nobody` may not read it

    let intake = intake();
    let binary = env!("CARGO_BIN_EXE_logship");
    let pattern = format!("{}/*.log", s(&dir));
    let mut child = Command::new("setpriv")
        .args([
            &format!("--reuid={NOBODY}"),
            &format!("--regid={NOBODY}"),
            "--clear-groups",
            binary,
            "ship",
            "--endpoint",
            &intake.url("/logs"),
            "--follow",
            &pattern,
            "--checkpoint",
            s(&state.join("ckpt.json")),
            "--spill-dir",
            s(&state.join("spill")),
            "--poll-interval-ms",
            "50",
        ])
        .env("XDG_CACHE_HOME", s(&state))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn logship as nobody");
    let _watchdog = common::watchdog(&child, std::time::Duration::from_secs(240));
    let stderr = StderrLines::collect(&mut child);
    let ids = |intake: &logship_intake::Intake| -> std::collections::BTreeSet<u64> {
        received(intake).into_iter().map(|(id, _)| id).collect()
    };
    // The readable file is shipped in full while the other cannot be opened...
    wait_until("a.log delivered", || {
        (0..1_000).all(|i| ids(&intake).contains(&i))
    });
    stderr.expect(&format!("cannot open {}", s(&closed)), WAIT);
    assert!(
        ids(&intake).iter().all(|&i| i < 1_000),
        "lines of the unreadable file arrived"
    );
    // ... and once it is readable, every line of it arrives (nothing was skipped).
    chmod(&closed, 0o644);
    wait_until("b.log delivered", || {
        (1_000..2_000).all(|i| ids(&intake).contains(&i))
    });
    common::signal(child.id(), "TERM");
    let status = child.wait().expect("wait");
    stderr.expect("logship: shipped", WAIT);
    let lines = stderr.lines();
    assert_eq!(status.code(), Some(0), "{lines:#?}");
    let warnings = lines
        .iter()
        .filter(|l| l.contains("cannot open") && l.contains("Permission denied"))
        .count();
    assert_eq!(warnings, 1, "said once, with the reason: {lines:#?}");
    let summary = lines
        .iter()
        .find(|l| l.starts_with("logship: shipped"))
        .expect("summary");
    assert!(
        !summary.contains(" 0 read errors"),
        "the failed opens must be counted: {summary}"
    );
    let got = received(&intake);
    assert_eq!(got.len(), 2_000, "each line once: {} received", got.len());
    let _ = std::fs::remove_dir_all(dir);
}
