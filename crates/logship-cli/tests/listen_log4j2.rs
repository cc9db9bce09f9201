//! Real Log4j2 clients of `logship ship --listen http://...` and `tcp://...`: `tests/fixtures/java/
//! LogLoad.java`, compiled with `javac` against Debian's Log4j2 2.19 and Jackson
//! (`liblog4j2-java`, `libjackson2-databind-java`, OpenJDK 17; `.ci/run` installs them),
//! logs through its stock `Http` appender, then its `Socket` appender (TCP), with `JsonLayout` into the listener, which
//! ships to the strict intake. Every event must arrive with its level, logger, thread,
//! message, context map and exception. Skips locally without `javac` or the jars, with
//! a message; fails under CI=true.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::{temp_path, ShipProcess};
use logship_intake::{Intake, IntakeConfig};

const WAIT: Duration = Duration::from_secs(120);
const JARS: &[&str] = &[
    "/usr/share/java/log4j-api.jar",
    "/usr/share/java/log4j-core.jar",
    "/usr/share/java/jackson-core.jar",
    "/usr/share/java/jackson-databind.jar",
    "/usr/share/java/jackson-annotations.jar",
];
const EVENTS: u64 = 40;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/java")
}

/// Compiles LogLoad.java; `None` (with a message) when Java or the jars are missing
/// locally; a failure under CI=true.
fn compile() -> Option<(PathBuf, String)> {
    let have_javac = Command::new("javac")
        .arg("-version")
        .output()
        .is_ok_and(|o| o.status.success());
    let missing: Vec<&str> = JARS
        .iter()
        .copied()
        .filter(|j| !Path::new(j).exists())
        .collect();
    if !have_javac || !missing.is_empty() {
        let why = format!("javac: {have_javac}, missing jars: {missing:?} (apt-get install openjdk-17-jdk-headless liblog4j2-java libjackson2-databind-java)");
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true and the Log4j2 client cannot run: {why}"
        );
        eprintln!("skipping the Log4j2 test: {why}");
        return None;
    }
    let classes = temp_path("log4j2-classes");
    std::fs::create_dir_all(&classes).unwrap();
    let cp = JARS.join(":");
    let out = Command::new("javac")
        .args(["-cp", &cp, "-d"])
        .arg(&classes)
        .arg(fixtures().join("LogLoad.java"))
        .output()
        .expect("javac");
    assert!(
        out.status.success(),
        "javac: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cp = format!("{cp}:{}", classes.display());
    Some((classes, cp))
}

#[test]
fn log4j2_http_appender_with_json_layout_delivers_every_event_with_its_fields() {
    run_log_load("log4j2-http.xml", "http", &["--listen-token", "j-tok"]);
}

#[test]
fn log4j2_socket_appender_with_json_layout_delivers_every_event_with_its_fields() {
    run_log_load("log4j2-socket.xml", "tcp", &[]);
}

#[test]
fn log4j2_socket_events_reach_datadog_with_the_in_process_appenders_error_fields() {
    let Some(events) = deliver(
        "log4j2-socket.xml",
        "tcp",
        &["--vendor", "datadog", "--api-key", "k-dd"],
        Some("k-dd"),
    ) else {
        return;
    };
    for i in 0..EVENTS {
        let e = event(&events, i);
        assert_eq!(e["ddsource"], "java", "no source configured: java, {e}");
        if i % 4 != 3 {
            assert!(e.get("error.stack").is_none(), "{e}");
            continue;
        }
        assert_eq!(e["error.kind"], "java.lang.IllegalStateException", "{e}");
        assert_eq!(e["error.message"], "card declined", "{e}");
        let stack = e["error.stack"].as_str().expect("error.stack");
        // As printStackTrace prints it: the suppressed exception and its own cause one
        // tab in (their frames two), before the cause; the causes were made where their
        // exceptions were, so all their frames are common ones: `... n more`.
        let order = [
            "java.lang.IllegalStateException: card declined\n\tat LogLoad.log(LogLoad.java:",
            "\n\tSuppressed: java.io.UncheckedIOException: close failed\n\t\tat LogLoad.log(LogLoad.java:",
            "\n\tCaused by: java.io.IOException: reset\n\t\t... ",
            " more\nCaused by: java.io.IOException: socket closed\n\t... ",
        ];
        let mut from = 0;
        for part in order {
            let at = stack[from..]
                .find(part)
                .unwrap_or_else(|| panic!("{part:?} not after byte {from} in {stack}"));
            from += at + part.len();
        }
        assert!(e.get("thrown.name").is_some(), "{e}");
    }
}

