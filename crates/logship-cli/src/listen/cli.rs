//! The service loop of `logship ship --follow ...` and/or `--listen ...`: followed files
//! and listeners feed one pipeline in one process until a signal.
//!
//! Why it exists: a sidecar runs until its service manager stops it; followed files and
//! listeners share the pipeline (`Overflow::Block(60 s)`: followed files and TCP wait for
//! room, HTTP answers 503 instead), the signals (SIGTERM/SIGINT stop: listeners close,
//! what was received is pushed, then shutdown delivers or spills within the shutdown
//! timeout; a second signal cuts it short; SIGHUP rescans the patterns and listeners go
//! on), one summary line, `--stats-json`, and the exit code (0 all delivered, 1 some
//! lost, 3 none lost but some spilled, 2 bad usage).
//!
//! Must never: write a checkpoint past what shutdown settled, start when a pattern or a
//! listener URL is invalid or cannot bind (exit 2, naming it), count as lost what a
//! client was told to send again (503) or what the follower retried, or stop (or lose a
//! line) on SIGHUP.

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use logship::{Logship, Overflow};

use super::settings::Listen;
use super::Listeners;
use crate::exit::Failure;
use crate::follow::checkpoint;
use crate::follow::checkpointer::{self, Store};
use crate::follow::cli::{block_sighup, default_checkpoint, wait_for_sighup};
use crate::follow::settings::Follow;
use crate::follow::{Follower, Options};
use crate::ship::ShipArgs;

/// Longest the main thread waits, after a signal, for the follower to stop.
const READER_GRACE: Duration = Duration::from_millis(500);
/// Longest a log call waits for room in the queue (the library's maximum); the follower
/// and the TCP inputs retry after it.
const BLOCK_FOR: Duration = Duration::from_secs(60);
/// Bytes read from one file per turn.
const READ_BUDGET: usize = 256 * 1024;
/// Events per batch by default for the service (the library's default is 200, after the
/// Java appenders' `maxBatchRecords`). A sidecar reads files and connections in bulk, so
/// fuller batches cost fewer requests (Filebeat's default bulk is 1,600 events): 200 MiB
/// of followed 100-byte lines ship about 15 % faster than at 200. The vendor's own limit
/// still caps it, and `max_batch_records` (flag, variable or file) replaces it.
const SERVICE_BATCH_RECORDS: usize = 1_000;
/// gzip level by default for the service (the library's default is 3). A sidecar shares
/// the host's cores with the service it ships for, and its 1,000-event batches compress
/// better than the library's 200: at level 2 they ship as many bytes as 200-event
/// batches at level 3, for 10 % fewer instructions per event (callgrind over 20,000
/// Log4j2 `JsonLayout` lines: 678 M at level 3, 613 M at level 2; 379 KiB and 418 KiB of
/// gzip, against 415 KiB for 200-event batches at level 3). `gzip_level` (variable or
/// file) replaces it.
const SERVICE_GZIP_LEVEL: u32 = 2;

