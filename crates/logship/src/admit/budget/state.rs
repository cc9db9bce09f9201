//! The pure budget: what has been spent in the current hour and day, and the verdict for
//! one more event.
//!
//! Why it exists: the rules (warn at 80 %, past 100 % shed the lowest levels, then sample,
//! then drop) are easiest to get right, and to test at a day boundary, with no clock, no
//! lock and no file: the time is an argument, given in seconds since the Unix epoch. The
//! windows are UTC clock hours and UTC days. Must never: read a clock, do I/O or panic.

use crate::capture::record::Level;
use crate::config::budget::LevelCaps;
use crate::config::BudgetConfig;

/// Seconds in one hour and in one day.
const HOUR: u64 = 3600;
const DAY: u64 = 24 * HOUR;

/// The share of a cap, in per mille, at which the warning notice is sent and health
/// changes.
pub(crate) const WARN_AT: u64 = 800;
/// The share of a cap, in per mille, at which shedding begins.
pub(crate) const FULL: u64 = 1000;

/// One of the four caps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cap {
    HourBytes,
    DayBytes,
    HourEvents,
    DayEvents,
}

impl Cap {
    pub(crate) const ALL: [Cap; 4] = [
        Cap::HourBytes,
        Cap::DayBytes,
        Cap::HourEvents,
        Cap::DayEvents,
    ];

    /// The cap's key (also the `logship.budget` field of its notices).
    pub(crate) fn key(self) -> &'static str {
        match self {
            Cap::HourBytes => "budget_hour_bytes",
            Cap::DayBytes => "budget_day_bytes",
            Cap::HourEvents => "budget_hour_events",
            Cap::DayEvents => "budget_day_events",
        }
    }

    fn limit(self, c: &BudgetConfig) -> Option<u64> {
        match self {
            Cap::HourBytes => c.hour_bytes,
            Cap::DayBytes => c.day_bytes,
            Cap::HourEvents => c.hour_events,
            Cap::DayEvents => c.day_events,
        }
    }

    fn is_hourly(self) -> bool {
        matches!(self, Cap::HourBytes | Cap::HourEvents)
    }

    fn is_bytes(self) -> bool {
        matches!(self, Cap::HourBytes | Cap::DayBytes)
    }
}

/// What to do with one event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Ship it (its size is charged to the budget).
    Admit,
    /// Past a cap: TRACE and DEBUG go first (`budget_dropped_level`).
    DropLevel,
    /// Past a cap: INFO and WARN are sampled, and this one was not kept
    /// (`budget_sampled_out`).
    SampledOut,
    /// Past a cap and its overdraft: every event is dropped (`budget_dropped`).
    Drop,
}

/// A notice the budget asks to ship: a cap reached 80 % or 100 % in its window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Crossed {
    pub cap: Cap,
    /// `WARN_AT` or `FULL`.
    pub at: u64,
    pub limit: u64,
    pub spent: u64,
}

/// What is spent in the current windows: the part that is persisted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Spent {
    /// The current hour, as hours since the epoch.
    pub hour: u64,
    /// The current day, as days since the epoch (UTC).
    pub day: u64,
    pub hour_bytes: u64,
    pub day_bytes: u64,
    pub hour_events: u64,
    pub day_events: u64,
    /// Bytes of each level (indexed like `Level::ALL`) this hour and this day, for the
    /// per-level caps (absent in files of earlier versions: zero).
    #[serde(default)]
    pub level_hour_bytes: [u64; 5],
    #[serde(default)]
    pub level_day_bytes: [u64; 5],
}

impl Spent {
    fn of(&self, cap: Cap) -> u64 {
        match cap {
            Cap::HourBytes => self.hour_bytes,
            Cap::DayBytes => self.day_bytes,
            Cap::HourEvents => self.hour_events,
            Cap::DayEvents => self.day_events,
        }
    }
}

/// The budget's rules and what is spent.
#[derive(Debug)]
pub(crate) struct State {
    config: BudgetConfig,
    /// Each level's own caps (`budget_level_*_bytes`).
    levels: LevelCaps,
    spent: Spent,
    /// Per cap: the highest threshold (`WARN_AT`, `FULL`) already announced this window.
    announced: [u64; 4],
    /// Sampling accumulator: an event is kept each time it passes 100.
    sample_acc: u64,
}

impl State {
    /// A budget with `spent` carried over (from the state file); amounts of windows other
    /// than the one `now` is in are dropped at the first event.
    pub(crate) fn new(config: BudgetConfig, spent: Spent, now_secs: u64) -> State {
        // Checked when the pipeline was built; a bad item there never gets this far.
        let levels = config.level_caps().unwrap_or_default();
        let mut state = State {
            config,
            levels,
            spent,
            announced: [0; 4],
            sample_acc: 0,
        };
        state.roll(now_secs);
        // What was announced before the restart is not announced again.
        for (i, cap) in Cap::ALL.iter().enumerate() {
            let share = state.share(*cap);
            state.announced[i] = if share >= FULL {
                FULL
            } else if share >= WARN_AT {
                WARN_AT
            } else {
                0
            };
        }
        state
    }

