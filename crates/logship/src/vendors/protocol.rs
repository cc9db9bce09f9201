//! The one shape every intake protocol has: what it wants on the wire, and what its
//! answers mean.
//!
//! Why it exists: an intake is a URL, an auth header, a body shape written record by
//! record, hard limits, and a meaning for each answer. [`Protocol`] names each of those
//! decisions and gives each a default that fits a plain HTTP intake of newline-delimited
//! JSON (any path as given, no limits of its own, HTTP's own meaning of each status), so
//! that a new NDJSON-like vendor is about one file: its path, its auth header, maybe its
//! own `push`. The enum that dispatches to every vendor is the registry (`super`), kept
//! apart from this trait so that a vendor's file never imports the file that imports it.
//!
//! Must never: do I/O, allocate per event beyond the body it appends to, or read anything
//! but the record and what was precomputed at construction.

use std::time::Duration;

use super::answer::{self, ItemResults, Outcome, Rule};
use super::limits::Limits;
use crate::capture::record::Record;
use crate::config::Config;
use crate::error::ConfigError;
use crate::support::secret::Secret;

/// Media type of a newline-delimited JSON body.
pub(crate) const NDJSON: &str = "application/x-ndjson";
/// Media type of a JSON body (one array or object, or concatenated objects).
pub(crate) const JSON: &str = "application/json";

/// Most response-body bytes kept for error reports (intakes that answer per event ask
/// for more through [`Protocol::max_response_bytes`]).
pub(crate) const MAX_ERROR_BODY: u64 = 4096;

/// How the events of one body are framed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Framing {
    /// One after the other, nothing around them (NDJSON lines, concatenated objects).
    Lines,
    /// The elements of one JSON array: `[` before the first, `]` after the last (each
    /// event writes the comma before it).
    Array,
}

/// Where and how an intake confirms, after it accepted a request, that its events are
/// stored (an acknowledgement): the generic waiting, asking and resending is
/// `deliver::acks`; what the queries and answers look like is the vendor's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AckEndpoint {
    /// Where acknowledgement queries are POSTed (may hold secrets in its query).
    pub url: String,
    /// How long an accepted part waits for its acknowledgement before it is sent again.
    pub timeout: Duration,
    /// Most ids one query asks about; more are asked in several.
    pub max_ids: usize,
    /// Most answer bytes read.
    pub max_answer: u64,
}

/// What one intake decides about its requests and answers. Every method but `push` has a
/// default: that of a plain NDJSON intake over HTTP.
pub(crate) trait Protocol {
    // The request.

    /// The standard path, appended to an `endpoint` given without one; `None` when the
    /// endpoint is used exactly as given.
    fn path(&self) -> Option<&'static str> {
        None
    }
    /// The URL to use when no `endpoint` is configured (a hosted intake's site or
    /// region); `None` when an endpoint is required.
    fn default_url(&self, _config: &Config) -> Option<String> {
        None
    }
    /// The final URL, from the endpoint (or the default URL): query parameters the
    /// intake's answers need, for example.
    fn finish_url(&self, url: String) -> String {
        url
    }
    /// The headers the intake wants besides the configured ones (its authorization,
    /// mostly), from the configuration and the resolved API key (empty when none).
    fn headers(&self, _config: &Config, _key: &Secret) -> Vec<(String, Secret)> {
        Vec::new()
    }
    /// The intake's own hard limits (the configuration may only tighten them).
    fn limits(&self) -> Limits {
        Limits::NONE
    }
    /// How the events of a body are framed; the defaults of the body's media type,
    /// opening and closing follow from it.
    fn framing(&self) -> Framing {
        Framing::Lines
    }
    /// The body's media type.
    fn content_type(&self) -> &'static str {
        match self.framing() {
            Framing::Lines => NDJSON,
            Framing::Array => JSON,
        }
    }
    /// Writes what comes before the first event.
    fn open(&self, body: &mut Vec<u8>) {
        if self.framing() == Framing::Array {
            body.push(b'[');
        }
    }
    /// Appends one event; `prev` is the previous event of the body (`None` for the first).
    fn push(&self, body: &mut Vec<u8>, record: &Record, prev: Option<&Record>);
    /// Bytes [`Protocol::close`] will add, so the byte trigger can be checked first.
    fn close_len(&self) -> usize {
        match self.framing() {
            Framing::Lines => 0,
            Framing::Array => 1,
        }
    }
    /// Writes what comes after the last event; `records` are the events pushed, in order.
    fn close(&self, body: &mut Vec<u8>, _records: &[Record]) {
        if self.framing() == Framing::Array {
            body.push(b']');
        }
    }
    /// The record cut to the intake's own line limit, or `None` when it fits.
    fn fit_line(&self, _record: &Record) -> Option<Record> {
        None
    }

    // The answer.

    /// The intake's table of what each status means (its `RESPONSES`, citing
    /// docs/wire-formats.md); `None`: HTTP's own meaning ([`answer::http_default`]).
    fn responses(&self) -> Option<&'static [Rule]> {
        None
    }
    /// What an answer means for the batch that was sent (`body` as received): by the
    /// table, by default.
    fn classify(&self, status: u16, _body: &[u8]) -> Outcome {
        match self.responses() {
            Some(rules) => answer::by_table(rules, status),
            None => answer::http_default(status),
        }
    }
    /// For an [`Outcome::Items`] answer, which events failed and how; `None` when the
    /// answer cannot be read as one result per event sent (or the intake has no such
    /// answer).
    fn items(&self, _body: &str, _sent: usize) -> Option<ItemResults> {
        None
    }
    /// Most answer bytes worth reading.
    fn max_response_bytes(&self) -> u64 {
        MAX_ERROR_BODY
    }
    /// An answer in a binary format as text for the report; `None` when the body is best
    /// shown as received.
    fn error_text(&self, _status: u16, _body: &[u8]) -> Option<String> {
        None
    }

    // Acknowledgement after acceptance (only intakes that confirm storage later).

    /// Where acknowledgements are asked for, when the configuration turned them on, for
    /// requests POSTed to `url`; an error when they cannot be asked for there.
    fn ack_endpoint(&self, _url: &str) -> Result<Option<AckEndpoint>, ConfigError> {
        Ok(None)
    }
    /// The id a success answer gives the request, to ask about later; `None` when it
    /// carries none.
    fn ack_id(&self, _answer: &str) -> Option<u64> {
        None
    }
    /// The body of a query about `ids`.
    fn ack_query(&self, _ids: &[u64]) -> Vec<u8> {
        Vec::new()
    }
    /// The ids an answer to a query confirms; `None` for an answer not of the documented
    /// shape (nothing is confirmed).
    fn acked(&self, _answer: &[u8]) -> Option<Vec<u64>> {
        None
    }
    /// What to tell the user, once, when acknowledgements are on but a success answer
    /// carries no id to ask about (such an answer then counts as delivered).
    fn missing_ack_id(&self) -> &'static str {
        "warning: acknowledgements are on but the intake's success answer carries no id to ask about; such an answer counts as delivered"
    }
}
