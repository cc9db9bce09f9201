//! # HTTPS against plain HTTP (plain `main`)
//!
//! What it measures (issue #14): delivered events/s over HTTPS and over plain HTTP, in the
//! same run, through an intake that answers at once and through one that answers after
//! 20 ms (default pipeline settings, 150-byte messages, gzip on, one pushing thread that
//! waits for room so nothing is dropped); the TLS handshakes the intake accepted per
//! 100,000 events (connection reuse keeps it near the number of connections); and this
//! process's peak RSS after the HTTPS phases (the intake runs in the same process, so it is
//! counted too). Target: HTTPS costs at most 15 % of plain HTTP's throughput at 20 ms.
//!
//! How to run: `cargo bench -p logship-bench --bench tls` (`LOGSHIP_BENCH_EVENTS`, default
//! 300,000 per phase). `cargo test --benches` runs it with 10,000 events as a smoke test.

#[allow(dead_code)]
mod common;

use std::time::{Duration, Instant};

use logship::{Level, Logship, Overflow, Record};
use logship_intake::{Intake, IntakeConfig, ThrowawayCa, TlsServer};

use common::MSG150;

const WAIT: Duration = Duration::from_secs(300);

struct Run {
    events_per_sec: f64,
    handshakes: u64,
    requests: u64,
}

fn run(delay: Duration, tls: Option<(&TlsServer, &std::path::Path)>, events: u64) -> Run {
    let intake = Intake::start(IntakeConfig {
        delay,
        keep_events: false,
        tls: tls.map(|(s, _)| s.clone()),
        ..IntakeConfig::default()
    })
    .expect("intake");
    let mut builder = Logship::builder()
        .endpoint(intake.url("/logs"))
        .spill(false)
        .report_to_stderr(false)
        .proxy("none")
        .overflow(Overflow::Block(Duration::from_secs(10)));
    if let Some((_, ca)) = tls {
        builder = builder.tls_ca_file(ca);
    }
    let (logship, guard) = builder.build().expect("pipeline");
    let started = Instant::now();
    for i in 0..events {
        let mut r = Record::new(Level::Info, "bench");
        r.message(MSG150).field("seq", i);
        let _ = logship.push(r);
    }
    assert!(
        intake.wait_for_events(events as usize, WAIT),
        "not all delivered: {:?}",
        logship.stats()
    );
    let secs = started.elapsed().as_secs_f64();
    drop(guard);
    let s = intake.stats();
    Run {
        events_per_sec: events as f64 / secs,
        handshakes: s.tls_handshakes,
        requests: s.requests,
    }
}

fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map(|kb| kb / 1024.0)
        .unwrap_or(0.0)
}

fn main() {
    let smoke =
        std::env::args().any(|a| a == "--test") || !std::env::args().any(|a| a == "--bench");
    let events: u64 = std::env::var("LOGSHIP_BENCH_EVENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if smoke { 10_000 } else { 300_000 });
    let ca = ThrowawayCa::new("bench-ca").expect("ca");
    let cert = ca.server_cert(&["127.0.0.1"]).expect("cert");
    let server = TlsServer::from_pem(&cert.cert_pem, &cert.key_pem, None).expect("tls");
    let ca_file = std::env::temp_dir().join(format!("logship-bench-ca-{}.pem", std::process::id()));
    std::fs::write(&ca_file, ca.cert_pem()).expect("ca file");

    println!("| intake | plain HTTP events/s | HTTPS events/s | HTTPS cost | TLS handshakes per 100,000 events | requests |");
    println!("|---|---:|---:|---:|---:|---:|");
    for (name, delay) in [
        ("0 ms", Duration::ZERO),
        ("20 ms", Duration::from_millis(20)),
    ] {
        let plain = run(delay, None, events);
        let https = run(delay, Some((&server, &ca_file)), events);
        let cost = 100.0 * (1.0 - https.events_per_sec / plain.events_per_sec);
        println!(
            "| {name} | {:.0} | {:.0} | {cost:.1} % | {:.1} | {} |",
            plain.events_per_sec,
            https.events_per_sec,
            https.handshakes as f64 * 100_000.0 / events as f64,
            https.requests,
        );
    }
    println!(
        "\npeak RSS of this process (pipeline and intake, after all phases): {:.1} MiB",
        peak_rss_mib()
    );
    let _ = std::fs::remove_file(&ca_file);
}
