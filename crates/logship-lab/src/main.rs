//! `logship-lab`: the stock-versus-batch lab (issue #7, section 3), which was
//! `logship bench` (`cargo run --release -p logship-lab -- --quick`).
//!
//! Why it exists: it reproduces, on one machine and without accounts, the experiment that
//! motivates logship. A small HTTP service logs K lines per request either through a
//! faithful model of Log4j2's async logger plus HttpAppender (`stock`: a bounded ring, one
//! thread, one blocking POST per event) or through logship with its defaults (`batch`),
//! into a local intake that answers after a SaaS-like latency. A closed-loop load runs
//! three times per mode (first, churn without restart, long); the lab reports requests/s,
//! request latency, events delivered, ingest lag, the drain after the load and the
//! service's peak RSS, as a table, `--json`, and a Markdown report with SVG charts.
//!
//! `logship-lab --java` runs the same experiment with a real Java service and Log4j2's
//! stock appenders, in six configurations and a calibration (`java`, issue #19); its
//! sidecars are the `logship` binary (`--logship`, by default the one built next to this
//! one).
//!
//! Why a package of its own: the `logship` binary users install carries no lab code, and
//! the lab's tests must not make `cargo test --workspace` compile `logship-bench`'s heavy
//! dev-dependencies (the OpenTelemetry SDK, tracing-appender), which a test target in that
//! package would. Exit codes: 0 success, 1 runtime failure, 2 bad usage.
//!
//! Modules: `java` (the Java lab), `ring` (the stock ring), `stock` (the stock appender),
//! `service` (the lab service, run in a child process), `load` (load generators), `lab`
//! (one mode end to end), `report` (JSON, table, Markdown), `svg` (charts), `mode` (the
//! two logging modes).

// Every line the lab prints goes through these two: unlike the standard macros, they never
// panic when stdout or stderr is closed or full (a report piped into `head`). The same two
// as the `logship` command's main.rs: to shadow the standard macros in every module they
// must be written out in the crate root (imported or `include!`d ones are ambiguous).
macro_rules! println {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}
macro_rules! eprintln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod java;
mod lab;
mod load;
mod mode;
mod report;
mod ring;
mod service;
mod stock;
mod svg;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;

// Shared with the `logship` command through its doc-hidden library target.
use lab::LabConfig;
use logship_cli::exit::Failure;
use mode::Mode;
use report::{BenchReport, Setup};
use svg::Series;

fn main() -> ExitCode {
    match run(BenchArgs::parse()) {
        Ok(code) => code,
        Err(failure) => {
            eprintln!("logship-lab: {}", failure.message);
            ExitCode::from(failure.code)
        }
    }
}

/// Options of `logship-lab` (those of the former `logship bench`).
#[derive(Debug, Parser)]
#[command(
    name = "logship-lab",
    version,
    about = "Run the stock-versus-batch lab: a local service logging through a Log4j2-like appender or logship into a slow local intake, under load; report and chart it."
)]
pub struct BenchArgs {
    /// Short runs that finish within 30 s in all (2 s, 2 s, 4 s; the drain is capped at 8 s).
    #[arg(long, conflicts_with_all = ["full", "duration_s"])]
    pub quick: bool,

    /// The original experiment's lengths: 1 min, 1 min, 5 min.
    #[arg(long, conflicts_with = "duration_s")]
    pub full: bool,

    /// Length of each of the three runs, in seconds (overrides the 10 s, 10 s, 30 s
    /// defaults; meant for tests and quick looks). The drain after the load is capped at
    /// twice the last run, and at least 8 s.
    #[arg(long, value_name = "SECS")]
    pub duration_s: Option<f64>,

    /// Log lines per request.
    #[arg(long, value_name = "K", default_value_t = 3)]
    pub lines: u64,

    /// Concurrent keep-alive connections of the load generator.
    #[arg(long, value_name = "C", default_value_t = 50)]
    pub connections: usize,

