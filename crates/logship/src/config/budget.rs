//! The options of volume budgets (issue 17 part 3) and of watching the shipper itself (the
//! stall alarm and the `metrics` export, part 6).
//!
//! Why it exists: these options are one concern each and are read only by `budget` and
//! `observe`; grouping them keeps [`super::Config`] to one field per concern. Everything
//! here is off by default, so a pipeline that does not ask for a budget or an alarm
//! behaves exactly as before. Nothing here may hold a secret.

use std::path::PathBuf;

use crate::error::ConfigError;
use std::time::Duration;

/// Volume budgets: caps on what the pipeline ships per hour and per day (keys
/// `budget_*`). Every cap is off by default. See the crate docs, "Volume budgets".
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct BudgetConfig {
    /// Most bytes per clock hour (UTC). Default: no cap.
    pub hour_bytes: Option<u64>,
    /// Most bytes per day (UTC). Default: no cap.
    pub day_bytes: Option<u64>,
    /// Most events per clock hour (UTC). Default: no cap.
    pub hour_events: Option<u64>,
    /// Most events per day (UTC). Default: no cap.
    pub day_events: Option<u64>,
    /// How far past a cap, in percent of it, the pipeline sheds gradually (first half:
    /// TRACE and DEBUG dropped; second half: INFO and WARN sampled, ERROR kept) before it
    /// drops everything. Default 10; 0 drops everything at the cap.
    pub overdraft_percent: u64,
    /// The share of INFO and WARN events kept while sampling, in percent. Default 10.
    pub sample_percent: u64,
    /// Where the amounts spent are kept across restarts. Default: `budget.json` in the
    /// spill directory (none when spill is off or unavailable: the budget then starts
    /// fresh on each start).
    pub state_file: Option<PathBuf>,
    /// Caps of one level's own bytes per clock hour (UTC), as `level=bytes` items
    /// (`["debug=100000000"]`): past it, that level's events are dropped
    /// (`budget_dropped_level`) while the other levels go on. Default: none.
    pub level_hour_bytes: Vec<String>,
    /// Caps of one level's own bytes per UTC day, like `level_hour_bytes`. Default: none.
    pub level_day_bytes: Vec<String>,
}

impl Default for BudgetConfig {
    fn default() -> Self {
        BudgetConfig {
            hour_bytes: None,
            day_bytes: None,
            hour_events: None,
            day_events: None,
            overdraft_percent: 10,
            sample_percent: 10,
            state_file: None,
            level_hour_bytes: Vec::new(),
            level_day_bytes: Vec::new(),
        }
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

/// Watching the shipper itself: the stall alarm and the `metrics` export (keys `stall_*`,
/// `metrics_*`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ObserveConfig {
    /// Health becomes `stalled` (and the `on_stall` callback fires) when nothing has been
    /// delivered for this long while events keep arriving. Default: off.
    pub stall_after: Option<Duration>,
    /// How often the counters are handed to the `metrics` recorder (with the `metrics`
    /// feature). Default 1 s.
    pub metrics_interval: Duration,
}

impl Default for ObserveConfig {
    fn default() -> Self {
        ObserveConfig {
            stall_after: None,
            metrics_interval: Duration::from_secs(1),
        }
    }
}
