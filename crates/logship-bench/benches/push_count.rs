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

use logship::{Level, Logship, Overflow, Record, Vendor};
use logship_intake::{Intake, IntakeConfig};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let events: u64 = std::env::var("LOGSHIP_PUSH_EVENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000);
    let vendor = match std::env::args().nth(1).as_deref() {
        None | Some("ndjson") => Vendor::Ndjson,
        Some("datadog") => Vendor::Datadog,
        Some(other) => return Err(format!("unknown vendor {other}: ndjson or datadog").into()),
    };
    let intake = Intake::start(IntakeConfig {
        keep_events: false,
        count_only: true,
        ..IntakeConfig::default()
    })?;
    let endpoint = match vendor {
        Vendor::Ndjson => intake.url("/logs"),
        _ => intake.url(""),
    };
    let capacity = usize::try_from(events)?.max(1);
    let (logship, guard) = Logship::builder()
        .vendor(vendor)
        .endpoint(endpoint)
        .api_key("bench-key")
        .service("bench")
        .hostname("bench-host")
        .max_batch_records(200)
        .linger(Duration::from_secs(600))
        .queue_capacity(capacity)
        .queue_max_bytes(capacity * 1024)
        .overflow(Overflow::Block(Duration::from_secs(60)))
        .max_in_flight(2)
        .adaptive_concurrency(false)
        .gzip(false)
        .spill(false)
        .report_to_stderr(false)
        .build()?;
    let started = Instant::now();
    for i in 0..events {
        let mut record = Record::new(Level::Info, "bench::orders");
        record
            .message(MESSAGE)
            .field("order_id", i)
            .field("region", "eu-west");
        logship
            .push(record)
            .map_err(|e| format!("record {i} refused: {e:?}"))?;
    }
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

/// Exactly 150 bytes of ASCII, as in the other benches.
const MESSAGE: &str =
    "order 4711 checked out: 3 items, total 149.90 EUR, paid by card via acme-pay in 182 ms; \
label queued for warehouse fra-2, priority normal, ETA 2 days.";
const _: () = assert!(MESSAGE.len() == 150);
