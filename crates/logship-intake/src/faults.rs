//! Fault injection: make the intake misbehave on purpose.
//!
//! logship's retry, back-off and connection-recovery logic can only be tested
//! against an intake that fails in controlled ways. A [`Fault`] replaces the
//! normal answer of the next N intake requests (see
//! [`Intake::fail_next`](crate::Intake::fail_next)).

use std::collections::VecDeque;

use crate::http::Response;

/// A deliberate failure served instead of the normal response.
///
/// The request is still fully read, validated (protocol violations are still
/// recorded) and counted, but its events are **not** recorded as accepted.
#[derive(Clone, Debug)]
pub enum Fault {
    /// Answer with this status, extra headers (e.g. `Retry-After`) and body.
    Status {
        /// HTTP status code to answer with.
        status: u16,
        /// Extra response headers; framing headers are ignored.
        headers: Vec<(String, String)>,
        /// Response body (sent as is).
        body: String,
    },
    /// Read the request, then close the socket without answering, like an
    /// intake or proxy that dies mid-request.
    CloseConnection,
}

impl Fault {
    /// A `Status` fault with a `Retry-After: secs` header and a JSON error
    /// body: the shape of a typical rate-limit (429) or overload (503) answer.
    pub fn retry_after(status: u16, secs: u64) -> Fault {
        Fault::Status {
            status,
            headers: vec![("Retry-After".into(), secs.to_string())],
            body: r#"{"error":"injected fault"}"#.into(),
        }
    }

    /// A `Status` fault answering `body` as `application/json`. Any status
    /// works, 2xx included: e.g. Dynatrace's partial success is
    /// `Fault::json(200, r#"{"details":{"code":200,"message":"..."}}"#)`.
    /// As with every fault, the request's events are not recorded.
    pub fn json(status: u16, body: impl Into<String>) -> Fault {
        Fault::Status {
            status,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: body.into(),
        }
    }

    /// The response to write, or `None` when the connection must be closed.
    pub(crate) fn response(&self) -> Option<Response> {
        match self {
            Fault::Status {
                status,
                headers,
                body,
            } => Some(Response {
                status: *status,
                headers: headers.clone(),
                body: body.as_bytes().to_vec(),
            }),
            Fault::CloseConnection => None,
        }
    }

    /// The status recorded for a request that got this fault (`0` = no answer).
    pub(crate) fn status(&self) -> u16 {
        match self {
            Fault::Status { status, .. } => *status,
            Fault::CloseConnection => 0,
        }
    }
}

/// Pending faults in the order they were scheduled, each with a remaining count.
#[derive(Debug, Default)]
pub(crate) struct FaultQueue {
    pending: VecDeque<(usize, Fault)>,
}

impl FaultQueue {
    /// Schedules `fault` for the next `n` requests (after already queued ones).
    pub fn push(&mut self, n: usize, fault: Fault) {
        if n > 0 {
            self.pending.push_back((n, fault));
        }
    }

    /// Takes the fault for the request arriving now, if any.
    pub fn take(&mut self) -> Option<Fault> {
        let (remaining, fault) = self.pending.front_mut()?;
        *remaining -= 1;
        let fault = fault.clone();
        if *remaining == 0 {
            self.pending.pop_front();
        }
        Some(fault)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_serves_faults_in_order_and_counts_down() {
        let mut q = FaultQueue::default();
        q.push(2, Fault::retry_after(503, 1));
        q.push(0, Fault::CloseConnection);
        q.push(1, Fault::CloseConnection);
        assert_eq!(q.take().map(|f| f.status()), Some(503));
        assert_eq!(q.take().map(|f| f.status()), Some(503));
        assert!(matches!(q.take(), Some(Fault::CloseConnection)));
        assert!(q.take().is_none());
    }
}
