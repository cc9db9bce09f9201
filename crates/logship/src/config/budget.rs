//! The options of volume budgets (issue 17 part 3) and of watching the shipper itself (the
//! stall alarm and the `metrics` export, part 6).
//!
//! Why it exists: these options are one concern each and are read only by `budget` and
//! `observe`; grouping them keeps [`super::Config`] to one field per concern. Everything
//! here is off by default, so a pipeline that does not ask for a budget or an alarm
//! behaves exactly as before. Nothing here may hold a secret.

use std::path::PathBuf;

use super::key::{Flag::*, Kind};
use super::key_parts::*;
use super::options::options;
use super::value::list;
use crate::error::ConfigError;
use std::time::Duration;

const LEVEL_CAPS_HOUR: Kind = Kind::List {
    item: "level=bytes",
    fix: "write budget_level_hour_bytes = [\"debug=100000000\"]",
};
const LEVEL_CAPS_DAY: Kind = Kind::List {
    item: "level=bytes",
    fix: "write budget_level_day_bytes = [\"debug=1000000000\"]",
};

options! {
    /// Volume budgets: caps on what the pipeline ships per hour and per day (keys
    /// `budget_*`). Every cap is off by default. See the crate docs, "Volume budgets".
    #[derive(Clone, PartialEq, Eq)]
    #[non_exhaustive]
    pub struct BudgetConfig {
        setters: budget_setters,
        debug: generated,
        rows: [
            /// Caps of one level's own bytes per clock hour (UTC), as `level=bytes` items
            /// (`["debug=100000000"]`): past it, that level's events are dropped
            /// (`budget_dropped_level`) while the other levels go on. The setter sets one
            /// level's cap.
            level_hour_bytes: Vec<String> = Vec::new() => {
                name: "budget_level_hour_bytes",
                kind: LEVEL_CAPS_HOUR,
                flag: Many("--budget-level-hour-bytes"),
                default: "none",
                doc: "one level's own cap of event bytes per clock hour (UTC), as `level=bytes`; past it that level is dropped (counted), the others go on",
                set: |c, v| c.level_hour_bytes = v.list(),
                get: |c| list(&c.level_hour_bytes),
                setter: fn budget_level_hour_bytes(level: crate::Level, bytes: u64)
                    |f| crate::config::control::set_level_item(f, level, format_args!("{bytes}")),
            },
            /// Caps of one level's own bytes per UTC day, like `level_hour_bytes`.
            level_day_bytes: Vec<String> = Vec::new() => {
                name: "budget_level_day_bytes",
                kind: LEVEL_CAPS_DAY,
                flag: Many("--budget-level-day-bytes"),
                default: "none",
                doc: "one level's own cap of event bytes per UTC day, as `level=bytes`",
                set: |c, v| c.level_day_bytes = v.list(),
                get: |c| list(&c.level_day_bytes),
                setter: fn budget_level_day_bytes(level: crate::Level, bytes: u64)
                    |f| crate::config::control::set_level_item(f, level, format_args!("{bytes}")),
            },
            /// Most event bytes shipped per clock hour (UTC). At 80 % one `budget_warning`
            /// event ships and health becomes `budget_warning`; past 100 % TRACE and DEBUG go
            /// first, then INFO and WARN are sampled, then everything is dropped (see
            /// `overdraft_percent`), each counted in `stats()`.
            hour_bytes: Option<u64> = None => {
                name: "budget_hour_bytes",
                kind: int(1024, 1 << 50, BYTES),
                flag: Value("--budget-hour-bytes"),
                default: "no cap",
                doc: "most event bytes shipped per clock hour (UTC); warns at 80 %, sheds past 100 %",
                set: |c, v| c.hour_bytes = Some(v.int()),
                get: |c| c.hour_bytes.map(|n| n.to_string()),
                setter: fn budget_hour_bytes(bytes: u64) |f| *f = Some(bytes),
            },
            /// Most event bytes shipped per UTC day, like `hour_bytes`.
            day_bytes: Option<u64> = None => {
                name: "budget_day_bytes",
                kind: int(1024, 1 << 50, BYTES),
                flag: Value("--budget-day-bytes"),
                default: "no cap",
                doc: "most event bytes shipped per day (UTC); warns at 80 %, sheds past 100 %",
                set: |c, v| c.day_bytes = Some(v.int()),
                get: |c| c.day_bytes.map(|n| n.to_string()),
                setter: fn budget_day_bytes(bytes: u64) |f| *f = Some(bytes),
            },
            /// Most events shipped per clock hour (UTC), like `hour_bytes`.
            hour_events: Option<u64> = None => {
                name: "budget_hour_events",
                kind: int(1, 1 << 50, " events"),
                flag: Value("--budget-hour-events"),
                default: "no cap",
                doc: "most events shipped per clock hour (UTC)",
                set: |c, v| c.hour_events = Some(v.int()),
                get: |c| c.hour_events.map(|n| n.to_string()),
                setter: fn budget_hour_events(events: u64) |f| *f = Some(events),
            },
            /// Most events shipped per UTC day, like `hour_bytes`.
            day_events: Option<u64> = None => {
                name: "budget_day_events",
                kind: int(1, 1 << 50, " events"),
                flag: Value("--budget-day-events"),
                default: "no cap",
                doc: "most events shipped per day (UTC)",
                set: |c, v| c.day_events = Some(v.int()),
                get: |c| c.day_events.map(|n| n.to_string()),
                setter: fn budget_day_events(events: u64) |f| *f = Some(events),
            },
            /// How far past a cap, in percent of it, the pipeline sheds gradually (first
            /// half: TRACE and DEBUG dropped; second half: INFO and WARN sampled, ERROR kept)
            /// before it drops everything; 0 drops everything at the cap.
            overdraft_percent: u64 = 10 => {
                name: "budget_overdraft_percent",
                kind: int(0, 100, " percent"),
                flag: Value("--budget-overdraft-percent"),
                default: "10",
                doc: "past a cap, shed gradually over this share of it (first TRACE/DEBUG, then sample INFO/WARN), then drop all",
                set: |c, v| c.overdraft_percent = v.int(),
                get: |c| Some(c.overdraft_percent.to_string()),
                setter: fn budget_overdraft_percent(percent: u64) |f| *f = percent,
            },
            /// The share of INFO and WARN events kept while sampling, in percent.
            sample_percent: u64 = 10 => {
                name: "budget_sample_percent",
                kind: int(1, 100, " percent"),
                flag: Value("--budget-sample-percent"),
                default: "10",
                doc: "share of INFO and WARN events kept while a budget samples",
                set: |c, v| c.sample_percent = v.int(),
                get: |c| Some(c.sample_percent.to_string()),
                setter: fn budget_sample_percent(percent: u64) |f| *f = percent,
            },
            /// Where the amounts spent are kept across restarts. Unset: `budget.json` in the
            /// spill directory (none when spill is off or unavailable: the budget then
            /// starts fresh on each start).
            state_file: Option<PathBuf> = None => {
                name: "budget_state_file",
                kind: Kind::Path,
                flag: Value("--budget-state-file"),
                default: "`budget.json` in the spill directory",
                doc: "where the amounts spent survive restarts (a corrupt or missing file starts fresh)",
                set: |c, v| c.state_file = v.text().map(Into::into),
                get: |c| path(&c.state_file),
                setter: fn budget_state_file(path: impl Into<std::path::PathBuf>) |f| *f = Some(path.into()),
            },
        ]
    }
}

