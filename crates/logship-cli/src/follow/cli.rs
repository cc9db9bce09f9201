//! `logship ship --follow PATTERN...`: the command around [`Follower`].
//!
//! Why it exists: it wires the follower, the checkpointer and the pipeline together the
//! way `ship` does for stdin: signals (SIGTERM/SIGINT stop; a second one cuts the
//! shutdown short; SIGHUP matches the patterns again and goes on), one summary line,
//! `--stats-json`, and the exit code (0 all delivered, 1 some lost, 3 none lost but some
//! spilled, 2 bad usage). Following never ends by itself: a service manager stops it.
//!
//! Must never: write a checkpoint past what shutdown settled, start when a pattern is
//! invalid (exit 2, naming it), fail to start because of the checkpoint file, or stop
//! (or lose a line) on SIGHUP.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use clap::Args;
use logship::{Logship, Overflow};
use nix::sys::signal::{SigSet, Signal};

use super::checkpoint;
use super::checkpointer::{self, Store};
use super::settings::Follow;
use super::{Follower, Options, StartAt};
use crate::exit::Failure;
use crate::ship::ShipArgs;

/// Options of `ship --follow` (ignored without it). Each overrides its key in the config
/// file's `[follow]` section (see `settings.rs`, which holds the defaults).
#[derive(Args, Debug, Clone)]
pub struct FollowArgs {
    /// With --follow: where to start in a file seen at start-up that has no checkpoint.
    /// [default: beginning]
    #[arg(long, value_enum)]
    pub start_at: Option<StartAt>,

    /// With --follow: the checkpoint file. [default: beside the spill directory,
    /// `<spill_dir>.follow.json`]
    #[arg(long, value_name = "FILE", conflicts_with = "no_checkpoint")]
    pub checkpoint: Option<PathBuf>,

    /// With --follow: keep no checkpoint (a restart starts from --start-at again).
    #[arg(long)]
    pub no_checkpoint: bool,

    /// With --follow: how often patterns are matched again and idle files checked.
    /// [default: 250]
    #[arg(long, value_name = "MS")]
    pub poll_interval_ms: Option<u64>,

    /// With --follow: how often the checkpoint is brought up to date (after a flush).
    /// [default: 1000]
    #[arg(long, value_name = "MS")]
    pub checkpoint_interval_ms: Option<u64>,

    /// With --follow: how long a rotated-away or deleted file is still read.
    /// [default: 1000]
    #[arg(long, value_name = "MS")]
    pub rotate_wait_ms: Option<u64>,

    /// With --follow: most files open at once (more matching files wait their turn).
    /// [default: 256]
    #[arg(long, value_name = "N")]
    pub max_open_files: Option<u64>,

    /// With --follow: join multi-line events: `java` (stack traces: indented lines and
    /// `Caused by:` continue the event before), `timestamp` (a line starting with an
    /// ISO-8601 date-time starts an event), `start:REGEX` or `continue:REGEX`.
    #[arg(long, value_name = "RULE")]
    pub multiline: Option<String>,

    /// With --multiline: most lines of one event (longer ones are split, and counted).
    /// [default: 500]
    #[arg(long, value_name = "N")]
    pub multiline_max_lines: Option<u64>,

    /// With --multiline: how long an event waits for its next line before it is shipped.
    /// [default: 1000]
    #[arg(long, value_name = "MS")]
    pub multiline_timeout_ms: Option<u64>,
}

/// Longest the main thread waits, after a signal, for the follower to stop.
const READER_GRACE: Duration = Duration::from_millis(500);
/// Longest a log call waits for room in the queue (the library's maximum); the follower
/// retries after it.
const BLOCK_FOR: Duration = Duration::from_secs(60);
/// Bytes read from one file per turn.
const READ_BUDGET: usize = 256 * 1024;

enum Event {
    Signal,
}

/// The checkpoint file used when none is configured: beside the spill directory,
/// `<spill_dir>.follow.json`.
pub fn default_checkpoint(config: &logship::Config) -> PathBuf {
    let spill = config
        .spill_dir
        .clone()
        .unwrap_or_else(|| logship::default_spill_dir(config.service.as_deref()));
    let mut name = spill.file_name().unwrap_or_default().to_os_string();
    name.push(".follow.json");
    spill.with_file_name(name)
}

/// Blocks SIGHUP in the calling thread, and so in every thread it starts later (they
/// inherit the mask): the termination handler never sees it, [`wait_for_sighup`] takes it.
fn block_sighup() -> nix::Result<SigSet> {
    let mut set = SigSet::empty();
    set.add(Signal::SIGHUP);
    set.thread_block()?;
    Ok(set)
}

