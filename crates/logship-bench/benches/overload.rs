//! # Delivery under overload: delivered events/s, not calls/s (plain `main`)
//!
//! What it measures: T threads (1, 2, 4, 8, 16, 32, 64) each calling `tracing::info!`
//! with three fields and the 150-byte message flat out for a fixed window, through
//! logship (defaults, NDJSON + gzip over real HTTP to a discarding HTTP/1.1 server on
//! 127.0.0.1 in this process), tracing-appender's `non_blocking` JSON writer (into a
//! counting sink) and the OpenTelemetry SDK's batch processor (into a no-op exporter).
//! Each pipeline and thread count runs in a fresh pipeline; all of them in the same run,
//! so they see the same machine.
//!
//! Why it exists: calls/s hides a collapse. Past the delivery ceiling almost every call
//! is a (counted) drop, so a pipeline can report millions of calls per second while
//! delivering almost nothing. The headline here is `delivered/s`: events that reached the
//! sink during the window, divided by the window.
//!
//! How to run: `cargo bench -p logship-bench --bench overload`. Environment variables:
//! - `LOGSHIP_BENCH_SECS`: the window per run (default 2.5; 0.1 under `cargo test --benches`);
//! - `LOGSHIP_BENCH_THREADS`: comma-separated thread counts (default `1,2,4,8,16,32,64`);
//! - `LOGSHIP_BENCH_PIPELINES`: comma-separated subset of `logship,appender,otel`.
//!
//! Columns: `calls/s` all threads' calls over the window; `delivered/s` events the sink
//! had counted by the end of the window (logship: `stats().events_delivered`, i.e.
//! answered 2xx by the server), over the window; `vs T=1` that figure against the same
//! pipeline's one-thread figure; `dropped %` the pipeline's own drop count over all
//! calls (OpenTelemetry exposes none: calls minus exported after shutdown); `p50` and
//! `p99.9` of every call (one `Instant` pair each, bucketed to 1/16 of a power of two);
//! `accounting` (logship only) whether delivered + dropped = calls after shutdown.

#[allow(dead_code)]
mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Arc, Barrier};
use std::time::{Duration, Instant};

use common::{tracing_call, End2End, Peer, ThreadDispatch, THREADS};
use logship::{Guard, Logship};
use tracing_subscriber::layer::SubscriberExt;

/// A log-linear histogram of nanoseconds: 16 buckets per power of two.
struct Histogram {
    counts: Vec<u64>,
}

impl Histogram {
    fn new() -> Histogram {
        Histogram {
            counts: vec![0; 64 * 16],
        }
    }

    #[inline]
    fn index(ns: u64) -> usize {
        if ns < 16 {
            return ns as usize;
        }
        let log = 63 - ns.leading_zeros() as usize; // >= 4
        let sub = ((ns >> (log - 4)) & 15) as usize;
        (log - 3) * 16 + sub
    }

    /// The smallest value in bucket `i` (what a percentile reports: a lower bound).
    fn value(i: usize) -> u64 {
        if i < 16 {
            return i as u64;
        }
        let log = i / 16 + 3;
        let sub = (i % 16) as u64;
        (16 + sub) << (log - 4)
    }

    #[inline]
    fn record(&mut self, ns: u64) {
        self.counts[Self::index(ns)] += 1;
    }

    fn merge(&mut self, other: &Histogram) {
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
    }

    fn percentile(&self, q: f64) -> u64 {
        let total: u64 = self.counts.iter().sum();
        let rank = ((q * total as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (i, c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return Self::value(i);
            }
        }
        0
    }
}

/// An HTTP/1.1 server on 127.0.0.1 that reads each request (Content-Length bodies),
/// discards it and answers `200` with an empty body: what a far intake costs the
/// shipping process, without the in-process intake's decoding on the same cores.
struct DiscardServer {
    port: u16,
    stop: Arc<AtomicBool>,
}

impl DiscardServer {
    fn start() -> DiscardServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().expect("local addr").port();
        let stop = Arc::new(AtomicBool::new(false));
        let stop2 = stop.clone();
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if stop2.load(Relaxed) {
                    return;
                }
                let Ok(conn) = conn else { continue };
                std::thread::spawn(move || serve(conn));
            }
        });
        DiscardServer { port, stop }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}/logs", self.port)
    }
}