/// Runs the service with `f` (followed files; none when its patterns are empty) and `l`
/// (listeners; none when its specs are empty), resolved from the flags and the config
/// file's `[follow]` and `[listen]` sections.
pub fn run(args: ShipArgs, f: Follow, l: Listen) -> Result<ExitCode, Failure> {
    // Before any thread starts, so that every thread inherits the mask. Only a follower
    // rescans on SIGHUP; without one, SIGHUP stops the service like SIGTERM.
    let hup = (!f.patterns.is_empty()).then(block_sighup);
    let builder = args.pipeline.apply(
        Logship::builder()
            .overflow(Overflow::Block(BLOCK_FOR))
            .max_batch_records(SERVICE_BATCH_RECORDS)
            .gzip_level(SERVICE_GZIP_LEVEL),
    )?;
    let config = builder.config().clone();
    let mut l = l;
    l.http.max_events = config.queue_capacity;
    let following = !f.patterns.is_empty();
    let checkpoint_path = match (&f.checkpoint, following) {
        (_, false) => None,
        (Some(chosen), true) => chosen.clone(),
        (None, true) => Some(default_checkpoint(&config)),
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
        Some(spec) if following => Some(
            crate::follow::multiline::Settings::parse(
                spec,
                f.multiline_max_lines,
                config.max_event_bytes.max(1),
                Duration::from_millis(f.multiline_timeout_ms),
            )
            .map_err(Failure::usage)?,
        ),
        _ => None,
    };
    let follower = if following {
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
        Some(Follower::new(opts, resume).map_err(Failure::usage)?)
    } else {
        None
    };
    let counters = follower.as_ref().map(|f| f.counters());
    let positions = follower.as_ref().map(|f| f.positions());
    // Every listener is bound before the pipeline starts: a port in use is exit 2.
    let bound = super::bind(&l.specs)?;
    let (logship, guard) = builder.build()?;
    let started = Instant::now();

    let (events, waiting) = mpsc::channel::<()>();
    if let Err(e) = ctrlc::set_handler(move || {
        let _ = events.send(());
    }) {
        eprintln!("logship: warning: cannot handle SIGTERM/SIGINT ({e}); a signal will stop logship without a summary or a final checkpoint");
    }
    let stop = Arc::new(AtomicBool::new(false));
    let rescan = Arc::new(AtomicBool::new(false));
    match (hup, &counters) {
        (Some(Ok(set)), Some(c)) => wait_for_sighup(set, Arc::clone(&rescan), Arc::clone(c)),
        (Some(Err(e)), _) => eprintln!("logship: warning: cannot take SIGHUP from the termination handler ({e}); SIGHUP will stop logship like SIGTERM instead of rescanning"),
        _ => {}
    }
    let mut listeners = match Listeners::start(bound, &logship, &l, config.max_event_bytes.max(1)) {
        Ok(listeners) => listeners,
        Err(failure) => {
            let _ = logship.shutdown(logship.shutdown_timeout());
            return Err(failure);
        }
    };
    let (reader_done_tx, reader_done) = mpsc::channel::<()>();
    let reader = match follower {
        Some(mut follower) => {
            let (logship, stop, rescan) = (logship.clone(), Arc::clone(&stop), Arc::clone(&rescan));
            Some(
                std::thread::Builder::new()
                    .name("logship-follow".into())
                    .spawn(move || {
                        follower.run(&logship, &stop, &rescan);
                        let _ = reader_done_tx.send(());
                    })
                    .map_err(|e| Failure::runtime(format!("cannot start the follower: {e}")))?,
            )
        }
        None => None,
    };
    let store = checkpoint_path.map(Store::new);
    let checkpointer = match (&store, &positions) {
        (Some(store), Some(positions)) => {
            let (store, positions, logship, stop) = (
                Arc::clone(store),
                Arc::clone(positions),
                logship.clone(),
                Arc::clone(&stop),
            );
            let interval = Duration::from_millis(f.checkpoint_interval_ms);
            Some(
                std::thread::Builder::new()
                    .name("logship-checkpoint".into())
                    .spawn(move || {
                        checkpointer::run(&store, &positions, &logship, interval, &stop)
                    }),
            )
        }
        _ => None,
    };
    if let Some(Err(e)) = &checkpointer {
        eprintln!("logship: warning: cannot start the checkpoint writer ({e}); checkpoints are written at shutdown only");
    }
    if following {
        eprintln!(
            "logship: following {}{}",
            f.patterns.join(" "),
            match &store {
                Some(s) => format!(" (checkpoint {})", s.path().display()),
                None => " (no checkpoint)".to_owned(),
            }
        );
    }

    // The service ends only with a signal.
    let _ = waiting.recv();
    stop.store(true, Ordering::Release);
    eprintln!(
        "logship: signal received: reading and accepting no more; delivering what is in memory within the shutdown timeout (a second signal stops at once, spilling what it can)"
    );
    // A second signal from here on cuts the shutdown short.
    {
        let logship = logship.clone();
        let _ = std::thread::Builder::new()
            .name("logship-service-signals".into())
            .spawn(move || {
                if waiting.recv().is_ok() {
                    eprintln!("logship: second signal: stopping now");
                    logship.cut_short();
                }
            });
    }
    // Listeners answer what they fully received (pushed before shutdown begins).
    if !listeners.stop() {
        eprintln!(
            "logship: warning: a listener did not stop in time; what it still holds is not shipped"
        );
    }
    if let Some(reader) = reader {
        if reader_done.recv_timeout(READER_GRACE).is_ok() {
            let _ = reader.join();
        }
    }
    // Everything before these positions was pushed before shutdown begins, so shutdown
    // settles it.
    let snapshot = positions
        .as_ref()
        .map(|p| p.lock().unwrap_or_else(|e| e.into_inner()).clone());
    let report = logship.shutdown(logship.shutdown_timeout());
    drop(guard);
    if let Some(Ok(handle)) = checkpointer {
        let _ = handle.join();
    }
    let stats = &report.stats;
    let settled = stats.pending() == 0 && stats.events_abandoned == 0;
    if let (Some(store), Some(snapshot)) = (&store, &snapshot) {
        if settled {
            store.write(snapshot, true);
        } else {
            // Some lines read were neither delivered nor spilled: the last checkpoint
            // written stays, so the next run reads them again.
            store.close();
        }
    }
    let load = |c: &std::sync::atomic::AtomicU64| c.load(Ordering::Acquire);
    let (lines, retried, not_taken, parse_errors, cut_lines) = match &counters {
        Some(c) => (
            load(&c.lines),
            load(&c.refusals_retried),
            load(&c.not_taken),
            load(&c.parse_errors),
            load(&c.cut_lines),
        ),
        None => (0, 0, 0, 0, 0),
    };
    // Refusals the follower retried, or left for the next run (not in the checkpoint),
    // and HTTP requests answered 503 (the client sends them again) are counted as
    // dropped by the pipeline but lose nothing.
    // Refusals a client or the TCP reader sent again are not lost; events a TCP listener
    // received but could not hand over at stop are (the pipeline never saw them).
    let resent = retried + not_taken + listeners.http.not_lost() + listeners.stream.retried();
    let lost = stats.lost().saturating_sub(resent) + listeners.stream.lost();
    let received = lines + listeners.http.received() + listeners.stream.received();
    let mut line = crate::ship::summary(
        received,
        parse_errors,
        cut_lines,
        stats,
        !args.pipeline.no_gzip,
        started.elapsed(),
        resent,
    );
    if let Some(c) = &counters {
        line.push_str(&crate::follow::describe(
            c,
            store.as_ref().map(|s| (s.path(), settled)),
        ));
    }
    line.push_str(&listeners.http.describe());
    line.push_str(&listeners.stream.describe());
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
