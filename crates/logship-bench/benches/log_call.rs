//! # The cost of one log call (divan)
//!
//! What it measures: the time a thread spends in ONE log call carrying a 150-byte
//! message, at 1, 2, 4, 8, 16, 32 and 64 threads calling at once, in two modes:
//!
//! - `appender`: an owned record built and handed to the pipeline,
//!   `Record::new(Level::Info, "bench")` + `.message(msg150)` + `logship.push(record)`.
//!   The floor beside it (`crossbeam_floor`) is a 150-byte `Vec` allocated and sent with
//!   crossbeam's `try_send` into a bounded channel of the same capacity (10,000), drained
//!   by one polling thread.
//! - `end2end`: `tracing::info!(a = 1u64, b = "two", c = 3.0, "{msg150}")` through a
//!   `tracing_subscriber::Registry` with, side by side,
//!   - `logship`: logship's layer, shipping to a real local intake on 127.0.0.1
//!     (`logship_intake`, gzip over HTTP keep-alive);
//!   - `tracing_appender`: `fmt::layer().json()` writing to tracing-appender's
//!     `non_blocking` writer (default lossy mode) over `io::sink()`;
//!   - `opentelemetry`: `opentelemetry-appender-tracing`'s bridge over the SDK's
//!     default `BatchLogProcessor` with a no-op exporter.
//!
//! Every pipeline runs with its defaults and is started fresh for each (mode, pipeline,
//! thread count) and shut down right after it; logship ships to the intake for real, the
//! peers' sinks do nothing.
//!
//! How to run: `cargo bench -p logship-bench --bench log_call` (about a minute on two
//! cores; each run stops after 1,000 samples of 500 calls or 3 s). Divan's own options
//! apply after `--`, for example
//! `cargo bench -p logship-bench --bench log_call -- end2end --sample-count 200` or
//! `-- --threads 1,4`. `cargo test -p logship-bench --benches` runs each benchmark once.
//!
//! What the numbers mean:
//! - `fastest` / `slowest` / `median` / `mean`: time per call seen by one calling thread,
//!   from divan's samples (one sample = one thread's timing of 500 calls in a row). A
//!   sample that was preempted includes the wait, but a 500-call sample often fits in one
//!   scheduler time slice, so with more threads than cores these per-thread numbers hide
//!   most of the contention for the cores: `latency.rs`'s aggregate rate shows it.
//! - `item/s` (from `ItemsCount`): calls per second of ONE thread while it runs; the rate
//!   of all threads together is roughly that times the thread count only while the
//!   threads fit on the cores. `latency.rs` measures the aggregate rate and tail latency
//!   (p99, p99.9) directly.
//! - `alloc` rows (from `AllocProfiler`): allocations, deallocations and bytes per call,
//!   counted on the calling thread only (a pipeline's own threads are not counted).
//! - After divan's table a Markdown table gives, per run, the calls made, how many the
//!   pipeline dropped (logship: `stats().dropped_queue_full`; tracing-appender:
//!   `NonBlocking::error_counter()`; OpenTelemetry exposes no count, so it is derived as
//!   calls minus exported), and how many reached the sink after shutdown. Every run calls
//!   as fast as it can, far faster than a pipeline drains on two cores, so the share
//!   dropped says how much of a saturating burst of that length (about 0.1 to 3 s) the
//!   pipeline absorbed (its queue plus what it drained meanwhile), not a steady loss rate.
//!
//! Every measured closure also counts its call in a per-thread slot (about 1 ns, the same
//! for every pipeline), which is how the calls of the peers are known.

mod common;

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;

use common::{CrossbeamFloor, End2End, LogshipAppender, Outcome, Peer, THREADS};
use divan::counter::ItemsCount;
use divan::Bencher;

#[global_allocator]
static ALLOC: divan::AllocProfiler = divan::AllocProfiler::system();

/// (mode, pipeline, threads, outcome) of every run, printed after divan's table.
static OUTCOMES: Mutex<Vec<(&'static str, &'static str, usize, Outcome)>> = Mutex::new(Vec::new());

fn main() {
    divan::main();
    let outcomes = OUTCOMES.lock().unwrap_or_else(|e| e.into_inner());
    if outcomes.is_empty() {
        return;
    }
    println!();
    println!("Drops per run (calls include divan's tuning rounds):");
    println!();
    println!(
        "| mode | pipeline | threads | calls | dropped | dropped % | delivered | drop count from |"
    );
    println!("|---|---|---:|---:|---:|---:|---:|---|");
    for (mode, pipeline, threads, outcome) in outcomes.iter() {
        println!("| {mode} | {pipeline} | {threads} | {outcome} |");
    }
}