impl Drop for DiscardServer {
    fn drop(&mut self) {
        self.stop.store(true, Relaxed);
        let _ = TcpStream::connect(("127.0.0.1", self.port)); // wakes the accept loop
    }
}

fn serve(conn: TcpStream) {
    let _ = conn.set_nodelay(true);
    let Ok(mut writer) = conn.try_clone() else {
        return;
    };
    let mut reader = BufReader::with_capacity(64 * 1024, conn);
    let mut line = String::new();
    let mut body = vec![0u8; 64 * 1024];
    loop {
        let mut length = 0usize;
        loop {
            line.clear();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            if line == "\r\n" {
                break;
            }
            if let Some((name, value)) = line.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
        }
        while length > 0 {
            let n = length.min(body.len());
            if reader.read_exact(&mut body[..n]).is_err() {
                return;
            }
            length -= n;
        }
        if writer
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
            .is_err()
        {
            return;
        }
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Which {
    Logship,
    Appender,
    Otel,
}

impl Which {
    fn name(self) -> &'static str {
        match self {
            Which::Logship => "logship",
            Which::Appender => Peer::TracingAppender.name(),
            Which::Otel => Peer::OpenTelemetry.name(),
        }
    }
}

enum Pipeline {
    Logship {
        dispatch: ThreadDispatch,
        logship: Logship,
        guard: Guard,
        _server: DiscardServer,
    },
    Peer(End2End),
}

impl Pipeline {
    fn start(which: Which) -> Pipeline {
        match which {
            Which::Logship => {
                let server = DiscardServer::start();
                let (layer, guard) = Logship::builder()
                    .endpoint(server.url())
                    .report_to_stderr(false)
                    .shutdown_timeout(Duration::from_secs(10))
                    .spill(false)
                    .build_layer()
                    .expect("valid logship configuration");
                let logship = layer.logship().clone();
                let dispatch = ThreadDispatch::new(tracing::Dispatch::new(
                    tracing_subscriber::registry().with(layer),
                ));
                Pipeline::Logship {
                    dispatch,
                    logship,
                    guard,
                    _server: server,
                }
            }
            Which::Appender => Pipeline::Peer(End2End::start(Peer::TracingAppender)),
            Which::Otel => Pipeline::Peer(End2End::start(Peer::OpenTelemetry)),
        }
    }

    fn dispatch(&self) -> &ThreadDispatch {
        match self {
            Pipeline::Logship { dispatch, .. } => dispatch,
            Pipeline::Peer(p) => &p.dispatch,
        }
    }

    /// Events the sink has counted so far.
    fn delivered_now(&self) -> u64 {
        match self {
            Pipeline::Logship { logship, .. } => logship.stats().events_delivered,
            Pipeline::Peer(p) => p.delivered_now(),
        }
    }
}

struct Row {
    calls: u64,
    window: Duration,
    delivered_in_window: u64,
    dropped: u64,
    /// logship: delivered + dropped == calls after shutdown (None for the peers).
    exact: Option<(bool, u64, u64)>,
    histogram: Histogram,
}

fn run(which: Which, threads: usize, window: Duration) -> Row {
    let pipeline = Pipeline::start(which);
    let barrier = Barrier::new(threads + 1);
    let stop = AtomicBool::new(false);
    let (calls, histogram, started, delivered_at_start, delivered_at_end, ended) =
        std::thread::scope(|s| {
            let handles: Vec<_> = (0..threads)
                .map(|_| {
                    s.spawn(|| {
                        pipeline.dispatch().ensure_current();
                        let mut h = Histogram::new();
                        let mut calls = 0u64;
                        barrier.wait();
                        while !stop.load(Relaxed) {
                            let t = Instant::now();
                            tracing_call();
                            h.record(t.elapsed().as_nanos() as u64);
                            calls += 1;
                        }
                        (calls, h)
                    })
                })
                .collect();
            barrier.wait();
            let started = Instant::now();
            let delivered_at_start = pipeline.delivered_now();
            std::thread::sleep(window);
            let delivered_at_end = pipeline.delivered_now();
            let ended = Instant::now();
            stop.store(true, Relaxed);
            let mut calls = 0;
            let mut histogram = Histogram::new();
            for h in handles {
                let (c, hist) = h.join().expect("benchmark thread panicked");
                calls += c;
                histogram.merge(&hist);
            }
            (
                calls,
                histogram,
                started,
                delivered_at_start,
                delivered_at_end,
                ended,
            )
        });
    let window = ended - started;
    let delivered_in_window = delivered_at_end - delivered_at_start;
    let (dropped, exact) = match pipeline {
        Pipeline::Logship {
            logship,
            guard,
            _server,
            ..
        } => {
            drop(guard); // delivers what is queued
            let s = logship.stats();
            let total = s.events_delivered + s.dropped();
            let settled = s.events_delivered + s.events_failed + s.events_abandoned + s.dropped();
            (
                s.dropped(),
                Some((settled == calls && s.events_failed == 0, total, s.dropped())),
            )
        }
        Pipeline::Peer(p) => (p.finish(calls).dropped, None),
    };
    Row {
        calls,
        window,
        delivered_in_window,
        dropped,
        exact,
        histogram,
    }
}

fn show_rate(per_sec: f64) -> String {
    if per_sec >= 1e6 {
        format!("{:.2} M", per_sec / 1e6)
    } else {
        format!("{:.1} k", per_sec / 1e3)
    }
}

fn show_ns(ns: u64) -> String {
    if ns < 10_000 {
        format!("{:.2} µs", ns as f64 / 1e3)
    } else {
        format!("{:.1} µs", ns as f64 / 1e3)
    }
}

fn main() {
    let benchmarking = std::env::args().any(|a| a == "--bench");
    let secs: f64 = std::env::var("LOGSHIP_BENCH_SECS")
        .ok()
        .map(|v| v.trim().parse().expect("LOGSHIP_BENCH_SECS: seconds"))
        .unwrap_or(if benchmarking { 2.5 } else { 0.1 });
    let threads: Vec<usize> = match std::env::var("LOGSHIP_BENCH_THREADS") {
        Ok(list) => list
            .split(',')
            .map(|t| t.trim().parse().expect("LOGSHIP_BENCH_THREADS: counts"))
            .collect(),
        Err(_) => THREADS.to_vec(),
    };
    let pipelines: Vec<Which> = match std::env::var("LOGSHIP_BENCH_PIPELINES") {
        Ok(list) => list
            .split(',')
            .map(|p| match p.trim() {
                "logship" => Which::Logship,
                "appender" => Which::Appender,
                "otel" => Which::Otel,
                other => panic!("LOGSHIP_BENCH_PIPELINES: unknown {other:?}"),
            })
            .collect(),
        Err(_) => vec![Which::Logship, Which::Appender, Which::Otel],
    };
    let window = Duration::from_secs_f64(secs);
    println!(
        "overload: flat out for {secs} s per run, {} cores",
        std::thread::available_parallelism().map_or(0, |n| n.get())
    );
    println!();
    println!("| pipeline | threads | calls/s | delivered/s | vs T=1 | dropped % | p50 | p99.9 | accounting |");
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---|");
    for which in pipelines {
        let mut first: Option<f64> = None;
        for &n in &threads {
            let r = run(which, n, window);
            let delivered = r.delivered_in_window as f64 / r.window.as_secs_f64();
            let base = *first.get_or_insert(delivered);
            let accounting = match r.exact {
                None => "n/a".to_owned(),
                Some((true, _, _)) => "exact".to_owned(),
                Some((false, total, dropped)) => {
                    format!(
                        "MISMATCH: calls {} delivered+dropped {total} (dropped {dropped})",
                        r.calls
                    )
                }
            };
            println!(
                "| {} | {n} | {} | {} | {:.0} % | {:.2} % | {} | {} | {accounting} |",
                which.name(),
                show_rate(r.calls as f64 / r.window.as_secs_f64()),
                show_rate(delivered),
                if base > 0.0 {
                    100.0 * delivered / base
                } else {
                    0.0
                },
                if r.calls == 0 {
                    0.0
                } else {
                    100.0 * r.dropped as f64 / r.calls as f64
                },
                show_ns(r.histogram.percentile(0.5)),
                show_ns(r.histogram.percentile(0.999)),
            );
        }
    }
}
