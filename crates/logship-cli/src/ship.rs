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
use std::time::Instant;

use clap::Args;
use logship::{Builder, Logship};
use logship_cli::exit::Failure;

use crate::follow::LineFormat;
use crate::lines::{json_record, mark_read_cut, read_line, text_record, trim_newline, utf8_lossy};
use crate::settings::{AllKeys, Settings, SettingsArgs, Use};
use crate::signals::{on_termination, second_signal_cuts_short, stop_now, READER_GRACE};
use crate::summary::{outcome_line, waiting_in_spill, write_stats_json, Outcome, Summary};

/// Lines longer than this are cut while reading (shipped as text, marked and counted);
/// a shorter one is read whole and parsed, and the library truncates its event keeping
/// its structure.
const MAX_LINE_BYTES: usize = crate::lines::room::READ_CAP;
/// Bytes read from an input at a time.
const READ_BUFFER: usize = 256 * 1024;

/// Options of `logship ship`: the three that are not keys, then `--config` and one flag
/// per key of the key table (`crate::settings`).
#[derive(Args, Debug)]
pub struct ShipArgs {
    /// Read events from FILE instead of stdin (repeatable, read in order; '-' is stdin).
    #[arg(
        long = "input",
        value_name = "FILE",
        conflicts_with_all = ["follow.paths", "listen.inputs"]
    )]
    pub inputs: Vec<PathBuf>,

    /// Write the final pipeline counters to FILE as pretty JSON.
    #[arg(long, value_name = "FILE")]
    pub stats_json: Option<PathBuf>,

    /// `--config` and every key's flag: the pipeline's, `--follow` and its options,
    /// `--listen` and its options.
    #[command(flatten)]
    pub settings: SettingsArgs<AllKeys>,
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
    /// The real size of the largest of them, bytes.
    cut_largest: AtomicU64,
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
    let settings = Settings::ship(&args.settings, !args.inputs.is_empty())?;
    // The [follow] and [listen] values are checked whether or not they are used.
    let (follow, listen) = settings.sidecar()?;
    if settings.run == Use::Service {
        return crate::service::run(settings, follow, listen, args.stats_json.as_deref());
    }
    let format = follow.options.format;
    if matches!(format, LineFormat::Docker | LineFormat::Cri) {
        return Err(settings.problem(
            "follow.format",
            "reads container log files: use it with --follow",
            "stdin and --input are read as text or json",
        ));
    }
    // Open every input first, so a typo fails before anything is shipped.
    let inputs = open_inputs(&args.inputs)?;
    let gzip = settings.config.gzip;
    let (logship, guard) = Builder::from_config(settings.config).build()?;

    let started = Instant::now();
    let progress = Arc::new(Progress::default());
    let (events, waiting) = mpsc::channel::<Event>();
    // A sidecar is stopped with SIGTERM (SIGINT by hand): stop reading, deliver or spill
    // what is in memory, report, exit with the status the outcome deserves.
    let to_main = events.clone();
    on_termination(
        move || {
            let _ = to_main.send(Event::Signal);
        },
        "a summary",
    );
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
    second_signal_cuts_short(&logship, move || {
        while let Ok(event) = waiting.recv() {
            if let Event::Signal = event {
                return true;
            }
        }
        false
    });

    let timeout = if signalled {
        logship.shutdown_timeout()
    } else {
        replay_what_waits(&logship)
    };
    let report = logship.shutdown(timeout);
    drop(guard); // returns the same report at once
    if !signalled {
        let _ = reader.join();
    }
    let read = progress.read.load(Ordering::Acquire);
    let stats = &report.stats;
    let summary = Summary {
        read,
        parse_errors: progress.parse_errors.load(Ordering::Acquire),
        cut_lines: progress.cut_lines.load(Ordering::Acquire),
        cut_largest: progress.cut_largest.load(Ordering::Acquire),
        cut_limit: MAX_LINE_BYTES as u64,
        stats,
        gzip,
        elapsed: started.elapsed(),
    };
    eprintln!("logship: {}", summary.line());
    write_stats_json(args.stats_json.as_deref(), stats)?;
    // Events held back by the user's own limits (burst, sampling, budget) are not lost;
    // logship's own notices (burst summaries, drop notices, budget warnings) are
    // delivered on top of what was read.
    let all_delivered = report.complete
        && stats.events_delivered + stats.suppressed()
            == read + stats.notices + stats.budget_notices
        && read_error.is_none();
    let replayed_all = report.complete && waiting_in_spill(stats) == 0;
    let outcome = if all_delivered {
        Outcome::Delivered
    } else if stats.events_spilled > 0 && stats.lost() == 0 && read_error.is_none() {
        if replayed_all {
            // Spilled during an outage, and replayed before the run ended.
            Outcome::Delivered
        } else {
            // Nothing lost, but some events wait on disk for the next run (or `logship
            // spill replay`).
            Outcome::Spilled
        }
    } else {
        Outcome::Lost
    };
    let unread: Vec<String> = read_error.into_iter().collect();
    eprintln!("logship: {}", outcome_line(outcome, stats, &unread));
    Ok(outcome.exit_code())
}

