//! When a checkpoint may be written: only after the pipeline settled every line it
//! covers.
//!
//! Why it exists: the follower knows which lines it *pushed*; only the pipeline knows
//! which are *settled*. `Logship::flush` waits until every event queued before the call
//! is delivered, spilled or counted as lost, so the checkpointer takes the follower's
//! positions first, then flushes, and writes those positions only when the flush
//! succeeded, however long it took (a flush under a backlog settles a whole queue at the
//! intake's pace). At shutdown the same holds: positions taken before `shutdown` are
//! written only when shutdown left nothing pending or abandoned. A crash (SIGKILL)
//! therefore re-ships at most what was read since the last written checkpoint: the queue
//! and the batches in flight when its positions were taken, plus what was read during
//! that flush and one `--checkpoint-interval-ms` (about two queues' worth under a
//! backlog, whatever the file's size), and loses nothing.
//!
//! Settled is not enough: a line whose batch could be neither delivered nor spilled (the
//! spill disk full, its cap with `drop_newest`, spill off) is settled as lost. Once any
//! such line exists, the checkpoint is held where it stands for the rest of the run
//! ([`Store::hold`]): every later position is past that line, and a restart must read it
//! again (shipping what followed it twice rather than losing it).
//!
//! Must never: write positions the pipeline has not settled, pass a line that was neither
//! delivered nor kept on disk, write an older snapshot after a newer one (the final write
//! closes the store), or stop the follower when the file cannot be written (it is said
//! once and counted).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use logship::{Logship, Stats};

use super::checkpoint::{self, Entry};

/// The checkpoint file and the last positions written to it.
pub struct Store {
    path: PathBuf,
    state: Mutex<State>,
    /// Checkpoint writes that failed.
    pub write_errors: AtomicU64,
    /// Checkpoints written.
    pub writes: AtomicU64,
    /// Flushes that did not settle in time (the checkpoint waited for the next one).
    pub flush_timeouts: AtomicU64,
    /// Lines neither delivered nor kept when the checkpoint was held (0: not held).
    pub held_unkept: AtomicU64,
    told: AtomicBool,
}

/// Events the pipeline settled without delivering or keeping them on disk: given up on or
/// abandoned, less those kept in the spill's dead-letter area. A checkpoint must never
/// pass one of them.
pub fn unkept(stats: &Stats) -> u64 {
    (stats.events_failed + stats.events_abandoned).saturating_sub(stats.dead_lettered)
}

/// How the checkpoint ended, for the summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The final positions are in the file.
    Written,
    /// Held at the last position before a line that was neither delivered nor kept.
    Held(u64),
    /// Left at the last written position: shutdown did not settle everything, or the
    /// file could not be written.
    Left,
}

struct State {
    last: Option<Vec<Entry>>,
    closed: bool,
}

impl Store {
    /// A store writing to `path`.
    pub fn new(path: PathBuf) -> Arc<Store> {
        Arc::new(Store {
            path,
            state: Mutex::new(State {
                last: None,
                closed: false,
            }),
            write_errors: AtomicU64::new(0),
            writes: AtomicU64::new(0),
            flush_timeouts: AtomicU64::new(0),
            held_unkept: AtomicU64::new(0),
            told: AtomicBool::new(false),
        })
    }

    /// The checkpoint file.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// Writes `entries` (already known to be settled and kept) unless they are what the
    /// file holds, or the store was closed; `last` closes it. Returns whether the file
    /// now holds `entries`.
    pub fn write(&self, entries: &[Entry], last: bool) -> bool {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.closed {
            return false;
        }
        state.closed = last;
        if state.last.as_deref() == Some(entries) {
            return true;
        }
        match checkpoint::save(&self.path, entries) {
            Ok(()) => {
                self.writes.fetch_add(1, Ordering::Relaxed);
                state.last = Some(entries.to_vec());
                true
            }
            Err(e) => {
                self.write_errors.fetch_add(1, Ordering::Relaxed);
                if !self.told.swap(true, Ordering::AcqRel) {
                    eprintln!(
                        "logship: warning: cannot write the checkpoint file {} ({e}); following goes on, but a restart will read again from the last checkpoint written",
                        self.path.display()
                    );
                }
                false
            }
        }
    }

    /// Holds the checkpoint where it stands for the rest of the run: `unkept` lines were
    /// neither delivered nor kept on disk, and every later position would pass them. Said
    /// once on stderr.
    pub fn hold(&self, unkept: u64) {
        self.close();
        if self.held_unkept.swap(unkept.max(1), Ordering::AcqRel) == 0 {
            eprintln!(
                "logship: warning: {unkept} event{} could be neither delivered nor kept in the spill; the checkpoint {} stays where it is for the rest of this run, so the next run reads those lines again (and ships what followed them twice)",
                if unkept == 1 { "" } else { "s" },
                self.path.display()
            );
        }
    }

    /// The final write at shutdown: `entries` when everything before them was settled
    /// (`settled`) and nothing this run was left unkept; otherwise the file stays as it is.
    pub fn finish(&self, entries: &[Entry], settled: bool, stats: &Stats) -> Ending {
        let lost = unkept(stats);
        if lost > 0 {
            self.hold(lost);
        }
        if self.held_unkept.load(Ordering::Acquire) > 0 {
            return Ending::Held(self.held_unkept.load(Ordering::Acquire));
        }
        if !settled {
            self.close();
            return Ending::Left;
        }
        if self.write(entries, true) {
            Ending::Written
        } else {
            Ending::Left
        }
    }

    /// Closes the store without writing: later writes are ignored.
    pub fn close(&self) {
        self.state.lock().unwrap_or_else(|e| e.into_inner()).closed = true;
    }
}

/// Longest one flush is waited for. A flush takes as long as the pipeline needs to settle
/// what was queued when it began: with a backlog, the queue is kept full (the follower
/// waits for room), so that is a whole queue's worth at the intake's pace, which can be
/// many seconds. Giving up sooner would throw the positions away and start again with a
/// fuller queue: the checkpoint would never move until the backlog is gone.
const FLUSH_WAIT: Duration = Duration::from_secs(3600);

/// Every `interval` until `stop`: takes the follower's positions, flushes the pipeline,
/// and writes the positions once the flush has settled everything queued before them
/// (however long that takes). Once `stop` is set nothing more is written here: shutdown
/// may settle batches by abandoning them, and the final write is the main thread's.
pub fn run(
    store: &Store,
    positions: &Mutex<Vec<Entry>>,
    logship: &Logship,
    interval: Duration,
    stop: &AtomicBool,
) {
    let mut waited = Duration::ZERO;
    let tick = Duration::from_millis(50).min(interval);
    while !stop.load(Ordering::Acquire) {
        // Short naps so that `stop` is seen promptly.
        std::thread::sleep(tick);
        waited += tick;
        if waited < interval {
            continue;
        }
        waited = Duration::ZERO;
        let snapshot = positions.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let settled = logship.flush(FLUSH_WAIT).is_ok();
        if stop.load(Ordering::Acquire) {
            break;
        }
        if !settled {
            store.flush_timeouts.fetch_add(1, Ordering::Relaxed);
            continue;
        }
        // Read after the flush: every line before `snapshot` is settled, so a count of 0
        // means each was delivered or kept.
        let lost = unkept(&logship.stats());
        if lost > 0 {
            store.hold(lost);
            break;
        }
        store.write(&snapshot, false);
    }
}
