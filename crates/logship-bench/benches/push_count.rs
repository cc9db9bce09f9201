//! # Instructions per pushed record (plain `main`, run under callgrind)
//!
//! What it measures: the instructions the whole pipeline spends to ship
//! `LOGSHIP_PUSH_EVENTS` records (default 200,000), each with a 150-byte message and two
//! fields, handed over one by one with [`Logship::push`] and delivered to a count-only
//! [`Intake`] on 127.0.0.1 in this process (it decodes and counts, nothing else, so the
//! shipper's own work dominates). Instruction counts repeat on a noisy machine where
//! timings do not, so this is the number to compare before and after a change of the
//! library's structure.
//!
//! Everything that could make the count depend on timing is fixed: batches are cut by
//! record count only (200 records, linger 10 min), requests in flight are a fixed 2 (no
//! adaptive growth, so the same threads start), the queue holds every record (nothing is
//! dropped) and gzip is off (it would be most of the count and is not what a change of
//! structure touches). The vendor is the first argument: `ndjson` (default) or `datadog`.
//!
//! How to run (release profile; about a minute each under callgrind on two cores):
//!
//! ```text
//! cargo bench -p logship-bench --bench push_count --no-run
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/push.%p \
//!     target/release/deps/push_count-<hash> datadog
//! callgrind_annotate --inclusive=yes /tmp/push.<pid> | head -30
//! ```
//!
//! Without valgrind it prints the events delivered and the wall time.

use std::time::{Duration, Instant};

#[allow(dead_code)]
mod common;

use common::counted::{counted_pipeline, push_orders};
use logship::Vendor;
use logship_intake::{Intake, IntakeConfig};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let events: u64 = std::env::var("LOGSHIP_PUSH_EVENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000);
    // `cargo bench` passes `--bench`: flags are not a vendor.
    let vendor = match std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .as_deref()
    {
        None | Some("ndjson") => Vendor::Ndjson,
        Some("datadog") => Vendor::Datadog,
        Some(other) => return Err(format!("unknown vendor {other}: ndjson or datadog").into()),
    };
    let intake = Intake::start(IntakeConfig {
        keep_events: false,
        count_only: true,
        ..IntakeConfig::default()
    })?;
    let (logship, guard) = counted_pipeline(&intake, vendor, events, false)?.build()?;
    let started = Instant::now();
    push_orders(&logship, events)?;
    logship.flush(Duration::from_secs(600))?;
    let stats = logship.stats();
    drop(guard);
    println!(
        "{:?}: {} of {events} events delivered in {} requests, {:.2} s",
        vendor,
        stats.events_delivered,
        stats.requests,
        started.elapsed().as_secs_f64()
    );
    if stats.events_delivered != events {
        return Err("not every event was delivered".into());
    }
    Ok(())
}
