//! `logship demo`: a synthetic service logging through `tracing` into logship and a local
//! intake, with no network and no account.
//!
//! The intake is the demo's own [`sink`]: it runs in-process on a free loopback port,
//! answers as the chosen vendor does and keeps only a counter; its observer turns each
//! arriving event's `t_us` field (Unix microseconds at log time) into an end-to-end
//! latency sample. `--threads` threads log `info!`/`warn!` events (about
//! 90/10) with a few fields inside a `request` span, paced to `--rate` events/s in total
//! for `--duration` seconds, and time every log call. A progress line is refreshed on
//! stderr every 500 ms; at the end a table goes to stdout (and `--json FILE` gets the same
//! figures). Exit code 0 when every logged event reached the intake.

mod sink;
mod tls;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{mpsc, Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use clap::Args;
use logship::{Builder, Stats, Vendor};
use serde::Serialize;
use tracing_subscriber::prelude::*;

use logship_cli::exit::Failure;
use logship_cli::histogram::Histogram;
use logship_cli::units;

use crate::settings::{PipelineKeys, Settings, SettingsArgs};
use sink::Sink;

/// The key a vendor demo sends to its local intake when none is given.
const DEMO_KEY: &str = "logship-demo-key";

/// How often the progress line is refreshed.
const PROGRESS_EVERY: Duration = Duration::from_millis(500);
/// How long to wait for the intake to have counted what logship says was delivered.
const INTAKE_SETTLE: Duration = Duration::from_secs(10);

/// Options of `logship demo`.
#[derive(Args, Debug)]
pub struct DemoArgs {
    /// Threads logging concurrently.
    #[arg(long, value_name = "N", default_value_t = 4)]
    pub threads: usize,

    /// Events per second, all threads together.
    #[arg(long, value_name = "EVENTS_PER_S", default_value_t = 20_000)]
    pub rate: u64,

    /// How long to log, in seconds.
    #[arg(long, value_name = "SECS", default_value_t = 10.0)]
    pub duration: f64,

    /// Take the embedded intake down this many seconds into the run (every connection is
    /// dropped), to show spill and replay. Use with --outage-for.
    #[arg(long, value_name = "SECS", requires = "outage_for")]
    pub outage_after: Option<f64>,

    /// How long the outage lasts, in seconds.
    #[arg(long, value_name = "SECS", requires = "outage_after")]
    pub outage_for: Option<f64>,

    /// Ship over HTTPS: the intake serves TLS with a throwaway CA generated for this run,
    /// which the pipeline trusts through tls_ca_file.
    #[arg(long)]
    pub tls: bool,

