//! Shared helpers for the end-to-end tests: a real intake on loopback and a pipeline
//! pointed at it.
#![allow(dead_code)]

use std::time::Duration;

use logship::{Builder, Level, Logship, Record};
use logship_intake::{Intake, IntakeConfig};

/// Generous upper bound for waits that normally finish in milliseconds.
pub const WAIT: Duration = Duration::from_secs(30);

pub fn intake() -> Intake {
    Intake::start(IntakeConfig::default()).expect("start intake")
}

/// A builder pointed at `intake`, quiet on stderr, with short linger so tests don't idle.
pub fn builder(intake: &Intake) -> Builder {
    Logship::builder()
        .endpoint(intake.url("/logs"))
        .linger(Duration::from_millis(50))
        .report_to_stderr(false)
}

/// A loopback URL where nothing listens (connections are refused).
pub fn dead_endpoint() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = listener.local_addr().expect("addr").port();
    drop(listener);
    format!("http://127.0.0.1:{port}/logs")
}

pub fn rec(message: &str) -> Record {
    let mut r = Record::new(Level::Info, "test");
    r.message(message);
    r
}

pub fn numbered(i: usize) -> Record {
    let mut r = Record::new(Level::Info, "test");
    r.message(&format!("event {i}")).field("seq", i as u64);
    r
}

/// The `seq` fields the intake received, sorted.
pub fn received_seqs(intake: &Intake) -> Vec<u64> {
    let mut seqs: Vec<u64> = intake
        .events()
        .iter()
        .filter_map(|e| e.value.get("seq").and_then(|v| v.as_u64()))
        .collect();
    seqs.sort_unstable();
    seqs
}
