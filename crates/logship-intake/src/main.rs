//! `logship-intake`: run the local test intake on 127.0.0.1 until Ctrl-C, SIGTERM or
//! `--duration` (`cargo run -p logship-intake -- --port 8080`; it was `logship intake`).
//!
//! Prints `listening on http://127.0.0.1:PORT` (`https://` with `--tls-cert`) as its
//! first stdout line (scripts and tests read the port from it), a progress line on stderr
//! every 5 s while events arrive, and the intake's summary on stdout when it stops. Keeps
//! only counters unless `--keep-events`, so it can run for long without growing. Exit
//! codes: 0 when stopped, 1 when it cannot run, 2 for bad options.
//!
//! A test tool: it lives in this crate, not in the `logship` binary that users install.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::ExitCode;
use std::sync::{mpsc, Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use clap::Parser;
use logship_intake::{Fault, Intake, IntakeConfig, TlsServer, WireFault};

/// How often progress is considered.
const PROGRESS_EVERY: Duration = Duration::from_secs(5);

/// Why the command stopped early: bad options (exit code 2) or a failure to run (1).
#[derive(Debug)]
enum Failure {
    Usage(String),
    Runtime(String),
}

impl Failure {
    fn usage(message: impl Into<String>) -> Failure {
        Failure::Usage(message.into())
    }

    fn runtime(message: impl Into<String>) -> Failure {
        Failure::Runtime(message.into())
    }
}

fn main() -> ExitCode {
    match run(IntakeArgs::parse()) {
        Ok(code) => code,
        Err(failure) => {
            let (code, message) = match failure {
                Failure::Usage(m) => (2, m),
                Failure::Runtime(m) => (1, m),
            };
            let _ = writeln!(std::io::stderr(), "logship-intake: {message}");
            ExitCode::from(code)
        }
    }
}

/// Options of `logship-intake` (those of the former `logship intake`).
#[derive(Debug, Parser)]
#[command(
    name = "logship-intake",
    version,
    about = "Run a local log intake on 127.0.0.1 that counts what it receives (logship's test intake)."
)]
struct IntakeArgs {
    /// Port on 127.0.0.1 (0 picks a free port).
    #[arg(long, default_value_t = 8080)]
    port: u16,

    /// Delay before answering each request, to emulate a slow intake.
    #[arg(long, value_name = "MS", default_value_t = 0)]
    delay_ms: u64,

    /// Answer the first --fail-count requests with this HTTP status.
    #[arg(long, value_name = "STATUS")]
    fail_status: Option<u16>,

    /// How many requests get --fail-status. [default: 1]
    #[arg(long, value_name = "N", requires = "fail_status")]
    fail_count: Option<usize>,

    /// Add `Retry-After: SECS` to the failing answers.
    #[arg(long, value_name = "SECS", requires = "fail_status")]
    retry_after: Option<u64>,

    /// Misbehave on purpose: answer with a hostile fault mode, `MODE[,KEY=VALUE...]`
    /// (modes: never-answer, drip, huge, huge-chunked, endless, endless-chunked,
    /// garbage-status, not-http, reset-before, reset-mid, reset-after, short-length,
    /// long-length, redirect, echo-headers; keys: status, bytes, ms, len, claimed,
    /// location). E.g. `--misbehave drip,status=503,ms=200`.
    #[arg(long, value_name = "MODE")]
    misbehave: Option<String>,

    /// How many requests get --misbehave. [default: every request]
    #[arg(long, value_name = "N", requires = "misbehave")]
    misbehave_count: Option<usize>,

    /// Keep every event in memory (off: counters only, bounded memory).
    #[arg(long)]
    keep_events: bool,

    /// Print each accepted event to stdout as it arrives, one line of JSON per event (the
    /// event as the vendor's strict decoder read it), after the `listening on` line.
    /// `GET /_intake/events` shows the last ones without this.
    #[arg(long)]
    print: bool,

    /// The API key or token the vendor endpoints (Datadog, Splunk, New Relic, Dynatrace;
    /// Elasticsearch `ApiKey`, or the basic-auth password) require; Loki then requires
    /// basic auth with it as the password. [default: any non-empty key is accepted; Loki
    /// checks none]
    #[arg(long, value_name = "KEY")]
    key: Option<String>,

    /// Splunk HEC's max_content_length: the largest request body (uncompressed) accepted.
    #[arg(long, value_name = "BYTES", default_value_t = 1_000_000)]
    splunk_max_content_length: usize,

    /// Emulate a Splunk HEC token with indexer acknowledgement on: requests without a
    /// channel get 400 code 10, answers carry an ackId, POST /services/collector/ack
    /// answers which are indexed.
    #[arg(long)]
    splunk_ack: bool,

    /// With --splunk-ack: never confirm every Nth ackId of a channel (to test a client's
    /// resends). [default: none lost]
    #[arg(long, value_name = "N", requires = "splunk_ack")]
    splunk_ack_lose_every: Option<u64>,