/// At the end of the input: when this run's own events are all delivered, gives the
/// replayer the rest of the shutdown timeout to deliver what earlier runs spilled, so a
/// short run empties the spill instead of leaving it for ever (or sending part of it on
/// every run). Returns the time left for the shutdown (at least a second, to stop the
/// threads).
fn replay_what_waits(logship: &Logship) -> std::time::Duration {
    let timeout = logship.shutdown_timeout();
    let deadline = Instant::now() + timeout;
    let left = || deadline.saturating_duration_since(Instant::now());
    let settled = logship.flush(timeout).is_ok();
    let stats = logship.stats();
    if settled && stats.events_spilled == 0 && stats.events_failed == 0 {
        logship.wait_spill_drained(left());
    }
    left().max(std::time::Duration::from_secs(1))
}

/// Reads every input to its end (or until `progress.stop`), handing each line to the
/// pipeline; returns the read error that ended it early, if any.
fn read_inputs(
    inputs: Vec<Input>,
    format: LineFormat,
    logship: &Logship,
    progress: &Progress,
) -> Option<String> {
    let mut line = Vec::with_capacity(4096);
    for mut input in inputs {
        loop {
            if progress.stop.load(Ordering::Acquire) {
                return None;
            }
            let read = read_line(&mut *input.reader, &mut line, MAX_LINE_BYTES);
            let (line_bytes, ended) = match read {
                Ok(None) => break,
                Ok(Some(n)) => n,
                Err(e) => {
                    let message = format!("error reading {}: {e}", input.name);
                    eprintln!("logship: {message}");
                    return Some(message);
                }
            };
            let text = utf8_lossy(trim_newline(&line));
            if text.trim().is_empty() {
                continue;
            }
            let replaced = matches!(text, std::borrow::Cow::Owned(_));
            let mut record = match format {
                LineFormat::Text | LineFormat::Docker | LineFormat::Cri => text_record(&text),
                LineFormat::Json => json_record(&text).unwrap_or_else(|| {
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
                // Cut while reading: the library cuts it further and adds to the count;
                // the real size is kept.
                progress.cut_lines.fetch_add(1, Ordering::AcqRel);
                progress
                    .cut_largest
                    .fetch_max(line_bytes as u64, Ordering::AcqRel);
                // The text's own length: its newline (cut off with the rest) is not text.
                let real = line_bytes - usize::from(ended);
                mark_read_cut(&mut record, real, line.len());
            }
            progress.read.fetch_add(1, Ordering::AcqRel);
            // A refusal (queue still full after `block_timeout_ms`, or the pipeline shutting down)
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
