//! The no-silent-loss crash harness (issue 32, item 13): `logship ship --follow`, and
//! `logship ship --listen http://` (at the end of this file).
//!
//! Each trial: a writer appends lines with unique ids to a file while the real `logship`
//! binary follows it with a checkpoint and a spill directory; a fault schedule flaps the
//! in-process strict intake (down: connections closed before a byte is read; slow: every
//! answer delayed; 5xx: the next requests answered 503) and SIGKILLs logship at random
//! moments, restarting it each time; half the trials cap the spill at 128 KiB with
//! `drop_newest`, so that it fills up during an outage (a full spill disk, simulated by
//! the cap; no tmpfs is mounted). With a checkpoint written every 100 ms, spill writes
//! going on through the outages and in-flight insurance copies after 100 ms, kills land
//! at random points of checkpoint and spill writes (random timing, not instrumented).
//! After the last kill the intake is made healthy, a last run delivers what is left
//! (read again from the checkpoint, or replayed from the spill), and every id written is
//! accounted for: each must have reached the intake; any id missing fails the trial,
//! whatever the summaries said. Duplicates (at-least-once after a kill) are counted and
//! printed, not failed.
//!
//! Short form (every `cargo test`): `LOGSHIP_CRASH_TRIALS` trials (default 3, a few
//! seconds each). Long form: `LOGSHIP_CRASH_MINUTES=30 cargo test --release -p logship-cli
//! --test crash_harness -- --nocapture` runs trials until the minutes are spent.
//! `LOGSHIP_CRASH_SEED` replays a schedule (the seed of each trial is printed).

mod common;

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use common::follow::*;
use logship_intake::{Fault, Intake};

/// The writer process (`start_writer` re-runs this binary as it); nothing otherwise.
#[test]
fn writer() {
    common::follow::writer();
}

/// The schedule's random numbers, replayable from a seed.
struct Rng(fastrand::Rng);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(fastrand::Rng::with_seed(seed))
    }

    fn next(&mut self) -> u64 {
        self.0.u64(..)
    }

    /// A number in `lo..hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        self.0.u64(lo..hi.max(lo + 1))
    }
}

/// The ids of `0..lines` the intake has not received.
fn missing(intake: &Intake, lines: u64) -> Vec<u64> {
    let got: std::collections::BTreeSet<u64> =
        received(intake).into_iter().map(|(id, _)| id).collect();
    (0..lines).filter(|id| !got.contains(id)).collect()
}

/// How many events the intake received more than once (at-least-once after a kill).
fn duplicates(intake: &Intake) -> u64 {
    let mut count: BTreeMap<u64, u64> = BTreeMap::new();
    for (id, _) in received(intake) {
        *count.entry(id).or_default() += 1;
    }
    count.values().map(|n| n - 1).sum()
}

/// What one trial did.
#[derive(Debug, Default)]
struct Trial {
    lines: u64,
    small_spill: bool,
    kills: u32,
    runs: u32,
    faults: u32,
    /// Runs after the faults that left lines for the next run: counted as lost (spill
    /// full) with the checkpoint held before them, or waiting in the spill.
    held_runs: u32,
    duplicates: u64,
}

/// Flaps the intake until `stop`: down, slow, 5xx, healthy, at random moments.
fn flap(intake: &Intake, rng: &mut Rng, stop: &AtomicBool) -> u32 {
    let mut faults = 0;
    while !stop.load(Ordering::Acquire) {
        match rng.range(0, 5) {
            0 => intake.set_down(true),
            1 => intake.set_down(false),
            2 => intake.set_delay(Duration::from_millis(rng.range(0, 300))),
            3 => intake.fail_next(
                rng.range(1, 4) as usize,
                Fault::json(503, "{\"error\":\"flapping\"}"),
            ),
            _ => {
                intake.set_down(false);
                intake.set_delay(Duration::ZERO);
            }
        }
        faults += 1;
        // Pacing of the schedule, not synchronisation.
        std::thread::sleep(Duration::from_millis(rng.range(20, 200)));
    }
    intake.set_down(false);
    intake.set_delay(Duration::ZERO);
    faults
}

/// The arguments of every run of a trial in `dir`; with `small_spill`, the spill is "full"
/// after about 1,500 lines (its cap, 128 KiB, refusing new events): lines are then
/// neither delivered nor spilled during an outage, and the checkpoint must not pass them.
fn args(dir: &Path, small_spill: bool) -> Vec<String> {
    let s = |p: &Path| p.to_str().expect("utf-8 path").to_owned();
    let mut a: Vec<String> = vec![
        "--follow".into(),
        s(&dir.join("app.log")),
        "--checkpoint".into(),
        s(&dir.join("ckpt.json")),
        "--spill-dir".into(),
        s(&dir.join("spill")),
    ];
    for (k, v) in [
        ("--max-retries", "1"),
        ("--retry-initial-backoff-ms", "10"),
        ("--retry-max-backoff-ms", "50"),
        ("--request-timeout-ms", "2000"),
        ("--spill-in-flight-after-ms", "100"),
        ("--max-batch-records", "50"),
        ("--linger-ms", "5"),
        ("--shutdown-timeout-ms", "5000"),
    ] {
        a.push(k.into());
        a.push(v.into());
    }
    if small_spill {
        a.extend(FULL_SPILL.iter().map(|arg| arg.to_string()));
    }
    a
}

