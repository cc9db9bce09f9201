//! The wall clock a record is stamped with, in nanoseconds since the Unix epoch.
//!
//! Why it exists: records take their timestamp when captured, and event ids seed from the
//! same clock. Must never: panic on a clock before 1970 (it reads 0).

use std::time::{SystemTime, UNIX_EPOCH};

/// Nanoseconds since the Unix epoch, now.
pub(crate) fn now_nanos() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}
