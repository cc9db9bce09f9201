//! What can be seen of a running pipeline: the counters and their [`Stats`](stats::Stats)
//! snapshot (generated from one list), the [`Health`](health::Health), the reporter of
//! problems (stderr, the error callback), the scrubber that makes network text safe to
//! print, the stall alarm, the `metrics` export, and the observer thread that ticks the
//! volume budget's windows, the stall alarm and the export.
//!
//! Why it exists: a shipper that drops silently is worse than none; every outcome is
//! counted here and every problem reported, without ever going through the logging
//! pipeline itself (which could feed on it). Must never: log through `log` or
//! `tracing`, show a secret, or slow a log call (counters are relaxed atomics).

pub(crate) mod echoes;
pub(crate) mod health;
#[cfg(feature = "metrics")]
pub mod metrics;
pub(crate) mod observer;
pub(crate) mod outage;
pub(crate) mod reporter;
pub(crate) mod scrub;
pub mod stall;
pub(crate) mod stats;
pub(crate) mod striped;