/// Runs `call` under divan with a one-call throughput counter; returns the calls made
/// and by how many threads.
fn measure(bencher: Bencher, call: impl Fn() + Sync) -> (u64, usize) {
    let before = CallSnapshot::take();
    bencher.counter(ItemsCount::new(1u32)).bench(|| {
        count_call();
        call();
    });
    CallSnapshot::take().since(&before)
}

fn record(mode: &'static str, pipeline: &'static str, threads: usize, outcome: Outcome) {
    OUTCOMES
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push((mode, pipeline, threads, outcome));
}

#[divan::bench_group(sample_count = 1000, sample_size = 500, max_time = 3)]
mod appender {
    use super::*;

    #[divan::bench(threads = THREADS)]
    fn logship(bencher: Bencher) {
        let pipeline = LogshipAppender::start();
        let (_, threads) = measure(bencher, || {
            divan::black_box(pipeline.call());
        });
        record("appender", "logship", threads, pipeline.finish());
    }

    #[divan::bench(threads = THREADS)]
    fn crossbeam_floor(bencher: Bencher) {
        let floor = CrossbeamFloor::start();
        let (calls, threads) = measure(bencher, || {
            divan::black_box(floor.call());
        });
        record(
            "appender",
            "crossbeam try_send (floor)",
            threads,
            floor.finish(calls),
        );
    }
}

#[divan::bench_group(sample_count = 1000, sample_size = 500, max_time = 3)]
mod end2end {
    use super::*;

    fn run(bencher: Bencher, peer: Peer) {
        let pipeline = End2End::start(peer);
        let (calls, threads) = measure(bencher, || pipeline.call());
        record("end2end", peer.name(), threads, pipeline.finish(calls));
    }

    #[divan::bench(threads = THREADS)]
    fn logship(bencher: Bencher) {
        run(bencher, Peer::Logship);
    }

    #[divan::bench(threads = THREADS)]
    fn tracing_appender(bencher: Bencher) {
        run(bencher, Peer::TracingAppender);
    }

    #[divan::bench(threads = THREADS)]
    fn opentelemetry(bencher: Bencher) {
        run(bencher, Peer::OpenTelemetry);
    }
}

// ---------------------------------------------------------------------------------------
// Per-thread call counting
// ---------------------------------------------------------------------------------------

const SLOTS: usize = 256;

#[repr(align(128))]
struct Slot(AtomicU64);

static CALLS: [Slot; SLOTS] = [const { Slot(AtomicU64::new(0)) }; SLOTS];
static CALLS_OVERFLOW: AtomicU64 = AtomicU64::new(0);
static NEXT_SLOT: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static MY_SLOT: usize = NEXT_SLOT.fetch_add(1, Relaxed);
}

/// Counts one log call made by this thread. Each thread owns a cache-line-sized slot and
/// is its only writer, so this is a plain load and store (about a nanosecond), not a
/// contended atomic: cheap enough to sit inside the measured closure of every pipeline.
#[inline]
pub fn count_call() {
    MY_SLOT.with(|&i| match CALLS.get(i) {
        Some(slot) => slot.0.store(slot.0.load(Relaxed) + 1, Relaxed),
        None => {
            CALLS_OVERFLOW.fetch_add(1, Relaxed);
        }
    });
}

/// Calls counted so far, per slot (read after the measuring threads have been joined).
#[derive(Clone)]
pub struct CallSnapshot {
    per_slot: Vec<u64>,
    overflow: u64,
}

impl CallSnapshot {
    pub fn take() -> CallSnapshot {
        CallSnapshot {
            per_slot: CALLS.iter().map(|s| s.0.load(Relaxed)).collect(),
            overflow: CALLS_OVERFLOW.load(Relaxed),
        }
    }

    /// Calls made since `earlier`, and by how many distinct threads.
    pub fn since(&self, earlier: &CallSnapshot) -> (u64, usize) {
        let mut calls = self.overflow - earlier.overflow;
        let mut threads = 0;
        for (now, then) in self.per_slot.iter().zip(&earlier.per_slot) {
            if now > then {
                calls += now - then;
                threads += 1;
            }
        }
        (calls, threads)
    }
}
