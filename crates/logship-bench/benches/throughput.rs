//! # Delivery throughput and adaptive concurrency (plain `main`)
//!
//! What it measures (issue #7, section 2), each phase with a fresh pipeline shipping
//! 150-byte-message events (gzip on) to a real [`Intake`] on 127.0.0.1 in this process:
//!
//! 1. **Compression ceiling**: the NDJSON body logship sends for one default-size batch,
//!    captured from the wire (gzip off, on a bare socket), then gzip-compressed over and
//!    over at the pipeline's default level on one core: events/s one core can compress.
//! 2. **Local intake**: `LOGSHIP_BENCH_EVENTS` events (default 1,000,000) pushed by one
//!    thread (blocking overflow, so none is dropped) and delivered to an intake that
//!    answers at once; events/s from the first push until the intake has counted them
//!    all. Target: at least 70 % of the ceiling times the senders that fit on the machine
//!    (`available_parallelism`), and at least 250,000 events/s on 2 cores. The intake
//!    decompresses and parses every event on the same cores, so this is a floor.
//! 3. **20 ms intake**: the same with a 20 ms answer delay, default settings (adaptive
//!    concurrency, ceiling 16), then with adaptivity off and the old fixed 2 in flight.
//!    Target: at least 44,000 events/s with default settings.
//! 4. **429 storm**: through the 20 ms intake under a steady backlog, once the limit has
//!    grown, the next 300 requests are answered 429 with `Retry-After: 0` (an invitation
//!    to push harder): the limit before, its lowest during the storm, the most requests
//!    the intake saw at once during the storm, and the limit two seconds after it.
//!
//! How to run: `cargo bench -p logship-bench --bench throughput` (about half a minute on
//! two cores). `cargo test --benches` runs it with 20,000 events as a smoke test.
//! Output: a Markdown table. `cores busy` is this process's CPU time over wall time and
//! `events per CPU-s` the events over that CPU time (both include the intake: on a
//! machine shared with other work they say how much of it the run got); the CPU split is
//! by thread name (the pushing main thread, the batcher, the senders, the intake's
//! threads), sampled by the kernel's tick, so approximate.

#[allow(dead_code)]
mod common;

use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use flate2::write::GzEncoder;
use flate2::Compression;
use logship::{Builder, Config, Level, Logship, Overflow, Record};
use logship_intake::{Fault, Intake, IntakeConfig};

use common::MSG150;

const WAIT: Duration = Duration::from_secs(120);
const SLOW: Duration = Duration::from_millis(20);

/// The messages a workload cycles through, each exactly 150 bytes.
struct Workload {
    name: &'static str,
    messages: Vec<String>,
}

impl Workload {
    /// The same message every time (as in `log_call.rs`): gzip's best case.
    fn constant() -> Workload {
        Workload {
            name: "same message",
            messages: vec![MSG150.to_owned()],
        }
    }

    /// 4,096 different messages shaped like MSG150 (ids, amounts, durations, names vary),
    /// cycled: repeats are further apart than gzip's 32 KiB window, as in a real log.
    fn varied() -> Workload {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move |n: u64| {
            // xorshift64*: reproducible, no dependency.
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            state.wrapping_mul(0x2545_F491_4F6C_DD1D) % n
        };
        let methods = ["card", "paypal", "invoice", "sepa", "voucher", "applepay"];
        let psps = ["acme-pay", "paycorp", "stripe-eu", "adyen-de", "mollie"];
        let priorities = ["normal", "high", "low", "express"];
        let messages = (0..4096)
            .map(|_| {
                let mut m = format!(
                    "order {} checked out: {} items, total {}.{:02} EUR, paid by {} via {} in {} ms; \
                     label queued for warehouse {}-{}, priority {}, ETA {} days, trace {:016x}",
                    next(10_000_000),
                    1 + next(20),
                    next(2000),
                    next(100),
                    methods[next(methods.len() as u64) as usize],
                    psps[next(psps.len() as u64) as usize],
                    next(5000),
                    ["fra", "ams", "dub", "waw"][next(4) as usize],
                    1 + next(9),
                    priorities[next(priorities.len() as u64) as usize],
                    1 + next(9),
                    next(u64::MAX),
                );
                m.truncate(150);
                while m.len() < 150 {
                    m.push('.');
                }
                m
            })
            .collect();
        Workload {
            name: "varied messages",
            messages,
        }
    }

    fn record(&self, i: u64) -> Record {
        let mut r = Record::new(Level::Info, "bench");
        r.message(&self.messages[i as usize % self.messages.len()]);
        r
    }
}

