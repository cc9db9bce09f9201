//! `logship-lab --java`: the Log4j2 lab of issue #19, with the real Java service.
//!
//! Why it exists: it is the headline result for the services logship was born for. A Java
//! hello service (`lab/java/LabService.java`: the JDK's HTTP server, 3 lines of about 150
//! bytes logged per request through Log4j2 2.19's async loggers, Debian's packages) runs
//! under closed-loop load in six configurations, one after the other in one run, each
//! against a fresh local intake that answers after the vendor's latency:
//! (a) the stock `Http` appender straight to the intake (the problem), (b) the same
//! appender pointed at `logship ship --listen http://`, (c) the `Socket` appender into
//! `--listen tcp://`, (d) the `File` appender with `logship ship --follow` on the file,
//! (e) the `File` appender with nothing shipping, (f) logging off (the ceiling), and a
//! seventh for calibration: (g) the `Socket` appender into a sink that discards (the most
//! any TCP receiver can let the service serve, so the ceiling of (c)). Per configuration
//! it reports requests/s, latency p50/p99, events delivered, ingest lag and how long the
//! intake keeps receiving after the load stops, then checks the targets. With
//! `--java-rounds N` it runs every configuration N times, interleaved, and reports each
//! configuration's median round and each ratio's median over the rounds: the machine's
//! speed drifts by more than the margins the targets test.
//!
//! What it must never do: reach beyond 127.0.0.1, or leave a process running (every
//! child is killed when its handle drops).

mod configuration;
mod process;
mod report;
mod sink;

use std::path::{Path, PathBuf};
use std::sync::PoisonError;
use std::time::{Duration, Instant};

use super::lab::{drain, start_intake, LagRecorder, ServiceProcess};
use super::load;
use configuration::Shipping;
pub use configuration::{Configuration, CONFIGURATIONS};
use logship_cli::exit::Failure;
use process::{JavaService, Sidecar};
pub use report::{ConfigReport, JavaReport, JavaSetup};
use sink::DiscardSink;

/// Path the appenders and logship post to on the intake (its generic NDJSON protocol).
const INTAKE_PATH: &str = "/lab/logs";
/// Handler threads of the Java service's HTTP server.
const JAVA_THREADS: usize = 16;

/// The order configurations run in within a round: those the targets compare run next to
/// each other ((d) and (h) by (e); (c) by (g) and (f)), so the machine's drift between them is
/// the least it can be.
const RUN_ORDER: [char; 8] = ['a', 'b', 'd', 'e', 'h', 'c', 'g', 'f'];

/// How the Java lab is set up.
#[derive(Clone, Debug)]
pub struct JavaLabConfig {
    /// `lab/java`.
    pub dir: PathBuf,
    /// Which configurations run (`a`..`g`).
    pub only: Vec<char>,
    /// How many times each runs (interleaved: round after round of all of them).
    pub rounds: usize,
    /// Concurrent load connections.
    pub connections: usize,
    /// Unreported load before the measured run (JIT warm-up; fills the ring of (a)/(b)).
    pub warmup: Duration,
    /// The measured run.
    pub run: Duration,
    /// Latency the intake adds to every answer.
    pub intake_delay: Duration,
    /// Longest wait for the intake to have every event after the load.
    pub drain_cap: Duration,
    /// Slots of Log4j2's async logger ring.
    pub ring: usize,
    /// Drive the load with `wrk` (else the built-in generator).
    pub wrk: bool,
    /// The `logship` binary the sidecars of (b), (c) and (d) run.
    pub logship: PathBuf,
    /// logship's jar (`target/java/logship.jar`), on the class path of (h) only.
    pub jar: PathBuf,
}

