//! `logger` from util-linux against the real `logship ship --listen syslog+tcp://
//! --listen syslog+udp://` process, shipping to the strict intake: RFC 5424 over TCP
//! (octet-counted) and UDP, and RFC 3164 over TCP, each arriving with its PRI, app-name,
//! procid, msgid and structured data as the event's own fields. The in-process listener
//! tests (src/listen/stream/tests.rs) cover the framings and faults; this one covers the
//! command. Skips locally without `logger`, with a message; fails under CI=true.

mod common;

use std::process::Command;
use std::time::Duration;

use common::ShipProcess;
use logship_intake::{Intake, IntakeConfig};
use serde_json::Value;

const WAIT: Duration = Duration::from_secs(60);

/// Runs `logger -n 127.0.0.1 -P PORT FLAGS... MESSAGE`.
fn logger(port: u16, flags: &[&str], message: &str) {
    let out = Command::new("logger")
        .args(["-n", "127.0.0.1", "-P", &port.to_string()])
        .args(flags)
        .arg(message)
        .output()
        .expect("run logger");
    assert!(
        out.status.success(),
        "logger {flags:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn logger_over_syslog_tcp_and_udp_arrives_parsed_through_the_command() {
    if Command::new("logger").arg("--version").output().is_err() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true and util-linux `logger` is missing (apt-get install bsdutils)"
        );
        eprintln!("skipping: no `logger` (apt-get install bsdutils)");
        return;
    }
    let intake = Intake::start(IntakeConfig::default()).expect("intake");
    let mut ship = ShipProcess::start(
        &intake.url("/"),
        &[
            "--listen",
            "syslog+tcp://127.0.0.1:0",
            "--listen",
            "syslog+udp://127.0.0.1:0",
            "--no-spill",
        ],
        Duration::from_secs(120),
    );
    let tcp = ship.port("syslog+tcp");
    let udp = ship.port("syslog+udp");

    logger(
        tcp,
        &[
            "-T",
            "--octet-count",
            "--rfc5424",
            "-t",
            "billing",
            "--id=4242",
            "-p",
            "local3.warning",
            "--msgid",
            "PAY7",
            "--sd-id",
            "order@32473",
            "--sd-param",
            "id=\"42\"",
        ],
        "card declined",
    );
    logger(
        udp,
        &[
            "-d",
            "--rfc5424",
            "-t",
            "udpapp",
            "-p",
            "user.err",
            "--msgid",
            "M1",
        ],
        "over udp",
    );
    logger(
        tcp,
        &[
            "-T",
            "--rfc3164",
            "-t",
            "bsdapp",
            "--id=77",
            "-p",
            "daemon.debug",
        ],
        "old style",
    );
    assert!(
        intake.wait_for_events(3, WAIT),
        "{} of 3: {:?}",
        intake.stats().events,
        ship.stderr.lines()
    );
    let (code, stderr) = ship.stop();
    assert_eq!(code, Some(0), "{stderr:?}");

    let events: Vec<Value> = intake.events().into_iter().map(|e| e.value).collect();
    assert_eq!(events.len(), 3, "{events:?}");
    let by = |m: &str| {
        events
            .iter()
            .find(|e| e["message"] == m)
            .unwrap_or_else(|| panic!("{m} missing: {events:?}"))
            .clone()
    };
    let e = by("card declined");
    assert_eq!(e["level"], "WARN", "{e}");
    assert_eq!(e["target"], "billing", "{e}");
    assert_eq!(e["syslog.facility"], "local3", "{e}");
    assert_eq!(e["syslog.procid"], "4242", "{e}");
    assert_eq!(e["syslog.msgid"], "PAY7", "{e}");
    assert_eq!(e["order@32473.id"], "42", "{e}");
    assert!(e["host"].as_str().is_some_and(|h| !h.is_empty()), "{e}");
    let e = by("over udp");
    assert_eq!(e["level"], "ERROR", "{e}");
    assert_eq!(e["syslog.appname"], "udpapp", "{e}");
    assert_eq!(e["syslog.msgid"], "M1", "{e}");
    let e = by("old style");
    assert_eq!(e["level"], "DEBUG", "{e}");
    assert_eq!(e["target"], "bsdapp", "{e}");
    assert_eq!(e["syslog.procid"], "77", "{e}");
    assert_eq!(e["syslog.facility"], "daemon", "{e}");
}
