//! The rows of watching the shipper itself (issue 17 part 6): the stall alarm and the
//! `metrics` export. See [`super`] for what a row holds.

use super::{Key, When};
use crate::config::key_parts::*;

/// The observe keys (`config.observe`).
pub(super) const OBSERVE: &[Key] = &[
    Key {
        name: "stall_after_ms",
        kind: int(100, 86_400_000, MS),
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`stall_after` / `--stall-after-ms`",
        default: "off",
        doc: "health `stalled` (and `on_stall` fires) when nothing is delivered this long while events arrive",
        set: |c, v| c.observe.stall_after = Some(ms(v.int())),
        get: |c| c.observe.stall_after.and_then(millis),
    },
    Key {
        name: "metrics_interval_ms",
        kind: int(100, 3_600_000, MS),
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`metrics_interval` / `--metrics-interval-ms`",
        default: "1000",
        doc: "how often counters reach the `metrics` recorder (the `metrics` feature)",
        set: |c, v| c.observe.metrics_interval = ms(v.int()),
        get: |c| millis(c.observe.metrics_interval),
    },
];
