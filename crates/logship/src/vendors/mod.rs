//! What each intake wants on the wire: one module per intake protocol.
//!
//! Why it exists: an intake is a URL, an auth header, a body shape, hard limits, and a
//! meaning for each answer. Everything else in the pipeline (queue, batching, sending,
//! retries) is shared. [`Codec`] is the one type the batcher and the senders talk to: it
//! holds what the configuration decided (URL, headers, effective limits) and a
//! [`format::Format`], the enum of protocols, each of which implements the
//! [`format::Protocol`] trait (path, limits, content type, open/push/close, classify,
//! per-event answers). Every intake module has the same parts: `PATH`, `LIMITS`,
//! `RESPONSES` (its status table, as data, citing `docs/wire-formats.md`), an `Encoder`
//! with its `Protocol` implementation, and where needed `url` and `classify`. Adding an
//! intake is one file plus one arm of `Format`; the trait has no default methods, so the
//! compiler makes it decide every behaviour.
//!
//! Must never: perform I/O, or print a header value (they are [`Secret`]s).

pub(crate) mod classify;
mod datadog;
mod dynatrace;
mod elasticsearch;
mod fields;
mod format;
mod generic;
mod loki;
mod newrelic;
mod otlp;
mod splunk;

use std::sync::atomic::{AtomicU32, Ordering};

use crate::config::{Config, Vendor};
use crate::error::ConfigError;
use crate::capture::record::Record;
use crate::support::secret::Secret;
use classify::{ItemResults, Outcome};
use format::{Format, Protocol};
pub(crate) use splunk::{MAX_ACK_ANSWER, MAX_ACK_IDS};

/// Room kept in a request body beside one event that fills it (the request's framing and
/// shared envelope: brackets, OTLP's resource and scope).
const REQUEST_ROOM: usize = 4096;

/// Hard limits of an intake; batches are cut so no request exceeds them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    /// Most events in one request.
    pub max_records: usize,
    /// Most uncompressed body bytes in one request.
    pub max_body_bytes: usize,
    /// Most bytes of one encoded event; larger events are truncated and counted.
    pub max_event_bytes: usize,
    /// Most body bytes as sent (after compression), when the intake limits that.
    pub max_wire_bytes: Option<usize>,
}

/// Per-pipeline attributes every vendor maps to its own fields.
#[derive(Debug)]
pub(crate) struct Context {
    pub service: Option<String>,
    /// The deployment environment (`env`), written in each vendor's own field.
    pub env: Option<String>,
    /// The service version (`version`), written in each vendor's own field.
    pub version: Option<String>,
    pub source: String,
    pub hostname: String,
    pub tags: Vec<String>,
    /// Where span fields go.
    pub span_fields: crate::config::SpanFields,
    /// Whether each event's id is written (`event_id`).
    pub event_id: bool,
}

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
    /// Splunk's acknowledgement URL, when `splunk_ack` is on (see `send::ack`).
    ack_url: Option<String>,
}

/// Most response-body bytes kept for error reports (intakes that answer per event ask
/// for more through [`Codec::max_response_bytes`]).
pub(crate) const MAX_ERROR_BODY: u64 = 4096;

/// Share of the predicted raw size a batch may fill when the wire size is limited, so that
/// a batch that compresses a little worse than the last one still fits.
const WIRE_HEADROOM: f64 = 0.85;

/// This machine's host name, for vendors' host fields.
pub(crate) fn machine_hostname() -> String {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok())
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok().filter(|s| !s.is_empty()))
        .unwrap_or_else(|| "localhost".to_owned())
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

/// The `Authorization` value of HTTP basic auth (RFC 7617), for Loki and Elasticsearch.
pub(crate) fn basic_auth(user: &str, password: &Secret) -> String {
    use base64::Engine as _;
    let pair = format!("{user}:{}", password.expose());
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(pair)
    )
}

/// Loki's optional tenant header and basic auth (docs/wire-formats.md 6.1).
fn loki_headers(config: &Config) -> Vec<(String, Secret)> {
    let mut headers = Vec::new();
    if let Some(tenant) = &config.loki.tenant_id {
        headers.push(("X-Scope-OrgID".into(), Secret::new(tenant.as_str())));
    }
    if let (Some(user), Some(password)) = (&config.username, &config.password) {
        headers.push((
            "Authorization".into(),
            Secret::new(basic_auth(user, password)),
        ));
    }
    headers
}

