//! The vendors: what each intake wants on the wire, one folder per vendor, and this file,
//! the registry, the one place that lists them all.
//!
//! Why it exists: an intake is a URL, an auth header, a body shape, hard limits, and a
//! meaning for each answer; everything else in the pipeline (queue, batching, sending,
//! retries, spill) is shared. Each vendor folder holds everything about one destination:
//! its encoder, its answer classification (its `RESPONSES` table, as data, citing
//! `docs/wire-formats.md`), its limits, its URL rules and its field names. Beside them:
//! the [`protocol::Protocol`] trait they implement (with defaults: a new NDJSON-like
//! vendor is about one file), the [`codec::Codec`] the batcher and the senders talk to,
//! answer classification ([`answer`]), limits, the per-pipeline [`context`] and the field
//! conventions every encoder shares ([`fields`]).
//!
//! This file maps a [`Vendor`] to its encoder and dispatches to it statically (a `match`
//! per call, no `dyn`: the batcher calls `push` once per event). Adding a vendor is one
//! folder, one arm of [`Format`], one line of [`Format::new`] and one of `each!`.
//!
//! It also lists [`Transport`]: the clients of the vendors whose wire is not HTTP (Kafka's
//! producer, behind the cargo feature `kafka`), which the senders call instead of POSTing
//! (what their answers mean is `transport`).
//!
//! Must never: perform I/O itself, or hold logic of a vendor's own (that lives in its folder).

pub(crate) mod answer;
pub(crate) mod codec;
pub(crate) mod context;
pub(crate) mod datadog;
pub(crate) mod dynatrace;
pub(crate) mod elasticsearch;
pub(crate) mod fields;
pub(crate) mod kafka;
pub(crate) mod limits;
pub(crate) mod loki;
pub(crate) mod ndjson;
pub(crate) mod newrelic;
pub(crate) mod otlp;
pub(crate) mod protocol;
pub(crate) mod splunk;
pub(crate) mod transport;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod testutil;

use answer::Rule;
use answer::{ItemResults, Outcome};
use context::Context;
use limits::Limits;
use protocol::{AckEndpoint, Framing, Protocol};

use crate::capture::record::Record;
use crate::config::{Config, Vendor};
use crate::error::ConfigError;
use crate::support::secret::Secret;
use crate::support::sync::Signal;
use transport::Sent;

/// The request format of one configured intake: one arm per vendor.
#[derive(Debug)]
pub(crate) enum Format {
    Ndjson(ndjson::Ndjson),
    JsonArray(ndjson::JsonArray),
    Datadog(datadog::Encoder),
    Splunk(splunk::Encoder),
    NewRelic(newrelic::Encoder),
    Dynatrace(dynatrace::Encoder),
    Loki(loki::Encoder),
    Elasticsearch(elasticsearch::Encoder),
    Otlp(otlp::Encoder),
    Kafka(kafka::Encoder),
}

