//! `--listen-ack delivered`: a request is answered only once its events are delivered or
//! durably spilled.
//!
//! Why it exists: a client that wants end-to-end acknowledgement (it deletes its own
//! copy once answered) must not be told 2xx for events still in logship's memory.
//! Must never: answer 2xx when the flush timed out, or when events were given up on
//! (lost) while this request waited: then 503 with `Retry-After`, and the client sends
//! again (at-least-once).

use std::time::Duration;

use logship::Logship;

/// Events given up on so far (failed, abandoned, dropped by the spill's cap).
fn given_up(logship: &Logship) -> u64 {
    let s = logship.stats();
    s.events_failed + s.events_abandoned + s.spill_dropped
}

/// A mark taken before a request's events are pushed.
pub(crate) struct Mark(u64);

impl Mark {
    /// Takes the mark.
    pub(crate) fn take(logship: &Logship) -> Mark {
        Mark(given_up(logship))
    }

    /// Waits until everything pushed so far is settled, at most `timeout`; true when it
    /// is and nothing was given up on since the mark (the request's events are delivered
    /// or spilled).
    pub(crate) fn settled(self, logship: &Logship, timeout: Duration) -> bool {
        logship.flush(timeout).is_ok() && given_up(logship) == self.0
    }
}
