//! `logship intake` and `logship bench` moved to their own binaries: whatever an old
//! script passes them, they exit 2 with one line saying where the command lives now and
//! how to run it, and `logship --help` no longer lists them.

mod common;

use std::time::Duration;

use common::{logship, run_with_stdin};

fn run(args: &[&str]) -> std::process::Output {
    run_with_stdin(logship().args(args), b"", Duration::from_secs(30))
}

#[test]
fn old_intake_and_bench_invocations_say_where_the_command_went_and_exit_2() {
    let cases: [(&[&str], &str); 4] = [
        (
            &["intake", "--port", "0", "--key", "k"],
            "cargo run --release -p logship-intake --bin logship-intake -- ARGS",
        ),
        (&["intake", "--help"], "logship-intake"),
        (
            &["bench", "--quick", "--json", "out.json"],
            "cargo run --release -p logship-lab --bin logship-lab -- ARGS",
        ),
        (&["bench", "--java", "-h"], "logship-lab"),
    ];
    for (args, expected) in cases {
        let out = run(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("logship: `logship "), "{stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn help_lists_neither_moved_command() {
    let out = run(&["--help"]);
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success());
    assert!(help.contains("demo"), "{help}");
    for moved in ["  intake", "  bench"] {
        assert!(!help.contains(moved), "{help}");
    }
}