    /// Slots of the stock ring buffer.
    #[arg(long, value_name = "N", default_value_t = 256)]
    pub ring: usize,

    /// Latency of the local intake (added before each answer), milliseconds.
    #[arg(long, value_name = "MS", default_value_t = 20)]
    pub intake_latency_ms: u64,

    /// Run only these modes (comma-separated).
    #[arg(
        long,
        value_name = "MODES",
        value_delimiter = ',',
        default_value = "stock,batch"
    )]
    pub modes: Vec<Mode>,

    /// Use `oha` (must be on the PATH) as the load generator instead of the built-in one.
    #[arg(long, conflicts_with = "rate")]
    pub oha: bool,

    /// Cap the built-in load at this many requests/s in total (default: no cap, each
    /// connection sends as soon as it is answered, which saturates the service).
    #[arg(long, value_name = "REQ_PER_S")]
    pub rate: Option<f64>,

    /// Also write the results to FILE as JSON.
    #[arg(long, value_name = "FILE")]
    pub json: Option<PathBuf>,

    /// Write report.md and the SVG charts (throughput, latency, lag) to DIR.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,

    /// Run the Java lab instead (issue #19): the Java service of `lab/java/` with Log4j2's
    /// stock appenders in six configurations, (a) Http to the intake, (b) Http to
    /// `ship --listen http://`, (c) Socket to `--listen tcp://`, (d) File + `--follow`,
    /// (e) File only, (f) logging off, and the calibration (g), Socket into a sink that
    /// discards. Needs OpenJDK 17 and Debian's liblog4j2-java,
    /// libdisruptor-java and libjackson2-databind-java. `--duration-s` is the measured run
    /// (default 20 s, after 5 s of warm-up; `--quick`: 1 s + 3 s).
    #[arg(long)]
    pub java: bool,

    /// The Java lab's folder (LabService.java and the log4j2-*.xml files).
    #[arg(
        long,
        value_name = "DIR",
        default_value = "lab/java",
        requires = "java"
    )]
    pub java_lab: PathBuf,

    /// Run only these configurations of the Java lab (letters a to h, comma-separated;
    /// g is the calibration: the Socket appender into a sink that discards; h, logship's
    /// in-process appender, runs only when named and needs `--java-jar`).
    #[arg(
        long,
        value_name = "LETTERS",
        value_delimiter = ',',
        default_value = "a,b,c,d,e,f,g",
        requires = "java"
    )]
    pub java_configs: Vec<char>,

    /// Run every configuration of the Java lab this many times, interleaved, and report
    /// medians (this machine's speed drifts by more than the targets' margins).
    #[arg(long, value_name = "N", default_value_t = 1, requires = "java")]
    pub java_rounds: usize,

    /// Slots of the Java service's Log4j2 async logger ring (Log4j2's default is 262144;
    /// a smaller ring only shortens the time (a) and (b) take to reach their steady state,
    /// which is what is measured).
    #[arg(long, value_name = "N", default_value_t = 4096, requires = "java")]
    pub java_ring: usize,

    /// Drive the Java lab with the built-in load generator even when `wrk` is installed
    /// (wrk, from Debian's package, is the default: its two event-loop threads leave more
    /// of the machine to the service than 50 blocking connections do).
    #[arg(long, requires = "java")]
    pub java_builtin_load: bool,

    /// The `logship` binary the Java lab's sidecars run (`ship --listen`, `ship --follow`).
    /// [default: the `logship` built next to this binary, else the one on the PATH]
    #[arg(long, value_name = "PATH", requires = "java")]
    pub logship: Option<PathBuf>,

    /// logship's jar for the Java lab's configuration (h), the in-process `<Logship>`
    /// appender (`java/build.sh` builds it; name h in `--java-configs` to run it).
    #[arg(
        long,
        value_name = "PATH",
        default_value = "target/java/logship.jar",
        requires = "java"
    )]
    pub java_jar: PathBuf,

    /// Internal: run the lab service in this process with this logging mode.
    #[arg(long, hide = true, requires = "intake_url")]
    pub serve: Option<Mode>,

    /// Internal: the intake URL the lab service logs to.
    #[arg(long, hide = true, value_name = "URL")]
    pub intake_url: Option<String>,
}

