//! How soon a listener sees that it must stop.
//!
//! Why it exists: every listener (HTTP, TCP, UDP) blocks in `accept` or `read` with a
//! timeout so that it looks at its stop flag between waits; one constant says how often,
//! so that every input stops as fast as the others and none busy-loops.

use std::time::Duration;

/// Longest a listener's blocked read or accept waits before it looks at its stop flag
/// again: a stop is seen this soon, for one wake-up per open connection this often while
/// it is quiet.
pub(crate) const STOP_TICK: Duration = Duration::from_millis(100);
