//! Runs the Java side's JUnit 5 tests (`mvn verify` in `java/`) against this build of the
//! native library and the in-repo intake, so that the README's test command covers the
//! JVM appenders (issue 31, point 9).
//!
//! Why it exists: the Log4j2 and Logback appenders are only tested end to end, in a real
//! JVM, with real HTTP to `logship-intake`. Under `CI=true` a missing `java` or `mvn`
//! fails the test (`.ci/run` installs Maven and fetches the Maven dependencies); elsewhere
//! the test says so and passes. Maven runs offline (`-o`): the dependencies must have
//! been fetched once (`java/build.sh` or `.ci/run`).
//!
//! The second test runs Log4j2's appender throughput benchmark (`java/bench/run.sh
//! --quick`, JMH) against the jar the first one built, so that the benchmark of issue 31
//! item 10a keeps running (about 30 s).

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use logship_intake::processes::{run_with_stdin, workspace_binary, workspace_library};

fn have(program: &str) -> bool {
    Command::new(program)
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// What `mvn verify` built: the jar and the intake it was tested against.
struct Built {
    jar: PathBuf,
    intake: PathBuf,
    out_dir: PathBuf,
}

/// Java and Maven are here (else: a failure under `CI=true`, a skip elsewhere).
fn java_and_maven() -> bool {
    if !have("java")
        || !Command::new("mvn")
            .arg("-v")
            .output()
            .is_ok_and(|o| o.status.success())
    {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "java and mvn are required under CI=true (.ci/run installs them)"
        );
        eprintln!("skipped: java or mvn is not installed");
        return false;
    }
    true
}

/// Runs `mvn verify` once for both tests (the second waits for the first's build).
fn verified() -> &'static Built {
    static BUILT: OnceLock<Built> = OnceLock::new();
    BUILT.get_or_init(verify)
}

#[test]
fn the_jvm_appenders_pass_their_junit_tests() {
    if java_and_maven() {
        assert!(verified().jar.exists());
    }
}

#[test]
fn log4j2s_appender_benchmark_runs_in_its_quick_form() {
    if !java_and_maven() {
        return;
    }
    let built = verified();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let results = built.out_dir.join("java-bench");
    let mut run = Command::new(root.join("java/bench/run.sh"));
    run.arg("--quick")
        .env("LOGSHIP_JAR", &built.jar)
        .env("LOGSHIP_INTAKE", &built.intake)
        .env("BENCH_OUT", &results)
        .env("MVN_FLAGS", "-o");
    let out = run_with_stdin(&mut run, b"", Duration::from_secs(300));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "java/bench/run.sh --quick failed:\n{table}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Every appender scored at every thread count of the quick form (the report fails
    // otherwise), and Logship's rows say what the intake received.
    for row in [
        "| 1 |",
        "| 2 |",
        "Logship / RAF",
        "| appender | 1 |",
        "| end2end | 2 |",
    ] {
        assert!(table.contains(row), "no {row:?} in the report:\n{table}");
    }
}

fn verify() -> Built {
    let intake = workspace_binary("logship-intake", "logship-intake");
    let out_dir = intake.parent().expect("target directory").to_path_buf();
    // The cdylib of this package, found fresh (or built) in the test's own target and
    // profile directory: cargo leaves it in `deps/` for an integration test.
    let lib = workspace_library("logship-jni", "liblogship_jni.so");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    // Each run gets the native library it was built with, in its own resource directory.
    let native = out_dir.join("java-native");
    let platform = native.join("linux-x86_64");
    std::fs::create_dir_all(&platform).unwrap();
    std::fs::copy(&lib, platform.join("liblogship_jni.so")).unwrap();
    let mut mvn = Command::new("mvn");
    mvn.current_dir(root.join("java")).args([
        "-B",
        "-q",
        "-o",
        &format!("-Dlogship.intake={}", intake.display()),
        &format!("-Dlogship.native.dir={}", native.display()),
        &format!(
            "-Dlogship.build.dir={}",
            out_dir.join("java-maven").display()
        ),
        "verify",
    ]);
    let out = run_with_stdin(&mut mvn, b"", Duration::from_secs(600));
    assert!(
        out.status.success(),
        "mvn verify failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Built {
        jar: out_dir.join("java-maven/logship-0.1.0.jar"),
        intake,
        out_dir,
    }
}
