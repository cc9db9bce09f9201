//! The timing-free pipeline of the instruction-count benches (`push_count.rs`,
//! `cost_guard.rs`): what they build and push, written once.
//!
//! Everything that could make an instruction count depend on timing is fixed: batches
//! are cut by record count only (200 records, linger 10 min), requests in flight are a
//! fixed 2 (no adaptive growth, so the same threads start), the queue holds every record
//! (nothing is dropped) and spill is off.

use std::time::Duration;

use logship::{Builder, Level, Logship, Overflow, Record, Vendor};
use logship_intake::Intake;

use super::MSG150;

/// The builder of a pipeline shipping `events` events to `vendor`'s API on `intake`.
pub fn counted_pipeline(
    intake: &Intake,
    vendor: Vendor,
    events: u64,
    gzip: bool,
) -> Result<Builder, std::num::TryFromIntError> {
    let endpoint = match vendor {
        Vendor::Ndjson => intake.url("/logs"),
        _ => intake.url(""),
    };
    let capacity = usize::try_from(events)?.max(1) + 16;
    Ok(Logship::builder()
        .vendor(vendor)
        .endpoint(endpoint)
        .api_key("bench-key")
        .service("bench")
        .hostname("bench-host")
        .max_batch_records(200)
        .linger(Duration::from_secs(600))
        .queue_capacity(capacity)
        .queue_max_bytes(capacity * 2048)
        .overflow(Overflow::Block(Duration::from_secs(60)))
        .max_in_flight(2)
        .adaptive_concurrency(false)
        .gzip(gzip)
        .spill(false)
        .report_to_stderr(false))
}

/// Pushes `events` records (the 150-byte message, an `order_id` and a `region`) one by one.
pub fn push_orders(logship: &Logship, events: u64) -> Result<(), String> {
    for i in 0..events {
        let mut record = Record::new(Level::Info, "bench::orders");
        record
            .message(MSG150)
            .field("order_id", i)
            .field("region", "eu-west");
        logship
            .push(record)
            .map_err(|e| format!("record {i} refused: {e:?}"))?;
    }
    Ok(())
}
