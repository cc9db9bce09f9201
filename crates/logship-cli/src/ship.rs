//! `logship ship`: ship log lines from stdin or files to an HTTP intake.
//!
//! One line is one event. Reading a file is far faster than any intake accepts events, so
//! the pipeline runs with the blocking overflow policy: the reader waits for room instead
//! of dropping. At end of input the pipeline is shut down (delivering what is queued within
//! `--shutdown-timeout-ms`), one summary line goes to stderr, and the exit code says whether
//! every event read was delivered (0), none was lost but some wait in the spill (3), or some
//! were lost (1); 2 is for bad options and configuration only. SIGTERM, SIGINT and SIGHUP
//! end the input early and then do the same; a second signal cuts the shutdown short,
//! spilling what it can. Input is read on its own thread, so a signal is acted on even
//! while stdin is quiet.

use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use logship::{Logship, Overflow, Stats};

use crate::exit::Failure;
use crate::follow::{self, settings::ConfigFile};
use crate::lines::{json_record, read_line, text_record, trim_newline};
use crate::pipeline_args::PipelineArgs;
use crate::units;

/// Lines longer than this are cut (the library then truncates and marks the event).
const MAX_LINE_BYTES: usize = 8 * 1024 * 1024;
/// Longest a log call waits for room in the queue (the library's maximum).
const BLOCK_FOR: Duration = Duration::from_secs(60);
/// Bytes read from an input at a time.
const READ_BUFFER: usize = 256 * 1024;

/// Options of `logship ship`.
#[derive(Args, Debug)]
pub struct ShipArgs {
    /// Read events from FILE instead of stdin (repeatable, read in order; '-' is stdin).
    #[arg(long = "input", value_name = "FILE")]
    pub inputs: Vec<PathBuf>,

    /// Follow files matching PATTERN (a path or glob, repeatable) through rotation,
    /// truncation and deletion, with checkpoints, until SIGTERM/SIGINT (instead of
    /// reading stdin or --input); SIGHUP rescans. Replaces the config file's
    /// `[follow] paths`, which are followed when neither this nor --input is given.
    /// See docs/follow.md.
    #[arg(long = "follow", value_name = "PATTERN", conflicts_with = "inputs")]
    pub follow: Vec<String>,

    /// Options of --follow.
    #[command(flatten)]
    pub follow_args: crate::follow::cli::FollowArgs,

    /// --listen and its options.
    #[command(flatten)]
    pub listen_args: Box<crate::listen::settings::ListenArgs>,

    /// How to read a line. [default: text; with --follow, the config file's
    /// `[follow] format`, else text]
    #[arg(long, value_enum)]
    pub format: Option<Format>,

    /// Write the final pipeline counters to FILE as pretty JSON.
    #[arg(long, value_name = "FILE")]
    pub stats_json: Option<PathBuf>,

    /// Pipeline options.
    #[command(flatten)]
    pub pipeline: PipelineArgs,
}

/// How a line becomes an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// The line is the message (level INFO).
    Text,
    /// The line is a JSON object: `message` or `msg` is the message, `level` the level,
    /// other keys become fields. A line that is not a JSON object is shipped as text with
    /// the field `logship.parse_error = true`.
    Json,
    /// With --follow: Docker's json-file lines (`{"log","stream","time"}`); partial lines
    /// are joined; the stream and time are kept.
    Docker,
    /// With --follow: CRI lines of containerd and CRI-O (`TIMESTAMP STREAM P|F MESSAGE`);
    /// partial lines are joined; the stream and time are kept.
    Cri,
}

/// One input, opened.
struct Input {
    name: String,
    reader: Box<dyn BufRead + Send>,
}

/// Counts shared by the reader thread and the main thread.
#[derive(Default)]
struct Progress {
    /// Lines read and handed to the pipeline (refusals included: the pipeline counts them).
    read: AtomicU64,
    /// Lines that were not a JSON object (`--format json`).
    parse_errors: AtomicU64,
    /// Lines longer than `MAX_LINE_BYTES`, cut while reading.
    cut_lines: AtomicU64,
    /// Set by the first signal: read no further line.
    stop: AtomicBool,
}

