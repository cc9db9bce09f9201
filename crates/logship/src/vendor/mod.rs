//! What each intake wants on the wire, one module per vendor.
//!
//! Why it exists: a vendor is a URL, an auth header, a body shape, hard limits, and a
//! meaning for each response status. Everything else in the pipeline (queue, batching,
//! sending, retries) is shared. [`Codec`] is the one type the worker and senders talk to;
//! it dispatches to the vendor's module with a `match`. Every vendor module has the same
//! parts: `PATH`, `LIMITS`, `RESPONSES` (its status table, as data), an `Encoder`, and
//! where needed `url`, `validate` and `classify`.

mod datadog;
mod dynatrace;
mod elasticsearch;
mod fields;
mod generic;
mod loki;
mod newrelic;
mod otlp;
mod splunk;

use std::sync::atomic::{AtomicU32, Ordering};

use crate::config::{Config, Vendor};
use crate::error::ConfigError;
use crate::record::Record;
use crate::secret::Secret;
use crate::send::classify::{self, ItemResults, Outcome};

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
    pub source: String,
    pub hostname: String,
    pub tags: Vec<String>,
}

#[derive(Debug)]
enum Format {
    Ndjson,
    JsonArray,
    Datadog(datadog::Encoder),
    Splunk(splunk::Encoder),
    NewRelic(newrelic::Encoder),
    Dynatrace(dynatrace::Encoder),
    Loki(loki::Encoder),
    Elasticsearch(elasticsearch::Encoder),
    Otlp(otlp::Encoder),
}

/// The request format of one configured intake.
#[derive(Debug)]
pub(crate) struct Codec {
    vendor: Vendor,
    format: Format,
    url: String,
    headers: Vec<(String, Secret)>,
    limits: Limits,
    /// The latest compression ratio (raw / wire, in hundredths) the senders saw; lets the
    /// batcher cut batches whose compressed body will fit an intake's wire limit.
    wire_ratio: AtomicU32,
}

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
fn basic_auth(user: &str, password: &Secret) -> String {
    use base64::Engine as _;
    let pair = format!("{user}:{}", password.expose());
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(pair)
    )
}