    /// What is spent now.
    pub(crate) fn spent(&self) -> Spent {
        self.spent
    }

    /// Starts new windows when `now` is past the current ones.
    pub(crate) fn roll(&mut self, now_secs: u64) -> bool {
        let (hour, day) = (now_secs / HOUR, now_secs / DAY);
        let mut changed = false;
        if hour != self.spent.hour {
            self.spent.hour = hour;
            self.spent.hour_bytes = 0;
            self.spent.hour_events = 0;
            self.spent.level_hour_bytes = [0; 5];
            changed = true;
            for (i, cap) in Cap::ALL.iter().enumerate() {
                if cap.is_hourly() {
                    self.announced[i] = 0;
                }
            }
        }
        if day != self.spent.day {
            self.spent.day = day;
            self.spent.day_bytes = 0;
            self.spent.day_events = 0;
            self.spent.level_day_bytes = [0; 5];
            changed = true;
            for (i, cap) in Cap::ALL.iter().enumerate() {
                if !cap.is_hourly() {
                    self.announced[i] = 0;
                }
            }
        }
        changed
    }

    /// The share of `cap` spent, in per mille (0 when the cap is off).
    fn share(&self, cap: Cap) -> u64 {
        match cap.limit(&self.config) {
            Some(limit) if limit > 0 => {
                (self.spent.of(cap) as u128 * 1000 / limit as u128).min(u64::MAX as u128) as u64
            }
            _ => 0,
        }
    }

    /// The highest share of any cap, in per mille.
    pub(crate) fn highest_share(&self) -> u64 {
        Cap::ALL.iter().map(|c| self.share(*c)).max().unwrap_or(0)
    }

    /// The verdict for one event of `level` and `bytes` at `now`; an admitted event is
    /// charged. `crossed` receives the threshold a cap passed with this event, if any.
    pub(crate) fn admit(
        &mut self,
        now_secs: u64,
        level: Level,
        bytes: u64,
        crossed: &mut Option<Crossed>,
    ) -> Verdict {
        self.roll(now_secs);
        let share = self.highest_share();
        let overdraft = self.config.overdraft_percent * 10;
        let verdict = if self.over_level_cap(level) {
            // The level's own cap: only this level goes, whatever the pipeline's share.
            Verdict::DropLevel
        } else if share < FULL {
            Verdict::Admit
        } else if share >= FULL + overdraft {
            Verdict::Drop
        } else if level < Level::Info {
            Verdict::DropLevel
        } else if share < FULL + overdraft / 2 || level == Level::Error {
            Verdict::Admit
        } else {
            self.sample_acc += self.config.sample_percent;
            if self.sample_acc >= 100 {
                self.sample_acc -= 100;
                Verdict::Admit
            } else {
                Verdict::SampledOut
            }
        };
        if verdict == Verdict::Admit {
            self.spent.hour_bytes += bytes;
            self.spent.day_bytes += bytes;
            self.spent.hour_events += 1;
            self.spent.day_events += 1;
            let i = level as usize;
            self.spent.level_hour_bytes[i] += bytes;
            self.spent.level_day_bytes[i] += bytes;
            *crossed = self.announce();
        }
        verdict
    }

    /// Whether `level` has spent its own hourly or daily cap.
    fn over_level_cap(&self, level: Level) -> bool {
        let i = level as usize;
        let over = |cap: Option<u64>, spent: u64| cap.is_some_and(|cap| spent >= cap);
        over(self.levels.hour[i], self.spent.level_hour_bytes[i])
            || over(self.levels.day[i], self.spent.level_day_bytes[i])
    }

    /// Gives back what an admitted event of `level` was charged (the queue refused it
    /// after all).
    pub(crate) fn refund(&mut self, level: Level, bytes: u64) {
        let s = &mut self.spent;
        let i = level as usize;
        s.level_hour_bytes[i] = s.level_hour_bytes[i].saturating_sub(bytes);
        s.level_day_bytes[i] = s.level_day_bytes[i].saturating_sub(bytes);
        s.hour_bytes = s.hour_bytes.saturating_sub(bytes);
        s.day_bytes = s.day_bytes.saturating_sub(bytes);
        s.hour_events = s.hour_events.saturating_sub(1);
        s.day_events = s.day_events.saturating_sub(1);
    }

    /// The first cap that passed a threshold not yet announced in its window.
    fn announce(&mut self) -> Option<Crossed> {
        for (i, cap) in Cap::ALL.iter().enumerate() {
            let Some(limit) = cap.limit(&self.config) else {
                continue;
            };
            let share = self.share(*cap);
            let at = if share >= FULL {
                FULL
            } else if share >= WARN_AT {
                WARN_AT
            } else {
                continue;
            };
            if at > self.announced[i] {
                self.announced[i] = at;
                return Some(Crossed {
                    cap: *cap,
                    at,
                    limit,
                    spent: self.spent.of(*cap),
                });
            }
        }
        None
    }

    /// Whether `cap` counts bytes (for notices).
    pub(crate) fn unit(cap: Cap) -> &'static str {
        if cap.is_bytes() {
            "bytes"
        } else {
            "events"
        }
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