/// What configuration needs to know about each vendor, from its folder's `facts.rs` (and
/// its own rules and variables).
impl Vendor {
    /// The environment variable this vendor's own users already set for the API key
    /// (`LOGSHIP_API_KEY` is also read, after it).
    pub fn api_key_env(self) -> Option<&'static str> {
        match self {
            Vendor::Ndjson | Vendor::JsonArray => ndjson::facts::API_KEY_ENV,
            Vendor::Datadog => datadog::facts::API_KEY_ENV,
            Vendor::Splunk => splunk::facts::API_KEY_ENV,
            Vendor::NewRelic => newrelic::facts::API_KEY_ENV,
            Vendor::Dynatrace => dynatrace::facts::API_KEY_ENV,
            Vendor::Loki => loki::facts::API_KEY_ENV,
            Vendor::Elasticsearch => elasticsearch::facts::API_KEY_ENV,
            Vendor::Otlp => otlp::facts::API_KEY_ENV,
            Vendor::Kafka => kafka::facts::API_KEY_ENV,
        }
    }

    /// An example endpoint, `None` when the vendor has a public default URL.
    fn endpoint_example_url(self) -> Option<&'static str> {
        match self {
            Vendor::Ndjson | Vendor::JsonArray => ndjson::facts::ENDPOINT_EXAMPLE,
            Vendor::Datadog => datadog::facts::ENDPOINT_EXAMPLE,
            Vendor::Splunk => splunk::facts::ENDPOINT_EXAMPLE,
            Vendor::NewRelic => newrelic::facts::ENDPOINT_EXAMPLE,
            Vendor::Dynatrace => dynatrace::facts::ENDPOINT_EXAMPLE,
            Vendor::Loki => loki::facts::ENDPOINT_EXAMPLE,
            Vendor::Elasticsearch => elasticsearch::facts::ENDPOINT_EXAMPLE,
            Vendor::Otlp => otlp::facts::ENDPOINT_EXAMPLE,
            Vendor::Kafka => kafka::facts::ENDPOINT_EXAMPLE,
        }
    }

    /// The scheme(s) its endpoint may have: `http`/`https`, or a vendor's own (Kafka's
    /// `kafka://brokers/topic`).
    pub(crate) fn endpoint_schemes(self) -> &'static [&'static str] {
        match self {
            Vendor::Kafka => &[kafka::facts::SCHEME],
            _ => &["http", "https"],
        }
    }

    /// True when the vendor has no default URL (the host is the customer's own).
    pub(crate) fn needs_endpoint(self) -> bool {
        self.endpoint_example_url().is_some()
    }

    /// The fix of the error that says an endpoint is missing.
    pub(crate) fn endpoint_example(self) -> String {
        let example = self
            .endpoint_example_url()
            .unwrap_or("http://127.0.0.1:8080/logs");
        let also = if self == Vendor::Otlp {
            " or OTEL_EXPORTER_OTLP_ENDPOINT"
        } else {
            ""
        };
        format!(
            "set endpoint{also} to the intake's URL, e.g. {example} (vendor {})",
            self.name()
        )
    }

    /// The options this vendor's own SDKs and agents already set through their variables
    /// (applied under `LOGSHIP_*` and explicit settings, over files).
    pub(crate) fn env_values(
        self,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Vec<crate::config::env::EnvValue>, ConfigError> {
        Ok(match self {
            Vendor::Otlp => otlp::env::read(env)?,
            Vendor::Datadog => datadog::env::read(env),
            _ => Vec::new(),
        })
    }

    /// This vendor's own rules on the configuration (sites, regions, channels, labels,
    /// targets and credentials).
    pub(crate) fn validate(self, config: &Config) -> Result<(), ConfigError> {
        match self {
            Vendor::Datadog => datadog::site::validate_site(config),
            Vendor::NewRelic => newrelic::region::validate_region(config),
            Vendor::Splunk => config.splunk.validate(),
            Vendor::Loki => loki::labels::validate(config),
            Vendor::Elasticsearch => elasticsearch::target::validate(config),
            Vendor::Kafka => kafka::target::validate(config),
            Vendor::Ndjson | Vendor::JsonArray | Vendor::Dynatrace | Vendor::Otlp => Ok(()),
        }
    }

    /// This vendor's lines of `logship config example`.
    pub(crate) fn write_example(self, out: &mut String) {
        match self {
            Vendor::Ndjson | Vendor::JsonArray => ndjson::facts::write_example(out),
            Vendor::Datadog => datadog::facts::write_example(out),
            Vendor::Splunk => splunk::facts::write_example(out),
            Vendor::NewRelic => newrelic::facts::write_example(out),
            Vendor::Dynatrace => dynatrace::facts::write_example(out),
            Vendor::Loki => loki::facts::write_example(out),
            Vendor::Elasticsearch => elasticsearch::facts::write_example(out),
            Vendor::Otlp => otlp::facts::write_example(out),
            Vendor::Kafka => kafka::facts::write_example(out),
        }
    }
}

impl Format {
    /// The encoder of the configured vendor, with what every event of the pipeline shares
    /// precomputed.
    pub(crate) fn new(config: &Config, ctx: &Context) -> Result<Format, ConfigError> {
        Ok(match config.vendor {
            Vendor::Ndjson => Format::Ndjson(ndjson::Ndjson {
                with_id: ctx.event_id,
            }),
            Vendor::JsonArray => Format::JsonArray(ndjson::JsonArray {
                with_id: ctx.event_id,
            }),
            Vendor::Datadog => Format::Datadog(datadog::Encoder::new(ctx)),
            Vendor::Splunk => Format::Splunk(splunk::Encoder::new(ctx, config)),
            Vendor::NewRelic => Format::NewRelic(newrelic::Encoder::new(ctx)),
            Vendor::Dynatrace => Format::Dynatrace(dynatrace::Encoder::new(ctx)),
            Vendor::Loki => Format::Loki(loki::Encoder::new(ctx, config)?),
            Vendor::Elasticsearch => {
                Format::Elasticsearch(elasticsearch::Encoder::new(ctx, config)?)
            }
            Vendor::Otlp => Format::Otlp(otlp::Encoder::new(ctx, config)),
            Vendor::Kafka => Format::Kafka(kafka::Encoder::new(config)),
        })
    }
}

