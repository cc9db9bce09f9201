//! The codec of one configured intake: its URL, headers and effective limits, and the
//! vendor's [`Protocol`] behind them. The one type the batcher and the senders talk to.
//!
//! Why it exists: what the configuration decided (the endpoint or the vendor's default
//! URL, the auth headers, limits tightened by the batch settings, acknowledgements) is
//! decided once, at `build()`, here; what the vendor decides per event and per answer is
//! asked of its encoder through the registry's dispatch ([`Format`]). It also follows
//! how well bodies compress, so that batches for an intake that limits the compressed
//! size are cut to fit.
//!
//! Must never: perform I/O, or print a header value (they are [`Secret`]s).

use std::sync::atomic::{AtomicU32, Ordering};

use super::answer::{ItemResults, Outcome};
use super::context::Context;
use super::limits::Limits;
use super::protocol::{AckEndpoint, Protocol};
use super::Format;
use crate::capture::record::Record;
use crate::config::Config;
use crate::error::ConfigError;
use crate::support::secret::Secret;

/// Room kept in a request body beside one event that fills it (the request's framing and
/// shared envelope: brackets, a resource and scope).
const REQUEST_ROOM: usize = 4096;

/// Share of the predicted raw size a batch may fill when the wire size is limited, so that
/// a batch that compresses a little worse than the last one still fits.
const WIRE_HEADROOM: f64 = 0.85;

/// The request format of one configured intake.
#[derive(Debug)]
pub(crate) struct Codec {
    format: Format,
    url: String,
    headers: Vec<(String, Secret)>,
    limits: Limits,
    /// The latest compression ratio (raw / wire, in hundredths) the senders saw; lets the
    /// batcher cut batches whose compressed body will fit an intake's wire limit.
    wire_ratio: AtomicU32,
    /// Where acknowledgements are asked for, when the intake confirms storage after it
    /// accepted a request and the configuration turned that on (see `deliver::acks`).
    ack: Option<AckEndpoint>,
}

/// `endpoint` with the vendor's standard path appended when it has none.
fn with_default_path(endpoint: &str, path: &str) -> String {
    let Ok(uri) = endpoint.parse::<ureq::http::Uri>() else {
        return endpoint.to_owned();
    };
    if uri.path() != "/" && !uri.path().is_empty() {
        return endpoint.to_owned();
    }
    let (Some(scheme), Some(authority)) = (uri.scheme_str(), uri.authority()) else {
        return endpoint.to_owned();
    };
    match uri.query() {
        Some(q) => format!("{scheme}://{authority}{path}?{q}"),
        None => format!("{scheme}://{authority}{path}"),
    }
}

impl Codec {
    /// Builds the codec for a validated configuration (whose API key is resolved).
    pub(crate) fn new(config: &Config) -> Result<Codec, ConfigError> {
        let format = Format::new(config, &Context::of(config))?;
        let key = config.api_key.clone().unwrap_or_default();
        let mut headers = config.headers.clone();
        headers.extend(format.headers(config, &key));
        let vendor_limits = format.limits();
        let url = match (&config.endpoint, format.path()) {
            (Some(e), Some(path)) if !e.is_empty() => with_default_path(e, path),
            (Some(e), _) if !e.is_empty() => e.clone(),
            _ => format.default_url(config).ok_or_else(|| {
                ConfigError::new("endpoint", "(none)", "an endpoint URL is required")
                    .fix(config.vendor.endpoint_example())
            })?,
        };
        let url = format.finish_url(url);
        let ack = format.ack_endpoint(&url)?;
        let max_wire_bytes = match (vendor_limits.max_wire_bytes, config.max_request_bytes) {
            (Some(v), Some(c)) => Some(v.min(c)),
            (v, _) => v,
        };
        Ok(Codec {
            format,
            url,
            headers,
            limits: Limits {
                max_records: vendor_limits.max_records.min(config.max_batch_records),
                max_body_bytes: vendor_limits.max_body_bytes.min(config.max_batch_bytes),
                // One encoded event must also fit in one request, envelope included.
                max_event_bytes: vendor_limits
                    .max_event_bytes
                    .min(config.max_event_bytes)
                    .min(vendor_limits.max_body_bytes.saturating_sub(REQUEST_ROOM)),
                max_wire_bytes,
            },
            wire_ratio: AtomicU32::new(100),
            ack,
        })
    }

    /// Where acknowledgements are asked for, when they are on (else `None`).
    pub(crate) fn ack(&self) -> Option<&AckEndpoint> {
        self.ack.as_ref()
    }

    /// The id a success answer gives the request, to ask about later (acknowledgements).
    pub(crate) fn ack_id(&self, answer: &str) -> Option<u64> {
        self.format.ack_id(answer)
    }

