//! Options of control at the source (issue #17 parts 1, 2 and 5): burst limits per call
//! site, sampling per level, drop notices in the stream.
//!
//! Why it exists: the rows of `keys/control.rs` store raw text here (so that `config
//! check` shows back what was written); [`ControlConfig::limits`] and
//! [`ControlConfig::sample_ppm`] turn it into the numbers `crate::admit::control` uses, and
//! validation reports a bad item naming the key and the fix. Everything is off by default.

use std::time::Duration;

use super::key::{Flag::*, Kind};
use super::key_parts::*;
use super::options::options;
use super::value::list;
use crate::capture::record::Level;
use crate::error::ConfigError;

const LIMITS: Kind = Kind::List {
    item: "level=rate/burst",
    fix: "write burst_limits = [\"info=100/1000\", \"warn=100/1000\"]",
};
const RATES: Kind = Kind::List {
    item: "level=percent",
    fix: "write sample_rates = [\"debug=10%\"]",
};

options! {
    /// Burst limits, sampling and drop notices (keys `burst_limits`, `burst_sites`,
    /// `burst_summary_interval_ms`, `sample_rates`, `sample_by_trace`, `drop_notices`).
    #[derive(Clone, PartialEq, Eq)]
    #[non_exhaustive]
    pub struct ControlConfig {
        setters: control_setters,
        debug: generated,
        rows: [
            /// Token buckets per call site and level, as `level=rate/burst` items (events
            /// per second, and how many may pass at once), e.g. `warn=100/1000`. A level
            /// not listed is not limited: errors only when `error=...` is written. The
            /// setter limits each call site at `level` to `rate` events per second, `burst`
            /// at once; the first events of a burst ship, the rest are counted in
            /// `Stats::burst_suppressed` and summarised in one event
            /// (`logship.notice = "burst_summary"`) when the burst ends.
            burst_limits: Vec<String> = Vec::new() => {
                name: "burst_limits",
                kind: LIMITS,
                flag: Many("--burst-limits"),
                default: "none (no limit)",
                doc: "token bucket per call site and level as `level=rate/burst` (events per second / at once); the first events of a burst ship, the rest are counted and summarised in one event; errors are limited only when listed",
                set: |c, v| c.burst_limits = v.list(),
                get: |c| list(&c.burst_limits),
                setter: fn burst_limit(level: crate::Level, rate: u64, burst: u64)
                    |f| crate::config::control::set_level_item(f, level, format_args!("{rate}/{burst}")),
            },
            /// Call sites the burst table tracks (memory is fixed); further sites share one
            /// bucket, still counted.
            burst_sites: usize = 1024 => {
                name: "burst_sites",
                kind: int(16, 1 << 20, " call sites"),
                flag: Value("--burst-sites"),
                default: "1024",
                doc: "call sites the burst table tracks (memory is fixed); further sites share one bucket, still counted",
                set: |c, v| c.burst_sites = v.usize(),
                get: |c| Some(c.burst_sites.to_string()),
                setter: fn burst_sites(sites: usize) |f| *f = sites,
            },
            /// Longest a burst's suppressed events wait for their summary event (one is
            /// also shipped once a burst has been quiet for a second, or at shutdown).
            burst_summary_interval: Duration = Duration::from_secs(10) => {
                name: "burst_summary_interval_ms",
                kind: int(100, 3_600_000, MS),
                flag: Value("--burst-summary-interval-ms"),
                default: "10000",
                doc: "a burst still going on gets its summary event at least this often (else once quiet for 1 s, or at shutdown)",
                set: |c, v| c.burst_summary_interval = ms(v.int()),
                get: |c| millis(c.burst_summary_interval),
                setter: fn burst_summary_interval(interval: std::time::Duration) |f| *f = interval,
            },
            /// Fractions kept per level, as `level=percent` items, e.g. `debug=10%`; the
            /// others are counted in `Stats::sampled_out`. The setter keeps `percent` % of
            /// the events of `level`.
            sample_rates: Vec<String> = Vec::new() => {
                name: "sample_rates",
                kind: RATES,
                flag: Many("--sample-rates"),
                default: "none (keep all)",
                doc: "fraction of each level kept, as `level=percent`; the rest are counted as sampled out",
                set: |c, v| c.sample_rates = v.list(),
                get: |c| list(&c.sample_rates),
                setter: fn sample_rate(level: crate::Level, percent: f64)
                    |f| crate::config::control::set_level_item(f, level, format_args!("{percent}%")),
            },
            /// Decide sampling by the event's `trace_id` field when it has one, so that a
            /// trace's events are all kept or all dropped (in every process using the same
            /// rate).
            sample_by_trace: bool = true => {
                name: "sample_by_trace",
                kind: Kind::Bool,
                flag: Off("--no-sample-by-trace"),
                default: "true",
                doc: "decide sampling by an event's `trace_id`, so a trace's events are all kept or all dropped",
                set: |c, v| c.sample_by_trace = v.bool(),
                get: |c| Some(c.sample_by_trace.to_string()),
                setter: fn sample_by_trace(on: bool) |f| *f = on,
            },
            /// Put one synthetic event in the stream per drop episode ("logship dropped N
            /// events (reason) between T1 and T2").
            drop_notices: bool = false => {
                name: "drop_notices",
                kind: Kind::Bool,
                flag: On("--drop-notices"),
                default: "false",
                doc: "one synthetic event (`logship.notice = \"dropped\"`) per drop episode: how many were dropped or suppressed, why, and when",
                set: |c, v| c.drop_notices = v.bool(),
                get: |c| Some(c.drop_notices.to_string()),
                setter: fn drop_notices(on: bool) |f| *f = on,
            },
        ]
    }
}

/// Replaces the `level=...` item of a per-level list with `level=value` (the setters of
/// per-level keys: one item per level).
pub(crate) fn set_level_item(
    items: &mut Vec<String>,
    level: Level,
    value: std::fmt::Arguments<'_>,
) {
    let prefix = format!("{}=", level.as_str().to_ascii_lowercase());
    items.retain(|i| !i.to_ascii_lowercase().starts_with(&prefix));
    items.push(format!("{prefix}{value}"));
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
