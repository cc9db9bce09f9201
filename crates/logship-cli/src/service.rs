//! `logship ship --follow ...` and/or `--listen ...`: followed files and listeners feed one
//! pipeline in one process until a signal.
//!
//! Why it exists: a sidecar runs until its service manager stops it; followed files and
//! listeners share the pipeline (a full queue makes followed files and TCP wait for room,
//! HTTP answers 503 instead), the signals (SIGTERM/SIGINT stop: listeners close, what was
//! received is pushed, then shutdown delivers or spills within the shutdown timeout; a
//! second signal cuts it short; SIGHUP rescans the patterns and listeners go on), one
//! summary line, `--stats-json`, and the exit code (0 all delivered, 1 some lost, 3 none
//! lost but some spilled, 2 bad usage).
//!
//! Must never: write a checkpoint past what shutdown settled, start when a pattern or a
//! listener URL is invalid or cannot bind (exit 2, naming it), count as lost what a
//! client was told to send again (503) or what the follower retried, or stop (or lose a
//! line) on SIGHUP.

use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Instant;

use logship::Builder;
use logship_cli::exit::Failure;

use crate::follow::checkpointer::{self, Store};
use crate::follow::rescan::{block_sighup, wait_for_sighup};
use crate::follow::{checkpoint, describe, Follower};
use crate::listen::{bind, Listen, Listeners};
use crate::settings::{Follow, Settings};
use crate::signals::{on_termination, second_signal_cuts_short, READER_GRACE};
use crate::summary::{outcome_line, waiting_in_spill, write_stats_json, Outcome, Summary};