    /// The body of an acknowledgement query about `ids`.
    pub(crate) fn ack_query(&self, ids: &[u64]) -> Vec<u8> {
        self.format.ack_query(ids)
    }

    /// The ids an acknowledgement answer confirms; `None` for an answer not of the
    /// documented shape.
    pub(crate) fn acked(&self, answer: &[u8]) -> Option<Vec<u64>> {
        self.format.acked(answer)
    }

    /// What to tell the user once when acknowledgements are on but a success answer
    /// carries no id.
    pub(crate) fn missing_ack_id(&self) -> &'static str {
        self.format.missing_ack_id()
    }

    /// The URL requests are POSTed to (may contain secrets in its query: never print it raw).
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// Request headers besides Content-Type, Content-Encoding and User-Agent, including
    /// the vendor's auth header.
    pub(crate) fn headers(&self) -> &[(String, Secret)] {
        &self.headers
    }

    /// The body's media type.
    pub(crate) fn content_type(&self) -> &'static str {
        self.format.content_type()
    }

    /// Effective limits: the tighter of the configuration and the vendor's own.
    pub(crate) fn limits(&self) -> Limits {
        self.limits
    }

    /// Records how well a body compressed (called by senders after each compression).
    pub(crate) fn note_compression(&self, raw: usize, wire: usize) {
        if wire > 0 {
            let ratio = (raw as f64 / wire as f64 * 100.0).clamp(100.0, 10_000.0);
            self.wire_ratio.store(ratio as u32, Ordering::Relaxed);
        }
    }

    /// The uncompressed size a new batch may reach now: the configured and vendor limit,
    /// and for intakes that limit the compressed body, what is predicted to compress to
    /// fit (starting from a ratio of 1, which always fits).
    pub(crate) fn max_body_now(&self) -> usize {
        match self.limits.max_wire_bytes {
            None => self.limits.max_body_bytes,
            Some(wire) => {
                let ratio = f64::from(self.wire_ratio.load(Ordering::Relaxed)) / 100.0;
                let predicted = (wire as f64 * (ratio * WIRE_HEADROOM).max(1.0)) as usize;
                self.limits
                    .max_body_bytes
                    .min(predicted.max(wire.min(64 * 1024)))
            }
        }
    }

    /// The record with its line cut to the vendor's line limit, or `None` when it fits;
    /// the batcher counts a cut record as truncated.
    pub(crate) fn fit_line(&self, record: &Record) -> Option<Record> {
        self.format.fit_line(record)
    }

    /// Writes what comes before the first event.
    pub(crate) fn open(&self, body: &mut Vec<u8>) {
        self.format.open(body);
    }

    /// Appends one event; `prev` is the previous event of the body (`None` for the first).
    pub(crate) fn push(&self, body: &mut Vec<u8>, record: &Record, prev: Option<&Record>) {
        self.format.push(body, record, prev);
    }

    /// Bytes [`Codec::close`] will add, so the byte trigger can be checked before closing.
    pub(crate) fn close_len(&self) -> usize {
        self.format.close_len()
    }

    /// Writes what comes after the last event. `records` are the events pushed into
    /// `body`, in order (an intake that groups events regroups the body from them).
    pub(crate) fn close(&self, body: &mut Vec<u8>, records: &[Record]) {
        self.format.close(body, records);
    }

    /// Encodes a whole batch (used when a batch must be re-cut, e.g. split on 413).
    pub(crate) fn encode(&self, records: &[Record]) -> Vec<u8> {
        let mut body = Vec::with_capacity(records.iter().map(|r| r.size()).sum());
        self.open(&mut body);
        for (i, r) in records.iter().enumerate() {
            self.push(&mut body, r, i.checked_sub(1).map(|p| &records[p]));
        }
        self.close(&mut body, records);
        body
    }

    /// Which events of a request answered with [`Outcome::Items`] failed, and how; `None`
    /// when the answer cannot be read as one result per event sent.
    pub(crate) fn items(&self, body: &str, sent: usize) -> Option<ItemResults> {
        self.format.items(body, sent)
    }

    /// Most response-body bytes to read: the whole per-event answer where the intake
    /// gives one, else enough for an error report.
    pub(crate) fn max_response_bytes(&self) -> u64 {
        self.format.max_response_bytes()
    }

    /// What a response means for the batch that was sent; `body` is the answer as
    /// received (not always text: some intakes answer in a binary format).
    pub(crate) fn classify(&self, status: u16, body: &[u8]) -> Outcome {
        self.format.classify(status, body)
    }

    /// An answer in a binary format as text for the report; `None` when the body is best
    /// shown as received.
    pub(crate) fn error_text(&self, status: u16, body: &[u8]) -> Option<String> {
        self.format.error_text(status, body)
    }
}