/// CPU seconds (user + system) and name of a `/proc/.../stat` file; None off Linux.
fn proc_cpu(path: &std::path::Path) -> Option<(String, f64)> {
    let stat = std::fs::read_to_string(path).ok()?;
    // `pid (comm) state ...`: utime and stime are the 14th and 15th fields, in clock ticks
    // (USER_HZ, 100 on Linux).
    let (head, rest) = stat.rsplit_once(')')?;
    let name = head.split_once('(')?.1.to_owned();
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| fields.get(i).and_then(|v| v.parse::<f64>().ok());
    Some((name, (tick(11)? + tick(12)?) / 100.0))
}

/// CPU seconds this process has used; NaN off Linux.
fn cpu_secs() -> f64 {
    proc_cpu(std::path::Path::new("/proc/self/stat")).map_or(f64::NAN, |(_, cpu)| cpu)
}

/// CPU seconds per live thread, by thread id.
fn thread_cpu() -> std::collections::HashMap<String, (String, f64)> {
    let mut out = std::collections::HashMap::new();
    if let Ok(dir) = std::fs::read_dir("/proc/self/task") {
        for entry in dir.flatten() {
            if let Some(cpu) = proc_cpu(&entry.path().join("stat")) {
                out.insert(entry.file_name().to_string_lossy().into_owned(), cpu);
            }
        }
    }
    out
}

/// Where the CPU went between two [`thread_cpu`] snapshots, as shares of the total:
/// (log calls on the main thread, batcher, senders, intake).
fn cpu_split(before: &std::collections::HashMap<String, (String, f64)>) -> Option<[f64; 4]> {
    let mut split = [0.0; 4];
    for (tid, (name, cpu)) in thread_cpu() {
        let used = cpu - before.get(&tid).map_or(0.0, |(_, c)| *c);
        let group = if name.starts_with("logship-batch") {
            1
        } else if name.starts_with("logship-sende") {
            2
        } else if name.starts_with("logship-intak") {
            3
        } else {
            0
        };
        split[group] += used;
    }
    let total: f64 = split.iter().sum();
    (total > 0.0).then(|| split.map(|c| c / total))
}

/// A pipeline to `intake` with default settings but no disk spill, quiet, and a log call
/// that waits for room instead of dropping (so every event is delivered).
fn builder(intake: &Intake) -> Builder {
    Logship::builder()
        .endpoint(intake.url("/logs"))
        .spill(false)
        .report_to_stderr(false)
        .overflow(Overflow::Block(Duration::from_secs(10)))
}

fn start_intake(delay: Duration) -> Intake {
    Intake::start(IntakeConfig {
        delay,
        keep_events: false,
        ..IntakeConfig::default()
    })
    .expect("start intake")
}

/// The body logship sends for one batch of `records` events, read off a bare socket.
fn capture_body(workload: &Workload, records: usize) -> Vec<u8> {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/logs", listener.local_addr().expect("addr"));
    let server = thread::spawn(move || {
        let (mut socket, _) = listener.accept().expect("accept");
        let mut buf = Vec::new();
        let mut chunk = vec![0u8; 64 * 1024];
        let (head_end, length) = loop {
            let n = socket.read(&mut chunk).expect("read");
            assert!(n > 0, "connection closed before the body");
            buf.extend_from_slice(&chunk[..n]);
            if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
                let length = head
                    .lines()
                    .find_map(|l| l.strip_prefix("content-length:"))
                    .and_then(|v| v.trim().parse::<usize>().ok())
                    .expect("content-length");
                break (end + 4, length);
            }
        };
        while buf.len() < head_end + length {
            let n = socket.read(&mut chunk).expect("read");
            assert!(n > 0, "connection closed mid-body");
            buf.extend_from_slice(&chunk[..n]);
        }
        let _ =
            socket.write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        buf[head_end..head_end + length].to_vec()
    });
    let (logship, _guard) = Logship::builder()
        .endpoint(url)
        .gzip(false)
        .spill(false)
        .report_to_stderr(false)
        .max_batch_records(records)
        .build()
        .expect("pipeline");
    for i in 0..records as u64 {
        logship.push(workload.record(i)).expect("push");
    }
    logship.flush(WAIT).expect("flush");
    server.join().expect("capture thread")
}

struct Ceiling {
    events_per_sec: f64,
    mb_per_sec: f64,
    ratio: f64,
    body_bytes: usize,
}

