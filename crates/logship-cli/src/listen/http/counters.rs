//! What the HTTP inputs counted, for the summary line and the exit code.
//!
//! Why it exists: every connection thread counts into one set of counters, and the
//! service's summary reads them; they live apart from the server so that neither imports
//! the other's file for them. Must never: count a 503 as lost (the client sends again).

use std::sync::atomic::{AtomicU64, Ordering};

/// What the HTTP inputs counted (summary line, exit code).
#[derive(Default, Debug)]
pub(crate) struct Counters {
    /// Requests answered.
    pub requests: AtomicU64,
    /// Events decoded from requests.
    pub received: AtomicU64,
    /// Events admitted to the queue.
    pub accepted: AtomicU64,
    /// Events of requests answered 503 (queue full or shutting down) that were not
    /// admitted: the client sends them again, so they are not lost.
    pub refused: AtomicU64,
    /// Requests answered 400 (malformed body).
    pub bad_bodies: AtomicU64,
    /// Requests answered 413: a body over the limit, or of more events than the queue
    /// holds.
    pub too_large: AtomicU64,
    /// Requests answered 401.
    pub unauthorized: AtomicU64,
    /// Connections closed for a slow head or body (408).
    pub timeouts: AtomicU64,
    /// Connections refused at the connection limit (503): every open one was busy with a
    /// request.
    pub connections_refused: AtomicU64,
    /// Connections waiting for a request that were closed to make room for a new client
    /// at the connection limit.
    pub connections_reclaimed: AtomicU64,
    /// Connections that arrived while the listener was stopping, answered 503 (their
    /// clients send again elsewhere or later; nothing of theirs was taken).
    pub refused_at_stop: AtomicU64,
    /// Requests whose HTTP framing was malformed or ambiguous (400, connection closed).
    pub bad_requests: AtomicU64,
    /// `--listen-ack delivered` requests answered 503 because delivery took too long.
    pub ack_timeouts: AtomicU64,
}

impl Counters {
    pub(super) fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::AcqRel);
    }

    /// Events received over HTTP.
    pub(crate) fn received(&self) -> u64 {
        self.received.load(Ordering::Acquire)
    }

    /// "; N HTTP requests (..)" for the summary line, empty when none arrived.
    pub(crate) fn describe(&self) -> String {
        let n = |c: &AtomicU64| c.load(Ordering::Acquire);
        if n(&self.requests) == 0
            && n(&self.connections_refused) == 0
            && n(&self.timeouts) == 0
            && n(&self.bad_requests) == 0
            && n(&self.connections_reclaimed) == 0
            && n(&self.refused_at_stop) == 0
        {
            return String::new();
        }
        let mut s = format!(
            "; {} HTTP requests ({} events received, {} queued",
            n(&self.requests),
            n(&self.received),
            n(&self.accepted)
        );
        for (count, what) in [
            (n(&self.refused), "refused with 503 and Retry-After (queue full: the clients send them again, not lost)"),
            (n(&self.bad_bodies), "requests malformed (400)"),
            (n(&self.bad_requests), "requests of malformed or ambiguous HTTP framing (400, connection closed)"),
            (n(&self.too_large), "requests too large: over the body limit, or of more events or bytes than the queue holds (413)"),
            (n(&self.unauthorized), "requests without the right token (401)"),
            (n(&self.timeouts), "connections too slow, closed (408)"),
            (n(&self.connections_refused), "connections over the limit (503)"),
            (n(&self.refused_at_stop), "connections refused while stopping (503)"),
            (n(&self.connections_reclaimed), "connections waiting for a request closed to make room for new clients"),
            (n(&self.ack_timeouts), "requests not delivered within --listen-ack-timeout-ms (503)"),
        ] {
            if count > 0 {
                s.push_str(&format!(", {count} {what}"));
            }
        }
        s.push(')');
        s
    }
}
