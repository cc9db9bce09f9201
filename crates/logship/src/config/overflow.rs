//! What a log call does when the queue is full: drop and count, or wait with a bound.
//!
//! Why it exists: one concept, set by the `block_timeout_ms` key and read by the queue; it
//! must never allow an unbounded wait.

use std::time::Duration;

/// What a log call does when the queue is full.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Overflow {
    /// Drop the new event and count it in `dropped_queue_full` (the default: the caller
    /// never waits).
    #[default]
    DropNewest,
    /// Wait up to this long for room, then drop and count. Opt-in: it can slow the caller.
    Block(Duration),
}