    /// Also write the results to FILE as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// `--config` and the pipeline keys' flags (the endpoint is always the in-process
    /// intake).
    #[command(flatten)]
    pub settings: SettingsArgs<PipelineKeys>,
}

/// The demo's results, as written by `--json`.
#[derive(Debug, Serialize)]
pub struct DemoReport {
    /// Logging threads.
    pub threads: usize,
    /// Requested duration in seconds.
    pub duration_s: f64,
    /// Requested total rate in events/s.
    pub rate: u64,
    /// Port of the in-process intake.
    pub intake_port: u16,
    /// Whether the run shipped over HTTPS (`--tls`).
    pub tls: bool,
    /// How long the logging phase actually took, in seconds.
    pub logging_s: f64,
    /// Log calls made.
    pub events_logged: u64,
    /// Events the intake accepted.
    pub events_delivered: u64,
    /// Events refused at the log call (queue full or closed).
    pub events_dropped: u64,
    /// Events accepted but failed or abandoned.
    pub events_not_delivered: u64,
    /// Batches cut.
    pub batches: u64,
    /// HTTP requests made (including retries).
    pub requests: u64,
    /// Uncompressed body bytes delivered.
    pub bytes_raw: u64,
    /// Body bytes on the wire.
    pub bytes_compressed: u64,
    /// `bytes_raw / bytes_compressed` (0 when nothing was sent).
    pub compression_ratio: f64,
    /// Events whose end-to-end latency was measured.
    pub latency_samples: u64,
    /// Log call to intake arrival, median, microseconds.
    pub latency_p50_us: u64,
    /// Log call to intake arrival, 99th percentile, microseconds.
    pub latency_p99_us: u64,
    /// Log call to intake arrival, largest, microseconds.
    pub latency_max_us: u64,
    /// Time spent in the log call, median, nanoseconds.
    pub call_cost_p50_ns: u64,
    /// Time spent in the log call, 99th percentile, nanoseconds.
    pub call_cost_p99_ns: u64,
    /// Time spent in the log call, largest, nanoseconds.
    pub call_cost_max_ns: u64,
    /// Peak resident memory of the whole demo process (intake included), bytes.
    pub peak_rss_bytes: u64,
    /// What happened around the outage, when one was staged.
    pub outage: Option<OutageReport>,
    /// The pipeline's final counters.
    pub stats: Stats,
}

/// Results of a run with `--outage-after`/`--outage-for`.
#[derive(Debug, Serialize, Clone, Default)]
pub struct OutageReport {
    /// When the intake went down, seconds into the run.
    pub after_s: f64,
    /// How long it stayed down, seconds.
    pub for_s: f64,
    /// Distinct events that reached the intake.
    pub unique_delivered: u64,
    /// Events that reached the intake more than once (extra copies).
    pub duplicates: u64,
    /// Events logged that never reached the intake.
    pub lost: u64,
    /// Events written to the spill.
    pub spilled: u64,
    /// Spilled events delivered by the replayer.
    pub replayed: u64,
    /// Most bytes the spill held at once (sampled every progress tick).
    pub peak_spill_bytes: u64,
    /// Log calls made while the intake was down.
    pub calls_during_outage: u64,
    /// Cost of those log calls, median, nanoseconds.
    pub call_cost_p50_ns: u64,
    /// Cost of those log calls, 99th percentile, nanoseconds.
    pub call_cost_p99_ns: u64,
    /// Resident memory when the intake went down, bytes.
    pub rss_at_outage_start_bytes: u64,
    /// Most resident memory during the outage's first minute (or first half, if
    /// shorter), bytes.
    pub rss_peak_early_outage_bytes: u64,
    /// Most resident memory during the rest of the outage, bytes: no higher than the
    /// early peak when memory stays flat while events go to disk.
    pub rss_peak_late_outage_bytes: u64,
    /// Resident memory sampled every half second through the run: `[seconds, bytes]`.
    pub rss_samples: Vec<(f64, u64)>,
}

/// Longest the demo waits, after logging, for spilled events to be replayed.
const REPLAY_WAIT: Duration = Duration::from_secs(300);

/// Distinct events seen by the intake, by `request_id`, and the extra copies.
#[derive(Default)]
struct Arrivals {
    seen: std::collections::HashSet<u64>,
    duplicates: u64,
}

/// The RSS figures of an outage from samples taken through the run: at its start, the
/// peak of its first minute (or half), and the peak of the rest.
fn outage_rss(samples: &[(f64, u64)], after: f64, length: f64) -> (u64, u64, u64) {
    let early_end = after + length.min(60.0).min(length / 2.0).max(0.0);
    let end = after + length;
    let at_start = samples
        .iter()
        .find(|(t, _)| *t >= after)
        .map_or(0, |(_, b)| *b);
    let peak = |from: f64, to: f64| {
        samples
            .iter()
            .filter(|(t, _)| *t >= from && *t < to)
            .map(|(_, b)| *b)
            .max()
            .unwrap_or(0)
    };
    (at_start, peak(after, early_end), peak(early_end, end))
}

/// Runs `logship demo`.
pub fn run(args: DemoArgs) -> Result<ExitCode, Failure> {
    validate(&args)?;
    if args.settings.was_given("endpoint") {
        return Err(Failure::usage(
            "--endpoint: logship demo always ships to its embedded local intake; use logship ship to send elsewhere",
        ));
    }
    // A vendor demo ships that vendor's format to the sink, which answers as the vendor
    // does, with a demo key unless one was given (the sink checks none).
    // Flags, LOGSHIP_* variables and --config apply as for `ship`, except the endpoint.
    let resolved = Settings::pipeline(&args.settings)?.config;
    let vendor = resolved.vendor;
    let generic = matches!(vendor, Vendor::Ndjson | Vendor::JsonArray);
    let key = resolved
        .api_key
        .as_ref()
        .map(|k| k.expose().to_owned())
        .unwrap_or_else(|| DEMO_KEY.to_owned());
    let tls = args.tls.then(tls::DemoTls::new).transpose()?;
    let latency = Arc::new(Mutex::new(Histogram::new()));
    let staged_outage = args.outage_after.zip(args.outage_for);
    let arrivals = Arc::new(Mutex::new(Arrivals::default()));
    let observer: sink::Observer = {
        let latency = Arc::clone(&latency);
        let arrivals = Arc::clone(&arrivals);
        let track = staged_outage.is_some();
        Box::new(move |probes, arrival| {
            if track {
                if let Ok(mut a) = arrivals.lock() {
                    for id in probes.iter().filter_map(|p| p.request_id) {
                        if !a.seen.insert(id) {
                            a.duplicates += 1;
                        }
                    }
                }
            }
            let arrival = unix_micros(arrival);
            if let Ok(mut h) = latency.lock() {
                for t_us in probes.iter().filter_map(|p| p.t_us) {
                    h.record(arrival.saturating_sub(t_us));
                }
            }
        })
    };
    let intake = Sink::start(vendor, tls.as_ref().map(|t| t.server.clone()), observer)
        .map_err(|e| Failure::runtime(format!("cannot start the local intake: {e}")))?;

    // The demo spills (when it has to) to a private directory removed at the end, so that
    // it never collides with, or replays, another program's spill.
    let spill_dir = PrivateSpillDir::new(resolved.spill_dir.is_none() && resolved.spill_enabled);
    let base = Builder::from_config(resolved);
    let base = if generic {
        base.endpoint(intake.url("/logs"))
    } else {
        // No path: the vendor's standard path is appended, as for a real intake's host.
        base.endpoint(intake.url("")).api_key(key.as_str())
    };
    let base = match &tls {
        Some(t) => base.tls_ca_file(t.ca_file.clone()),
        None => base,
    };
    let builder = match &spill_dir.0 {
        Some(dir) => base.spill_dir(dir.clone()),
        None => base,
    };
    let (layer, guard) = builder.build_layer()?;
    let logship = layer.logship().clone();
    tracing_subscriber::registry()
        .with(layer)
        .try_init()
        .map_err(|e| Failure::runtime(format!("cannot install the tracing subscriber: {e}")))?;

    let logged = Arc::new(AtomicU64::new(0));
    let outage_now = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (done_tx, done_rx) = mpsc::channel::<(Histogram, Histogram)>();
    let total = (args.rate as f64 * args.duration).round() as u64;
    let per_thread_rate = args.rate as f64 / args.threads as f64;
    let started = Instant::now();
    let mut handles = Vec::with_capacity(args.threads);
    for i in 0..args.threads {
        let quota =
            total / args.threads as u64 + u64::from((i as u64) < total % args.threads as u64);
        let logged = Arc::clone(&logged);
        let outage_now = Arc::clone(&outage_now);
        let done = done_tx.clone();
        let handle = thread::Builder::new()
            .name(format!("demo-service-{i}"))
            .spawn(move || {
                let costs = service(
                    i as u64,
                    quota,
                    per_thread_rate,
                    started,
                    &logged,
                    &outage_now,
                );
                let _ = done.send(costs);
            })
            .map_err(|e| Failure::runtime(format!("cannot start a demo thread: {e}")))?;
        handles.push(handle);
    }
    drop(done_tx);

    // Progress until every service thread has finished.
    let mut costs = Histogram::new();
    let mut outage_costs = Histogram::new();
    let mut finished = 0;
    let mut progress = Progress::new(started);
    let mut next_tick = started + PROGRESS_EVERY;
    let mut peak_spill_bytes = 0;
    let mut rss_samples = Vec::new();
    while finished < args.threads {
        match done_rx.recv_timeout(next_tick.saturating_duration_since(Instant::now())) {
            Ok((h, o)) => {
                costs.merge(&h);
                outage_costs.merge(&o);
                finished += 1;
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {
                next_tick += PROGRESS_EVERY;
                if let Some((after, length)) = staged_outage {
                    let t = started.elapsed().as_secs_f64();
                    let down = t >= after && t < after + length;
                    if down != outage_now.swap(down, Relaxed) {
                        intake.set_down(down);
                    }
                }
                peak_spill_bytes = peak_spill_bytes.max(logship.stats().spill_bytes);
                rss_samples.push((
                    started.elapsed().as_secs_f64(),
                    logship_cli::memory::rss_bytes(),
                ));
                progress.show(
                    logged.load(Relaxed),
                    intake.events(),
                    logship.stats().queue_depth,
                );
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    let logging = started.elapsed();
    for handle in handles {
        if handle.join().is_err() {
            eprintln!("logship demo: a service thread panicked");
        }
    }
    progress.finish(
        logged.load(Relaxed),
        intake.events(),
        logship.stats().queue_depth,
    );

    if staged_outage.is_some() {
        // The run may end inside the outage: bring the intake back, let the replayer
        // finish what is on disk, and watch the spill's size meanwhile.
        outage_now.store(false, Relaxed);
        intake.set_down(false);
        let deadline = Instant::now() + REPLAY_WAIT;
        while Instant::now() < deadline && !logship.wait_spill_drained(PROGRESS_EVERY) {
            peak_spill_bytes = peak_spill_bytes.max(logship.stats().spill_bytes);
        }
    }
    let report = logship.shutdown(logship.shutdown_timeout());
    drop(guard); // returns the same report at once
    intake.wait_for_events(report.stats.events_delivered, INTAKE_SETTLE);
    let latency = latency.lock().map(|h| h.clone()).unwrap_or_default();

    let s = report.stats;
    let result = DemoReport {
        threads: args.threads,
        duration_s: args.duration,
        rate: args.rate,
        intake_port: intake.port(),
        tls: intake.is_tls(),
        logging_s: logging.as_secs_f64(),
        events_logged: logged.load(Relaxed),
        events_delivered: intake.events(),
        events_dropped: s.dropped(),
        events_not_delivered: s.events_failed + s.events_abandoned + s.pending(),
        batches: s.batches,
        requests: s.requests,
        bytes_raw: s.bytes_raw,
        bytes_compressed: s.bytes_compressed,
        compression_ratio: if s.bytes_compressed == 0 {
            0.0
        } else {
            s.bytes_raw as f64 / s.bytes_compressed as f64
        },
        latency_samples: latency.count(),
        latency_p50_us: latency.quantile(0.5),
        latency_p99_us: latency.quantile(0.99),
        latency_max_us: latency.max(),
        call_cost_p50_ns: costs.quantile(0.5),
        call_cost_p99_ns: costs.quantile(0.99),
        call_cost_max_ns: costs.max(),
        peak_rss_bytes: logship_cli::memory::peak_rss_bytes(),
        outage: staged_outage.map(|(after_s, for_s)| {
            let a = arrivals
                .lock()
                .map(|a| (a.seen.len() as u64, a.duplicates))
                .unwrap_or_default();
            let (rss_start, rss_early, rss_late) = outage_rss(&rss_samples, after_s, for_s);
            OutageReport {
                rss_at_outage_start_bytes: rss_start,
                rss_peak_early_outage_bytes: rss_early,
                rss_peak_late_outage_bytes: rss_late,
                rss_samples: std::mem::take(&mut rss_samples),
                after_s,
                for_s,
                unique_delivered: a.0,
                duplicates: a.1,
                lost: logged.load(Relaxed).saturating_sub(a.0),
                spilled: s.events_spilled,
                replayed: s.events_replayed,
                peak_spill_bytes,
                calls_during_outage: outage_costs.count(),
                call_cost_p50_ns: outage_costs.quantile(0.5),
                call_cost_p99_ns: outage_costs.quantile(0.99),
            }
        }),
        stats: s,
    };
    {
        let mut out = std::io::stdout().lock();
        let _ = out.write_all(table(&result).as_bytes());
        let _ = out.flush();
    }
    if let Some(path) = &args.json {
        let json = serde_json::to_string_pretty(&result)
            .map_err(|e| Failure::runtime(format!("cannot encode the results: {e}")))?;
        std::fs::write(path, json + "\n").map_err(|e| {
            Failure::runtime(format!("cannot write --json {}: {e}", path.display()))
        })?;
    }
    let complete = match &result.outage {
        Some(o) => o.lost == 0,
        None => result.events_delivered == result.events_logged,
    };
    Ok(if complete {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn validate(args: &DemoArgs) -> Result<(), Failure> {
    if !(1..=1024).contains(&args.threads) {
        return Err(Failure::usage(format!(
            "--threads {}: must be 1..=1024",
            args.threads
        )));
    }
    if !(1..=10_000_000).contains(&args.rate) {
        return Err(Failure::usage(format!(
            "--rate {}: must be 1..=10000000 events per second",
            args.rate
        )));
    }
    if !(args.duration.is_finite() && args.duration > 0.0 && args.duration <= 86_400.0) {
        return Err(Failure::usage(format!(
            "--duration {}: must be more than 0 and at most 86400 seconds",
            args.duration
        )));
    }
    Ok(())
}

/// Routes the synthetic service serves.
const ROUTES: [&str; 6] = [
    "/api/v1/orders",
    "/api/v1/orders/{id}",
    "/api/v1/users/{id}",
    "/api/v1/cart",
    "/api/v1/checkout",
    "/healthz",
];
/// Upstreams named in messages.
const UPSTREAMS: [&str; 4] = ["orders-db-2", "users-cache-1", "payments-gw", "inventory-3"];

/// One service thread: logs `quota` events paced at `rate` per second from `start`, and
/// returns the cost of each log call in nanoseconds.
fn service(
    thread: u64,
    quota: u64,
    rate: f64,
    start: Instant,
    logged: &AtomicU64,
    outage_now: &std::sync::atomic::AtomicBool,
) -> (Histogram, Histogram) {
    let mut costs = Histogram::new();
    let mut outage_costs = Histogram::new();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (thread + 1).wrapping_mul(0xD1B5_4A32_D192_ED03));
    let interval = 1.0 / rate;
    for n in 0..quota {
        let due = start + Duration::from_secs_f64(n as f64 * interval);
        let now = Instant::now();
        if due > now {
            thread::sleep(due - now);
        }
        let request_id = (thread << 40) | n;
        let span = tracing::info_span!("request", request_id);
        let _entered = span.enter();
        let r = rng.next();
        let user_id = r % 100_000;
        let route = ROUTES[(r >> 20) as usize % ROUTES.len()];
        let upstream = UPSTREAMS[(r >> 24) as usize % UPSTREAMS.len()];
        let bytes = (r >> 28) % 64_000;
        let warn = n % 10 == 9;
        let t_us = unix_micros(SystemTime::now());
        let call = Instant::now();
        if warn {
            let status = 503u64;
            let duration_ms = 800 + (r >> 32) % 1200;
            tracing::warn!(
                t_us,
                user_id,
                route,
                status,
                duration_ms,
                "POST {route} slow upstream {upstream} for user {user_id}: status {status} after {duration_ms} ms, retrying (attempt 2 of 3)"
            );
        } else {
            let status = 200u64;
            let duration_ms = 2 + (r >> 32) % 80;
            let cache = if r & 1 == 0 { "hit" } else { "miss" };
            tracing::info!(
                t_us,
                user_id,
                route,
                status,
                duration_ms,
                "GET {route} completed for user {user_id} with status {status} in {duration_ms} ms (cache {cache}, upstream {upstream}, {bytes} bytes)"
            );
        }
        let cost = u64::try_from(call.elapsed().as_nanos()).unwrap_or(u64::MAX);
        costs.record(cost);
        if outage_now.load(Relaxed) {
            outage_costs.record(cost);
        }
        logged.fetch_add(1, Relaxed);
    }
    (costs, outage_costs)
}

/// A small xorshift generator: the demo needs variety, not quality.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
}

/// Microseconds since the Unix epoch (0 before it).
fn unix_micros(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

/// The `\r`-refreshed progress line on stderr.
struct Progress {
    started: Instant,
    last_at: Instant,
    last_logged: u64,
    last_delivered: u64,
    shown: bool,
}

impl Progress {
    fn new(started: Instant) -> Progress {
        Progress {
            started,
            last_at: started,
            last_logged: 0,
            last_delivered: 0,
            shown: false,
        }
    }

    fn show(&mut self, logged: u64, delivered: u64, queue: u64) {
        let now = Instant::now();
        let secs = now.duration_since(self.last_at).as_secs_f64().max(1e-3);
        let log_rate = logged.saturating_sub(self.last_logged) as f64 / secs;
        let delivery_rate = delivered.saturating_sub(self.last_delivered) as f64 / secs;
        eprint!(
            "\r  {:6.1} s   logged {:8.0} ev/s   delivered {:8.0} ev/s   queue {:6}  ",
            now.duration_since(self.started).as_secs_f64(),
            log_rate,
            delivery_rate,
            queue
        );
        let _ = std::io::stderr().flush();
        self.last_at = now;
        self.last_logged = logged;
        self.last_delivered = delivered;
        self.shown = true;
    }

    /// Shows the last state (unless the last refresh was moments ago, when rates over
    /// so short an interval would mislead) and ends the line.
    fn finish(&mut self, logged: u64, delivered: u64, queue: u64) {
        if !self.shown {
            return;
        }
        if self.last_at.elapsed() >= PROGRESS_EVERY / 2 {
            self.show(logged, delivered, queue);
        }
        eprintln!();
    }
}

/// The results table printed on stdout.
fn table(r: &DemoReport) -> String {
    let row = |label: &str, value: String| format!("  {label:<22}{value}\n");
    let quantiles =
        |p50: String, p99: String, max: String| format!("p50 {p50:<10}p99 {p99:<10}max {max}");
    let mut out = format!(
        "logship demo: {} threads, {} s, local intake on 127.0.0.1:{}{}\n",
        r.threads,
        r.duration_s,
        r.intake_port,
        if r.tls { " (HTTPS)" } else { "" }
    );
    out += &row("events logged", r.events_logged.to_string());
    out += &row("events delivered", r.events_delivered.to_string());
    out += &row("events dropped", r.events_dropped.to_string());
    if r.events_not_delivered > 0 {
        out += &row("events not delivered", r.events_not_delivered.to_string());
    }
    out += &row("batches", r.batches.to_string());
    out += &row(
        "bytes raw",
        format!("{}  ({})", r.bytes_raw, units::bytes(r.bytes_raw)),
    );
    out += &row(
        "bytes compressed",
        format!(
            "{}  ({})",
            r.bytes_compressed,
            units::bytes(r.bytes_compressed)
        ),
    );
    out += &row(
        "compression ratio",
        units::ratio(r.bytes_raw, r.bytes_compressed),
    );
    out += &row(
        "log call -> intake",
        quantiles(
            units::nanos(r.latency_p50_us.saturating_mul(1000)),
            units::nanos(r.latency_p99_us.saturating_mul(1000)),
            units::nanos(r.latency_max_us.saturating_mul(1000)),
        ),
    );
    out += &row(
        "log call cost",
        quantiles(
            units::nanos(r.call_cost_p50_ns),
            units::nanos(r.call_cost_p99_ns),
            units::nanos(r.call_cost_max_ns),
        ),
    );
    out += &row("peak RSS", units::bytes(r.peak_rss_bytes));
    if let Some(o) = &r.outage {
        out += &format!(
            "  outage: intake down from {} s for {} s\n",
            o.after_s, o.for_s
        );
        out += &row("  unique delivered", o.unique_delivered.to_string());
        out += &row("  duplicates", o.duplicates.to_string());
        out += &row("  lost", o.lost.to_string());
        out += &row(
            "  spilled / replayed",
            format!("{} / {}", o.spilled, o.replayed),
        );
        out += &row("  peak spill size", units::bytes(o.peak_spill_bytes));
        out += &row(
            "  RSS in outage",
            format!(
                "at start {}, peak early {}, peak late {}",
                units::bytes(o.rss_at_outage_start_bytes),
                units::bytes(o.rss_peak_early_outage_bytes),
                units::bytes(o.rss_peak_late_outage_bytes)
            ),
        );
        out += &row(
            "  call cost in outage",
            format!(
                "p50 {:<10}p99 {:<10}({} calls)",
                units::nanos(o.call_cost_p50_ns),
                units::nanos(o.call_cost_p99_ns),
                o.calls_during_outage
            ),
        );
    }
    out
}

/// A fresh spill directory under the system temp dir, removed on drop.
struct PrivateSpillDir(Option<PathBuf>);

impl PrivateSpillDir {
    fn new(wanted: bool) -> PrivateSpillDir {
        PrivateSpillDir(
            wanted
                .then(|| std::env::temp_dir().join(format!("logship-demo-{}", std::process::id()))),
        )
    }
}

impl Drop for PrivateSpillDir {
    fn drop(&mut self) {
        if let Some(dir) = &self.0 {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::outage_rss;

    #[test]
    fn outage_rss_splits_the_outage_into_its_first_minute_and_the_rest() {
        // Samples every 10 s; outage from 30 s for 600 s.
        let samples: Vec<(f64, u64)> = (0..70).map(|i| (i as f64 * 10.0, 100 + i)).collect();
        let (start, early, late) = outage_rss(&samples, 30.0, 600.0);
        assert_eq!(start, 103); // the first sample at or after 30 s
        assert_eq!(early, 108); // 30 s ..< 90 s
        assert_eq!(late, 162); // 90 s ..< 630 s
                               // A short outage: its first half counts as early.
        let (_, early, late) = outage_rss(&samples, 30.0, 40.0);
        assert_eq!((early, late), (104, 106));
        // No samples in the outage: zeros, not a panic.
        assert_eq!(outage_rss(&[], 1.0, 2.0), (0, 0, 0));
    }
}