fn run_trial(seed: u64) -> Trial {
    let mut rng = Rng::new(seed);
    let intake = intake();
    let dir = fresh_dir("crash");
    let log = dir.join("app.log");
    std::fs::write(&log, b"").expect("app.log");
    let lines = rng.range(2_000, 6_000);
    let rate = rng.range(1_000, 4_000);
    let mut writer = start_writer(&dir, lines, u64::MAX, "none", rate);
    let small_spill = rng.range(0, 2) == 0;
    let a = args(&dir, small_spill);
    let refs: Vec<&str> = a.iter().map(String::as_str).collect();
    let mut trial = Trial {
        lines,
        small_spill,
        ..Trial::default()
    };
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let mut chaos_rng = Rng::new(rng.next());
        let (intake, stop) = (&intake, &stop);
        let chaos = scope.spawn(move || flap(intake, &mut chaos_rng, stop));
        let kills = rng.range(2, 5) as u32;
        for _ in 0..kills {
            let run = Follower::start(intake, &refs);
            trial.runs += 1;
            // Let it read, send, spill and checkpoint for a random while.
            std::thread::sleep(Duration::from_millis(rng.range(150, 1_500)));
            let _ = run.kill();
            trial.kills += 1;
        }
        stop.store(true, Ordering::Release);
        trial.faults = chaos.join().expect("chaos thread");
    });
    assert!(writer.wait().expect("writer").success());
    // The intake is healthy now (503s the schedule queued may still be answered): runs
    // deliver what is left. A run that could neither deliver nor spill some lines says
    // so, counts them as lost with that reason and holds its checkpoint before them: the
    // next run reads them again. At most `FINAL_RUNS` such runs.
    const FINAL_RUNS: u32 = 10;
    let missing_ids = || missing(&intake, lines);
    let mut last_stderr = Vec::new();
    for _ in 0..FINAL_RUNS {
        let run = Follower::start(&intake, &refs);
        trial.runs += 1;
        let deadline = Instant::now() + WAIT;
        let held = |r: &Follower| {
            r.stderr
                .lines()
                .iter()
                .any(|l| l.contains("could be neither delivered nor kept"))
        };
        while !missing_ids().is_empty() && !held(&run) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        let (code, stderr) = run.stop();
        let outcome = outcome(&stderr);
        // A run that did not deliver everything it read must say so: its loss counted
        // with the reason, and the checkpoint held (or left) before those lines.
        let held = outcome.starts_with("logship: outcome: lost: ")
            && stderr.iter().any(|l| {
                l.contains("checkpoint held before") || l.contains("checkpoint not written")
            });
        // Or, nothing lost, some lines wait in the spill for the next run (exit 3).
        let spilled = code == Some(3) && outcome.starts_with("logship: outcome: spilled: ");
        assert!(
            code == Some(0) || (code == Some(1) && held) || spilled,
            "seed {seed}: a run ended {code:?} without counting its loss: {stderr:?}"
        );
        last_stderr = stderr;
        if missing_ids().is_empty() {
            break;
        }
        assert!(
            held || spilled,
            "seed {seed}: ids missing after a run that did not count them: {last_stderr:?}"
        );
        trial.held_runs += 1;
    }
    let missing = missing_ids();
    assert!(
        missing.is_empty(),
        "seed {seed}: {} of {lines} ids unaccounted (never delivered), first {:?}; last run: {last_stderr:?}",
        missing.len(),
        &missing[..missing.len().min(10)]
    );
    trial.duplicates = duplicates(&intake);
    trial
}

#[test]
fn sigkills_and_a_flapping_intake_leave_no_id_unaccounted() {
    let var = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    let trials = var("LOGSHIP_CRASH_TRIALS").unwrap_or(3);
    let minutes = var("LOGSHIP_CRASH_MINUTES");
    let mut seed = var("LOGSHIP_CRASH_SEED").unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0x5eed)
    });
    let started = Instant::now();
    let (mut done, mut lines, mut kills, mut faults, mut duplicates) = (0u64, 0, 0, 0, 0);
    loop {
        let enough = match minutes {
            Some(m) => started.elapsed() >= Duration::from_secs(m * 60),
            None => done >= trials,
        };
        if enough {
            break;
        }
        let t = run_trial(seed);
        let _ = writeln!(
            std::io::stderr(),
            "crash harness: trial {done} seed {seed}: {} ids, {} runs, {} SIGKILLs, {} intake faults, spill {}, {} runs left lines to the next run, 0 unaccounted, {} duplicates",
            t.lines, t.runs, t.kills, t.faults, if t.small_spill { "capped at 128 KiB (drop_newest)" } else { "1 GiB" }, t.held_runs, t.duplicates
        );
        done += 1;
        lines += t.lines;
        kills += t.kills;
        faults += t.faults;
        duplicates += t.duplicates;
        seed = Rng::new(seed).next();
    }
    let _ = writeln!(
        std::io::stderr(),
        "crash harness: {done} trials in {:.0} s: {lines} ids, {kills} SIGKILLs, {faults} intake faults, 0 unaccounted, {duplicates} duplicates",
        started.elapsed().as_secs_f64()
    );
}