    /// Serve HTTPS with this certificate chain (PEM, leaf first); needs --tls-key.
    #[arg(long, value_name = "FILE", requires = "tls_key")]
    tls_cert: Option<std::path::PathBuf>,

    /// The private key of --tls-cert (PEM).
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    tls_key: Option<std::path::PathBuf>,

    /// Require client certificates signed by this CA (PEM bundle): mutual TLS.
    #[arg(long, value_name = "FILE", requires = "tls_cert")]
    client_ca: Option<std::path::PathBuf>,

    /// Count, do not check: answer every POST 200 once its body is read and decoded,
    /// counting its non-blank lines as events; nothing is parsed or validated. For
    /// throughput benchmarks (the strict checks cost more CPU than the shipper).
    #[arg(long, conflicts_with_all = ["print", "keep_events"])]
    count_only: bool,

    /// With --count-only: append the id of every accepted line holding an --id-marker to
    /// FILE, 8 bytes each (little-endian u64: the marker's index in the top byte, the id
    /// below), buffered, flushed every 250 ms and written to disk (fsync) before the
    /// intake exits on SIGTERM or Ctrl-C; an id is recorded before its request is answered.
    /// For the soak, which checks every id at 20,000 events/s (`--print` costs too much).
    #[arg(long, value_name = "FILE", requires_all = ["count_only", "id_marker"])]
    record_ids: Option<std::path::PathBuf>,

    /// A text marker followed by an id (`soak f=`): repeat for several id spaces.
    #[arg(long, value_name = "TEXT", requires = "record_ids")]
    id_marker: Vec<String>,

    /// Stop after this many seconds (default: run until Ctrl-C or SIGTERM).
    #[arg(long, value_name = "SECS")]
    duration: Option<f64>,
}

/// Runs the intake until it is told to stop.
fn run(args: IntakeArgs) -> Result<ExitCode, Failure> {
    let fault = fault(&args)?;
    let misbehave = args.misbehave.as_deref().map(misbehave).transpose()?;
    let duration = match args.duration {
        None => None,
        Some(secs) if (0.0..=1e9).contains(&secs) => Some(Duration::from_secs_f64(secs)),
        Some(secs) => {
            return Err(Failure::usage(format!(
                "--duration {secs}: must be a number of seconds >= 0"
            )))
        }
    };
    // Set up signal handling before announcing the port, so a signal sent right after the
    // listening line is seen.
    let (stop_tx, stop_rx) = mpsc::channel::<()>();
    ctrlc::set_handler(move || {
        let _ = stop_tx.send(());
    })
    .map_err(|e| Failure::runtime(format!("cannot install the Ctrl-C handler: {e}")))?;

    let tls = match (&args.tls_cert, &args.tls_key) {
        (Some(cert), Some(key)) => Some(
            TlsServer::from_files(cert, key, args.client_ca.as_deref())
                .map_err(|e| Failure::usage(format!("cannot serve HTTPS: {e}")))?,
        ),
        _ => None,
    };
    let config = IntakeConfig {
        port: args.port,
        delay: Duration::from_millis(args.delay_ms),
        keep_events: args.keep_events,
        api_key: args.key.clone(),
        splunk_max_content_length: args.splunk_max_content_length,
        tls,
        splunk_ack: logship_intake::AckMode {
            enabled: args.splunk_ack,
            lose_every: args.splunk_ack_lose_every.unwrap_or(0),
        },
        count_only: args.count_only,
        count_only_probe: None,
        count_only_markers: args.id_marker.clone(),
    };
    let record = args
        .record_ids
        .as_deref()
        .map(IdRecord::create)
        .transpose()?;
    let intake = Intake::start(config)
        .map_err(|e| Failure::runtime(format!("cannot listen on 127.0.0.1:{}: {e}", args.port)))?;
    if let Some((count, fault)) = fault {
        intake.fail_next(count, fault);
    }
    if let Some(wire) = misbehave {
        intake.fail_next(
            args.misbehave_count.unwrap_or(usize::MAX),
            Fault::Wire(wire),
        );
    }
    if let Some(record) = &record {
        let record = Arc::clone(record);
        intake.set_observer(Box::new(move |probe, _arrival| record.add(probe)));
    }
    if args.print {
        // Installed before the listening line, so an event sent right after it is printed.
        // One write per line under the stdout lock, so lines from connection threads never
        // interleave; a closed stdout is ignored (the intake keeps serving).
        intake.set_observer(Box::new(|event, _arrival| {
            let mut line = event.to_string();
            line.push('\n');
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(line.as_bytes());
            let _ = out.flush();
        }));
    }

    {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "listening on {}", intake.url(""));
        let _ = out.flush();
    }
    let deadline = duration.map(|d| Instant::now() + d);
    let mut next_progress = Instant::now() + PROGRESS_EVERY;
    let mut last_events = 0;
    loop {
        let now = Instant::now();
        if deadline.is_some_and(|d| now >= d) {
            break;
        }
        let mut wake = deadline.map_or(next_progress, |d| d.min(next_progress));
        if let Some(record) = &record {
            record.flush()?;
            wake = wake.min(now + RECORD_FLUSH_EVERY);
        }
        match stop_rx.recv_timeout(wake.saturating_duration_since(now)) {
            Ok(()) | Err(mpsc::RecvTimeoutError::Disconnected) => break,
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        if Instant::now() >= next_progress {
            next_progress += PROGRESS_EVERY;
            let s = intake.stats();
            if s.events != last_events {
                let _ = writeln!(
                    std::io::stderr(),
                    "logship-intake: {} events in {} requests (+{} in the last {} s), {} rejected",
                    s.events,
                    s.requests,
                    s.events - last_events,
                    PROGRESS_EVERY.as_secs(),
                    s.rejected_requests
                );
                last_events = s.events;
            }
        }
    }
    let summary = intake.summary();
    // Every connection thread is joined before the record is synced: an id recorded by a
    // request still in flight is on disk before the exit.
    drop(intake);
    if let Some(record) = &record {
        record.sync()?;
    }
    {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{summary}");
        let _ = out.flush();
    }
    Ok(ExitCode::SUCCESS)
}

