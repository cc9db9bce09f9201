//! Volume budgets: caps on the bytes or events a pipeline ships per hour and per day.
//!
//! Why it exists: an error storm arrives exactly when bills spike. With a cap set, every
//! record handed to the pipeline (every path goes through `Logship::push`, where the
//! record's size is known) is charged here first: at 80 % of a cap one warning event
//! ships and health becomes `budget_warning`; past 100 % TRACE and DEBUG go first, then
//! INFO and WARN are sampled (ERROR kept), then past the overdraft everything is dropped;
//! each refusal is counted by reason (`budget_dropped_level`, `budget_sampled_out`,
//! `budget_dropped`), never silently. The amounts spent survive restarts in a state file
//! beside the spill ([`persist`]), written by the observer thread, never on a log call.
//!
//! The decision takes one short lock (arithmetic only, no I/O, no allocation) and only
//! when a budget is configured; what a refused event cost is never charged, and an
//! admitted event the queue then refuses is refunded, so the accounting is exact however
//! many threads cross a cap at once. Must never: do I/O on the caller's thread, charge
//! logship's own notices, or drop a notice in a loop.

mod persist;
pub(crate) mod state;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::capture::record::{Level, Record};
use crate::config::BudgetConfig;
use crate::observe::reporter::Reporter;
use crate::observe::stats::Counters;
use state::{Crossed, State, Verdict, FULL, WARN_AT};

/// Seconds since the Unix epoch, now. Injectable so tests can stand at a day boundary.
pub type BudgetClock = Arc<dyn Fn() -> u64 + Send + Sync>;

/// Most notices waiting for room in the queue; more are not built (at most four caps
/// times two thresholds per window exist anyway).
const MAX_WAITING_NOTICES: usize = 8;

/// The file name of the state in the spill directory.
pub(crate) const STATE_FILE: &str = "budget.json";

/// A pipeline's budget.
pub(crate) struct Budget {
    state: Mutex<State>,
    clock: BudgetClock,
    file: Option<PathBuf>,
    /// Something was charged since the last save.
    dirty: AtomicBool,
    /// The highest share of a cap spent, in per mille, for health.
    share: AtomicU64,
    /// Notices waiting for room in the queue.
    notices: Mutex<Vec<Record>>,
    has_notices: AtomicBool,
    /// A save failed: said once.
    told_save_failed: AtomicBool,
    /// Held for a whole save, so the save at shutdown waits for one the observer thread
    /// has begun (it would otherwise see nothing new and return while the file still holds
    /// the old state).
    saving: Mutex<()>,
}

/// The real clock.
pub(crate) fn system_clock() -> BudgetClock {
    Arc::new(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0)
    })
}

impl Budget {
    /// The budget of `config`, carrying over what `file` says was spent. A file that
    /// cannot be read is reported once on `reporter` and the budget starts fresh: it never
    /// fails start-up.
    pub(crate) fn start(
        config: BudgetConfig,
        file: Option<PathBuf>,
        clock: BudgetClock,
        reporter: &Reporter,
    ) -> Budget {
        let spent = match file.as_deref().map(persist::load) {
            Some(Ok(Some(spent))) => spent,
            Some(Err(problem)) => {
                let path = file.as_deref().map(|p| p.display().to_string());
                reporter.notice(&format!(
                    "warning: the budget state file {} could not be read ({problem}); the budget starts with nothing spent and the file is rewritten",
                    path.unwrap_or_default()
                ));
                Default::default()
            }
            _ => Default::default(),
        };
        let state = State::new(config, spent, clock());
        let share = state.highest_share();
        Budget {
            state: Mutex::new(state),
            clock,
            file,
            dirty: AtomicBool::new(false),
            share: AtomicU64::new(share),
            notices: Mutex::new(Vec::new()),
            has_notices: AtomicBool::new(false),
            told_save_failed: AtomicBool::new(false),
            saving: Mutex::new(()),
        }
    }

    /// Charges one event of `level` and `bytes`, or refuses it (counted by reason in
    /// `counters`). True when it may be queued.
    pub(crate) fn admit(&self, level: Level, bytes: u64, counters: &Counters) -> bool {
        let now = (self.clock)();
        let mut crossed = None;
        let (verdict, share) = {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            let verdict = state.admit(now, level, bytes, &mut crossed);
            (verdict, state.highest_share())
        };
        self.share.store(share, Ordering::Relaxed);
        let counter = match verdict {
            Verdict::Admit => {
                self.dirty.store(true, Ordering::Relaxed);
                if let Some(crossed) = crossed {
                    self.announce(crossed);
                }
                return true;
            }
            Verdict::DropLevel => &counters.budget_dropped_level,
            Verdict::SampledOut => &counters.budget_sampled_out,
            Verdict::Drop => &counters.budget_dropped,
        };
        Counters::add(counter, 1);
        false
    }

