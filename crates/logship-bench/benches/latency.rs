//! # Per-call latency percentiles and aggregate call rate (plain `main`)
//!
//! What it measures: the same log calls as `log_call.rs` (150-byte message; `appender`:
//! a logship record pushed, and a crossbeam `try_send` floor; `end2end`:
//! `tracing::info!` with three fields through logship's layer, tracing-appender's
//! `non_blocking` + JSON formatter, and OpenTelemetry's `BatchLogProcessor` with a no-op
//! exporter), but timing EVERY call with `Instant` so the tail is visible. For each
//! pipeline and thread count (1, 2, 4, 8, 16, 32, 64) it starts the pipeline fresh, starts
//! N threads, lets each make a short warm-up, then releases them together; each makes
//! `LOGSHIP_BENCH_ITERS` timed calls. logship ships to a real intake on 127.0.0.1.
//!
//! How to run: `cargo bench -p logship-bench --bench latency` (about half a minute on two
//! cores at the default 50,000 calls per thread). Environment variables:
//! - `LOGSHIP_BENCH_ITERS`: timed calls per thread (default 50,000; 100 when run by
//!   `cargo test --benches`, which does not pass `--bench`);
//! - `LOGSHIP_BENCH_THREADS`: comma-separated thread counts (default `1,2,4,8,16,32,64`);
//! - `LOGSHIP_BENCH_PIPELINES`: comma-separated parts of "mode pipeline" names to run
//!   only those (e.g. `end2end,floor`; default all five);
//! - `LOGSHIP_BENCH_RATE`: offer this many calls per second in all (split evenly over the
//!   threads, each pacing its calls on a fixed schedule) instead of calling flat out. This
//!   is the application's situation: a rate below the delivery ceiling, where no call
//!   should be refused and the tail is what an accepted call costs.
//!
//! What the numbers mean (printed as a Markdown table, one row per run):
//! - `calls/s`: timed calls of all threads divided by the wall time from the first
//!   thread's first timed call to the last thread's last (timing overhead included);
//! - `p50`, `p99`, `p99.9`, `max`: percentiles over every timed call of every thread.
//!   Each includes one `Instant::now()` (the "timer" line above the table gives its own
//!   median cost). With more threads than the machine's cores, a call that is preempted
//!   counts the time slice it waited: the tail above 2 threads on a 2-core machine is
//!   mostly the scheduler's;
//! - `dropped %`: calls (warm-up included) the pipeline refused: logship's
//!   `stats().dropped_queue_full`, tracing-appender's `error_counter()`, and for
//!   OpenTelemetry, which exposes no count, calls minus records exported after shutdown.
//!   As in `log_call.rs`, the threads call flat out, so this is the share of a saturating
//!   burst that the pipeline could not take, not a steady loss rate.

mod common;

use std::sync::Barrier;
use std::time::{Duration, Instant};

use common::{CrossbeamFloor, End2End, LogshipAppender, Outcome, Peer, THREADS};

#[derive(Clone, Copy)]
enum Which {
    LogshipRecord,
    CrossbeamFloor,
    End2End(Peer),
}

impl Which {
    fn mode(self) -> &'static str {
        match self {
            Which::LogshipRecord | Which::CrossbeamFloor => "appender",
            Which::End2End(_) => "end2end",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Which::LogshipRecord => "logship",
            Which::CrossbeamFloor => "crossbeam try_send (floor)",
            Which::End2End(peer) => peer.name(),
        }
    }
}

enum Pipeline {
    LogshipRecord(LogshipAppender),
    CrossbeamFloor(CrossbeamFloor),
    End2End(End2End),
}

impl Pipeline {
    fn start(which: Which) -> Pipeline {
        match which {
            Which::LogshipRecord => Pipeline::LogshipRecord(LogshipAppender::start()),
            Which::CrossbeamFloor => Pipeline::CrossbeamFloor(CrossbeamFloor::start()),
            Which::End2End(peer) => Pipeline::End2End(End2End::start(peer)),
        }
    }

    /// Per-thread set-up, outside the timed calls (installs the dispatcher).
    fn prepare_thread(&self) {
        if let Pipeline::End2End(p) = self {
            p.dispatch.ensure_current();
        }
    }

    #[inline]
    fn call(&self) {
        match self {
            Pipeline::LogshipRecord(p) => {
                std::hint::black_box(p.call());
            }
            Pipeline::CrossbeamFloor(p) => {
                std::hint::black_box(p.call());
            }
            Pipeline::End2End(p) => p.call(),
        }
    }

    fn finish(self, calls: u64) -> Outcome {
        match self {
            Pipeline::LogshipRecord(p) => p.finish(),
            Pipeline::CrossbeamFloor(p) => p.finish(calls),
            Pipeline::End2End(p) => p.finish(calls),
        }
    }
}

struct Run {
    calls_per_sec: f64,
    /// Every timed call's latency in nanoseconds, sorted.
    sorted_ns: Vec<u64>,
    outcome: Outcome,
}

/// Waits until `at` by sleeping, never spinning: spinning threads would take the cores
/// the pipeline's own threads need. Sleep overshoots by tens of microseconds; the schedule
/// is absolute, so calls that fell due meanwhile follow back to back (as bursts do in a
/// service) and the offered rate holds.
fn wait_until(at: Instant) {
    let now = Instant::now();
    if at > now {
        std::thread::sleep(at - now);
    }
}