impl BudgetConfig {
    /// Whether any cap is set.
    pub fn is_enabled(&self) -> bool {
        self.hour_bytes.is_some()
            || self.day_bytes.is_some()
            || self.hour_events.is_some()
            || self.day_events.is_some()
            || !self.level_hour_bytes.is_empty()
            || !self.level_day_bytes.is_empty()
    }

    /// Each level's own hourly and daily byte caps (`None`: no cap of its own).
    pub(crate) fn level_caps(&self) -> Result<LevelCaps, ConfigError> {
        Ok(LevelCaps {
            hour: level_caps("budget_level_hour_bytes", &self.level_hour_bytes)?,
            day: level_caps("budget_level_day_bytes", &self.level_day_bytes)?,
        })
    }

    /// Checks the per-level items (called by `Config::validate`).
    pub(crate) fn validate(&self) -> Result<(), ConfigError> {
        self.level_caps().map(|_| ())
    }
}

/// Per-level byte caps, indexed like `Level::ALL`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct LevelCaps {
    pub hour: [Option<u64>; 5],
    pub day: [Option<u64>; 5],
}

fn level_caps(key: &'static str, items: &[String]) -> Result<[Option<u64>; 5], ConfigError> {
    let fix = format!("write {key} = [\"debug=100000000\"] (a level, then bytes)");
    let mut out = [None; 5];
    for item in items {
        let level = super::control::parse_level(key, item, &fix)?;
        let bytes = item
            .split_once('=')
            .and_then(|(_, n)| n.trim().parse::<u64>().ok())
            .filter(|n| (1024..=1 << 50).contains(n));
        match bytes {
            Some(n) => out[level] = Some(n),
            None => {
                return Err(ConfigError::new(
                    key,
                    item,
                    "needs level=bytes, a whole number of bytes from 1024 to 2^50",
                )
                .fix(fix))
            }
        }
    }
    Ok(out)
}

options! {
    /// Watching the shipper itself: the stall alarm and the `metrics` export (keys
    /// `stall_after_ms`, `metrics_interval_ms`).
    #[derive(Clone, PartialEq, Eq)]
    #[non_exhaustive]
    pub struct ObserveConfig {
        setters: observe_setters,
        debug: generated,
        rows: [
            /// Health becomes `stalled` (counted in `stalls`, said once on stderr, and the
            /// `on_stall` callback called) when nothing has been delivered for this long
            /// while events keep arriving; it clears when delivery resumes. Unset: off.
            stall_after: Option<Duration> = None => {
                name: "stall_after_ms",
                kind: int(100, 86_400_000, MS),
                flag: Value("--stall-after-ms"),
                default: "off",
                doc: "health `stalled` (and `on_stall` fires) when nothing is delivered this long while events arrive",
                set: |c, v| c.stall_after = Some(ms(v.int())),
                get: |c| c.stall_after.and_then(millis),
                setter: fn stall_after(after: std::time::Duration) |f| *f = Some(after),
            },
            /// How often the counters are handed to the `metrics` recorder (with the
            /// `metrics` feature).
            metrics_interval: Duration = Duration::from_secs(1) => {
                name: "metrics_interval_ms",
                kind: int(100, 3_600_000, MS),
                flag: Value("--metrics-interval-ms"),
                default: "1000",
                doc: "how often counters reach the `metrics` recorder (the `metrics` feature)",
                set: |c, v| c.metrics_interval = ms(v.int()),
                get: |c| millis(c.metrics_interval),
                setter: fn metrics_interval(every: std::time::Duration) |f| *f = every,
            },
        ]
    }
}
