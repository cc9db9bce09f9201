//! `logship-soak`: the one-hour soak of issue 32 (item 14), in any length.
//!
//! Runs the real `logship ship --follow FILE --listen tcp://…` with a checkpoint and a
//! spill directory against the real `logship-intake` as a child, which a fault schedule
//! takes down, slows, answers 5xx and resets (`flap`). Two sources feed it together at
//! `--rate` events/s in all, half appended to the followed file (rotated every
//! `--rotate-every` lines), half written to the TCP listener (`feed`). Every
//! `--sample-ms` the logship process's RSS and open descriptors are read from `/proc`.
//! At the end the intake is made healthy, the sources stop, logship drains and is stopped
//! with SIGTERM; a last run (`--follow` with the same checkpoint and spill) delivers
//! what waits in the spill or was not yet read. Then every id sent is checked against
//! what the intake recorded (`ids`): delivered, or counted lost with its reason in an
//! outcome line, or refused at the client (a write the sender saw fail); any other id is
//! unaccounted and fails the soak (exit 1). With `--check-resources`, the mean RSS of the
//! load's last third must be within ±10% of the middle third's, and the fewest descriptors
//! open in the last third no more than in the middle third (see [`report`] for why).
//!
//! `cargo build --release -p logship-cli -p logship-intake -p logship-lab` then
//! `target/release/logship-soak --seconds 3600` (docs/operations.md, "Soak"). Exit codes:
//! 0 every id accounted for (and resources flat when checked), 1 not, 2 bad usage or a
//! child that could not run.

mod children;
mod feed;
mod flap;
mod ids;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, PoisonError};
use std::time::{Duration, Instant};

use clap::Parser;

use children::{IntakeChild, ShipChild};
use feed::Source;
use ids::{Input, Seen, Tally};

/// Options of `logship-soak`.
#[derive(Debug, Parser)]
#[command(
    name = "logship-soak",
    about = "Soak logship (--follow and --listen tcp:// together) against a flapping logship-intake; check every id and the process's RSS and descriptors."
)]
struct Args {
    /// Length of the load, in seconds (the drain and check come after).
    #[arg(long, default_value_t = 120.0)]
    seconds: f64,
    /// Events per second in all, split evenly between the followed file and TCP.
    #[arg(long, default_value_t = 20_000)]
    rate: u64,
    /// Lines per followed file before it is renamed to FILE.1.
    #[arg(long, default_value_t = 1_000_000)]
    rotate_every: u64,
    /// How often RSS and descriptors are sampled, in milliseconds.
    #[arg(long, default_value_t = 2_000)]
    sample_ms: u64,
    /// Fail unless RSS is flat (the last third's mean within ±10% of the middle third's)
    /// and descriptors do not grow (the last third's fewest open no more than the middle
    /// third's).
    #[arg(long)]
    check_resources: bool,
    /// The seed of the fault schedule (default: from the clock; printed).
    #[arg(long)]
    seed: Option<u64>,
    /// The `logship` binary [default: next to this one].
    #[arg(long)]
    logship: Option<PathBuf>,
    /// The `logship-intake` binary [default: next to this one].
    #[arg(long)]
    intake: Option<PathBuf>,
    /// Working directory (followed file, checkpoint, spill, samples.tsv, intake.err) [default: a new
    /// one under the temp directory, removed after a passing run].
    #[arg(long)]
    dir: Option<PathBuf>,
}

fn main() -> ExitCode {
    match run(Args::parse()) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(message) => {
            let _ = writeln!(std::io::stderr(), "logship-soak: {message}");
            ExitCode::from(2)
        }
    }
}

/// A report line on stdout (never panics on a closed stdout).
fn say(line: &str) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "soak: {line}");
    let _ = out.flush();
}

/// One `/proc` sample of the logship process.
#[derive(Debug, Clone, Copy)]
struct Sample {
    at: f64,
    rss: u64,
    fds: u64,
}

/// The events an outcome line counts as lost (`logship: outcome: lost: N events …; M
/// events …`): the sum of its counts.
fn counted_lost(lines: &[String]) -> u64 {
    let Some(line) = lines
        .iter()
        .find_map(|l| l.strip_prefix("logship: outcome: lost: "))
    else {
        return 0;
    };
    line.split("; ")
        .filter_map(|reason| {
            let (n, rest) = reason.split_once(' ')?;
            rest.starts_with("event").then(|| n.parse::<u64>().ok())?
        })
        .sum()
}