/// gzip-compresses `body` (`records` events) for about `budget` on this thread.
fn compression_ceiling(body: &[u8], records: usize, level: u32, budget: Duration) -> Ceiling {
    let compress = || {
        let mut enc = GzEncoder::new(Vec::with_capacity(body.len() / 4), Compression::new(level));
        enc.write_all(body).expect("gzip");
        enc.finish().expect("gzip")
    };
    let wire = compress(); // warm-up
    let thread_stat = std::path::Path::new("/proc/thread-self/stat");
    let cpu_before = proc_cpu(thread_stat).map(|(_, c)| c);
    let started = Instant::now();
    let mut rounds = 0u64;
    while started.elapsed() < budget {
        std::hint::black_box(compress());
        rounds += 1;
    }
    let wall = started.elapsed().as_secs_f64();
    // This thread's CPU time, not wall time: on a shared machine the thread may wait for
    // a core, and the ceiling is what one core does.
    let secs = match (cpu_before, proc_cpu(thread_stat)) {
        (Some(a), Some((_, b))) if b - a > 0.5 * wall => b - a,
        _ => wall,
    };
    Ceiling {
        events_per_sec: (rounds * records as u64) as f64 / secs,
        mb_per_sec: (rounds * body.len() as u64) as f64 / secs / 1e6,
        ratio: body.len() as f64 / wire.len() as f64,
        body_bytes: body.len(),
    }
}

struct Run {
    events: u64,
    events_per_sec: f64,
    /// Events per CPU second of the whole process (intake included).
    events_per_cpu_sec: f64,
    /// Cores this process kept busy on average (CPU seconds / wall seconds).
    cores_busy: f64,
    /// Shares of the CPU: log calls, batcher, senders, intake.
    split: Option<[f64; 4]>,
    limit_peak: u64,
    intake_peak: usize,
}

/// Delivers `n` events through `build(builder)` to `intake`; events/s from the first push
/// until the intake counted the last one.
fn deliver(
    intake: &Intake,
    workload: &Workload,
    n: u64,
    build: impl FnOnce(Builder) -> Builder,
) -> Run {
    intake.reset();
    let (logship, guard) = build(builder(intake)).build().expect("pipeline");
    let cpu = cpu_secs();
    let threads = thread_cpu();
    let started = Instant::now();
    for i in 0..n {
        // Blocking overflow: a refusal only after 10 s without room.
        let _ = logship.push(workload.record(i));
    }
    assert!(
        intake.wait_for_events(n as usize, WAIT),
        "not delivered: {:?}",
        logship.stats()
    );
    let secs = started.elapsed().as_secs_f64();
    let cpu_used = cpu_secs() - cpu;
    let cores_busy = cpu_used / secs;
    let split = cpu_split(&threads);
    let stats = logship.stats();
    drop(guard);
    Run {
        events: n,
        events_per_sec: n as f64 / secs,
        events_per_cpu_sec: n as f64 / cpu_used,
        cores_busy,
        split,
        limit_peak: stats.concurrency_peak,
        intake_peak: intake.max_concurrency(),
    }
}

struct Storm {
    before: u64,
    /// The highest limit so far when the storm ended: the limit when it began (it cannot
    /// grow during a storm), even if it grew once more after `before` was read.
    peak: u64,
    lowest: u64,
    intake_peak: usize,
    after: u64,
    failed_events: u64,
}

/// A steady backlog through the slow intake, then `storm` requests answered 429.
fn storm(intake: &Intake, workload: Arc<Workload>, storm: usize) -> Storm {
    intake.reset();
    let (logship, guard) = builder(intake)
        .shutdown_timeout(Duration::from_millis(500))
        .build()
        .expect("pipeline");
    let stop = Arc::new(AtomicBool::new(false));
    let producer = {
        let (logship, stop) = (logship.clone(), stop.clone());
        thread::spawn(move || {
            let mut i = 0;
            while !stop.load(Ordering::Relaxed) {
                let _ = logship.push(workload.record(i));
                i += 1;
            }
        })
    };
    let poll = |until: &dyn Fn(&logship::Stats) -> bool, timeout: Duration| {
        let deadline = Instant::now() + timeout;
        let mut lowest = u64::MAX;
        loop {
            let s = logship.stats();
            lowest = lowest.min(s.concurrency_limit);
            if until(&s) || Instant::now() >= deadline {
                return lowest;
            }
            thread::sleep(Duration::from_millis(2));
        }
    };
    poll(&|s| s.concurrency_limit >= 8, Duration::from_secs(10));
    let before = logship.stats().concurrency_limit;
    let failed_before = logship.stats().events_failed;
    intake.reset();
    intake.fail_next(storm, Fault::retry_after(429, 0));
    let storm_requests = storm as u64;
    let lowest = poll(
        &|_| intake.stats().requests >= storm_requests,
        Duration::from_secs(60),
    );
    let intake_peak = intake.max_concurrency();
    let peak = logship.stats().concurrency_peak;
    let failed_events = logship.stats().events_failed - failed_before;
    poll(&|_| false, Duration::from_secs(2));
    let after = logship.stats().concurrency_limit;
    stop.store(true, Ordering::Relaxed);
    producer.join().expect("producer");
    logship.shutdown(Duration::from_millis(500));
    drop(guard);
    Storm {
        before,
        peak,
        lowest,
        intake_peak,
        after,
        failed_events,
    }
}