/// Runs the lab.
pub fn run(args: BenchArgs) -> Result<ExitCode, Failure> {
    validate(&args)?;
    if let (Some(mode), Some(url)) = (args.serve, &args.intake_url) {
        service::serve(mode, url, args.lines, args.ring)?;
        return Ok(ExitCode::SUCCESS);
    }
    if args.java {
        return run_java(&args);
    }
    if args.oha && !load::oha_installed() {
        return Err(Failure::usage(
            "--oha: no working `oha` on the PATH; install it (cargo install oha) or drop --oha to use the built-in load generator",
        ));
    }
    let lengths = run_lengths(&args);
    let long = lengths[2];
    let cfg = LabConfig {
        lines: args.lines,
        ring: args.ring,
        connections: args.connections,
        runs: vec![
            ("first", lengths[0]),
            ("churn", lengths[1]),
            ("long", lengths[2]),
        ],
        intake_delay: Duration::from_millis(args.intake_latency_ms),
        drain_cap: (long * 2).max(Duration::from_secs(8)),
        oha: args.oha,
        rate: args.rate,
    };
    let mut modes = BTreeMap::new();
    let mut modes_wanted = args.modes.clone();
    modes_wanted.dedup();
    for mode in modes_wanted {
        modes.insert(mode.name().to_owned(), lab::run_mode(mode, &cfg)?);
    }
    let setup = Setup {
        lines_per_request: args.lines,
        ring_slots: args.ring,
        connections: args.connections,
        intake_latency_ms: args.intake_latency_ms,
        runs_s: lengths.iter().map(Duration::as_secs_f64).collect(),
        load_generator: match (args.oha, args.rate) {
            (true, _) => "oha".to_owned(),
            (false, Some(r)) => format!("builtin, capped at {r} requests/s"),
            (false, None) => "builtin".to_owned(),
        },
        linger_ms: u64::try_from(logship::Config::default().linger.as_millis()).unwrap_or(u64::MAX),
    };
    let report = BenchReport::new(setup, modes);
    print!("{}", report.table());
    if let Some(dir) = &args.out {
        write_out(dir, &report)?;
    }
    if let Some(path) = &args.json {
        write_json(path, &report)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// `logship-lab --java`.
fn run_java(args: &BenchArgs) -> Result<ExitCode, Failure> {
    if !(1..=20).contains(&args.java_rounds) {
        return Err(Failure::usage(format!(
            "--java-rounds {}: must be from 1 to 20",
            args.java_rounds
        )));
    }
    if let Some(k) = args.java_configs.iter().find(|k| !('a'..='h').contains(*k)) {
        return Err(Failure::usage(format!(
            "--java-configs: '{k}' is not a configuration; name letters a to h"
        )));
    }
    if args.java_configs.contains(&'h') && !args.java_jar.is_file() {
        return Err(Failure::usage(format!(
            "--java-jar {}: no such file; build it with java/build.sh (configuration h \
             runs logship's jar inside the service)",
            args.java_jar.display()
        )));
    }
    if !(128..=16_777_216).contains(&args.java_ring) || !args.java_ring.is_power_of_two() {
        return Err(Failure::usage(format!(
            "--java-ring {}: must be a power of two from 128 to 16777216 (Log4j2 rounds it)",
            args.java_ring
        )));
    }
    let (warmup, run) = match (args.duration_s, args.quick) {
        (Some(d), _) => (
            Duration::from_secs_f64(d.min(5.0)),
            Duration::from_secs_f64(d),
        ),
        (None, true) => (Duration::from_secs(1), Duration::from_secs(3)),
        (None, false) => (Duration::from_secs(5), Duration::from_secs(20)),
    };
    let cfg = java::JavaLabConfig {
        dir: args.java_lab.clone(),
        only: args.java_configs.clone(),
        rounds: args.java_rounds,
        connections: args.connections,
        warmup,
        run,
        intake_delay: Duration::from_millis(args.intake_latency_ms),
        drain_cap: run.max(Duration::from_secs(10)),
        ring: args.java_ring,
        wrk: !args.java_builtin_load && load::wrk_installed(),
        logship: logship_binary(args.logship.as_deref())?,
        jar: args.java_jar.clone(),
    };
    let report = java::run(&cfg)?;
    print!("{}", report.table());
    if let Some(dir) = &args.out {
        std::fs::create_dir_all(dir)
            .map_err(|e| Failure::runtime(format!("cannot create --out {}: {e}", dir.display())))?;
        let files = [
            ("java-report.md", report.markdown(&command_line())),
            ("java-throughput.svg", report.throughput_chart()),
            ("java-lag.svg", report.lag_chart()),
        ];
        for (name, content) in files {
            let path = dir.join(name);
            std::fs::write(&path, content)
                .map_err(|e| Failure::runtime(format!("cannot write {}: {e}", path.display())))?;
        }
    }
    if let Some(path) = &args.json {
        write_json(path, &report)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The `logship` binary for the Java lab's sidecars: `--logship`, else the one built next
/// to this binary (`cargo build -p logship-cli` puts both in the same folder), else
/// `logship` on the PATH.
fn logship_binary(given: Option<&Path>) -> Result<PathBuf, Failure> {
    if let Some(path) = given {
        if !path.is_file() {
            return Err(Failure::usage(format!(
                "--logship {}: no such file",
                path.display()
            )));
        }
        return Ok(path.to_owned());
    }
    let name = format!("logship{}", std::env::consts::EXE_SUFFIX);
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join(&name)))
        .filter(|p| p.is_file());
    Ok(beside.unwrap_or_else(|| PathBuf::from(name)))
}

/// Writes `--json FILE`.
fn write_json(path: &Path, report: &impl serde::Serialize) -> Result<(), Failure> {
    let json = serde_json::to_string_pretty(report)
        .map_err(|e| Failure::runtime(format!("cannot encode the results: {e}")))?;
    std::fs::write(path, json + "\n")
        .map_err(|e| Failure::runtime(format!("cannot write --json {}: {e}", path.display())))
}

/// This process's command line, quoted where needed, for the reports.
fn command_line() -> String {
    std::env::args()
        .map(|a| if a.contains(' ') { format!("'{a}'") } else { a })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The three run lengths for the chosen preset.
fn run_lengths(args: &BenchArgs) -> [Duration; 3] {
    let s = Duration::from_secs_f64;
    if let Some(d) = args.duration_s {
        [s(d), s(d), s(d)]
    } else if args.quick {
        [s(2.0), s(2.0), s(4.0)]
    } else if args.full {
        [s(60.0), s(60.0), s(300.0)]
    } else {
        [s(10.0), s(10.0), s(30.0)]
    }
}

fn validate(args: &BenchArgs) -> Result<(), Failure> {
    if let Some(d) = args.duration_s {
        if !(d.is_finite() && (0.1..=3600.0).contains(&d)) {
            return Err(Failure::usage(format!(
                "--duration-s {d}: must be 0.1..=3600 seconds"
            )));
        }
    }
    if !(1..=100).contains(&args.lines) {
        return Err(Failure::usage(format!(
            "--lines {}: must be 1..=100 log lines per request",
            args.lines
        )));
    }
    if !(1..=1000).contains(&args.connections) {
        return Err(Failure::usage(format!(
            "--connections {}: must be 1..=1000",
            args.connections
        )));
    }
    if !(1..=1_000_000).contains(&args.ring) {
        return Err(Failure::usage(format!(
            "--ring {}: must be 1..=1000000 slots",
            args.ring
        )));
    }
    if args.intake_latency_ms > 10_000 {
        return Err(Failure::usage(format!(
            "--intake-latency-ms {}: must be 0..=10000 milliseconds",
            args.intake_latency_ms
        )));
    }
    if let Some(parent) = args.json.as_deref().and_then(Path::parent) {
        if !parent.as_os_str().is_empty() && !parent.is_dir() {
            return Err(Failure::usage(format!(
                "--json: directory {} does not exist; create it first",
                parent.display()
            )));
        }
    }
    if let Some(r) = args.rate {
        if !(r.is_finite() && (1.0..=10_000_000.0).contains(&r)) {
            return Err(Failure::usage(format!(
                "--rate {r}: must be 1..=10000000 requests per second"
            )));
        }
    }
    if args.modes.is_empty() {
        return Err(Failure::usage("--modes: name at least one of stock, batch"));
    }
    if args.serve.is_some() != args.intake_url.is_some() {
        return Err(Failure::usage(
            "--serve and --intake-url are internal and go together",
        ));
    }
    Ok(())
}

/// Writes report.md, throughput.svg, latency.svg and lag.svg to `dir`.
fn write_out(dir: &Path, report: &BenchReport) -> Result<(), Failure> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Failure::runtime(format!("cannot create --out {}: {e}", dir.display())))?;
    let command = command_line();
    let files = [
        ("report.md", report.markdown(&command)),
        ("throughput.svg", throughput_chart(report)),
        ("latency.svg", latency_chart(report)),
        ("lag.svg", lag_chart(report)),
    ];
    for (name, content) in files {
        let path = dir.join(name);
        std::fs::write(&path, content)
            .map_err(|e| Failure::runtime(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(())
}

/// Requests/s per mode, as bars.
fn throughput_chart(report: &BenchReport) -> String {
    let names: Vec<&str> = report.modes.keys().map(String::as_str).rev().collect();
    let series = vec![Series {
        name: "requests/s".into(),
        values: names
            .iter()
            .map(|m| report.modes[*m].requests_per_sec)
            .collect(),
    }];
    svg::bars(
        "Throughput (requests/s)",
        "requests/s",
        &names,
        &series,
        false,
    )
}

/// Mean, p90 and p99 latency per mode on a log axis.
fn latency_chart(report: &BenchReport) -> String {
    let names: Vec<&str> = report.modes.keys().map(String::as_str).rev().collect();
    let pick = |f: fn(&report::Latency) -> f64| -> Vec<f64> {
        names
            .iter()
            .map(|m| f(&report.modes[*m].latency_ms))
            .collect()
    };
    let series = vec![
        Series {
            name: "mean".into(),
            values: pick(|l| l.mean),
        },
        Series {
            name: "p90".into(),
            values: pick(|l| l.p90),
        },
        Series {
            name: "p99".into(),
            values: pick(|l| l.p99),
        },
    ];
    svg::bars(
        "Request latency (log axis)",
        "milliseconds",
        &names,
        &series,
        true,
    )
}

/// Largest ingest lag per second, per mode, on a log axis.
fn lag_chart(report: &BenchReport) -> String {
    let series: Vec<(String, Vec<(f64, f64)>)> = report
        .modes
        .iter()
        .rev()
        .map(|(name, m)| {
            (
                name.clone(),
                m.lag_timeline
                    .iter()
                    .map(|p| (p.t_s as f64, p.max_ms))
                    .collect(),
            )
        })
        .collect();
    // Where each run ends (runs follow each other without a pause).
    let mut markers = Vec::new();
    let mut t = 0.0;
    for (i, length) in report.setup.runs_s.iter().enumerate() {
        t += length;
        let label = match report.setup.runs_s.len() - i {
            1 => "load stops",
            _ => "next run",
        };
        markers.push((t, label.to_owned()));
    }
    svg::lines_log(
        "Ingest lag over time (largest per second, log axis)",
        "milliseconds",
        "seconds since the first run started",
        &series,
        &markers,
    )
}