/// Starts the thread that turns each SIGHUP into a rescan: the patterns are matched again
/// at once (new files opened, files whose path now names another file or nothing read to
/// their end and closed), and following goes on. It lives until the process exits.
fn wait_for_sighup(set: SigSet, rescan: Arc<AtomicBool>, counters: Arc<super::Counters>) {
    let started = std::thread::Builder::new()
        .name("logship-follow-sighup".into())
        .spawn(move || {
            while let Ok(Signal::SIGHUP) = set.wait() {
                let n = counters.rescans.fetch_add(1, Ordering::Relaxed) + 1;
                rescan.store(true, Ordering::Release);
                eprintln!("logship: SIGHUP (rescan {n}): matching the patterns again and reopening what changed; following goes on");
            }
        });
    if let Err(e) = started {
        eprintln!("logship: warning: cannot start the SIGHUP thread ({e}); SIGHUP is ignored (the patterns are still matched every --poll-interval-ms)");
    }
}

/// Runs `logship ship --follow` with `f`, the follow options resolved from the flags
/// and the config file's `[follow]` section.
pub fn run(args: ShipArgs, f: Follow) -> Result<ExitCode, Failure> {
    // Before any thread starts, so that every thread inherits the mask.
    let hup = block_sighup();
    let builder = args
        .pipeline
        .apply(Logship::builder().overflow(Overflow::Block(BLOCK_FOR)))?;
    let config = builder.config().clone();
    let checkpoint_path = match &f.checkpoint {
        Some(chosen) => chosen.clone(),
        None => Some(default_checkpoint(&config)),
    };
    let resume = match &checkpoint_path {
        Some(path) => {
            let (entries, warning) = checkpoint::load(path);
            if let Some(w) = warning {
                eprintln!("logship: warning: {w}");
            }
            entries
        }
        None => Vec::new(),
    };
    let multiline = match &f.multiline {
        Some(spec) => Some(
            super::multiline::Settings::parse(
                spec,
                f.multiline_max_lines,
                config.max_event_bytes.max(1),
                Duration::from_millis(f.multiline_timeout_ms),
            )
            .map_err(Failure::usage)?,
        ),
        None => None,
    };
    let opts = Options {
        patterns: f.patterns.clone(),
        start_at: f.start_at,
        poll: Duration::from_millis(f.poll_interval_ms),
        rotate_wait: Duration::from_millis(f.rotate_wait_ms),
        max_open: f.max_open_files,
        read_budget: READ_BUDGET,
        max_line: config.max_event_bytes.max(1),
        format: f.format,
        multiline,
    };
    let mut follower = Follower::new(opts, resume).map_err(Failure::usage)?;
    let counters = follower.counters();
    let positions = follower.positions();
    let (logship, guard) = builder.build()?;
    let started = Instant::now();

    let (events, waiting) = mpsc::channel::<Event>();
    if let Err(e) = ctrlc::set_handler(move || {
        let _ = events.send(Event::Signal);
    }) {
        eprintln!("logship: warning: cannot handle SIGTERM/SIGINT ({e}); a signal will stop logship without a summary or a final checkpoint");
    }
    let stop = Arc::new(AtomicBool::new(false));
    let rescan = Arc::new(AtomicBool::new(false));
    match hup {
        Ok(set) => wait_for_sighup(set, Arc::clone(&rescan), Arc::clone(&counters)),
        Err(e) => eprintln!("logship: warning: cannot take SIGHUP from the termination handler ({e}); SIGHUP will stop logship like SIGTERM instead of rescanning"),
    }
    let (reader_done_tx, reader_done) = mpsc::channel::<()>();
    let reader = {
        let (logship, stop, rescan) = (logship.clone(), Arc::clone(&stop), Arc::clone(&rescan));
        std::thread::Builder::new()
            .name("logship-follow".into())
            .spawn(move || {
                follower.run(&logship, &stop, &rescan);
                let _ = reader_done_tx.send(());
            })
            .map_err(|e| Failure::runtime(format!("cannot start the follower: {e}")))?
    };
    let store = checkpoint_path.map(Store::new);
    let checkpointer = store.as_ref().map(|store| {
        let (store, positions, logship, stop) = (
            Arc::clone(store),
            Arc::clone(&positions),
            logship.clone(),
            Arc::clone(&stop),
        );
        let interval = Duration::from_millis(f.checkpoint_interval_ms);
        std::thread::Builder::new()
            .name("logship-checkpoint".into())
            .spawn(move || checkpointer::run(&store, &positions, &logship, interval, &stop))
    });
    if let Some(Err(e)) = &checkpointer {
        eprintln!("logship: warning: cannot start the checkpoint writer ({e}); checkpoints are written at shutdown only");
    }
    eprintln!(
        "logship: following {}{}",
        f.patterns.join(" "),
        match &store {
            Some(s) => format!(" (checkpoint {})", s.path().display()),
            None => " (no checkpoint)".to_owned(),
        }
    );

    // Following ends only with a signal.
    let _ = waiting.recv();
    stop.store(true, Ordering::Release);
    eprintln!(
        "logship: signal received: reading no more; delivering what is in memory within the shutdown timeout (a second signal stops at once, spilling what it can)"
    );
    if reader_done.recv_timeout(READER_GRACE).is_ok() {
        let _ = reader.join();
    }
    // Everything before these positions was pushed before shutdown begins, so shutdown
    // settles it.
    let snapshot = positions.lock().unwrap_or_else(|e| e.into_inner()).clone();
    {
        let logship = logship.clone();
        let _ = std::thread::Builder::new()
            .name("logship-follow-signals".into())
            .spawn(move || {
                if waiting.recv().is_ok() {
                    eprintln!("logship: second signal: stopping now");
                    logship.cut_short();
                }
            });
    }
    let report = logship.shutdown(logship.shutdown_timeout());
    drop(guard);
    if let Some(Ok(handle)) = checkpointer {
        let _ = handle.join();
    }
    let stats = &report.stats;
    let settled = stats.pending() == 0 && stats.events_abandoned == 0;
    if let Some(store) = &store {
        if settled {
            store.write(&snapshot, true);
        } else {
            // Some lines read were neither delivered nor spilled: the last checkpoint
            // written stays, so the next run reads them again.
            store.close();
        }
    }
    let lines = counters.lines.load(Ordering::Acquire);
    let retried = counters.refusals_retried.load(Ordering::Acquire);
    let not_taken = counters.not_taken.load(Ordering::Acquire);
    // Refusals the follower retried, or left for the next run (not in the checkpoint),
    // are counted as dropped by the pipeline but lose nothing.
    let lost = stats.lost().saturating_sub(retried + not_taken);
    let mut line = crate::ship::summary(
        lines,
        counters.parse_errors.load(Ordering::Acquire),
        counters.cut_lines.load(Ordering::Acquire),
        stats,
        !args.pipeline.no_gzip,
        started.elapsed(),
    );
    line.push_str(&format!(
        "; {} file opens ({} rotated away, {} truncated, {} read errors)",
        counters.files_opened.load(Ordering::Acquire),
        counters.rotations.load(Ordering::Acquire),
        counters.truncations.load(Ordering::Acquire),
        counters.io_errors.load(Ordering::Acquire),
    ));
    let rescans = counters.rescans.load(Ordering::Acquire);
    if rescans > 0 {
        line.push_str(&format!(
            "; {rescans} SIGHUP rescan{}",
            if rescans == 1 { "" } else { "s" }
        ));
    }
    let joined = counters.multiline_events.load(Ordering::Acquire);
    if joined > 0 {
        line.push_str(&format!(
            "; {joined} multi-line events ({} split at --multiline-max-lines or max_event_bytes)",
            counters.multiline_split.load(Ordering::Acquire)
        ));
    }
    if retried > 0 {
        line.push_str(&format!(
            "; {retried} pushes waited out a full queue and were retried (not lost)"
        ));
    }
    if not_taken > 0 {
        line.push_str(&format!(
            "; {not_taken} line{} refused as shutdown began {} read again by the next run (not lost: the checkpoint is before {})",
            if not_taken == 1 { "" } else { "s" },
            if not_taken == 1 { "is" } else { "are" },
            if not_taken == 1 { "it" } else { "them" },
        ));
    }
    if let Some(store) = &store {
        if settled {
            line.push_str(&format!(
                "; checkpoint written to {}",
                store.path().display()
            ));
        } else {
            line.push_str("; checkpoint left at the last settled position (the next run reads the rest again)");
        }
    }
    eprintln!("logship: {line}");
    crate::ship::write_stats_json(args.stats_json.as_deref(), stats)?;
    Ok(
        if lost == 0 && stats.pending() == 0 && stats.events_spilled == 0 {
            ExitCode::SUCCESS
        } else if lost == 0 && stats.pending() == 0 {
            ExitCode::from(crate::exit::SPILLED)
        } else {
            ExitCode::from(crate::exit::LOST)
        },
    )
}
