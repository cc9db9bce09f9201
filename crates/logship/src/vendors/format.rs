//! The one shape every intake protocol has, and the enum that dispatches to it.
//!
//! Why it exists: an intake is a path, hard limits, a body shape written record by
//! record, and a meaning for each answer. [`Protocol`] names every one of those decisions
//! and has no default methods, so a new intake cannot silently inherit another's
//! behaviour: adding one is one file that implements the trait plus one arm of
//! [`Format`], and the compiler asks for every decision. Dispatch is static (a `match`
//! per call, no `dyn`): the batcher calls `push` once per event.
//!
//! Must never: do I/O, allocate per event beyond the body it appends to, or read anything
//! but the record and what was precomputed at construction.

use super::classify::{ItemResults, Outcome};
use super::{datadog, dynatrace, elasticsearch, generic, loki, newrelic, otlp, splunk, Limits};
use crate::capture::record::Record;

/// What one intake decides about its requests and answers.
pub(crate) trait Protocol {
    /// The standard path, appended to an `endpoint` given without one; `None` when the
    /// endpoint is used exactly as given (generic intakes).
    fn path(&self) -> Option<&'static str>;
    /// The intake's own hard limits (the configuration may only tighten them).
    fn limits(&self) -> Limits;
    /// The body's media type.
    fn content_type(&self) -> &'static str;
    /// Writes what comes before the first event.
    fn open(&self, body: &mut Vec<u8>);
    /// Appends one event; `prev` is the previous event of the body (`None` for the first).
    fn push(&self, body: &mut Vec<u8>, record: &Record, prev: Option<&Record>);
    /// Bytes [`Protocol::close`] will add, so the byte trigger can be checked first.
    fn close_len(&self) -> usize;
    /// Writes what comes after the last event; `records` are the events pushed, in order.
    fn close(&self, body: &mut Vec<u8>, records: &[Record]);
    /// What an answer means for the batch that was sent (`body` as received).
    fn classify(&self, status: u16, body: &[u8]) -> Outcome;
    /// For an [`Outcome::Items`] answer, which events failed and how; `None` when the
    /// answer cannot be read as one result per event sent (or the intake has no such
    /// answer).
    fn items(&self, body: &str, sent: usize) -> Option<ItemResults>;
    /// Most answer bytes worth reading.
    fn max_response_bytes(&self) -> u64;
    /// The record cut to the intake's own line limit, or `None` when it fits.
    fn fit_line(&self, record: &Record) -> Option<Record>;
}

/// The request format of one configured intake: one arm per protocol.
#[derive(Debug)]
pub(crate) enum Format {
    Ndjson(generic::Ndjson),
    JsonArray(generic::JsonArray),
    Datadog(datadog::Encoder),
    Splunk(splunk::Encoder),
    NewRelic(newrelic::Encoder),
    Dynatrace(dynatrace::Encoder),
    Loki(loki::Encoder),
    Elasticsearch(elasticsearch::Encoder),
    Otlp(otlp::Encoder),
}

/// Calls `$call` on the protocol inside `$format`, whichever it is.
macro_rules! each {
    ($format:expr, $p:ident => $call:expr) => {
        match $format {
            Format::Ndjson($p) => $call,
            Format::JsonArray($p) => $call,
            Format::Datadog($p) => $call,
            Format::Splunk($p) => $call,
            Format::NewRelic($p) => $call,
            Format::Dynatrace($p) => $call,
            Format::Loki($p) => $call,
            Format::Elasticsearch($p) => $call,
            Format::Otlp($p) => $call,
        }
    };
}

impl Protocol for Format {
    fn path(&self) -> Option<&'static str> {
        each!(self, p => Protocol::path(p))
    }
    fn limits(&self) -> Limits {
        each!(self, p => Protocol::limits(p))
    }
    fn content_type(&self) -> &'static str {
        each!(self, p => Protocol::content_type(p))
    }
    fn open(&self, body: &mut Vec<u8>) {
        each!(self, p => Protocol::open(p, body))
    }
    fn push(&self, body: &mut Vec<u8>, record: &Record, prev: Option<&Record>) {
        each!(self, p => Protocol::push(p, body, record, prev))
    }
    fn close_len(&self) -> usize {
        each!(self, p => Protocol::close_len(p))
    }
    fn close(&self, body: &mut Vec<u8>, records: &[Record]) {
        each!(self, p => Protocol::close(p, body, records))
    }
    fn classify(&self, status: u16, body: &[u8]) -> Outcome {
        each!(self, p => Protocol::classify(p, status, body))
    }
    fn items(&self, body: &str, sent: usize) -> Option<ItemResults> {
        each!(self, p => Protocol::items(p, body, sent))
    }
    fn max_response_bytes(&self) -> u64 {
        each!(self, p => Protocol::max_response_bytes(p))
    }
    fn fit_line(&self, record: &Record) -> Option<Record> {
        each!(self, p => Protocol::fit_line(p, record))
    }
}
