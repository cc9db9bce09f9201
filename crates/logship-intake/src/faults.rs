//! Fault injection: make the intake misbehave on purpose.
//!
//! logship's retry, back-off and connection-recovery logic can only be tested
//! against an intake that fails in controlled ways. A [`Fault`] replaces the
//! normal answer of the next N intake requests (see
//! [`Intake::fail_next`](crate::Intake::fail_next)). An [`ItemFault`] fails
//! single items inside an otherwise successful bulk answer (Elasticsearch
//! `_bulk`, see [`Intake::fail_items`](crate::Intake::fail_items)).

use std::collections::VecDeque;

use crate::wire::WireFault;
use logship_http::Response;

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
    /// An answer that breaks HTTP itself (never answering, dripping, garbage, resets,
    /// lying framing, redirects, echoed headers): see [`WireFault`].
    Wire(WireFault),
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
            Fault::CloseConnection | Fault::Wire(_) => None,
        }
    }

    /// The status recorded for a request that got this fault (`0` = no answer).
    pub(crate) fn status(&self) -> u16 {
        match self {
            Fault::Status { status, .. } => *status,
            Fault::CloseConnection => 0,
            Fault::Wire(w) => w.status(),
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

    /// Drops every pending fault (the intake answers normally from now on).
    pub fn clear(&mut self) {
        self.pending.clear();
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

/// A failure of single items in an Elasticsearch `_bulk` request: the request
/// still gets its `200`, with `"errors":true` and this status on the matched
/// items, which are not recorded as accepted. Faults apply in the order they
/// were added; each fails `count` items, then is used up. Requests answered
/// with a [`Fault`] do not use item faults up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ItemFault {
    /// The item status: 429 (`es_rejected_execution_exception`) and 5xx are
    /// transient, 400 (`mapper_parsing_exception`), 409 and others permanent.
    pub status: u16,
    /// Fail only items whose source line contains this text; `None`: any item.
    pub marker: Option<String>,
    /// How many items to fail.
    pub count: usize,
}

impl ItemFault {
    /// Fails the next `count` items, whatever they hold.
    pub fn next(count: usize, status: u16) -> ItemFault {
        ItemFault {
            status,
            marker: None,
            count,
        }
    }

    /// Fails the next `count` items whose source line contains `marker`
    /// (`usize::MAX`: every such item from now on).
    pub fn containing(marker: impl Into<String>, count: usize, status: u16) -> ItemFault {
        ItemFault {
            status,
            marker: Some(marker.into()),
            count,
        }
    }

    /// The error `type` and `reason` Elasticsearch gives for this status
    /// (docs/wire-formats.md 7.1).
    pub(crate) fn error(&self) -> (&'static str, &'static str) {
        match self.status {
            429 => (
                "es_rejected_execution_exception",
                "rejected execution of primary operation [injected]: write queue full",
            ),
            409 => (
                "version_conflict_engine_exception",
                "[injected]: version conflict, document already exists",
            ),
            404 => ("index_not_found_exception", "no such index [injected]"),
            500..=599 => (
                "unavailable_shards_exception",
                "[injected] primary shard is not active",
            ),
            _ => (
                "mapper_parsing_exception",
                "failed to parse field [injected] of type [long]",
            ),
        }
    }
}

/// Pending item faults, first added first.
#[derive(Debug, Default)]
pub(crate) struct ItemFaultQueue {
    pending: Vec<ItemFault>,
}

impl ItemFaultQueue {
    /// Adds a fault after those already pending.
    pub fn push(&mut self, fault: ItemFault) {
        if fault.count > 0 {
            self.pending.push(fault);
        }
    }

    /// The fault failing an item whose source line is `source`, if one
    /// matches (its count is used up by one).
    pub fn take(&mut self, source: &[u8]) -> Option<ItemFault> {
        let i = self.pending.iter().position(|f| {
            f.marker
                .as_deref()
                .is_none_or(|m| contains(source, m.as_bytes()))
        })?;
        let fault = self.pending[i].clone();
        self.pending[i].count -= 1;
        if self.pending[i].count == 0 {
            self.pending.remove(i);
        }
        Some(fault)
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    needle.is_empty() || haystack.windows(needle.len()).any(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn item_faults_match_markers_and_count_down() {
        let mut q = ItemFaultQueue::default();
        q.push(ItemFault::containing("boom", 2, 429));
        q.push(ItemFault::next(1, 400));
        assert_eq!(q.take(b"{\"m\":\"boom\"}").map(|f| f.status), Some(429));
        assert_eq!(q.take(b"{\"m\":\"calm\"}").map(|f| f.status), Some(400));
        assert!(q.take(b"{\"m\":\"calm\"}").is_none());
        assert_eq!(q.take(b"boom").map(|f| f.status), Some(429));
        assert!(q.take(b"boom").is_none());
        assert_eq!(
            ItemFault::next(1, 503).error().0,
            "unavailable_shards_exception"
        );
    }

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