/// What the main thread waits for.
enum Event {
    /// The inputs are read to their end (or the reader stopped); a read error, if any.
    InputEnded(Option<String>),
    /// SIGTERM, SIGINT or SIGHUP arrived.
    Signal,
}

/// Runs `logship ship`.
pub fn run(args: ShipArgs) -> Result<ExitCode, Failure> {
    // The config file's [follow] section is checked whether or not it is used.
    let file = match &args.pipeline.config {
        Some(path) => Some(ConfigFile::read(path)?),
        None => None,
    };
    let follow = follow::settings::Resolved::new(Some(&args), file.as_ref())?.follow();
    let listen =
        crate::listen::settings::Resolved::new(Some(&args.listen_args), file.as_ref())?.listen;
    if args.inputs.is_empty() && !(follow.patterns.is_empty() && listen.specs.is_empty()) {
        return crate::listen::cli::run(args, follow, listen);
    }
    let format = args.format.unwrap_or(Format::Text);
    if matches!(format, Format::Docker | Format::Cri) {
        return Err(Failure::usage(
            "--format docker and --format cri read container log files: use them with --follow",
        ));
    }
    // Open every input first, so a typo fails before anything is shipped.
    let inputs = open_inputs(&args.inputs)?;
    let builder = Logship::builder().overflow(Overflow::Block(BLOCK_FOR));
    let (logship, guard) = args.pipeline.apply(builder)?.build()?;

    let started = Instant::now();
    let progress = Arc::new(Progress::default());
    let (events, waiting) = mpsc::channel::<Event>();
    // A sidecar is stopped with SIGTERM (SIGINT by hand): stop reading, deliver or spill
    // what is in memory, report, exit with the status the outcome deserves.
    let to_main = events.clone();
    if let Err(e) = ctrlc::set_handler(move || {
        let _ = to_main.send(Event::Signal);
    }) {
        eprintln!("logship: warning: cannot handle SIGTERM/SIGINT ({e}); a signal will stop logship without a summary");
    }
    let reader = {
        let (logship, progress) = (logship.clone(), Arc::clone(&progress));
        std::thread::Builder::new()
            .name("logship-ship-reader".into())
            .spawn(move || {
                let error = read_inputs(inputs, format, &logship, &progress);
                let _ = events.send(Event::InputEnded(error));
            })
            .map_err(|e| Failure::runtime(format!("cannot start the input reader: {e}")))?
    };
    let (signalled, read_error) = match waiting.recv() {
        Ok(Event::InputEnded(error)) => (false, error),
        Ok(Event::Signal) | Err(_) => {
            progress.stop.store(true, Ordering::Release);
            eprintln!(
                "logship: signal received: reading no more input; delivering what is in memory within the shutdown timeout (a second signal stops at once, spilling what it can)"
            );
            // A line being handed over finishes first (the reader sees `stop` after it);
            // a reader blocked on input is not waited for. A second signal meanwhile
            // counts as the second signal.
            if let Ok(Event::Signal) = waiting.recv_timeout(READER_GRACE) {
                stop_now(&logship);
            }
            (true, None)
        }
    };
    // A second signal during shutdown cuts it short: what is left is spilled (or counted).
    {
        let logship = logship.clone();
        let _ = std::thread::Builder::new()
            .name("logship-ship-signals".into())
            .spawn(move || {
                while let Ok(event) = waiting.recv() {
                    if let Event::Signal = event {
                        stop_now(&logship);
                        return;
                    }
                }
            });
    }

    let report = logship.shutdown(logship.shutdown_timeout());
    drop(guard); // returns the same report at once
    if !signalled {
        let _ = reader.join();
    }
    let read = progress.read.load(Ordering::Acquire);
    let parse_errors = progress.parse_errors.load(Ordering::Acquire);
    let cut_lines = progress.cut_lines.load(Ordering::Acquire);
    let stats = &report.stats;
    eprintln!(
        "logship: {}",
        summary(
            read,
            parse_errors,
            cut_lines,
            stats,
            !args.pipeline.no_gzip,
            started.elapsed(),
            0
        )
    );
    write_stats_json(args.stats_json.as_deref(), stats)?;
    // Events held back by the user's own limits (burst, sampling, budget) are not lost;
    // logship's own notices (burst summaries, drop notices, budget warnings) are
    // delivered on top of what was read.
    let all_delivered = report.complete
        && stats.events_delivered + stats.suppressed()
            == read + stats.notices + stats.budget_notices
        && read_error.is_none();
    Ok(if all_delivered {
        ExitCode::SUCCESS
    } else if stats.events_spilled > 0 && stats.lost() == 0 && read_error.is_none() {
        // Nothing lost, but some events wait on disk for the next run (or `logship spill
        // replay`).
        ExitCode::from(crate::exit::SPILLED)
    } else {
        ExitCode::from(crate::exit::LOST)
    })
}