fn outcome(lines: &[String]) -> String {
    lines
        .iter()
        .rev()
        .find(|l| l.starts_with("logship: outcome: "))
        .cloned()
        .unwrap_or_else(|| format!("(no outcome line; last lines {:?})", tail(lines)))
}

fn tail(lines: &[String]) -> &[String] {
    &lines[lines.len().saturating_sub(5)..]
}

/// Waits until the intake has every id sent (but those refused), or nothing new arrived
/// for `stall`; true when complete.
fn drain(seen: &Seen, want: [(Input, u64); 2], stall: Duration) -> bool {
    let mut last = (0, Instant::now());
    loop {
        let have: u64 = want.iter().map(|(i, _)| seen.unique(*i)).sum();
        if want.iter().all(|(i, n)| seen.unique(*i) >= *n) {
            return true;
        }
        if have != last.0 {
            last = (have, Instant::now());
        } else if last.1.elapsed() >= stall {
            return false;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

fn run(args: Args) -> Result<bool, String> {
    let logship = args
        .logship
        .clone()
        .unwrap_or_else(|| children::sibling("logship"));
    let intake_bin = args
        .intake
        .clone()
        .unwrap_or_else(|| children::sibling("logship-intake"));
    if !(1.0..=86_400.0).contains(&args.seconds) || args.rate < 2 || args.rotate_every == 0 {
        return Err(
            "--seconds must be 1..=86400, --rate at least 2, --rotate-every above 0".into(),
        );
    }
    let temp = args.dir.is_none();
    let dir = args.dir.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("logship-soak-{}", std::process::id()))
    });
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0x50a4, |d| d.as_nanos() as u64)
    });
    let seen = Arc::new(Seen::default());
    let intake_log = dir.join("intake.err");
    let first = IntakeChild::start(&intake_bin, 0, Arc::clone(&seen), &intake_log)?;
    let port = first.port;
    let slot: flap::Slot = std::sync::Mutex::new(Some(first));
    let path = |name: &str| dir.join(name).to_string_lossy().into_owned();
    let base: Vec<String> = [
        "--follow",
        &path("app.log"),
        "--checkpoint",
        &path("ckpt.json"),
        "--spill-dir",
        &path("spill"),
        "--endpoint",
        &format!("http://127.0.0.1:{port}/logs"),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    std::fs::write(dir.join("app.log"), b"").map_err(|e| format!("app.log: {e}"))?;
    let mut main_args = base.clone();
    main_args.extend(["--listen".into(), "tcp://127.0.0.1:0".into()]);
    main_args.extend(["--stats-json".into(), path("stats-main.json")]);
    let ship = ShipChild::start(&logship, &main_args)?;
    let tcp_port = ship.tcp_port(Duration::from_secs(30))?;
    let pid = ship.pid();
    say(&format!(
        "{} s at {} events/s (half --follow, half tcp://), seed {seed}, dir {}, logship pid {pid}",
        args.seconds,
        args.rate,
        dir.display()
    ));

    let (follow_src, tcp_src) = (Source::default(), Source::default());
    let stop_feed = AtomicBool::new(false);
    let stop_flap = AtomicBool::new(false);
    let scale = (args.seconds / 600.0).clamp(0.1, 1.0);
    let started = Instant::now();
    let mut samples: Vec<Sample> = Vec::new();
    let (faults, feed_errors) = std::thread::scope(|scope| {
        let half = args.rate / 2;
        let log = dir.join("app.log");
        let (fs, ts, sf) = (&follow_src, &tcp_src, &stop_feed);
        let writer = scope.spawn(move || feed::follow(&log, half, args.rotate_every, sf, fs));
        let sender = scope.spawn(move || feed::tcp(tcp_port, args.rate - half, sf, ts));
        let (slot, bin, seen, stop, log) = (&slot, &intake_bin, &seen, &stop_flap, &intake_log);
        let flapper =
            scope.spawn(move || flap::flap(slot, bin, log, port, seen, seed, scale, stop));
        let end = started + Duration::from_secs_f64(args.seconds);
        let mut next_print = Instant::now();
        while Instant::now() < end {
            if let Some((rss, fds)) = children::rss_and_fds(pid) {
                let at = started.elapsed().as_secs_f64();
                samples.push(Sample { at, rss, fds });
                if Instant::now() >= next_print {
                    next_print += Duration::from_secs(60);
                    say(&format!(
                        "{at:.0} s: rss {:.1} MiB, {fds} fds, sent {} + {}, delivered {} + {}",
                        rss as f64 / 1_048_576.0,
                        fs.sent.load(Ordering::Relaxed),
                        ts.sent.load(Ordering::Relaxed),
                        seen.unique(Input::Follow),
                        seen.unique(Input::Tcp)
                    ));
                }
            }
            std::thread::sleep(
                Duration::from_millis(args.sample_ms)
                    .min(end.saturating_duration_since(Instant::now())),
            );
        }
        stop_flap.store(true, Ordering::Release);
        let faults = flapper
            .join()
            .map_err(|_| "the fault schedule panicked".to_owned())?;
        stop_feed.store(true, Ordering::Release);
        let errors: Vec<String> = [writer.join(), sender.join()]
            .into_iter()
            .filter_map(|r| match r {
                Ok(Ok(())) => None,
                Ok(Err(e)) => Some(e),
                Err(_) => Some("a source panicked".into()),
            })
            .collect();
        Ok::<_, String>((faults?, errors))
    })?;
    let load_secs = started.elapsed().as_secs_f64();
    let sent_f = follow_src.sent.load(Ordering::Acquire);
    let sent_t = tcp_src.sent.load(Ordering::Acquire);
    let refused_t: u64 = tcp_src.refused().iter().map(|r| r.end - r.start).sum();

    // The drain: the intake is healthy; logship delivers its backlog and spill.
    let drained = drain(
        &seen,
        [(Input::Follow, sent_f), (Input::Tcp, sent_t - refused_t)],
        Duration::from_secs(60),
    );
    let (code, main_lines) = ship.stop();
    let mut lost = counted_lost(&main_lines);
    let mut report_runs = vec![format!(
        "the soaked run: exit {:?}, {}",
        code.and_then(|c| c.code()),
        outcome(&main_lines)
    )];
    if !drained {
        let f = seen.tally(Input::Follow, sent_f, &[]);
        let t = seen.tally(Input::Tcp, sent_t, &tcp_src.refused());
        say(&format!(
            "the drain stalled with ids missing: {}; {}",
            tally_line("follow", &f),
            tally_line("tcp", &t)
        ));
        let mut last_args = base.clone();
        last_args.extend(["--stats-json".into(), path("stats-last.json")]);
        let last = ShipChild::start(&logship, &last_args)?;
        let _ = drain(
            &seen,
            [(Input::Follow, sent_f), (Input::Tcp, sent_t - refused_t)],
            Duration::from_secs(30),
        );
        let (code, lines) = last.stop();
        lost += counted_lost(&lines);
        report_runs.push(format!(
            "a last run (spill and unread lines): exit {:?}, {}",
            code.and_then(|c| c.code()),
            outcome(&lines)
        ));
    }
    if let Some(intake) = slot.lock().unwrap_or_else(PoisonError::into_inner).take() {
        intake.stop();
    }

    let f = seen.tally(Input::Follow, sent_f, &[]);
    let t = seen.tally(Input::Tcp, sent_t, &tcp_src.refused());
    let missing = f.missing + t.missing;
    let unaccounted = missing.saturating_sub(lost);
    let resources_ok = report(&samples, load_secs, &dir);
    say(&format!(
        "sent {} ids in {load_secs:.0} s ({:.0}/s): follow {sent_f} ({} files rotated away), tcp {sent_t} ({} reconnections)",
        sent_f + sent_t,
        (sent_f + sent_t) as f64 / load_secs,
        follow_src.turns.load(Ordering::Relaxed),
        tcp_src.turns.load(Ordering::Relaxed)
    ));
    say(&format!(
        "intake faults: down {} times ({:.0} s in all), slow {}, 5xx {}, wire faults {}; {} control requests failed",
        faults.down,
        faults.down_for.as_secs_f64(),
        faults.slow,
        faults.status_5xx,
        faults.wire,
        faults.control_errors
    ));
    for line in &report_runs {
        say(line);
    }
    say(&tally_line("follow", &f));
    say(&tally_line("tcp", &t));
    for e in &feed_errors {
        say(&format!("source error: {e}"));
    }
    say(&format!(
        "ids: {} sent, {} delivered, {} counted lost by logship, {} refused at the client, {unaccounted} unaccounted",
        sent_f + sent_t,
        f.delivered + t.delivered,
        lost,
        t.refused
    ));
    let pass =
        unaccounted == 0 && feed_errors.is_empty() && (resources_ok || !args.check_resources);
    say(if pass { "PASS" } else { "FAIL" });
    if pass && temp {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok(pass)
}

fn tally_line(name: &str, t: &Tally) -> String {
    format!(
        "{name}: {} sent, {} delivered, {} duplicates, {} refused at the client, {} missing{}",
        t.sent,
        t.delivered,
        t.duplicates,
        t.refused,
        t.missing,
        if t.missing_ranges.is_empty() {
            String::new()
        } else {
            let runs: Vec<String> = t
                .missing_ranges
                .iter()
                .map(|r| format!("{}..{}", r.start, r.end))
                .collect();
            format!(" (ids {})", runs.join(", "))
        }
    )
}

/// Prints the RSS and descriptor figures, writes `samples.tsv`; true when RSS is flat and
/// descriptors do not grow.
///
/// The reference is the load's middle third, not its first samples: RSS rises for the
/// first minutes of a soak while the queue, the spill's buffers and the allocator reach
/// their high-water mark at the first long outages (the 30-minute run rose by a third for
/// ten minutes, then stayed flat), so a comparison with an early sample fails a process
/// that does not leak. A leak is a trend: the last third's mean above the middle third's.
/// Descriptors come and go with connections in flight; a leaked one is never closed, so
/// it raises the floor: the last third's fewest open must not exceed the middle third's.
fn report(samples: &[Sample], secs: f64, dir: &Path) -> bool {
    let mut tsv = String::from("seconds\trss_bytes\tfds\n");
    for s in samples {
        tsv.push_str(&format!("{:.1}\t{}\t{}\n", s.at, s.rss, s.fds));
    }
    let _ = std::fs::write(dir.join("samples.tsv"), tsv);
    let third = |k: f64| -> Vec<Sample> {
        samples
            .iter()
            .filter(|s| s.at >= secs * k / 3.0 && s.at < secs * (k + 1.0) / 3.0)
            .copied()
            .collect()
    };
    let (middle, last) = (third(1.0), third(2.0));
    if middle.is_empty() || last.is_empty() || samples.is_empty() {
        say("too few samples for the RSS and descriptor verdict");
        return false;
    }
    let mib = |b: f64| b / 1_048_576.0;
    let mean = |w: &[Sample]| w.iter().map(|s| s.rss as f64).sum::<f64>() / w.len() as f64;
    let rss = |w: &[Sample], pick: fn(u64, u64) -> u64| {
        w.iter().map(|s| s.rss).reduce(pick).unwrap_or(0) as f64
    };
    let fds =
        |w: &[Sample], pick: fn(u64, u64) -> u64| w.iter().map(|s| s.fds).reduce(pick).unwrap_or(0);
    let reference = mean(&middle);
    let change = |v: f64| (v / reference - 1.0) * 100.0;
    let flat = change(mean(&last)).abs() <= 10.0;
    let fds_ok = fds(&last, u64::min) <= fds(&middle, u64::min);
    let windows = 12.min(samples.len());
    let per_window: Vec<String> = (0..windows)
        .filter_map(|i| {
            let n = windows as f64;
            let (lo, hi) = (secs * i as f64 / n, secs * (i + 1) as f64 / n);
            let w: Vec<Sample> = samples
                .iter()
                .filter(|s| s.at >= lo && s.at < hi)
                .copied()
                .collect();
            (!w.is_empty()).then(|| format!("{:.1}", mib(mean(&w))))
        })
        .collect();
    let (first, end) = (samples[0], samples[samples.len() - 1]);
    say(&format!(
        "RSS ({} samples): first {:.1} MiB, min {:.1}, max {:.1}, last {:.1} MiB; mean by {:.0} s window: {} MiB",
        samples.len(),
        mib(first.rss as f64),
        mib(rss(samples, u64::min)),
        mib(rss(samples, u64::max)),
        mib(end.rss as f64),
        secs / windows as f64,
        per_window.join(", ")
    ));
    say(&format!(
        "RSS flat: last third mean {:.1} MiB ({:+.1}%, min {:+.1}%, max {:+.1}%) against the middle third's {:.1} MiB: {}",
        mib(mean(&last)),
        change(mean(&last)),
        change(rss(&last, u64::min)),
        change(rss(&last, u64::max)),
        mib(reference),
        if flat { "flat within ±10%" } else { "NOT flat within ±10%" }
    ));
    say(&format!(
        "open descriptors: first {}, last {}, min {}, max {}; fewest open in the middle third {}, in the last third {}: {}",
        first.fds,
        end.fds,
        fds(samples, u64::min),
        fds(samples, u64::max),
        fds(&middle, u64::min),
        fds(&last, u64::min),
        if fds_ok { "no growth" } else { "GREW" }
    ));
    flat && fds_ok
}
