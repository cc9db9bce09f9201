//! Options of control at the source (issue #17 parts 1, 2 and 5): burst limits per call
//! site, sampling per level, drop notices in the stream.
//!
//! Why it exists: the rows of `keys/control.rs` store raw text here (so that `config
//! check` shows back what was written); [`ControlConfig::limits`] and
//! [`ControlConfig::sample_ppm`] turn it into the numbers `crate::control` uses, and
//! validation reports a bad item naming the key and the fix. Everything is off by default.

use std::time::Duration;

use crate::error::ConfigError;
use crate::record::Level;

/// Burst limits, sampling and drop notices (keys `burst_limits`, `burst_sites`,
/// `burst_summary_interval_ms`, `sample_rates`, `sample_by_trace`, `drop_notices`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ControlConfig {
    /// Token buckets per call site and level, as `level=rate/burst` items (events per
    /// second, and how many may pass at once), e.g. `warn=100/1000`. A level not listed is
    /// not limited: errors only when `error=...` is written. Default: none.
    pub burst_limits: Vec<String>,
    /// Call sites the burst table tracks; sites beyond it share one bucket. Default 1024.
    pub burst_sites: usize,
    /// Longest a burst's suppressed events wait for their summary event (one is also
    /// shipped once a burst has been quiet for a second, or at shutdown). Default 10 s.
    pub burst_summary_interval: Duration,
    /// Fractions kept per level, as `level=percent` items, e.g. `debug=10%`. Default: none
    /// (everything kept).
    pub sample_rates: Vec<String>,
    /// Decide sampling by the event's `trace_id` field when it has one, so that a trace's
    /// events are all kept or all dropped (in every process using the same rate). Default on.
    pub sample_by_trace: bool,
    /// Put one synthetic event in the stream per drop episode ("logship dropped N events
    /// (reason) between T1 and T2"). Default off.
    pub drop_notices: bool,
}

impl Default for ControlConfig {
    fn default() -> Self {
        ControlConfig {
            burst_limits: Vec::new(),
            burst_sites: 1024,
            burst_summary_interval: Duration::from_secs(10),
            sample_rates: Vec::new(),
            sample_by_trace: true,
            drop_notices: false,
        }
    }
}

/// One level's token bucket: `rate` events per second, `burst` at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limit {
    pub rate: u64,
    pub burst: u64,
}

/// A level's position in per-level tables.
#[inline]
pub(crate) fn level_index(level: Level) -> usize {
    level as usize
}

/// The level an item `level=...` starts with, as its index in [`Level::ALL`].
pub(crate) fn parse_level(key: &'static str, item: &str, fix: &str) -> Result<usize, ConfigError> {
    let name = item.split('=').next().unwrap_or("").trim();
    Level::ALL
        .iter()
        .position(|l| l.as_str().eq_ignore_ascii_case(name))
        .ok_or_else(|| {
            ConfigError::new(
                key,
                item,
                "must start with a level: trace, debug, info, warn or error",
            )
            .fix(fix.to_owned())
        })
}

const LIMITS_FIX: &str =
    "write burst_limits = [\"info=100/1000\", \"warn=100/1000\"] (events per second / burst)";
const RATES_FIX: &str = "write sample_rates = [\"debug=10%\", \"trace=1%\"]";

impl ControlConfig {
    /// The burst limit of each level (`None`: not limited).
    pub(crate) fn limits(&self) -> Result<[Option<Limit>; 5], ConfigError> {
        let mut out = [None; 5];
        for item in &self.burst_limits {
            let key = "burst_limits";
            let level = parse_level(key, item, LIMITS_FIX)?;
            let spec = item.split_once('=').map(|(_, s)| s.trim()).unwrap_or("");
            let (rate, burst) = match spec.split_once('/') {
                Some((r, b)) => (r.trim(), b.trim()),
                None => (spec, spec),
            };
            let number = |s: &str| {
                s.parse::<u64>()
                    .ok()
                    .filter(|n| (1..=10_000_000).contains(n))
            };
            match (number(rate), number(burst)) {
                (Some(rate), Some(burst)) => out[level] = Some(Limit { rate, burst }),
                _ => {
                    return Err(ConfigError::new(
                        key,
                        item,
                        "needs level=rate/burst, two whole numbers from 1 to 10000000",
                    )
                    .fix(LIMITS_FIX))
                }
            }
        }
        Ok(out)
    }

    /// The parts per million kept of each level (1,000,000: all).
    pub(crate) fn sample_ppm(&self) -> Result<[u32; 5], ConfigError> {
        let mut out = [1_000_000; 5];
        for item in &self.sample_rates {
            let key = "sample_rates";
            let level = parse_level(key, item, RATES_FIX)?;
            let spec = item.split_once('=').map(|(_, s)| s.trim()).unwrap_or("");
            let percent = spec
                .strip_suffix('%')
                .and_then(|p| p.trim().parse::<f64>().ok())
                .filter(|p| (0.0..=100.0).contains(p));
            match percent {
                Some(p) => out[level] = (p * 10_000.0).round() as u32,
                None => {
                    return Err(ConfigError::new(
                        key,
                        item,
                        "needs level=percent, a percentage from 0% to 100%",
                    )
                    .fix(RATES_FIX))
                }
            }
        }
        Ok(out)
    }

    /// Checks every item (called by `Config::validate`).
    pub(crate) fn validate(&self) -> Result<(), ConfigError> {
        self.limits()?;
        self.sample_ppm()?;
        Ok(())
    }
}
