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
//! Must never: write positions the pipeline has not settled, write an older snapshot
//! after a newer one (the final write closes the store), or stop the follower when the
//! file cannot be written (it is said once and counted).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use logship::Logship;

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
    told: AtomicBool,
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
            told: AtomicBool::new(false),
        })
    }

    /// The checkpoint file.
    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    /// Writes `entries` (already known to be settled) unless they are what the file
    /// holds, or the store was closed; `last` closes it.
    pub fn write(&self, entries: &[Entry], last: bool) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.closed {
            return;
        }
        state.closed = last;
        if state.last.as_deref() == Some(entries) {
            return;
        }
        match checkpoint::save(&self.path, entries) {
            Ok(()) => {
                self.writes.fetch_add(1, Ordering::Relaxed);
                state.last = Some(entries.to_vec());
            }
            Err(e) => {
                self.write_errors.fetch_add(1, Ordering::Relaxed);
                if !self.told.swap(true, Ordering::AcqRel) {
                    eprintln!(
                        "logship: warning: cannot write the checkpoint file {} ({e}); following goes on, but a restart will read again from the last checkpoint written",
                        self.path.display()
                    );
                }
            }
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
        if settled {
            store.write(&snapshot, false);
        } else {
            store.flush_timeouts.fetch_add(1, Ordering::Relaxed);
        }
    }
}
