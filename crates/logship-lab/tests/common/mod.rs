//! Helpers shared by the lab's end-to-end test binaries (each uses only part of them).
#![allow(dead_code, unused_imports)]

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

pub use logship_intake::processes::{run_with_stdin, watchdog};

/// A fresh path under the target's temporary directory.
pub fn temp_path(name: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}-{n}", std::process::id()))
}

/// The `logship-lab` binary.
pub fn lab() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_logship-lab"))
}

/// The `logship` binary the Java lab's sidecars run (package logship-cli; built when
/// needed, as a test of this package does not get it from cargo).
pub fn logship_binary() -> PathBuf {
    logship_intake::processes::workspace_binary("logship-cli", "logship")
}
