//! What decides whether and how an event goes on, before it is batched: burst limits and
//! sampling with their notices ([`control`]), volume budgets ([`budget`]), and the
//! redaction of secrets and personal data ([`redaction`]).
//!
//! Why it exists: each of these is the user's own policy, not a failure: an event held
//! back here is counted (`Stats::suppressed`, `Stats::over_budget`), never lost silently.
//! Burst limits, sampling and budgets decide on the caller's thread, before the queue, in
//! nanoseconds and without allocating; redaction rewrites an event on the batcher's thread
//! (and the replayer's), before it is encoded, never on the caller's.
//!
//! Must never: perform I/O on the caller's thread (a budget's state file is written by the
//! observer thread), or drop an event without counting it.

pub(crate) mod budget;
pub(crate) mod control;
pub(crate) mod redaction;
