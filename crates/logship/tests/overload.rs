//! Overload: many threads logging flat out into a pipeline that cannot keep up.
//!
//! What must hold whatever the machine's speed: every call is accounted for exactly
//! (delivered + dropped = calls, nothing failed or left over), something is still
//! delivered while the callers are being dropped, and callers that are being dropped and
//! back off (see `queue::refuse`) still return: the test ending is part of the assertion.
//! How much is delivered is a benchmark's business (`cargo bench -p logship-bench --bench
//! overload`), not this test's.

mod common;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use tracing_subscriber::prelude::*;

const THREADS: usize = 16;

/// An intake that answers every request after 50 ms, one request at a time, behind a
/// 100-record queue: far slower than 16 threads can log, so the queue is full nearly
/// all the time.
fn slow_pipeline(intake: &logship_intake::Intake) -> logship::Builder {
    intake.set_delay(Duration::from_millis(50));
    builder(intake)
        .queue_capacity(100)
        .max_in_flight(1)
        .adaptive_concurrency(false)
        .spill(false)
        .shutdown_timeout(Duration::from_secs(30))
}

/// Runs `call` flat out on THREADS threads until `until` has passed AND the pipeline has
/// delivered something; returns how many calls were made.
fn flat_out(
    logship: &logship::Logship,
    until: Duration,
    call: impl Fn() + Send + Sync + Clone + 'static,
) -> u64 {
    let calls = Arc::new(AtomicU64::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let threads: Vec<_> = (0..THREADS)
        .map(|_| {
            let (calls, stop, call) = (calls.clone(), stop.clone(), call.clone());
            std::thread::spawn(move || {
                let mut mine = 0u64;
                while !stop.load(Relaxed) {
                    call();
                    mine += 1;
                }
                calls.fetch_add(mine, Relaxed);
            })
        })
        .collect();
    let started = Instant::now();
    // Awaited, not slept on: delivery under overload must make progress.
    while started.elapsed() < until || logship.stats().events_delivered == 0 {
        assert!(
            started.elapsed() < WAIT,
            "nothing delivered while {THREADS} threads were being dropped: {:?}",
            logship.stats()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    stop.store(true, Relaxed);
    for t in threads {
        t.join().expect("a logging thread panicked");
    }
    calls.load(Relaxed)
}

fn assert_exact(logship: &logship::Logship, calls: u64) {
    let s = logship.stats();
    assert!(
        s.dropped_queue_full > 0,
        "the pipeline was not overloaded: {s:?}"
    );
    assert!(s.events_delivered > 0, "nothing delivered: {s:?}");
    assert_eq!(
        s.enqueued + s.dropped(),
        calls,
        "calls not accounted for: {s:?}"
    );
    assert_eq!(s.events_delivered + s.dropped(), calls, "{s:?}");
    assert_eq!(
        s.events_failed + s.events_abandoned + s.events_spilled,
        0,
        "{s:?}"
    );
}

#[test]
fn tracing_calls_under_overload_are_delivered_or_counted_as_dropped_exactly() {
    let intake = intake();
    let (layer, guard) = slow_pipeline(&intake).build_layer().unwrap();
    let logship = layer.logship().clone();
    let dispatch = tracing::Dispatch::new(tracing_subscriber::registry().with(layer));
    let calls = flat_out(&logship, Duration::from_millis(300), move || {
        tracing::dispatcher::with_default(&dispatch, || {
            tracing::info!(a = 1u64, b = "two", "overloaded {}", 3);
        });
    });
    drop(guard);
    assert_exact(&logship, calls);
    assert_eq!(intake.stats().events, logship.stats().events_delivered);
}

#[test]
fn pushed_records_under_overload_are_delivered_or_counted_as_dropped_exactly() {
    let intake = intake();
    let (logship, guard) = slow_pipeline(&intake).build().unwrap();
    let handle = logship.clone();
    let calls = flat_out(&logship, Duration::from_millis(300), move || {
        let _ = handle.push(rec("overloaded"));
    });
    drop(guard);
    assert_exact(&logship, calls);
    assert_eq!(intake.stats().events, logship.stats().events_delivered);
}
