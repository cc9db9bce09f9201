//! The intake's fault schedule: healthy, down (the intake process stopped, then started
//! again on the same port), slow (every answer delayed), 5xx (the next requests answered
//! 503 or 500) and wire faults (connections reset mid-answer, garbage status lines), in a
//! random order with random lengths, replayable from a seed.
//!
//! Why it exists: a soak against a healthy intake proves little; the shipper's spill,
//! retries and recovery must run for the whole hour. Must never: leave the intake down or
//! faulty when it returns (the drain that follows needs a healthy intake).

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::children::IntakeChild;
use crate::ids::Seen;

/// How often each fault ran, and how long the intake was down in all.
#[derive(Debug, Default, Clone)]
pub struct Faults {
    pub down: u64,
    pub down_for: Duration,
    pub slow: u64,
    pub status_5xx: u64,
    pub wire: u64,
    /// Control requests that failed (reported, not fatal).
    pub control_errors: u64,
}

/// The running intake, swapped when it is taken down and started again.
pub type Slot = Mutex<Option<IntakeChild>>;

/// Sleeps `d` in short steps; false when `stop` was set meanwhile.
fn hold(d: Duration, stop: &AtomicBool) -> bool {
    let end = Instant::now() + d;
    while Instant::now() < end {
        if stop.load(Ordering::Acquire) {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20).min(end - Instant::now()));
    }
    true
}

/// Runs the schedule until `stop` (each kind of phase at least once, unless `stop` comes
/// first), then leaves the intake up and healthy. `scale` (0..=1)
/// shortens every phase for short runs; `log` takes each intake's stderr.
#[allow(clippy::too_many_arguments)]
pub fn flap(
    slot: &Slot,
    bin: &Path,
    log: &Path,
    port: u16,
    seen: &Arc<Seen>,
    seed: u64,
    scale: f64,
    stop: &AtomicBool,
) -> Result<Faults, String> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut f = Faults::default();
    let ms = |rng: &mut fastrand::Rng, lo: u64, hi: u64| {
        Duration::from_millis(((rng.u64(lo..hi) as f64) * scale) as u64 + 50)
    };
    let control = |what: &str, f: &mut Faults| {
        let guard = slot.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(Err(_)) = guard.as_ref().map(|i| i.control(what)) {
            f.control_errors += 1;
        }
    };
    // Every kind once first, in a random order (a short run sees each), then at random.
    let mut first: Vec<u8> = (0..5).collect();
    rng.shuffle(&mut first);
    loop {
        match first.pop().unwrap_or_else(|| rng.u8(0..6)) {
            0 => {
                let took = slot.lock().unwrap_or_else(PoisonError::into_inner).take();
                if let Some(intake) = took {
                    intake.stop();
                }
                f.down += 1;
                let d = ms(&mut rng, 1_000, 10_000);
                f.down_for += d;
                let _ = hold(d, stop);
                let up = IntakeChild::start(bin, port, Arc::clone(seen), log)?;
                *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(up);
            }
            1 => {
                f.slow += 1;
                let delay = rng.u64(100..1_500);
                control(&format!("delay?ms={delay}"), &mut f);
                let _ = hold(ms(&mut rng, 3_000, 10_000), stop);
                control("delay?ms=0", &mut f);
            }
            2 => {
                f.status_5xx += 1;
                let status = if rng.bool() { 503 } else { 500 };
                let count = rng.u64(5..50);
                control(&format!("fail?count={count}&status={status}"), &mut f);
                let _ = hold(ms(&mut rng, 2_000, 8_000), stop);
            }
            3 => {
                f.wire += 1;
                let mode = ["reset-mid", "reset-before", "garbage-status"][rng.usize(0..3)];
                let count = rng.u64(3..20);
                control(&format!("misbehave?count={count}&mode={mode}"), &mut f);
                let _ = hold(ms(&mut rng, 2_000, 8_000), stop);
            }
            _ => {
                let _ = hold(ms(&mut rng, 3_000, 20_000), stop);
            }
        }
        if stop.load(Ordering::Acquire) {
            break;
        }
    }
    // Healthy for the drain: no delay and no fault left queued. (Queued 500s used to be
    // left for the drain's first requests; up to 49 of them a fault, answered to one
    // sender backing off exponentially, outlasted the drain's stall timeout: a CI run
    // reported 71,223 ids "unaccounted" that waited, counted, in the spill.)
    control("clear_faults", &mut f);
    control("delay?ms=0", &mut f);
    Ok(f)
}
