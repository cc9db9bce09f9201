//! End-to-end test of `logship-lab --java` (the former `logship bench --java`): the real
//! binary compiles `lab/java/` with Debian's Log4j2, and runs the Java service in all
//! seven configurations, twice, with short runs (the stock Http appender to the intake and
//! to `ship --listen http://`, the Socket appender to `--listen tcp://` and to a sink that
//! discards, the File appender with and without `--follow`, logging off); the sidecars are
//! the `logship` binary, built when needed. Assertions are about behaviour, never speed:
//! every configuration serves requests; every event the service logged through logship
//! reaches the intake and the sidecar exits 0; nothing reaches it when nothing ships.
//! Skips locally without Java or the jars, with a message; fails under CI=true.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{lab, logship_binary, run_with_stdin, temp_path};
use serde_json::Value;

const JARS: &[&str] = &[
    "/usr/share/java/log4j-core.jar",
    "/usr/share/java/disruptor.jar",
    "/usr/share/java/jackson-databind.jar",
];

/// Runs `logship-lab` as `command` (which writes its `--json` report to `json`), asserts
/// it succeeded, and returns the report.
fn run_lab(command: &mut Command, json: &Path) -> Value {
    let output = run_with_stdin(command, b"", Duration::from_secs(400));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    serde_json::from_slice(&std::fs::read(json).expect("--json written")).expect("JSON report")
}

/// Java and Debian's jars are here (else: a failure under CI=true, a skip elsewhere).
fn java_ready() -> bool {
    let have_javac = Command::new("javac")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success());
    let missing: Vec<&&str> = JARS.iter().filter(|j| !Path::new(j).exists()).collect();
    if !have_javac || !missing.is_empty() {
        let why = format!("javac: {have_javac}, missing jars: {missing:?} (apt-get install openjdk-17-jdk-headless liblog4j2-java libdisruptor-java libjackson2-databind-java)");
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true and the Java lab cannot run: {why}"
        );
        eprintln!("skipping the Java lab test: {why}");
        return false;
    }
    true
}

