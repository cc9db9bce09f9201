//! The builder's setters of control at the source (issue #17 parts 1, 2, 5): burst
//! limits, sampling and drop notices. In their own file so that `builder.rs` stays the
//! core pipeline's; each one sets one field of `Config::control` (rows in
//! `config/keys/control.rs`), checked at `build()`.

use std::time::Duration;

use super::Builder;
use crate::record::Level;

impl Builder {
    /// Limits each call site at `level` to `rate` events per second, `burst` at once (a
    /// token bucket per call site and level; key `burst_limits`). The first events of a
    /// burst ship; the rest are counted in `Stats::burst_suppressed` and summarised in one
    /// event (`logship.notice = "burst_summary"`) when the burst ends. Errors are limited
    /// only when asked for with `Level::Error`.
    pub fn burst_limit(mut self, level: Level, rate: u64, burst: u64) -> Self {
        let items = &mut self.config.control.burst_limits;
        set_level_item(items, level, format_args!("{rate}/{burst}"));
        self
    }

    /// Call sites the burst table tracks (default 1024; key `burst_sites`); further sites
    /// share one bucket, still counted.
    pub fn burst_sites(mut self, sites: usize) -> Self {
        self.config.control.burst_sites = sites;
        self
    }

    /// Longest a burst going on waits for its summary event (default 10 s; key
    /// `burst_summary_interval_ms`).
    pub fn burst_summary_interval(mut self, interval: Duration) -> Self {
        self.config.control.burst_summary_interval = interval;
        self
    }

    /// Keeps `percent` % of the events of `level` (key `sample_rates`); the others are
    /// counted in `Stats::sampled_out`.
    pub fn sample_rate(mut self, level: Level, percent: f64) -> Self {
        let items = &mut self.config.control.sample_rates;
        set_level_item(items, level, format_args!("{percent}%"));
        self
    }

    /// Decides sampling by each event's `trace_id` field when it has one, so a trace's
    /// events are all kept or all dropped (default on; key `sample_by_trace`).
    pub fn sample_by_trace(mut self, on: bool) -> Self {
        self.config.control.sample_by_trace = on;
        self
    }

    /// Puts one synthetic event (`logship.notice = "dropped"`) in the stream per drop
    /// episode (default off; key `drop_notices`).
    pub fn drop_notices(mut self, on: bool) -> Self {
        self.config.control.drop_notices = on;
        self
    }
}

/// Replaces the `level=...` item of a per-level list with `level=value`.
fn set_level_item(items: &mut Vec<String>, level: Level, value: std::fmt::Arguments<'_>) {
    let prefix = format!("{}=", level.as_str().to_ascii_lowercase());
    items.retain(|i| !i.to_ascii_lowercase().starts_with(&prefix));
    items.push(format!("{prefix}{value}"));
}