fn k(v: f64) -> String {
    if v >= 1e6 {
        format!("{:.2} M", v / 1e6)
    } else {
        format!("{:.1} k", v / 1e3)
    }
}

fn split(r: &Run) -> String {
    match r.split {
        Some(s) => s.map(|share| format!("{:.0} %", share * 100.0)).join(" / "),
        None => "n/a".to_owned(),
    }
}

/// One delivery run's row of the table; `verdict` fills the last two columns.
fn print_row(phase: &str, messages: &str, settings: &str, r: &Run, verdict: &str) {
    println!(
        "| {phase} | {messages} | {settings} | {} | {} | {:.2} | {} | {} | {} | {} | {verdict} |",
        r.events,
        k(r.events_per_sec),
        r.cores_busy,
        k(r.events_per_cpu_sec),
        split(r),
        r.limit_peak,
        r.intake_peak,
    );
}

fn met(ok: bool) -> &'static str {
    if ok {
        "met"
    } else {
        "**missed**"
    }
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not: keep that short.
    let full = std::env::args().any(|a| a == "--bench");
    let events: u64 = std::env::var("LOGSHIP_BENCH_EVENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if full { 1_000_000 } else { 20_000 });
    let scale = |n: u64| if full { n } else { n / 20 };
    let cores = thread::available_parallelism().map_or(1, |n| n.get());
    let defaults = Config::default();
    let batch = defaults.max_batch_records;
    let budget = Duration::from_millis(if full { 1500 } else { 200 });

    println!(
        "cores (available_parallelism): {cores}; default batch {batch} events, gzip level {}; \
         'cores busy' is this process's CPU time over wall time (intake included); the \
         ceiling is per CPU second of its thread.",
        defaults.gzip_level
    );
    println!();
    println!("| phase | messages | settings | events | events/s | cores busy | events per CPU-s | CPU: calls / batcher / senders / intake | limit peak | intake peak in flight | target | |");
    println!("|---|---|---|---:|---:|---:|---:|---|---:|---:|---|---|");

    let fast = start_intake(Duration::ZERO);
    for workload in [Workload::varied(), Workload::constant()] {
        let body = capture_body(&workload, batch);
        let ceiling = compression_ceiling(&body, batch, defaults.gzip_level, budget);
        let target = (0.7 * ceiling.events_per_sec * cores as f64).max(250_000.0);
        println!(
            "| compression ceiling | {} | gzip level {} on one core: {:.0} MB/s of NDJSON ({} bytes per batch), ratio {:.1}x | | {} | 1.00 | {} | | | | | |",
            workload.name,
            defaults.gzip_level,
            ceiling.mb_per_sec,
            ceiling.body_bytes,
            ceiling.ratio,
            k(ceiling.events_per_sec),
            k(ceiling.events_per_sec)
        );
        let runs = [
            ("defaults", deliver(&fast, &workload, events, |b| b)),
            (
                "max_batch_records 1000",
                deliver(&fast, &workload, events, |b| b.max_batch_records(1000)),
            ),
        ];
        for (settings, r) in runs {
            let verdict = format!(
                "≥ {} (70 % × ceiling × {cores}, ≥ 250 k) | {}",
                k(target),
                met(r.events_per_sec >= target)
            );
            print_row("local intake", workload.name, settings, &r, &verdict);
        }
    }
    drop(fast);

    let varied = Arc::new(Workload::varied());
    let slow = start_intake(SLOW);
    let slow_runs = [
        (
            "defaults (adaptive, ceiling 16)",
            deliver(&slow, &varied, scale(200_000), |b| b),
            Some(44_000.0),
        ),
        (
            "adaptive off, fixed 2 (the old default)",
            deliver(&slow, &varied, scale(60_000), |b| {
                b.adaptive_concurrency(false).max_in_flight(2)
            }),
            None,
        ),
    ];
    for (settings, r, target) in slow_runs {
        let verdict = match target {
            Some(t) => format!("≥ {} | {}", k(t), met(r.events_per_sec >= t)),
            None => "(comparison) |".to_owned(),
        };
        print_row("20 ms intake", varied.name, settings, &r, &verdict);
    }
    let storm = storm(&slow, varied, if full { 300 } else { 60 });
    drop(slow);
    println!();
    println!(
        "429 storm through the 20 ms intake (defaults, steady backlog): limit {} just before \
         (highest so far {}), lowest {} during, at most {} requests at once during the storm \
         (≤ {}: {}), {} two seconds after it; {} events failed after their retries.",
        storm.before,
        storm.peak,
        storm.lowest,
        storm.intake_peak,
        storm.peak,
        met(storm.intake_peak as u64 <= storm.peak && storm.lowest < storm.before),
        storm.after,
        storm.failed_events
    );
}