/// What a second signal does: shutdown stops waiting, what is left is spilled (or counted).
fn stop_now(logship: &Logship) {
    eprintln!("logship: second signal: stopping now");
    logship.cut_short();
}

/// Longest the main thread waits, after a signal, for the reader to finish handing over the
/// line it holds.
const READER_GRACE: Duration = Duration::from_millis(200);

/// Reads every input to its end (or until `progress.stop`), handing each line to the
/// pipeline; returns the read error that ended it early, if any.
fn read_inputs(
    inputs: Vec<Input>,
    format: Format,
    logship: &Logship,
    progress: &Progress,
) -> Option<String> {
    let mut line = Vec::with_capacity(4096);
    for mut input in inputs {
        loop {
            if progress.stop.load(Ordering::Acquire) {
                return None;
            }
            let line_bytes = match read_line(&mut *input.reader, &mut line, MAX_LINE_BYTES) {
                Ok(None) => break,
                Ok(Some(n)) => n,
                Err(e) => {
                    let message = format!("error reading {}: {e}", input.name);
                    eprintln!("logship: {message}");
                    return Some(message);
                }
            };
            let text = crate::lines::utf8_lossy(trim_newline(&line));
            if text.trim().is_empty() {
                continue;
            }
            let replaced = matches!(text, std::borrow::Cow::Owned(_));
            let mut record = match format {
                Format::Text | Format::Docker | Format::Cri => text_record(&text),
                Format::Json => json_record(&text).unwrap_or_else(|| {
                    progress.parse_errors.fetch_add(1, Ordering::AcqRel);
                    let mut r = text_record(&text);
                    r.field("logship.parse_error", true);
                    r
                }),
            };
            if replaced {
                record.mark_invalid_utf8();
            }
            if line_bytes > line.len() {
                // Cut while reading: the library cuts it further and counts it; the real
                // size is kept.
                progress.cut_lines.fetch_add(1, Ordering::AcqRel);
                record
                    .field("logship.truncated", true)
                    .field("logship.original_bytes", line_bytes as u64);
            }
            progress.read.fetch_add(1, Ordering::AcqRel);
            // A refusal (queue still full after BLOCK_FOR, or the pipeline shutting down)
            // is counted in the stats.
            let _ = logship.push(record);
        }
    }
    None
}

fn open_inputs(paths: &[PathBuf]) -> Result<Vec<Input>, Failure> {
    let stdin = || Input {
        name: "stdin".to_owned(),
        reader: Box::new(BufReader::with_capacity(READ_BUFFER, io::stdin())),
    };
    if paths.is_empty() {
        return Ok(vec![stdin()]);
    }
    paths
        .iter()
        .map(|path| {
            if path.as_os_str() == "-" {
                return Ok(stdin());
            }
            let file = File::open(path).map_err(|e| {
                Failure::usage(format!("cannot open --input {}: {e}", path.display()))
            })?;
            Ok(Input {
                name: path.display().to_string(),
                reader: Box::new(BufReader::with_capacity(READ_BUFFER, file)),
            })
        })
        .collect()
}