/// Loki's optional tenant header and basic auth (VENDORS.md 6.1).
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
            source: config.source.clone().unwrap_or_else(|| "rust".to_owned()),
            hostname: config.hostname.clone().unwrap_or_else(machine_hostname),
            tags: config.tags.clone(),
        };
        let key = config.api_key.clone().unwrap_or_default();
        let mut headers = config.headers.clone();
        let standard_path = match config.vendor {
            Vendor::Ndjson | Vendor::JsonArray => None,
            Vendor::Datadog => Some(datadog::PATH),
            Vendor::Splunk => Some(splunk::PATH),
            Vendor::NewRelic => Some(newrelic::PATH),
            Vendor::Dynatrace => Some(dynatrace::PATH),
            Vendor::Loki => Some(loki::PATH),
            Vendor::Elasticsearch => Some(elasticsearch::PATH),
            Vendor::Otlp => Some(otlp::PATH),
        };
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
        let (format, vendor_limits) = match config.vendor {
            Vendor::Ndjson => (Format::Ndjson, generic::LIMITS),
            Vendor::JsonArray => (Format::JsonArray, generic::LIMITS),
            Vendor::Datadog => {
                headers.push(("DD-API-KEY".into(), key));
                (
                    Format::Datadog(datadog::Encoder::new(&ctx)),
                    datadog::LIMITS,
                )
            }
            Vendor::Splunk => {
                headers.push((
                    "Authorization".into(),
                    Secret::new(format!("Splunk {}", key.expose())),
                ));
                if let Some(channel) = splunk::channel(config) {
                    headers.push(("X-Splunk-Request-Channel".into(), Secret::new(channel)));
                }
                let mut limits = splunk::LIMITS;
                limits.max_body_bytes = config
                    .max_request_bytes
                    .unwrap_or(splunk::DEFAULT_MAX_REQUEST_BYTES);
                (Format::Splunk(splunk::Encoder::new(&ctx, config)), limits)
            }
            Vendor::NewRelic => {
                headers.push(("Api-Key".into(), key));
                (
                    Format::NewRelic(newrelic::Encoder::new(&ctx)),
                    newrelic::LIMITS,
                )
            }
            Vendor::Dynatrace => {
                headers.push((
                    "Authorization".into(),
                    Secret::new(format!("Api-Token {}", key.expose())),
                ));
                (
                    Format::Dynatrace(dynatrace::Encoder::new(&ctx)),
                    dynatrace::LIMITS,
                )
            }
            Vendor::Loki => {
                headers.extend(loki_headers(config));
                (
                    Format::Loki(loki::Encoder::new(&ctx, config)?),
                    loki::LIMITS,
                )
            }
            Vendor::Elasticsearch => {
                if let Some(auth) = elasticsearch::authorization(config) {
                    headers.push(("Authorization".into(), Secret::new(auth)));
                }
                url = elasticsearch::with_filter_path(&url);
                let mut limits = elasticsearch::LIMITS;
                limits.max_body_bytes = config
                    .max_request_bytes
                    .unwrap_or(elasticsearch::DEFAULT_MAX_REQUEST_BYTES);
                (
                    Format::Elasticsearch(elasticsearch::Encoder::new(&ctx, config)?),
                    limits,
                )
            }
            Vendor::Otlp => (
                Format::Otlp(otlp::Encoder::new(&ctx, config.otlp.encoding)),
                otlp::LIMITS,
            ),
        };
        let max_wire_bytes = match (vendor_limits.max_wire_bytes, config.max_request_bytes) {
            (Some(v), Some(c)) => Some(v.min(c)),
            (v, _) => v,
        };
        Ok(Codec {
            vendor: config.vendor,
            format,
            url,
            headers,
            limits: Limits {
                max_records: vendor_limits.max_records.min(config.max_batch_records),
                max_body_bytes: vendor_limits.max_body_bytes.min(config.max_batch_bytes),
                max_event_bytes: vendor_limits.max_event_bytes.min(config.max_event_bytes),
                max_wire_bytes,
            },
            wire_ratio: AtomicU32::new(100),
        })
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
        match &self.format {
            Format::Ndjson | Format::Elasticsearch(_) => generic::NDJSON_CONTENT_TYPE,
            Format::JsonArray => generic::ARRAY_CONTENT_TYPE,
            Format::Otlp(e) => e.content_type(),
            // Every vendor documents plain JSON (New Relic, Dynatrace and Datadog require
            // it; Splunk does not check it).
            _ => "application/json",
        }
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
        match &self.format {
            Format::Loki(e) => e.fit_line(record),
            _ => None,
        }
    }

    /// Writes what comes before the first event.
    pub(crate) fn open(&self, body: &mut Vec<u8>) {
        match &self.format {
            Format::Loki(_) => loki::Encoder::open(body),
            Format::Ndjson | Format::Splunk(_) | Format::Elasticsearch(_) => {}
            Format::JsonArray | Format::Datadog(_) | Format::Dynatrace(_) => body.push(b'['),
            Format::NewRelic(e) => e.open(body),
            Format::Otlp(e) => e.open(body),
        }
    }

    /// Appends one event; `prev` is the previous event of the body (`None` for the first).
    pub(crate) fn push(&self, body: &mut Vec<u8>, record: &Record, prev: Option<&Record>) {
        let first = prev.is_none();
        match &self.format {
            Format::Ndjson => generic::push_ndjson(body, record),
            Format::JsonArray => generic::push_array_item(body, record, first),
            Format::Datadog(e) => e.push(body, record, first),
            Format::Splunk(e) => e.push(body, record),
            Format::NewRelic(e) => e.push(body, record, first),
            Format::Dynatrace(e) => e.push(body, record, first),
            Format::Loki(e) => e.push(body, record, first),
            Format::Elasticsearch(e) => e.push(body, record),
            Format::Otlp(e) => e.push(body, record, prev),
        }
    }

    /// Bytes [`Codec::close`] will add, so the byte trigger can be checked before closing.
    pub(crate) fn close_len(&self) -> usize {
        match &self.format {
            Format::Ndjson | Format::Splunk(_) | Format::Elasticsearch(_) => 0,
            Format::JsonArray | Format::Datadog(_) | Format::Dynatrace(_) => 1,
            Format::NewRelic(_) => newrelic::Encoder::CLOSE.len(),
            Format::Loki(e) => e.close_len(),
            Format::Otlp(e) => e.close_len(),
        }
    }

    /// Writes what comes after the last event. `records` are the events pushed into
    /// `body`, in order (Loki regroups the body from them; see its module).
    pub(crate) fn close(&self, body: &mut Vec<u8>, records: &[Record]) {
        match &self.format {
            Format::Loki(e) => e.close(body, records),
            Format::Ndjson | Format::Splunk(_) | Format::Elasticsearch(_) => {}
            Format::JsonArray | Format::Datadog(_) | Format::Dynatrace(_) => body.push(b']'),
            Format::NewRelic(_) => body.extend_from_slice(newrelic::Encoder::CLOSE),
            Format::Otlp(e) => e.close(body),
        }
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

    /// What a response means for the batch that was sent.
    pub(crate) fn classify(&self, status: u16, body: &str) -> Outcome {
        match self.vendor {
            Vendor::Datadog => classify::by_table(datadog::RESPONSES, status),
            Vendor::Splunk => splunk::classify(status, body),
            Vendor::NewRelic => classify::by_table(newrelic::RESPONSES, status),
            Vendor::Dynatrace => classify::by_table(dynatrace::RESPONSES, status),
            Vendor::Loki => classify::by_table(loki::RESPONSES, status),
            Vendor::Elasticsearch => elasticsearch::classify(status, body),
            Vendor::Otlp => self.classify_bytes(status, body.as_bytes()),
            _ => generic::classify(status),
        }
    }

    /// Which events of a request answered with [`Outcome::Items`] failed, and how; `None`
    /// when the answer cannot be read as one result per event sent.
    pub(crate) fn items(&self, body: &str, sent: usize) -> Option<ItemResults> {
        match self.vendor {
            Vendor::Elasticsearch => elasticsearch::items(body, sent),
            _ => None,
        }
    }

    /// Most response-body bytes to read: the whole per-event answer where the intake
    /// gives one, else enough for an error report.
    pub(crate) fn max_response_bytes(&self) -> u64 {
        match self.vendor {
            Vendor::Elasticsearch => elasticsearch::MAX_RESPONSE_BYTES,
            _ => crate::send::http::MAX_ERROR_BODY,
        }
    }

    /// [`Codec::classify`] of a response's raw body, for intakes whose answers are not
    /// text (OTLP's protobuf `ExportLogsServiceResponse`).
    pub(crate) fn classify_bytes(&self, status: u16, body: &[u8]) -> Outcome {
        match &self.format {
            Format::Otlp(e) => otlp::classify(status, body, e.encoding()),
            _ => self.classify(status, &String::from_utf8_lossy(body)),
        }
    }
}

#[cfg(test)]
mod tests;