/// Runs the chosen configurations and reports them.
pub fn run(cfg: &JavaLabConfig) -> Result<JavaReport, Failure> {
    let scratch = std::env::temp_dir().join(format!("logship-java-lab-{}", std::process::id()));
    let result = run_in(cfg, &scratch);
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

fn run_in(cfg: &JavaLabConfig, scratch: &Path) -> Result<JavaReport, Failure> {
    let java = JavaService::compile(&cfg.dir, &scratch.join("classes"))?;
    let chosen: Vec<&Configuration> = RUN_ORDER
        .iter()
        .filter(|k| cfg.only.contains(k))
        .filter_map(|k| CONFIGURATIONS.iter().find(|c| c.key == *k))
        .collect();
    let rounds = cfg.rounds.max(1);
    let mut runs: Vec<Vec<ConfigReport>> = Vec::with_capacity(rounds);
    for round in 1..=rounds {
        let mut this = Vec::with_capacity(chosen.len());
        for c in &chosen {
            eprintln!(
                "logship-lab --java: round {round}/{rounds}: {} ({})",
                c.name, c.what
            );
            this.push(run_configuration(c, cfg, &java, scratch)?);
        }
        this.sort_by_key(|r| r.key);
        runs.push(this);
    }
    Ok(JavaReport::from_rounds(
        JavaSetup {
            connections: cfg.connections,
            warmup_s: cfg.warmup.as_secs_f64(),
            run_s: cfg.run.as_secs_f64(),
            intake_latency_ms: u64::try_from(cfg.intake_delay.as_millis()).unwrap_or(u64::MAX),
            ring_slots: cfg.ring,
            java_threads: JAVA_THREADS,
            java: java_version(),
            load_generator: if cfg.wrk { "wrk" } else { "builtin" }.to_owned(),
            rounds,
        },
        runs,
    ))
}

/// `java -version`'s first line.
fn java_version() -> String {
    std::process::Command::new("java")
        .arg("-version")
        .output()
        .ok()
        .and_then(|o| {
            String::from_utf8_lossy(&o.stderr)
                .lines()
                .next()
                .map(str::to_owned)
        })
        .unwrap_or_else(|| "unknown".to_owned())
}

/// The `logship ship` arguments of a configuration that ships through logship.
fn sidecar_args(c: &Configuration, intake_url: &str, file: &Path, spill: &Path) -> Vec<String> {
    let mut args = vec![
        "--endpoint".to_owned(),
        intake_url.to_owned(),
        "--spill-dir".to_owned(),
        spill.display().to_string(),
    ];
    match c.shipping {
        Shipping::ListenHttp => args.extend(["--listen".into(), "http://127.0.0.1:0".into()]),
        Shipping::ListenTcp => args.extend(["--listen".into(), "tcp://127.0.0.1:0".into()]),
        Shipping::Follow => args.extend([
            "--follow".into(),
            file.display().to_string(),
            "--format".into(),
            "json".into(),
            "--no-checkpoint".into(),
        ]),
        Shipping::Direct | Shipping::Nothing | Shipping::Discard | Shipping::InProcess => {}
    }
    args
}

/// One configuration end to end: intake, sidecar, service, warm-up, measured run, drain.
fn run_configuration(
    c: &Configuration,
    cfg: &JavaLabConfig,
    java: &JavaService,
    scratch: &Path,
) -> Result<ConfigReport, Failure> {
    let (intake, lag) = start_intake(cfg.intake_delay)?;
    let intake_url = intake.url(INTAKE_PATH);
    // A fresh folder every run: a later round must not follow the file an earlier one
    // wrote (and a measured run's file can be hundreds of MiB: it is removed after).
    let dir = scratch.join(c.key.to_string());
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir)
        .map_err(|e| Failure::runtime(format!("cannot create {}: {e}", dir.display())))?;
    let file = dir.join("app.log");

    // A listener must be up before the appender connects; the follower starts once the
    // appender has created the file (it reads it from the beginning, so nothing written
    // before is missed).
    let args = sidecar_args(c, &intake_url, &file, &dir.join("spill"));
    let (mut sidecar, mut port) = (None, 0);
    let sink = match c.shipping {
        Shipping::Discard => Some(DiscardSink::start()?),
        _ => None,
    };
    if let Some(s) = &sink {
        port = s.port;
    }
    if matches!(c.shipping, Shipping::ListenHttp | Shipping::ListenTcp) {
        let (s, listening) = Sidecar::start(&cfg.logship, &args, true)?;
        sidecar = Some(s);
        port = listening.unwrap_or(0);
    }
    let url = match c.shipping {
        Shipping::ListenHttp => format!("http://127.0.0.1:{port}/"),
        _ => intake_url.clone(),
    };
    let props = [
        ("lab.url", url),
        ("lab.port", port.to_string()),
        ("lab.file", file.display().to_string()),
    ];
    let jar = (c.shipping == Shipping::InProcess).then_some(cfg.jar.as_path());
    let service = ServiceProcess::spawn(java.command(c.xml, cfg.ring, JAVA_THREADS, jar, &props))?;
    if c.shipping == Shipping::Follow {
        sidecar = Some(Sidecar::start(&cfg.logship, &args, false)?.0);
    }

    let drive = |length: Duration| {
        if cfg.wrk {
            load::wrk(service.addr, cfg.connections, length, &dir).map_err(Failure::runtime)
        } else {
            Ok(load::builtin(service.addr, cfg.connections, length, None))
        }
    };
    if !cfg.warmup.is_zero() {
        drive(cfg.warmup)?;
    }
    lag.lock().unwrap_or_else(PoisonError::into_inner).restart();
    let before = intake.stats().events;
    let result = drive(cfg.run)?;
    let during = intake.stats().events.saturating_sub(before);

    // The drain: how long the intake keeps receiving once the load has stopped, until it
    // has every event the service logged.
    let ships = !matches!(c.shipping, Shipping::Nothing | Shipping::Discard);
    let stopped = Instant::now();
    let drained = !ships || drain(&service, &intake, cfg.drain_cap)?;
    let drain_time = stopped.elapsed().min(cfg.drain_cap);
    let end = service.stats()?;
    let file_bytes = std::fs::metadata(&file).map_or(0, |m| m.len());
    let sidecar_rss = sidecar.as_ref().map(Sidecar::peak_rss_bytes);
    let service_exited = service.stop_within(Duration::from_secs(20));
    let (sidecar_exit, sidecar_summary) = match sidecar {
        Some(s) => {
            let (code, lines) = s.stop(Duration::from_secs(60));
            let summary = lines
                .iter()
                .rev()
                .find(|l| l.contains("delivered") || l.contains("shipped"))
                .cloned();
            (code, summary)
        }
        None => (None, None),
    };
    let intake_stats = intake.stats();
    drop(intake);
    let discarded_bytes = sink.as_ref().map_or(0, DiscardSink::bytes_read);
    drop(sink);
    let _ = std::fs::remove_dir_all(&dir);
    let lag = LagRecorder::take(lag);
    Ok(ConfigReport::new(
        c,
        &result,
        report::Counts {
            logged: end.logged,
            delivered_during_load: during,
            delivered: intake_stats.events,
            intake_requests: intake_stats.requests,
            file_bytes,
            discarded_bytes,
        },
        ships.then_some(&lag),
        ships.then_some((drain_time, drained)),
        end.peak_rss_bytes,
        report::SidecarOutcome {
            peak_rss_bytes: sidecar_rss,
            exit_code: sidecar_exit,
            summary: sidecar_summary,
            service_exited,
        },
    ))
}