/// How often `--record-ids` hands its buffer to the kernel while the intake runs.
const RECORD_FLUSH_EVERY: Duration = Duration::from_millis(250);

/// The `--record-ids` file: 8 bytes per id, buffered. Must never lose an id it was handed
/// (a write error is kept and fails the exit, code 1) nor be left unsynced at a clean stop.
struct IdRecord {
    path: std::path::PathBuf,
    out: Mutex<(BufWriter<File>, Option<std::io::Error>)>,
}

impl IdRecord {
    fn create(path: &Path) -> Result<Arc<IdRecord>, Failure> {
        let file = File::create(path)
            .map_err(|e| Failure::runtime(format!("--record-ids {}: {e}", path.display())))?;
        Ok(Arc::new(IdRecord {
            path: path.to_path_buf(),
            out: Mutex::new((BufWriter::with_capacity(1 << 16, file), None)),
        }))
    }

    /// Records one marker probe (`{"marker": I, "id": N}`); anything else is ignored.
    fn add(&self, probe: &serde_json::Value) {
        let (Some(marker), Some(id)) = (
            probe.get("marker").and_then(|m| m.as_u64()),
            probe.get("id").and_then(|i| i.as_u64()),
        ) else {
            return;
        };
        let word = (marker << 56) | (id & ((1 << 56) - 1));
        let mut out = self.out.lock().unwrap_or_else(PoisonError::into_inner);
        if let Err(e) = out.0.write_all(&word.to_le_bytes()) {
            out.1.get_or_insert(e);
        }
    }

    fn failed(&self, what: &str, e: &std::io::Error) -> Failure {
        Failure::runtime(format!(
            "--record-ids {}: cannot {what}: {e}",
            self.path.display()
        ))
    }

    /// Hands the buffer to the kernel; an earlier write error is reported here.
    fn flush(&self) -> Result<(), Failure> {
        let mut out = self.out.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(e) = &out.1 {
            return Err(self.failed("write", e));
        }
        out.0.flush().map_err(|e| self.failed("write", &e))
    }

    /// Flushes and syncs the file to disk.
    fn sync(&self) -> Result<(), Failure> {
        self.flush()?;
        let out = self.out.lock().unwrap_or_else(PoisonError::into_inner);
        out.0
            .get_ref()
            .sync_all()
            .map_err(|e| self.failed("sync", &e))
    }
}

/// The fault `--fail-status` asks for, with its count.
fn fault(args: &IntakeArgs) -> Result<Option<(usize, Fault)>, Failure> {
    let Some(status) = args.fail_status else {
        return Ok(None);
    };
    if !(200..=599).contains(&status) {
        return Err(Failure::usage(format!(
            "--fail-status {status}: must be an HTTP status in 200..=599"
        )));
    }
    let count = args.fail_count.unwrap_or(1);
    let fault = match args.retry_after {
        Some(secs) => Fault::retry_after(status, secs),
        None => Fault::Status {
            status,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: r#"{"error":"injected fault"}"#.into(),
        },
    };
    Ok(Some((count, fault)))
}

/// The fault mode `--misbehave MODE[,KEY=VALUE...]` names.
fn misbehave(spec: &str) -> Result<WireFault, Failure> {
    let (mode, params) = spec.split_once(',').unwrap_or((spec, ""));
    let params: Vec<(&str, &str)> = params
        .split(',')
        .filter(|p| !p.is_empty())
        .map(|p| p.split_once('=').unwrap_or((p, "")))
        .collect();
    let lookup = |name: &str| {
        params
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| (*v).to_owned())
    };
    WireFault::parse(mode, &lookup).map_err(|e| Failure::usage(format!("--misbehave {spec}: {e}")))
}