#[test]
fn java_lab_runs_seven_configurations_in_two_rounds_and_logship_delivers_every_event_it_was_given()
{
    if !java_ready() {
        return;
    }
    let java_lab = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../lab/java");
    let json = temp_path("java-lab").with_extension("json");
    let out = temp_path("java-lab-out");
    let report = run_lab(
        lab()
            .args(["--java", "--duration-s", "1", "--connections", "8"])
            .arg("--logship")
            .arg(logship_binary())
            // Two interleaved rounds: the report must be their medians.
            .args(["--java-rounds", "2"])
            // Log4j2's smallest ring: what (b)'s Http appender still holds when the load
            // stops (one POST per event) drains in well under the 10 s cap even on a
            // slow machine, so the drain assertions below do not depend on its speed.
            .args(["--java-ring", "128"])
            .arg("--java-lab")
            .arg(&java_lab)
            .arg("--json")
            .arg(&json)
            .arg("--out")
            .arg(&out),
        &json,
    );
    let configs = report["configurations"].as_array().expect("configurations");
    let keys: Vec<&str> = configs.iter().filter_map(|c| c["key"].as_str()).collect();
    assert_eq!(keys, ["a", "b", "c", "d", "e", "f", "g"], "{report}");
    for c in configs {
        let key = c["key"].as_str().unwrap_or("?");
        let rounds = c["rounds_requests_per_sec"].as_array();
        assert_eq!(rounds.map(Vec::len), Some(2), "{key} ran twice: {c}");
        if key == "a" {
            // The stock Http appender throttles the service to one POST per event: on a
            // busy machine a one-second round can end before its first request does (the
            // report's median is then 0), so it must serve in one round of the two.
            let served = rounds.into_iter().flatten().any(|r| r.as_f64() > Some(0.0));
            assert!(served, "{key} served nothing in either round: {c}");
        } else {
            assert!(
                c["requests"].as_u64() > Some(0),
                "{key} served nothing: {c}"
            );
        }
        let logged = c["events"]["logged"].as_u64().unwrap_or(0);
        let delivered = c["events"]["delivered"].as_u64().unwrap_or(0);
        match key {
            // Through logship: every event logged arrives, the sidecar's summary and exit
            // code say so, and the lag was measured.
            "b" | "c" | "d" => {
                assert!(logged > 0, "{c}");
                assert_eq!(delivered, logged, "{key}: {c}");
                assert_eq!(c["drain_complete"], true, "{c}");
                assert_eq!(c["sidecar"]["exit_code"], 0, "{c}");
                assert!(c["ingest_lag_ms"]["p99"].as_f64().is_some(), "{c}");
                let summary = c["sidecar"]["summary"].as_str().unwrap_or("");
                assert!(
                    summary.contains("delivered") || summary.contains("shipped"),
                    "{c}"
                );
            }
            // The stock Http appender posts to the intake itself.
            "a" => assert!(delivered > 0 && delivered <= logged, "{c}"),
            // Nothing ships; the file (e) holds the events; with logging off the calls are
            // made (and counted) but nothing is written.
            "e" => {
                assert_eq!(delivered, 0, "{c}");
                assert!(
                    c["events"]["file_bytes"].as_u64() > Some(100 * logged),
                    "{c}"
                );
            }
            // The calibration: the Socket appender's bytes reached the discarding sink
            // (JsonLayout lines are well over 100 bytes each), and nothing the intake.
            "g" => {
                assert_eq!(delivered, 0, "{c}");
                assert!(
                    c["events"]["discarded_bytes"].as_u64() > Some(100 * logged),
                    "{c}"
                );
            }
            _ => assert_eq!(
                (delivered, c["events"]["file_bytes"].as_u64()),
                (0, Some(0)),
                "{c}"
            ),
        }
    }
    assert_eq!(
        report["targets"].as_array().map(Vec::len),
        Some(7),
        "{report}"
    );
    let calibration: Vec<&str> = report["calibration"]
        .as_array()
        .map(|a| a.iter().filter_map(|c| c["what"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(
        calibration,
        ["(c) / (g) requests/s", "(g) / (f) requests/s"],
        "{report}"
    );
    for file in ["java-report.md", "java-throughput.svg", "java-lag.svg"] {
        let text = std::fs::read_to_string(out.join(file)).expect(file);
        assert!(text.contains("(c) Socket to logship"), "{file}");
    }
    let _ = std::fs::remove_dir_all(out);
    let _ = std::fs::remove_file(json);
}

/// logship's jar for configuration (h): `LOGSHIP_JAR` when set, else built here as
/// `crates/logship-jni/tests/maven.rs` builds it (the cdylib in this test's profile, then
/// `mvn -o package` without the JUnit tests); `None` (with a message) without Maven
/// locally, a failure under CI=true.
fn logship_jar() -> Option<PathBuf> {
    if let Some(jar) = std::env::var_os("LOGSHIP_JAR") {
        return Some(PathBuf::from(jar));
    }
    let have_mvn = Command::new("mvn")
        .arg("-v")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have_mvn {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true and Maven is missing (.ci/run installs it)"
        );
        eprintln!("skipping the Java lab's (h): no mvn");
        return None;
    }
    let lib = logship_intake::processes::workspace_library("logship-jni", "liblogship_jni.so");
    // `<target>/<profile>/`, whether the library was found there or in its `deps/`.
    let out_dir = lib
        .ancestors()
        .skip(1)
        .find(|dir| dir.file_name().is_some_and(|name| name != "deps"))
        .expect("target directory")
        .to_path_buf();
    let native = out_dir.join("java-lab-native");
    let platform = native.join("linux-x86_64");
    std::fs::create_dir_all(&platform).unwrap();
    std::fs::copy(&lib, platform.join("liblogship_jni.so")).unwrap();
    let build_dir = out_dir.join("java-lab-maven");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut mvn = Command::new("mvn");
    mvn.current_dir(root.join("java")).args([
        "-B",
        "-q",
        "-o",
        "-DskipTests",
        "-DskipITs",
        &format!("-Dlogship.native.dir={}", native.display()),
        &format!("-Dlogship.build.dir={}", build_dir.display()),
        "package",
    ]);
    let out = run_with_stdin(&mut mvn, b"", Duration::from_secs(600));
    assert!(
        out.status.success(),
        "mvn package failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    Some(build_dir.join("logship-0.1.0.jar"))
}

#[test]
fn java_lab_row_h_runs_logships_own_appender_in_the_service_and_delivers_every_event() {
    if !java_ready() {
        return;
    }
    let Some(jar) = logship_jar() else {
        return;
    };
    let java_lab = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../lab/java");
    let json = temp_path("java-lab-h").with_extension("json");
    let report = run_lab(
        lab()
            .args(["--java", "--duration-s", "1", "--connections", "8"])
            .arg("--logship")
            .arg(logship_binary())
            .args(["--java-configs", "a,e,h", "--java-ring", "128"])
            .arg("--java-jar")
            .arg(&jar)
            .arg("--java-lab")
            .arg(&java_lab)
            .arg("--json")
            .arg(&json),
        &json,
    );
    let configs = report["configurations"].as_array().expect("configurations");
    let keys: Vec<&str> = configs.iter().filter_map(|c| c["key"].as_str()).collect();
    assert_eq!(keys, ["a", "e", "h"], "{report}");
    let h = &configs[2];
    assert_eq!(h["name"], "(h) Logship in-process", "{h}");
    assert!(h["requests"].as_u64() > Some(0), "{h}");
    let logged = h["events"]["logged"].as_u64().unwrap_or(0);
    assert!(logged > 0, "{h}");
    // Every event the service logged reached the intake, from inside the JVM (no
    // sidecar), and nothing went to a file.
    assert_eq!(h["events"]["delivered"].as_u64(), Some(logged), "{h}");
    assert_eq!(h["drain_complete"], true, "{h}");
    assert!(h["sidecar"]["exit_code"].is_null(), "{h}");
    assert!(h["ingest_lag_ms"]["p99"].as_f64().is_some(), "{h}");
    let targets: Vec<&str> = report["targets"]
        .as_array()
        .map(|a| a.iter().filter_map(|t| t["what"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(
        targets,
        ["(h) / (a) requests/s", "(h) / (e) requests/s"],
        "{report}"
    );
    let _ = std::fs::remove_file(json);
}
