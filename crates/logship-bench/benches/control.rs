//! # The cost of the caller-side check of burst limits and sampling (divan, issue #17)
//!
//! What it measures: the time and allocations of one `tracing::info!(a = 1u64, "...")`
//! call on one thread through a `tracing_subscriber::Registry` with:
//!
//! - `floor_noop_layer`: a layer that does nothing (the cost of `tracing`'s dispatch
//!   alone: the floor every layer pays);
//! - `burst_suppressed`: logship's layer with a burst limit of 1/s at INFO, so (after the
//!   first call) every call is held back by the check: the difference to the floor is the
//!   check (a table look-up, one clock read, one compare-and-swap, two counter adds);
//! - `sampled_out`: logship's layer keeping 0% of INFO at random (`sample_by_trace`
//!   off, so sampling is decided before the record is built);
//! - `no_limit_at_this_level`: a burst limit at DEBUG only, so INFO calls pass the check
//!   (two array reads) and are built and queued: compare with `log_call.rs`' end2end row.
//!
//! How to run: `cargo bench -p logship-bench --bench control` (a few seconds).
//! `cargo test -p logship-bench --benches` runs each benchmark once.
//! The `alloc` rows count allocations on the calling thread: the check allocates nothing.

use std::time::Duration;

use divan::Bencher;
use logship::{Level, Logship};
use logship_intake::{Intake, IntakeConfig};
use tracing_subscriber::layer::SubscriberExt;

#[global_allocator]
static ALLOC: divan::AllocProfiler = divan::AllocProfiler::system();

fn main() {
    divan::main();
}

/// A layer that does nothing.
struct Noop;
impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Noop {}

fn pipeline(intake: &Intake, tune: impl FnOnce(logship::Builder) -> logship::Builder) -> Logship {
    let builder = Logship::builder()
        .endpoint(intake.url("/logs"))
        .report_to_stderr(false)
        .spill(false)
        .shutdown_timeout(Duration::from_secs(5));
    let (logship, guard) = tune(builder).build().expect("pipeline");
    std::mem::forget(guard); // shut down explicitly below
    logship
}

fn run_with(bencher: Bencher, dispatch: tracing::Dispatch) {
    tracing::dispatcher::with_default(&dispatch, || {
        bencher.bench_local(|| {
            tracing::info!(a = 1u64, "a message of the kind an error storm repeats");
        });
    });
}

fn with_logship(bencher: Bencher, tune: impl FnOnce(logship::Builder) -> logship::Builder) {
    let intake = Intake::start(IntakeConfig::default()).expect("intake");
    let logship = pipeline(&intake, tune);
    let layer = logship::LogshipLayer::new(logship.clone());
    run_with(
        bencher,
        tracing::Dispatch::new(tracing_subscriber::registry().with(layer)),
    );
    let report = logship.shutdown(Duration::from_secs(5));
    assert!(report.stats.enqueued + report.stats.dropped() + report.stats.suppressed() > 0);
}

#[divan::bench]
fn floor_noop_layer(bencher: Bencher) {
    run_with(
        bencher,
        tracing::Dispatch::new(tracing_subscriber::registry().with(Noop)),
    );
}

#[divan::bench]
fn burst_suppressed(bencher: Bencher) {
    with_logship(bencher, |b| b.burst_limit(Level::Info, 1, 1));
}

#[divan::bench]
fn sampled_out(bencher: Bencher) {
    with_logship(bencher, |b| {
        b.sample_rate(Level::Info, 0.0).sample_by_trace(false)
    });
}

#[divan::bench]
fn no_limit_at_this_level(bencher: Bencher) {
    with_logship(bencher, |b| b.burst_limit(Level::Debug, 1, 1));
}