fn run(which: Which, threads: usize, iters: usize, rate: Option<f64>) -> Run {
    // Paced: each thread's calls are due every `interval` from the common start.
    let interval = rate.map(|r| Duration::from_secs_f64(threads as f64 / r));
    let warmup = (iters / 10).min(1_000);
    let pipeline = Pipeline::start(which);
    let barrier = Barrier::new(threads + 1);
    let (mut all, wall) = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                s.spawn(|| {
                    pipeline.prepare_thread();
                    let mut latencies = Vec::with_capacity(iters);
                    for _ in 0..warmup {
                        pipeline.call();
                    }
                    barrier.wait();
                    let first = Instant::now();
                    for i in 0..iters {
                        if let Some(interval) = interval {
                            wait_until(first + interval * i as u32);
                        }
                        let started = Instant::now();
                        pipeline.call();
                        latencies.push(started.elapsed().as_nanos() as u64);
                    }
                    (latencies, first, Instant::now())
                })
            })
            .collect();
        barrier.wait();
        let mut all = Vec::with_capacity(threads * iters);
        let mut span: Option<(Instant, Instant)> = None;
        for h in handles {
            let (latencies, first, last) = h.join().expect("benchmark thread panicked");
            all.extend(latencies);
            span = Some(match span {
                None => (first, last),
                Some((a, b)) => (a.min(first), b.max(last)),
            });
        }
        let wall = span.map_or(Duration::ZERO, |(a, b)| b - a);
        (all, wall)
    });
    all.sort_unstable();
    let calls = (threads * (warmup + iters)) as u64;
    Run {
        calls_per_sec: (threads * iters) as f64 / wall.as_secs_f64(),
        sorted_ns: all,
        outcome: pipeline.finish(calls),
    }
}

/// The value below which a fraction `q` of the sorted samples lie.
fn percentile(sorted: &[u64], q: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn show_ns(ns: u64) -> String {
    let d = Duration::from_nanos(ns);
    if ns < 10_000 {
        format!("{ns} ns")
    } else if ns < 10_000_000 {
        format!("{:.1} µs", d.as_secs_f64() * 1e6)
    } else {
        format!("{:.1} ms", d.as_secs_f64() * 1e3)
    }
}

fn show_rate(per_sec: f64) -> String {
    if per_sec >= 1e6 {
        format!("{:.2} M", per_sec / 1e6)
    } else {
        format!("{:.0} k", per_sec / 1e3)
    }
}

/// Median cost of the timing itself: two back-to-back `Instant::now()`.
fn timer_overhead_ns() -> u64 {
    let mut samples: Vec<u64> = (0..100_000)
        .map(|_| {
            let started = Instant::now();
            started.elapsed().as_nanos() as u64
        })
        .collect();
    samples.sort_unstable();
    percentile(&samples, 0.5)
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a valid value")),
        Err(_) => default,
    }
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not: keep that run tiny.
    let benchmarking = std::env::args().any(|a| a == "--bench");
    let iters: usize = env_or(
        "LOGSHIP_BENCH_ITERS",
        if benchmarking { 50_000 } else { 100 },
    );
    let threads: Vec<usize> = match std::env::var("LOGSHIP_BENCH_THREADS") {
        Ok(list) => list
            .split(',')
            .map(|t| {
                t.trim()
                    .parse()
                    .expect("LOGSHIP_BENCH_THREADS: comma-separated counts")
            })
            .collect(),
        Err(_) => THREADS.to_vec(),
    };
    let rate: Option<f64> = std::env::var("LOGSHIP_BENCH_RATE").ok().map(|r| {
        r.trim()
            .parse()
            .expect("LOGSHIP_BENCH_RATE: calls per second, e.g. 100000")
    });
    let only = std::env::var("LOGSHIP_BENCH_PIPELINES").ok();
    let pipelines = [
        Which::LogshipRecord,
        Which::CrossbeamFloor,
        Which::End2End(Peer::Logship),
        Which::End2End(Peer::TracingAppender),
        Which::End2End(Peer::OpenTelemetry),
    ]
    .into_iter()
    .filter(|w| {
        only.as_deref().is_none_or(|list| {
            list.split(',')
                .any(|p| format!("{} {}", w.mode(), w.name()).contains(p.trim()))
        })
    });

    println!(
        "latency: {iters} timed calls per thread, {}, {} cores, timer (Instant::now pair) median {} ns",
        rate.map_or("flat out".to_owned(), |r| format!("paced at {r:.0} calls/s in all")),
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        timer_overhead_ns()
    );
    println!();
    println!("| mode | pipeline | threads | calls/s (all threads) | p50 | p99 | p99.9 | max | dropped % |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for which in pipelines {
        for &n in &threads {
            let r = run(which, n, iters, rate);
            let s = &r.sorted_ns;
            println!(
                "| {} | {} | {n} | {} | {} | {} | {} | {} | {:.2} % |",
                which.mode(),
                which.name(),
                show_rate(r.calls_per_sec),
                show_ns(percentile(s, 0.5)),
                show_ns(percentile(s, 0.99)),
                show_ns(percentile(s, 0.999)),
                show_ns(s.last().copied().unwrap_or(0)),
                r.outcome.dropped_pct(),
            );
        }
    }
}