    /// Gives back the charge of an admitted event that the queue refused.
    pub(crate) fn refund(&self, level: Level, bytes: u64) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        state.refund(level, bytes);
    }

    /// Whether 80 % or more of a cap is spent in its current window.
    pub(crate) fn is_warning(&self) -> bool {
        self.share.load(Ordering::Relaxed) >= WARN_AT
    }

    /// Whether notices wait for room in the queue.
    #[inline]
    pub(crate) fn has_notices(&self) -> bool {
        self.has_notices.load(Ordering::Relaxed)
    }

    /// Hands each waiting notice to `ship` (which gives it back when the queue has no room:
    /// it is kept for the next try, never counted as a drop).
    pub(crate) fn ship_notices(&self, ship: &dyn Fn(Record) -> Result<(), Record>) {
        let mut waiting = self.notices.lock().unwrap_or_else(|e| e.into_inner());
        while !waiting.is_empty() {
            let notice = waiting.remove(0);
            if let Err(notice) = ship(notice) {
                waiting.insert(0, notice);
                break;
            }
        }
        self.has_notices
            .store(!waiting.is_empty(), Ordering::Relaxed);
    }

    /// Starts new windows when the clock has passed them (health follows), from the
    /// observer thread.
    pub(crate) fn tick(&self) {
        let now = (self.clock)();
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if state.roll(now) {
            self.dirty.store(true, Ordering::Relaxed);
        }
        self.share.store(state.highest_share(), Ordering::Relaxed);
    }

    /// Writes the state file when something changed since the last save (observer thread
    /// and shutdown only). A failure is said once and retried at the next save.
    pub(crate) fn save(&self, reporter: &Reporter) {
        let Some(path) = &self.file else {
            return;
        };
        let _one_at_a_time = self.saving.lock().unwrap_or_else(|e| e.into_inner());
        if !self.dirty.swap(false, Ordering::Relaxed) {
            return;
        }
        let spent = self.state.lock().unwrap_or_else(|e| e.into_inner()).spent();
        if let Err(e) = persist::save(path, &spent) {
            self.dirty.store(true, Ordering::Relaxed);
            if !self.told_save_failed.swap(true, Ordering::Relaxed) {
                reporter.notice(&format!(
                    "warning: the budget state file {} could not be written ({e}); what was spent is kept in memory only",
                    path.display()
                ));
            }
        }
    }

    /// Queues the notice of a cap that passed a threshold.
    fn announce(&self, crossed: Crossed) {
        let mut waiting = self.notices.lock().unwrap_or_else(|e| e.into_inner());
        if waiting.len() < MAX_WAITING_NOTICES {
            waiting.push(notice(crossed));
            self.has_notices.store(true, Ordering::Relaxed);
        }
    }
}

/// The synthetic event for a threshold crossed: level WARN, target `logship`, the field
/// `logship.notice` (`budget_warning` at 80 %, `budget_exhausted` at 100 %), and which cap,
/// its limit and what is spent.
fn notice(c: Crossed) -> Record {
    let unit = State::unit(c.cap);
    let (kind, what) = if c.at >= FULL {
        (
            "budget_exhausted",
            "reached; TRACE and DEBUG are dropped now, then INFO and WARN are sampled, then all events are dropped until the window ends",
        )
    } else {
        ("budget_warning", "80 % spent")
    };
    let mut r = Record::new(Level::Warn, "logship");
    r.message_fmt(format_args!(
        "logship budget {} {what} ({} of {} {unit} in the current UTC window)",
        c.cap.key(),
        c.spent,
        c.limit
    ));
    r.field("logship.notice", kind);
    r.field("logship.budget", c.cap.key());
    r.field("logship.limit", c.limit);
    r.field("logship.spent", c.spent);
    r
}

#[cfg(test)]
mod save_tests {
    use super::*;

    /// 2026-12-01 23:59:00 UTC.
    const BEFORE_MIDNIGHT: u64 = 1_796_169_540;

    #[test]
    fn the_save_at_shutdown_waits_for_one_the_observer_has_begun() {
        // The observer's save clears `dirty` before it writes; a second save that ran past
        // it would return at once, before the file holds what was spent.
        let dir = std::env::temp_dir().join(format!("logship-budget-race-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("budget.json");
        let reporter = Reporter::new(false, None);
        let clock: BudgetClock = Arc::new(|| BEFORE_MIDNIGHT);
        let budget = Arc::new(Budget::start(
            BudgetConfig {
                day_events: Some(10),
                ..BudgetConfig::default()
            },
            Some(file.clone()),
            clock,
            &reporter,
        ));
        assert!(budget.admit(Level::Info, 100, &Counters::default()));
        let observer_mid_save = budget.saving.lock().unwrap();
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        let shutdown = {
            let budget = Arc::clone(&budget);
            std::thread::spawn(move || {
                budget.save(&Reporter::new(false, None));
                done_tx.send(()).unwrap();
            })
        };
        assert!(
            done_rx
                .recv_timeout(std::time::Duration::from_millis(100))
                .is_err(),
            "the second save returned while the first was still writing"
        );
        drop(observer_mid_save);
        done_rx.recv().unwrap();
        shutdown.join().unwrap();
        assert_eq!(persist::load(&file).unwrap().unwrap().day_events, 1);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
