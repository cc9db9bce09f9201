//! Child processes for the workspace's end-to-end tests: another package's binary, found
//! (and built when needed) next to the test's own, and a child run under a watchdog.
//!
//! Why it exists: a test binary only gets `CARGO_BIN_EXE_*` for the binaries of its own
//! package, yet the CLI's tests start the test intake (`logship-intake`) and the lab's
//! tests start `logship` sidecars. [`workspace_binary`] finds such a binary in the target
//! directory the running test was built into and, the first time a test process asks
//! for it, runs `cargo build -p PACKAGE --bin NAME` with the cargo that built the tests,
//! unless the binary there is newer than every workspace source (`cargo test --workspace`
//! built it already). Must never: pick a binary of another profile or target directory
//! than the test's own, or leave a child running past its watchdog.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc::{self, Sender};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

/// Variables cargo sets for the test it runs (the package's, the crate's, the test's own
/// directories), and prefixes of more of them. They are kept from the inner `cargo build`:
/// build scripts rerun when one changes (ring's reads `CARGO_MANIFEST_DIR`), and a rerun
/// there would make the outer build start over the next time.
const SET_FOR_THE_TEST: [&str; 9] = [
    "CARGO",
    "CARGO_MANIFEST_DIR",
    "CARGO_MANIFEST_PATH",
    "CARGO_MANIFEST_LINKS",
    "CARGO_CRATE_NAME",
    "CARGO_PRIMARY_PACKAGE",
    "CARGO_TARGET_TMPDIR",
    "CARGO_RUSTC_CURRENT_DIR",
    "OUT_DIR",
];
const SET_FOR_THE_TEST_PREFIXES: [&str; 3] = ["CARGO_PKG_", "CARGO_BIN_", "CARGO_CFG_"];

/// Binaries and libraries already built by this process, by file name.
static BUILT: Mutex<BTreeMap<String, PathBuf>> = Mutex::new(BTreeMap::new());

/// The binary `bin` of the workspace package `package`, built with the running test's
/// profile into its target directory (once per test process; panics with cargo's output
/// when the build fails, which fails the test that asked).
pub fn workspace_binary(package: &str, bin: &str) -> PathBuf {
    let file = format!("{bin}{}", std::env::consts::EXE_SUFFIX);
    build_into_target(package, &["--bin", bin], &file)
}

/// The library of the workspace package `package` (a `cdylib` such as `logship-jni`'s
/// `liblogship_jni.so`, named `file`), found or built as [`workspace_binary`] finds or
/// builds a binary (`cargo test` builds a cdylib into `deps/` without copying it up).
pub fn workspace_library(package: &str, file: &str) -> PathBuf {
    build_into_target(package, &["--lib"], file)
}

/// Builds `package` (`what`: `--bin NAME` or `--lib`) with the running test's profile into
/// its target directory, once per test process; the path of `file` there.
fn build_into_target(package: &str, what: &[&str], file: &str) -> PathBuf {
    let mut built = BUILT.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(path) = built.get(file) {
        return path.clone();
    }
    let test = std::env::current_exe().expect("the test's own executable");
    // A test runs from `<target-dir>/<profile-dir>/deps/`.
    let profile_dir = test
        .parent()
        .and_then(Path::parent)
        .expect("the test executable lies in <target-dir>/<profile>/deps");
    let target_dir = profile_dir.parent().expect("a target directory");
    let path = profile_dir.join(file);
    // `cargo test --workspace` has already built every binary of the workspace next to
    // its tests. Asking cargo again, for one package, resolves that package's features
    // alone, so it would rebuild the library (a minute or more per package, and the
    // artifacts of the two feature sets overwrite each other's binary). A binary newer
    // than every source, manifest and the lock file is used as it is. A cdylib is built
    // too but left in `deps/` (its name there has no hash).
    for found in [path.clone(), profile_dir.join("deps").join(file)] {
        if newer_than_the_sources(&found) {
            built.insert(file.to_owned(), found.clone());
            return found;
        }
    }
    let mut cargo = Command::new(env!("CARGO"));
    for (name, _) in std::env::vars_os() {
        let text = name.to_string_lossy();
        if SET_FOR_THE_TEST.contains(&text.as_ref())
            || SET_FOR_THE_TEST_PREFIXES
                .iter()
                .any(|p| text.starts_with(p))
        {
            cargo.env_remove(&name);
        }
    }
    cargo
        .args(["build", "--quiet", "-p", package])
        .args(what)
        .arg("--target-dir")
        .arg(target_dir);
    match profile_dir.file_name().and_then(|n| n.to_str()) {
        Some("debug") => {}
        Some("release") => {
            cargo.arg("--release");
        }
        Some(profile) => {
            cargo.args(["--profile", profile]);
        }
        None => {}
    }
    let output = cargo
        .stdin(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", env!("CARGO")));
    assert!(
        output.status.success() && path.is_file(),
        "`cargo build -p {package} {}` failed ({}), or left no {path:?}:\n{}",
        what.join(" "),
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    built.insert(file.to_owned(), path.clone());
    path
}

/// Whether `artifact` exists and was written after the last change to what a workspace
/// binary or library is built from: each crate's manifest, build script and `src/`, the
/// root manifest and the lock file (make's rule, which `git checkout` and editors keep true
/// by touching what they write; tests and fixtures are not inputs). Any doubt (a file that
/// cannot be read) answers no, and cargo decides.
fn newer_than_the_sources(artifact: &Path) -> bool {
    newer_than_the_sources_of(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."),
        artifact,
    )
}

/// [`newer_than_the_sources`] for the workspace at `root`.
fn newer_than_the_sources_of(root: &Path, artifact: &Path) -> bool {
    let Ok(built) = artifact.metadata().and_then(|m| m.modified()) else {
        return false;
    };
    let older = |path: &Path| matches!(path.metadata().and_then(|m| m.modified()), Ok(changed) if changed <= built);
    if !older(&root.join("Cargo.toml")) || !older(&root.join("Cargo.lock")) {
        return false;
    }
    let Ok(crates) = std::fs::read_dir(root.join("crates")) else {
        return false;
    };
    let mut pending = Vec::new();
    for krate in crates {
        let Ok(krate) = krate else { return false };
        let dir = krate.path();
        let build_script = dir.join("build.rs");
        if !older(&dir.join("Cargo.toml")) || (build_script.exists() && !older(&build_script)) {
            return false;
        }
        pending.push(dir.join("src"));
    }
    // Depth-first over an explicit list (no recursion).
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return false;
        };
        for entry in entries {
            let Ok(entry) = entry else { return false };
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else if !older(&path) {
                return false;
            }
        }
    }
    true
}

