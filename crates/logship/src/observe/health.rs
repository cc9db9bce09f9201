//! How delivery is going, in one word: the [`Health`] of `stats()`.
//!
//! Why it exists: an operator (or a readiness probe) needs one state, not forty counters,
//! to tell a working pipeline from a failing one; the senders set it from each request's
//! outcome, the stall alarm and the volume budget override it. Must never: hide a failure
//! behind an older success (it is the latest outcome, not a best-of).

/// How delivery is going, from the most recent request's outcome.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Health {
    /// Nothing sent yet, or the last request was delivered.
    #[default]
    Healthy,
    /// The last request failed with a transient error: retrying (or spilling).
    Degraded,
    /// The last request was rejected for good (bad key, wrong endpoint): fix the config.
    Failing,
    /// Requests go well, but 80 % or more of a volume budget is spent in its current
    /// window (past 100 % events are shed, see [`crate::Stats::over_budget`]).
    BudgetWarning,
    /// Nothing has been delivered for `stall_after_ms` while events kept arriving (an
    /// intake that hangs, a network that black-holes). Clears when delivery resumes.
    Stalled,
}

impl Health {
    pub(crate) fn from_u8(v: u8) -> Health {
        match v {
            1 => Health::Degraded,
            2 => Health::Failing,
            _ => Health::Healthy,
        }
    }
}