impl Codec {
    /// Builds the codec for a validated configuration (whose API key is resolved).
    pub(crate) fn new(config: &Config) -> Result<Codec, ConfigError> {
        let ctx = Context {
            service: config.service.clone(),
            env: config.env.clone(),
            version: config.version.clone(),
            source: config.source.clone().unwrap_or_else(|| "rust".to_owned()),
            hostname: config.hostname.clone().unwrap_or_else(machine_hostname),
            tags: config.tags.clone(),
            span_fields: config.span_fields,
            event_id: config.event_id,
        };
        let key = config.api_key.clone().unwrap_or_default();
        let mut headers = config.headers.clone();
        // Each intake's encoder and its auth header; every other behaviour comes from its
        // `Protocol` implementation.
        let format = match config.vendor {
            Vendor::Ndjson => Format::Ndjson(generic::Ndjson {
                with_id: ctx.event_id,
            }),
            Vendor::JsonArray => Format::JsonArray(generic::JsonArray {
                with_id: ctx.event_id,
            }),
            Vendor::Datadog => {
                headers.push(("DD-API-KEY".into(), key));
                Format::Datadog(datadog::Encoder::new(&ctx))
            }
            Vendor::Splunk => {
                headers.push((
                    "Authorization".into(),
                    Secret::new(format!("Splunk {}", key.expose())),
                ));
                headers.push((
                    "X-Splunk-Request-Channel".into(),
                    Secret::new(splunk::channel(config)),
                ));
                Format::Splunk(splunk::Encoder::new(&ctx, config))
            }
            Vendor::NewRelic => {
                headers.push(("Api-Key".into(), key));
                Format::NewRelic(newrelic::Encoder::new(&ctx))
            }
            Vendor::Dynatrace => {
                headers.push((
                    "Authorization".into(),
                    Secret::new(format!("Api-Token {}", key.expose())),
                ));
                Format::Dynatrace(dynatrace::Encoder::new(&ctx))
            }
            Vendor::Loki => {
                headers.extend(loki_headers(config));
                Format::Loki(loki::Encoder::new(&ctx, config)?)
            }
            Vendor::Elasticsearch => {
                if let Some(auth) = elasticsearch::authorization(config) {
                    headers.push(("Authorization".into(), Secret::new(auth)));
                }
                Format::Elasticsearch(elasticsearch::Encoder::new(&ctx, config)?)
            }
            Vendor::Otlp => Format::Otlp(otlp::Encoder::new(&ctx, config.otlp.encoding)),
        };
        let vendor_limits = format.limits();
        let standard_path = format.path();
        let mut url = match (&config.endpoint, standard_path) {
            (Some(e), Some(path)) if !e.is_empty() => with_default_path(e, path),
            (Some(e), _) if !e.is_empty() => e.clone(),
            _ => match config.vendor {
                Vendor::Datadog => datadog::url(config),
                Vendor::NewRelic => newrelic::url(config),
                other => {
                    return Err(ConfigError::new(
                        "endpoint",
                        "(none)",
                        "an endpoint URL is required",
                    )
                    .fix(other.endpoint_example()))
                }
            },
        };
        if let Format::Elasticsearch(_) = format {
            url = elasticsearch::with_filter_path(&url);
        }
        let ack_url = match config.vendor {
            Vendor::Splunk if config.splunk.ack => Some(splunk::ack_url(&url).ok_or_else(|| {
                ConfigError::new(
                    "splunk_ack",
                    "true",
                    "the acknowledgement URL is the endpoint's path up to /services/collector, then /ack, and this endpoint's path has no /services/collector",
                )
                .fix("give the endpoint with its HEC path, e.g. endpoint = \"https://splunk:8088/services/collector/event\"")
            })?),
            _ => None,
        };
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
            ack_url,
        })
    }

    /// Splunk's acknowledgement URL when `splunk_ack` is on (else `None`).
    pub(crate) fn ack_url(&self) -> Option<&str> {
        self.ack_url.as_deref()
    }

    /// The `ackId` of a Splunk success answer, if it carries one.
    pub(crate) fn ack_id(&self, body: &str) -> Option<u64> {
        splunk::ack_id(body)
    }

    /// The body of a Splunk acknowledgement query for `ids`.
    pub(crate) fn ack_query(ids: &[u64]) -> Vec<u8> {
        splunk::ack_query(ids)
    }

    /// The ackIds a Splunk acknowledgement answer confirms; `None` for an answer not of
    /// the documented shape.
    pub(crate) fn acked(body: &[u8]) -> Option<Vec<u64>> {
        splunk::acked(body)
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

    /// The uncompressed size a new batch may reach: the configured and vendor limit, and
    /// for intakes that limit the compressed body, what is predicted to compress to fit
    /// (starting from a ratio of 1, which always fits).
    pub(crate) fn body_budget(&self) -> usize {
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

    /// The record with its line cut to the vendor's line limit (Loki's `max_line_bytes`),
    /// or `None` when it fits; the batcher counts a cut record as truncated.
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
    /// `body`, in order (Loki regroups the body from them; see its module).
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
    /// received (not always text: OTLP answers in protobuf).
    pub(crate) fn classify(&self, status: u16, body: &[u8]) -> Outcome {
        self.format.classify(status, body)
    }

    /// An answer in a binary format as text for the report (OTLP's protobuf
    /// `google.rpc.Status`: its message); `None` when the body is best shown as received.
    pub(crate) fn error_text(&self, status: u16, body: &[u8]) -> Option<String> {
        match &self.format {
            Format::Otlp(otlp) => otlp::error_text(status, body, otlp.encoding()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod unique_keys;