/// For a vendor with a JSON and a binary body encoding (OTLP), picks JSON when `json`,
/// else the binary one; other vendors have one encoding. For the fuzz targets' codecs
/// and the tests that run over every vendor.
#[cfg(any(test, feature = "fuzzing"))]
pub(crate) fn prefer_json(config: &mut Config, json: bool) {
    config.otlp.encoding = if json {
        otlp::options::OtlpEncoding::Json
    } else {
        otlp::options::OtlpEncoding::Protobuf
    };
}

/// What each vendor's bodies look like, for the tests that run over every vendor: each
/// vendor folder states its own (`tests::FACTS`).
#[cfg(test)]
pub(crate) fn test_facts(vendor: Vendor) -> testutil::TestFacts {
    match vendor {
        Vendor::Ndjson | Vendor::JsonArray => ndjson::tests::FACTS,
        Vendor::Datadog => datadog::tests::FACTS,
        Vendor::Splunk => splunk::tests::FACTS,
        Vendor::NewRelic => newrelic::tests::FACTS,
        Vendor::Dynatrace => dynatrace::tests::FACTS,
        Vendor::Loki => loki::tests::FACTS,
        Vendor::Elasticsearch => elasticsearch::tests::FACTS,
        Vendor::Otlp => otlp::tests::FACTS,
        Vendor::Kafka => kafka::tests::FACTS,
    }
}

/// Calls `$call` on the encoder inside `$format`, whichever it is.
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
            Format::Kafka($p) => $call,
        }
    };
}

impl Protocol for Format {
    fn path(&self) -> Option<&'static str> {
        each!(self, p => Protocol::path(p))
    }
    fn default_url(&self, config: &Config) -> Option<String> {
        each!(self, p => Protocol::default_url(p, config))
    }
    fn finish_url(&self, url: String) -> String {
        each!(self, p => Protocol::finish_url(p, url))
    }
    fn headers(&self, config: &Config, key: &Secret) -> Vec<(String, Secret)> {
        each!(self, p => Protocol::headers(p, config, key))
    }
    fn limits(&self) -> Limits {
        each!(self, p => Protocol::limits(p))
    }
    fn framing(&self) -> Framing {
        each!(self, p => Protocol::framing(p))
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
    fn fit_line(&self, record: &Record) -> Option<Record> {
        each!(self, p => Protocol::fit_line(p, record))
    }
    fn responses(&self) -> Option<&'static [Rule]> {
        each!(self, p => Protocol::responses(p))
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
    fn error_text(&self, status: u16, body: &[u8]) -> Option<String> {
        each!(self, p => Protocol::error_text(p, status, body))
    }
    fn ack_endpoint(&self, url: &str) -> Result<Option<AckEndpoint>, ConfigError> {
        each!(self, p => Protocol::ack_endpoint(p, url))
    }
    fn ack_id(&self, answer: &str) -> Option<u64> {
        each!(self, p => Protocol::ack_id(p, answer))
    }
    fn ack_query(&self, ids: &[u64]) -> Vec<u8> {
        each!(self, p => Protocol::ack_query(p, ids))
    }
    fn acked(&self, answer: &[u8]) -> Option<Vec<u64>> {
        each!(self, p => Protocol::acked(p, answer))
    }
    fn missing_ack_id(&self) -> &'static str {
        each!(self, p => Protocol::missing_ack_id(p))
    }
}

/// The client of a vendor whose wire is not HTTP.
#[derive(Debug)]
pub(crate) enum Transport {
    #[cfg(feature = "kafka")]
    Kafka(kafka::producer::Producer),
}

impl Transport {
    /// The client `config`'s vendor needs, `None` for an HTTP intake; an error when the
    /// vendor's cargo feature is off or its client refuses the settings.
    pub(crate) fn new(config: &Config) -> Result<Option<Transport>, ConfigError> {
        if config.vendor != Vendor::Kafka {
            return Ok(None);
        }
        #[cfg(feature = "kafka")]
        {
            let ctx = Context::of(config);
            Ok(Some(Transport::Kafka(kafka::producer::Producer::new(
                config, &ctx,
            )?)))
        }
        #[cfg(not(feature = "kafka"))]
        {
            let _ = Context::of;
            Err(ConfigError::new(
                "vendor",
                "kafka",
                "this build of logship has no Kafka output",
            )
            .fix("build logship with the cargo feature `kafka`"))
        }
    }

    /// Sends `messages[i]` (the encoded `records[i]`) for each `i` in `which` and waits for
    /// the intake's answer to each.
    pub(crate) fn send(
        &self,
        records: &[Record],
        messages: &[&[u8]],
        which: &[usize],
        abort: &Signal,
    ) -> Sent {
        let _ = (records, messages, which, abort);
        match *self {
            #[cfg(feature = "kafka")]
            Transport::Kafka(ref p) => p.send(records, messages, which, abort),
        }
    }
}
