//! Real clients from PyPI live against `logship ship --listen http://127.0.0.1:0`, which
//! ships to the strict intake: the OpenTelemetry SDK's OTLP/HTTP log exporter,
//! datadog-api-client and splunk-handler (`tests/fixtures/clients/*.py`). Every numbered
//! event must arrive once, with its level and the fields the script sets.
//!
//! Needs the venv `.ci/run` installs (`$LOGSHIP_CLIENTS_VENV`, else `/work/venv19`):
//! skips with a message when missing, and fails when `CI=true`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use common::ShipProcess;
use logship_intake::{Intake, IntakeConfig};

const WAIT: Duration = Duration::from_secs(60);
const N: usize = 5;

/// The venv's python, or why the test cannot run.
fn python() -> Option<PathBuf> {
    let venv = std::env::var_os("LOGSHIP_CLIENTS_VENV")
        .map_or_else(|| PathBuf::from("/work/venv19"), PathBuf::from);
    let python = venv.join("bin/python");
    if python.exists() {
        return Some(python);
    }
    let why = format!(
        "the PyPI clients' venv {} is missing (.ci/run installs it)",
        venv.display()
    );
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{why}");
    eprintln!("skipped: {why}");
    None
}

/// Runs `script` against a fresh listener shipping to a fresh intake; returns the
/// intake's events once `N` arrived and logship exited 0 on SIGTERM.
fn run_client(python: &Path, script: &str) -> Vec<serde_json::Value> {
    let intake = Intake::start(IntakeConfig::default()).expect("intake");
    let mut ship = ShipProcess::start(
        &intake.url("/"),
        &["--listen", "http://127.0.0.1:0", "--no-spill"],
        Duration::from_secs(120),
    );
    let port = ship.port("http");
    let out = Command::new(python)
        .arg(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/clients")
                .join(script),
        )
        .arg(format!("http://127.0.0.1:{port}"))
        .arg(N.to_string())
        .output()
        .expect("run the client");
    let arrived = intake.wait_for_events(N, WAIT);
    let (code, stderr) = ship.stop();
    assert!(
        out.status.success(),
        "{script}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(arrived, "{script}: {} of {N}", intake.stats().events);
    assert_eq!(code, Some(0), "{script}: {stderr:?}");
    let events: Vec<serde_json::Value> = intake.events().into_iter().map(|e| e.value).collect();
    assert_eq!(events.len(), N, "{script}: every event once: {events:?}");
    events
}

/// The event whose message is `event {i}`, failing the test without exactly one.
fn numbered<'a>(events: &'a [serde_json::Value], script: &str, i: usize) -> &'a serde_json::Value {
    let message = format!("event {i}");
    let mut found = events.iter().filter(|e| e["message"] == message.as_str());
    let e = found
        .next()
        .unwrap_or_else(|| panic!("{script}: {message} missing: {events:?}"));
    assert!(found.next().is_none(), "{script}: {message} twice");
    e
}

#[test]
fn opentelemetry_sdk_otlp_http_exporter_delivers_every_record_with_severity_and_attributes() {
    let Some(python) = python() else { return };
    let events = run_client(&python, "otel_logs.py");
    for i in 0..N {
        let e = numbered(&events, "otel", i);
        assert_eq!(e["level"], "WARN", "{e}");
        assert_eq!(e["seq"], i, "{e}");
        assert_eq!(e["service.name"], "otel-client", "{e}");
        assert_eq!(e["target"], "otel.client", "logger name: {e}");
    }
}

#[test]
fn datadog_api_client_delivers_every_log_with_status_and_its_fields() {
    let Some(python) = python() else { return };
    let events = run_client(&python, "datadog_logs.py");
    for i in 0..N {
        let e = numbered(&events, "datadog", i);
        assert_eq!(e["level"], "WARN", "{e}");
        assert_eq!(e["seq"], i, "{e}");
        assert_eq!(e["service"], "dd-client", "{e}");
        assert_eq!(e["host"], "client-host", "{e}");
        assert_eq!(e["source"], "python", "ddsource: {e}");
        // ddtags "env:test,client:datadog-api-client" become fields.
        assert_eq!(e["env"], "test", "{e}");
        assert_eq!(e["client"], "datadog-api-client", "{e}");
    }
}

/// splunk-handler sends the formatted message as a string `event` with no severity, so
/// only the envelope's fields are asserted.
#[test]
fn splunk_handler_delivers_every_event_with_its_envelope_fields() {
    let Some(python) = python() else { return };
    let events = run_client(&python, "splunk_hec.py");
    for i in 0..N {
        let e = numbered(&events, "splunk", i);
        assert_eq!(e["source"], "splunk-client", "{e}");
        assert_eq!(e["sourcetype"], "_json", "{e}");
        assert_eq!(e["index"], "main", "{e}");
    }
}