/// Writes `--stats-json` (when given): the final stats, pretty-printed.
pub(crate) fn write_stats_json(
    path: Option<&std::path::Path>,
    stats: &logship::Stats,
) -> Result<(), Failure> {
    let Some(path) = path else {
        return Ok(());
    };
    let json = serde_json::to_string_pretty(stats)
        .map_err(|e| Failure::runtime(format!("cannot encode the stats: {e}")))?;
    std::fs::write(path, json + "\n")
        .map_err(|e| Failure::runtime(format!("cannot write --stats-json {}: {e}", path.display())))
}

/// The one-line summary printed at the end (after `logship: `). `resent` are events the
/// pipeline refused and counted as dropped that are not lost: their sender sends them
/// again (an HTTP client answered 503, the follower's or the TCP reader's retry); the
/// summary's `dropped` leaves them out.
pub(crate) fn summary(
    read: u64,
    parse_errors: u64,
    cut_lines: u64,
    s: &Stats,
    gzip: bool,
    elapsed: Duration,
    resent: u64,
) -> String {
    let bytes = if gzip {
        format!(
            "{} raw, {} gzip, {}",
            units::bytes(s.bytes_raw),
            units::bytes(s.bytes_compressed),
            units::ratio(s.bytes_raw, s.bytes_compressed)
        )
    } else {
        format!("{} uncompressed", units::bytes(s.bytes_raw))
    };
    let mut line = format!(
        "shipped {} of {read} events in {} request{} ({bytes}) in {:.2} s; {} dropped, {} failed",
        s.events_delivered,
        s.requests,
        if s.requests == 1 { "" } else { "s" },
        elapsed.as_secs_f64(),
        s.dropped().saturating_sub(resent),
        s.events_failed,
    );
    if s.events_spilled > 0 {
        line.push_str(&format!(
            ", {} written to the spill directory for replay",
            s.events_spilled
        ));
    }
    if s.events_replayed > 0 {
        line.push_str(&format!(
            ", {} replayed from the spill directory",
            s.events_replayed
        ));
    }
    if s.already_delivered > 0 {
        line.push_str(&format!(
            ", {} already at the intake from an earlier attempt (not stored twice)",
            s.already_delivered
        ));
    }
    if s.over_budget() > 0 {
        line.push_str(&format!(
            ", {} held back by the volume budget ({} TRACE/DEBUG, {} sampled out, {} past the overdraft)",
            s.over_budget(),
            s.budget_dropped_level,
            s.budget_sampled_out,
            s.budget_dropped
        ));
    }
    let late = s.events_abandoned + s.pending();
    if late > 0 {
        line.push_str(&format!(
            ", {late} not delivered within the shutdown timeout"
        ));
    }
    if s.truncated > 0 || cut_lines > 0 {
        line.push_str(&format!(
            "; {} event{} truncated (logship.original_bytes has the real size)",
            s.truncated.max(cut_lines),
            if s.truncated.max(cut_lines) == 1 {
                ""
            } else {
                "s"
            }
        ));
        if cut_lines > 0 {
            line.push_str(&format!(
                ", {cut_lines} of them line{} over {} cut while reading",
                if cut_lines == 1 { "" } else { "s" },
                units::bytes(MAX_LINE_BYTES as u64)
            ));
        }
    }
    if s.invalid_utf8 > 0 {
        line.push_str(&format!(
            "; {} event{} had invalid UTF-8 replaced by U+FFFD (logship.invalid_utf8)",
            s.invalid_utf8,
            if s.invalid_utf8 == 1 { "" } else { "s" }
        ));
    }
    if parse_errors > 0 {
        line.push_str(&format!(
            "; {parse_errors} line{} not a JSON object (shipped as text with logship.parse_error)",
            if parse_errors == 1 { " was" } else { "s were" }
        ));
    }
    if s.suppressed() > 0 {
        line.push_str(&format!(
            "; {} held back by your limits ({} by burst limits, {} sampled out)",
            s.suppressed(),
            s.burst_suppressed,
            s.sampled_out
        ));
    }
    if s.notices > 0 {
        line.push_str(&format!(
            "; {} logship notice{} shipped (logship.notice)",
            s.notices,
            if s.notices == 1 { "" } else { "s" }
        ));
    }
    if let Some(e) = &s.last_error {
        line.push_str(&format!("; last error: {e}"));
    }
    line
}