/// SIGKILL of the process a `ShipProcess` runs, and its end.
fn kill(mut ship: common::ShipProcess) {
    let _ = std::process::Command::new("kill")
        .args(["-KILL", &ship.child.id().to_string()])
        .status();
    let _ = ship.child.wait();
}

/// One `--listen` trial: a client POSTs batches of ids with `--listen-ack delivered` and
/// sends each again until it is answered 200; logship is SIGKILLed and restarted on the
/// same port meanwhile, the intake flapped. Every id answered 200 must reach the intake.
fn run_listen_trial(seed: u64) -> Trial {
    let mut rng = Rng::new(seed);
    let intake = intake();
    let dir = fresh_dir("crash-listen");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let url = format!("http://127.0.0.1:{port}");
    let spill = dir.join("spill");
    let mut a: Vec<String> = vec![
        "--listen".into(),
        url,
        "--listen-ack".into(),
        "delivered".into(),
        "--spill-dir".into(),
        spill.to_str().expect("utf-8").into(),
    ];
    for arg in ["--max-retries", "1", "--retry-initial-backoff-ms", "10"] {
        a.push(arg.into());
    }
    let refs: Vec<&str> = a.iter().map(String::as_str).collect();
    let start = || {
        let ship = common::ShipProcess::start(&intake.url("/logs"), &refs, WAIT * 4);
        ship.port("http");
        ship
    };
    let batches = rng.range(40, 120);
    let per_batch = 25u64;
    let lines = batches * per_batch;
    let mut trial = Trial {
        lines,
        ..Trial::default()
    };
    let stop = AtomicBool::new(false);
    let client_done = AtomicBool::new(false);
    std::thread::scope(|scope| {
        let (intake_ref, stop_ref, done_ref) = (&intake, &stop, &client_done);
        let mut chaos_rng = Rng::new(rng.next());
        let chaos = scope.spawn(move || flap(intake_ref, &mut chaos_rng, stop_ref));
        scope.spawn(move || {
            for b in 0..batches {
                let body: String = (b * per_batch..(b + 1) * per_batch)
                    .map(|id| format!("{{\"message\":\"{}\"}}\n", line_text(id)))
                    .collect();
                // Sent again until answered 200: refused (killed), 503 and cut-off
                // answers are all "not taken".
                while !matches!(
                    common::listen::try_post(port, "/", &[], body.as_bytes()),
                    Ok((Some(200), _))
                ) {
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
            done_ref.store(true, Ordering::Release);
        });
        let mut ship = start();
        trial.runs += 1;
        for _ in 0..rng.range(2, 5) {
            std::thread::sleep(Duration::from_millis(rng.range(100, 1_000)));
            kill(ship);
            trial.kills += 1;
            ship = start();
            trial.runs += 1;
        }
        stop.store(true, Ordering::Release);
        trial.faults = chaos.join().expect("chaos thread");
        let deadline = Instant::now() + WAIT;
        while !client_done.load(Ordering::Acquire) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(
            client_done.load(Ordering::Acquire),
            "seed {seed}: the client never got every batch in"
        );
        // Everything was answered 200: delivered, or on disk and replayed by this run.
        let deadline = Instant::now() + WAIT;
        while !missing(&intake, lines).is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(50));
        }
        let (code, stderr) = ship.stop();
        let missing = missing(&intake, lines);
        assert!(
            missing.is_empty(),
            "seed {seed}: {} of {lines} acknowledged ids never delivered, first {:?}: {stderr:?}",
            missing.len(),
            &missing[..missing.len().min(10)]
        );
        assert!(
            matches!(code, Some(0) | Some(3)),
            "seed {seed}: {code:?} {stderr:?}"
        );
    });
    trial.duplicates = duplicates(&intake);
    trial
}

#[test]
fn sigkills_of_a_listener_lose_no_acknowledged_id() {
    let var = |name: &str| std::env::var(name).ok().and_then(|v| v.parse::<u64>().ok());
    let trials = var("LOGSHIP_CRASH_TRIALS").unwrap_or(2);
    let mut seed = var("LOGSHIP_CRASH_SEED").unwrap_or(0x6c69_7374_656e);
    for n in 0..trials {
        let t = run_listen_trial(seed);
        let _ = writeln!(
            std::io::stderr(),
            "crash harness (listen): trial {n} seed {seed}: {} ids acknowledged, {} runs, {} SIGKILLs, {} intake faults, 0 unaccounted, {} duplicates",
            t.lines, t.runs, t.kills, t.faults, t.duplicates
        );
        seed = Rng::new(seed).next();
    }
}