/// Kills `child` if it is still running after `limit` (unless the returned sender is
/// used or dropped first), so a hang fails its test instead of stalling the run.
pub fn watchdog(child: &Child, limit: Duration) -> Sender<()> {
    let pid = child.id().to_string();
    let (done, finished) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        if let Err(mpsc::RecvTimeoutError::Timeout) = finished.recv_timeout(limit) {
            let _ = Command::new("kill").args(["-9", &pid]).status();
        }
    });
    done
}

/// Runs `command` with `stdin` as its standard input under a watchdog of `limit`, and
/// collects its output.
pub fn run_with_stdin(command: &mut Command, stdin: &[u8], limit: Duration) -> Output {
    use std::io::Write;
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn the child");
    let done = watchdog(&child, limit);
    let mut input = child.stdin.take().expect("stdin piped");
    let data = stdin.to_vec();
    let writer = std::thread::spawn(move || {
        // The child may exit early (bad options) and close its end: ignore the error.
        let _ = input.write_all(&data);
    });
    let output = child.wait_with_output().expect("wait for the child");
    let _ = done.send(());
    let _ = writer.join();
    output
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::{self, File};
    use std::time::{Duration, SystemTime};

    /// A workspace of two crates (one with a build script and a nested module) in a fresh
    /// directory, every file written at `then`, and an artifact written at `then + 1 s`.
    fn workspace(name: &str, then: SystemTime) -> (PathBuf, PathBuf) {
        let root =
            std::env::temp_dir().join(format!("logship-processes-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        for file in [
            "Cargo.toml",
            "Cargo.lock",
            "crates/a/Cargo.toml",
            "crates/a/src/lib.rs",
            "crates/a/src/deep/er/mod.rs",
            "crates/b/Cargo.toml",
            "crates/b/build.rs",
            "crates/b/src/main.rs",
            "crates/b/tests/e2e.rs",
        ] {
            let path = root.join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            File::create(&path).unwrap().set_modified(then).unwrap();
        }
        let artifact = root.join("target/debug/b");
        fs::create_dir_all(artifact.parent().unwrap()).unwrap();
        File::create(&artifact)
            .unwrap()
            .set_modified(then + Duration::from_secs(1))
            .unwrap();
        (root, artifact)
    }

    fn touch(path: &Path, at: SystemTime) {
        File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(at)
            .unwrap();
    }

    #[test]
    fn an_artifact_is_used_only_while_no_input_changed_after_it() {
        let then = SystemTime::now() - Duration::from_secs(3600);
        let later = then + Duration::from_secs(2);
        let (root, artifact) = workspace("fresh", then);
        assert!(newer_than_the_sources_of(&root, &artifact));
        // Tests and fixtures are not inputs of a binary.
        touch(&root.join("crates/b/tests/e2e.rs"), later);
        assert!(newer_than_the_sources_of(&root, &artifact));
        // Each input, changed after the artifact, makes it stale (cargo decides then).
        for input in [
            "crates/a/src/deep/er/mod.rs",
            "crates/a/src/lib.rs",
            "crates/b/build.rs",
            "crates/a/Cargo.toml",
            "Cargo.lock",
            "Cargo.toml",
        ] {
            touch(&root.join(input), later);
            assert!(
                !newer_than_the_sources_of(&root, &artifact),
                "{input} changed after the artifact, which was still used"
            );
            touch(&root.join(input), then);
            assert!(newer_than_the_sources_of(&root, &artifact), "{input}");
        }
        // No artifact, or no readable sources: cargo decides.
        assert!(!newer_than_the_sources_of(
            &root,
            &root.join("target/debug/none")
        ));
        fs::remove_dir_all(root.join("crates/a/src")).unwrap();
        fs::write(root.join("crates/a/src"), b"not a directory").unwrap();
        touch(&root.join("crates/a/src"), then);
        assert!(!newer_than_the_sources_of(&root, &artifact));
        let _ = fs::remove_dir_all(&root);
    }
}
