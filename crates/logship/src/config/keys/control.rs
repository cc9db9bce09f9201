//! The rows of control at the source (issue #17 parts 1, 2, 5): burst limits per call
//! site, sampling per level, drop notices. See [`super`] for what a row holds.

use super::{Key, Kind, When};
use crate::config::key_parts::*;
use crate::config::value::list;

const LIMITS: Kind = Kind::List {
    item: "level=rate/burst",
    fix: "write burst_limits = [\"info=100/1000\", \"warn=100/1000\"]",
};
const RATES: Kind = Kind::List {
    item: "level=percent",
    fix: "write sample_rates = [\"debug=10%\"]",
};

/// Burst limits, sampling and drop notices.
pub(super) const CONTROL: &[Key] = &[
    Key {
        name: "burst_limits",
        kind: LIMITS,
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`burst_limit` / `--burst-limits info=100/1000,...`",
        default: "none (no limit)",
        doc: "token bucket per call site and level as `level=rate/burst` (events per second / at once); the first events of a burst ship, the rest are counted and summarised in one event; errors are limited only when listed",
        set: |c, v| c.control.burst_limits = v.list(),
        get: |c| list(&c.control.burst_limits),
    },
    Key {
        name: "burst_sites",
        kind: int(16, 1 << 20, " call sites"),
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`burst_sites` / `--burst-sites`",
        default: "1024",
        doc: "call sites the burst table tracks (memory is fixed); further sites share one bucket, still counted",
        set: |c, v| c.control.burst_sites = v.usize(),
        get: |c| Some(c.control.burst_sites.to_string()),
    },
    Key {
        name: "burst_summary_interval_ms",
        kind: int(100, 3_600_000, MS),
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`burst_summary_interval` / `--burst-summary-interval-ms`",
        default: "10000",
        doc: "a burst still going on gets its summary event at least this often (else once quiet for 1 s, or at shutdown)",
        set: |c, v| c.control.burst_summary_interval = ms(v.int()),
        get: |c| millis(c.control.burst_summary_interval),
    },
    Key {
        name: "sample_rates",
        kind: RATES,
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`sample_rate` / `--sample-rates debug=10%,...`",
        default: "none (keep all)",
        doc: "fraction of each level kept, as `level=percent`; the rest are counted as sampled out",
        set: |c, v| c.control.sample_rates = v.list(),
        get: |c| list(&c.control.sample_rates),
    },
    Key {
        name: "sample_by_trace",
        kind: Kind::Bool,
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`sample_by_trace` / `--no-sample-by-trace`",
        default: "true",
        doc: "decide sampling by an event's `trace_id`, so a trace's events are all kept or all dropped",
        set: |c, v| c.control.sample_by_trace = v.bool(),
        get: |c| Some(c.control.sample_by_trace.to_string()),
    },
    Key {
        name: "drop_notices",
        kind: Kind::Bool,
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`drop_notices` / `--drop-notices`",
        default: "false",
        doc: "one synthetic event (`logship.notice = \"dropped\"`) per drop episode: how many were dropped or suppressed, why, and when",
        set: |c, v| c.control.drop_notices = v.bool(),
        get: |c| Some(c.control.drop_notices.to_string()),
    },
];