/// Runs LogLoad with the Log4j2 configuration `config` against `ship --listen
/// SCHEME://127.0.0.1:0` (with `listen_args`) shipping to the strict intake, and asserts
/// every event arrived once with its level, logger, thread, message, context and exception.
/// The configuration reads `logship.url`, `logship.port` and `logship.token`.
fn run_log_load(config: &str, scheme: &str, listen_args: &[&str]) {
    let Some(events) = deliver(config, scheme, listen_args, None) else {
        return;
    };
    for i in 0..EVENTS {
        let e = event(&events, i);
        let (level, logger) = match i % 4 {
            0 => ("INFO", "com.example.LogLoad"),
            1 => ("WARN", "com.example.LogLoad"),
            2 => ("DEBUG", "com.example.db.Pool"),
            _ => ("ERROR", "com.example.LogLoad"),
        };
        assert_eq!(e["level"], level, "{e}");
        assert_eq!(e["target"], logger, "{e}");
        let thread = if i < EVENTS / 2 { "main" } else { "worker-1" };
        assert_eq!(e["thread"], thread, "{e}");
        assert_eq!(e["requestId"], format!("r-{i}").as_str(), "{e}");
        if i % 4 == 3 {
            let text = e.to_string();
            assert!(
                text.contains("IllegalStateException") && text.contains("card declined"),
                "{e}"
            );
            assert!(
                text.contains("socket closed") && text.contains("LogLoad.log(LogLoad.java:"),
                "{e}"
            );
        }
    }
}

/// The event LogLoad logged as `java-{i}` (a failure naming it when missing).
fn event(events: &[serde_json::Value], i: u64) -> &serde_json::Value {
    let message = format!("java-{i}");
    events
        .iter()
        .find(|v| v["message"] == message.as_str())
        .unwrap_or_else(|| panic!("{message} missing"))
}

/// Runs LogLoad with the Log4j2 configuration `config` against `ship --listen
/// SCHEME://127.0.0.1:0` (with `ship_args`) shipping to the strict intake (which wants
/// `api_key`, if any), and asserts every event arrived once; the events (`None`: Java is
/// missing locally). The configuration reads `logship.url`, `logship.port` and
/// `logship.token`.
fn deliver(
    config: &str,
    scheme: &str,
    ship_args: &[&str],
    api_key: Option<&str>,
) -> Option<Vec<serde_json::Value>> {
    let (classes, cp) = compile()?;
    let intake = Intake::start(IntakeConfig {
        api_key: api_key.map(str::to_owned),
        ..IntakeConfig::default()
    })
    .expect("intake");
    let listen = format!("{scheme}://127.0.0.1:0");
    let mut args = vec!["--listen", listen.as_str(), "--no-spill"];
    args.extend_from_slice(ship_args);
    let endpoint = intake.url(if api_key.is_some() {
        "/api/v2/logs"
    } else {
        "/"
    });
    let mut ship = ShipProcess::start(&endpoint, &args, Duration::from_secs(240));
    let port = ship.port(scheme);
    let java = Command::new("java")
        .args(["-cp", &cp])
        .arg(format!(
            "-Dlog4j.configurationFile={}",
            fixtures().join(config).display()
        ))
        .arg(format!("-Dlogship.url=http://127.0.0.1:{port}/"))
        .arg(format!("-Dlogship.port={port}"))
        .arg("-Dlogship.token=j-tok")
        .args(["LogLoad", &EVENTS.to_string()])
        .output()
        .expect("java");
    let java_err = String::from_utf8_lossy(&java.stderr).into_owned();
    assert!(java.status.success(), "java: {java_err}");
    assert!(
        !java_err.contains("ERROR"),
        "the appender reported an error: {java_err}"
    );
    assert!(
        intake.wait_for_events(EVENTS as usize, WAIT),
        "{} of {EVENTS}",
        intake.stats().events
    );
    let (code, stderr) = ship.stop();
    assert_eq!(code, Some(0), "{stderr:?}");

    let events: Vec<serde_json::Value> = intake.events().into_iter().map(|e| e.value).collect();
    assert_eq!(events.len() as u64, EVENTS);
    let _ = std::fs::remove_dir_all(classes);
    Some(events)
}