/// Runs the service with `f` (followed files; none when its patterns are empty) and `l`
/// (listeners; none when its specs are empty), both resolved and checked with `settings`.
pub fn run(
    settings: Settings,
    f: Follow,
    l: Listen,
    stats_json: Option<&Path>,
) -> Result<ExitCode, Failure> {
    let following = !f.options.patterns.is_empty();
    // Before any thread starts, so that every thread inherits the mask. Only a follower
    // rescans on SIGHUP; without one, SIGHUP stops the service like SIGTERM.
    let hup = following.then(block_sighup);
    let config = settings.config;
    let checkpoint_path = if following { f.checkpoint } else { None };
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
    let follower = if following {
        Some(Follower::new(f.options.clone(), resume).map_err(Failure::usage)?)
    } else {
        None
    };
    let counters = follower.as_ref().map(|f| f.counters());
    let positions = follower.as_ref().map(|f| f.positions());
    // Every listener is bound before the pipeline starts: a port in use is exit 2.
    let bound = bind(&l.specs)?;
    let gzip = config.gzip;
    let max_event_bytes = config.max_event_bytes.max(1);
    let (logship, guard) = Builder::from_config(config).build()?;
    let started = Instant::now();

    let (events, waiting) = mpsc::channel::<()>();
    // With Kafka inputs only, the service also ends when every one of them stopped,
    // refused by the brokers: nothing is left to read.
    let only_kafka = !following && l.specs.is_empty() && !l.kafka.is_empty();
    let all_stopped = only_kafka.then(|| events.clone());
    on_termination(
        move || {
            let _ = events.send(());
        },
        "a summary or a final checkpoint",
    );
    let stop = Arc::new(AtomicBool::new(false));
    let rescan = Arc::new(AtomicBool::new(false));
    match (hup, &counters) {
        (Some(Ok(set)), Some(c)) => wait_for_sighup(set, Arc::clone(&rescan), Arc::clone(c)),
        (Some(Err(e)), _) => eprintln!("logship: warning: cannot take SIGHUP from the termination handler ({e}); SIGHUP will stop logship like SIGTERM instead of rescanning"),
        _ => {}
    }
    let mut listeners = match Listeners::start(bound, &logship, &l, max_event_bytes) {
        Ok(listeners) => listeners,
        Err(failure) => {
            let _ = logship.shutdown(logship.shutdown_timeout());
            return Err(failure);
        }
    };
    let mut kafka = match crate::kafka::KafkaInputs::start(
        &l.kafka,
        &l.kafka_security,
        &logship,
        all_stopped,
    ) {
        Ok(kafka) => kafka,
        Err(problem) => {
            let _ = listeners.stop();
            let _ = logship.shutdown(logship.shutdown_timeout());
            return Err(Failure::usage(problem));
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
            let interval = f.checkpoint_interval;
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
            f.options.patterns.join(" "),
            match &store {
                Some(s) => format!(" (checkpoint {})", s.path().display()),
                None => " (no checkpoint)".to_owned(),
            }
        );
    }

    // The service ends with a signal (or when its only inputs, Kafka's, all stopped).
    let _ = waiting.recv();
    stop.store(true, Ordering::Release);
    if only_kafka && kafka.all_refused() {
        eprintln!("logship: every input stopped, refused by the brokers: shutting down");
    } else {
        eprintln!(
            "logship: signal received: reading and accepting no more; delivering what is in memory within the shutdown timeout (a second signal stops at once, spilling what it can)"
        );
    }
    second_signal_cuts_short(&logship, move || waiting.recv().is_ok());
    // Listeners answer what they fully received (pushed before shutdown begins).
    if !listeners.stop() {
        eprintln!(
            "logship: warning: a listener did not stop in time; what it still holds is not shipped"
        );
    }
    // Kafka inputs stop reading and commit what is settled before leaving their groups.
    kafka.stop();
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
    // When some lines read were neither delivered nor spilled, the last checkpoint
    // written stays, so the next run reads them again.
    let ending = match (&store, &snapshot) {
        (Some(store), Some(snapshot)) => Some(store.finish(snapshot, settled, stats)),
        _ => None,
    };
    let load = |c: &AtomicU64| c.load(Ordering::Acquire);
    let (lines, parse_errors, cut_lines) = match &counters {
        Some(c) => (
            load(&c.lines),
            load(&c.parse_errors),
            (load(&c.cut_lines), load(&c.cut_largest)),
        ),
        None => (0, 0, (0, 0)),
    };
    // A full or shut-down pipeline hands its refusals back to the inputs that keep their
    // events (the follower, TCP, HTTP's 503, Kafka), so it counts none of them as
    // dropped: a followed line the next run reads again, a request its client sends
    // again, a message left uncommitted. Events a stream listener received but could not
    // hand over are lost, and the pipeline never counted them: the listener does.
    let lost = stats.lost() + listeners.stream.lost();
    let mut line = Summary {
        read: lines + listeners.http.received() + listeners.stream.received() + kafka.received(),
        parse_errors,
        cut_lines: cut_lines.0,
        cut_largest: cut_lines.1,
        cut_limit: crate::lines::room::read_cap(max_event_bytes) as u64,
        stats,
        gzip,
        elapsed: started.elapsed(),
    }
    .line();
    if let Some(c) = &counters {
        let checkpoint = store.as_ref().zip(ending).map(|(s, e)| (s.path(), e));
        line.push_str(&describe(c, checkpoint));
    }
    line.push_str(&listeners.http.describe());
    line.push_str(&listeners.stream.describe());
    line.push_str(&kafka.describe());
    eprintln!("logship: {line}");
    write_stats_json(stats_json, stats)?;
    let unhanded = listeners.stream.lost();
    let mut other: Vec<String> = (unhanded > 0)
        .then(|| format!("{unhanded} received by a listener but not handed over at stop"))
        .into_iter()
        .collect();
    // An input the brokers refused read nothing: its messages stay in the topic, but the
    // run did not do what it was started for.
    let refused = kafka.refused();
    if refused > 0 {
        other.push(format!(
            "{refused} Kafka input{} stopped, refused by the brokers (credentials or certificate): not read, the messages stay in the topic",
            if refused == 1 { "" } else { "s" }
        ));
    }
    let outcome =
        if lost == 0 && other.is_empty() && stats.pending() == 0 && waiting_in_spill(stats) == 0 {
            Outcome::Delivered
        } else if lost == 0 && other.is_empty() && stats.pending() == 0 {
            Outcome::Spilled
        } else {
            Outcome::Lost
        };
    eprintln!("logship: {}", outcome_line(outcome, stats, &other));
    Ok(outcome.exit_code())
}
