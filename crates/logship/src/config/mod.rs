//! Every option of a pipeline, its default, and where each concern of configuration lives.
//!
//! Why it exists: the builder, the CLI, config files, environment variables and log4rs
//! all fill this one [`Config`] struct, so defaults, parsing and validation live in
//! exactly one place. Defaults follow the Java Batch HTTP appender that inspired logship,
//! so settings carry over. This module (and everything under it) must never print a
//! secret, and never depends on the wire-format code or the pipeline
//! builder: they read configuration, not the other way round.
//!
//! # One table
//! [`keys::all`] is the single source of truth for every key: its name, how its value is
//! read, its range, its default as documented, its Java alias, its builder setter and CLI
//! flag, its meaning, and a setter and a getter on [`Config`]. Files ([`file`]), the
//! environment ([`env`]), `config check` ([`Config::effective_values`], [`Resolved`]),
//! `config example` ([`example`]), range validation ([`validate`]), "did you mean"
//! ([`suggest`]) and the reference in `docs/configuration.md` ([`reference`]) all read
//! it. Adding an option is one field here and one row there.
//!
//! # Option groups
//! Options that only one intake reads are grouped in a typed struct held in [`Config`]:
//! [`SplunkOptions`], [`LokiOptions`], [`ElasticsearchOptions`], [`OtlpOptions`], each
//! with its own rules beside it. Options that several intakes read stay top-level, where
//! every intake finds them: `username`/`password` (basic auth for Loki and
//! Elasticsearch), `max_request_bytes` (Splunk and Elasticsearch), `api_key` (every
//! hosted intake). `site` (Datadog) and `region` (New Relic) also stay top-level: each is
//! one option, checked against the lists in [`hosted`], and a one-field group would only
//! add a level of nesting for users. The key names (TOML, `LOGSHIP_*`, log4rs) are the
//! same as before grouping: `splunk_index` is `config.splunk.index`.

pub(crate) mod budget;
pub(crate) mod control;
pub(crate) mod dd_env;
pub(crate) mod elasticsearch;
mod env;
mod example;
mod file;
pub(crate) mod hosted;
mod key;
mod key_parts;
mod keys;
mod layered;
pub(crate) mod loki;
pub(crate) mod otel_env;
mod otlp;
mod parse;
pub(crate) mod redaction;
#[cfg(test)]
mod reference;
pub(crate) mod splunk;
mod suggest;
mod validate;
mod value;
mod vendor;

#[cfg(test)]
mod tests;

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use crate::secret::Secret;
use crate::spill::{SpillConfig, SpillFsync, SpillFull};

pub use budget::{BudgetConfig, ObserveConfig};
pub use control::ControlConfig;
pub use elasticsearch::ElasticsearchOptions;
pub use example::example_toml;
pub use layered::{Layered, Origin, Resolved};
pub use loki::LokiOptions;
pub use otlp::{OtlpEncoding, OtlpOptions};
pub use redaction::{RedactAction, RedactionConfig};
pub use splunk::SplunkOptions;
pub use suggest::did_you_mean;
pub use vendor::Vendor;

/// Where span fields go in each event (key `span_fields`); see docs/vendors.md, "Spans".
///
/// Whatever the mode, every name appears once per JSON object: when a name repeats (a
/// field recorded twice, two nested spans with the same name or field, a span field named
/// like an event field) one value is kept, by this order: the event's own field, then
/// the innermost span's, then outer spans'; within one of them, the last value recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SpanFields {
    /// Span fields at the event's root under their own names (`request_id`), so a
    /// vendor's facets, filters and columns find them as they were written. The default.
    #[default]
    Root,
    /// Span fields under `<span name>.<field>` (`request.request_id`), which keeps which
    /// span carried a value at the cost of longer names to query.
    Prefixed,
}

impl SpanFields {
    /// Every mode, in the order the key's choices list them.
    pub(crate) const ALL: [SpanFields; 2] = [SpanFields::Root, SpanFields::Prefixed];
    /// The names used in files, the environment and on the command line.
    pub(crate) const NAMES: &'static [&'static str] = &["root", "prefixed"];
}

/// What a log call does when the queue is full.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Overflow {
    /// Drop the new event and count it in `dropped_queue_full` (the default: the caller
    /// never waits).
    #[default]
    DropNewest,
    /// Wait up to this long for room, then drop and count. Opt-in: it can slow the caller.
    Block(Duration),
}

/// The full configuration of a pipeline. Build it with [`crate::Builder`]; every field has
/// a documented default.
#[derive(Clone)]
#[non_exhaustive]
pub struct Config {
    /// Wire format of the intake. Default: NDJSON.
    pub vendor: Vendor,
    /// The URL batches are POSTed to. Required for generic intakes.
    pub endpoint: Option<String>,
    /// Extra request headers (for example an authorisation header). Values are treated as
    /// secrets: never printed.
    pub headers: Vec<(String, Secret)>,
    /// The vendor's API key or token. When unset, read from the vendor's own environment
    /// variable (`DD_API_KEY`, `SPLUNK_HEC_TOKEN`, `NEW_RELIC_LICENSE_KEY`, `DT_API_TOKEN`),
    /// then from `LOGSHIP_API_KEY`.
    pub api_key: Option<Secret>,
    /// Datadog site, e.g. `datadoghq.com` (default), `datadoghq.eu`, `us3.datadoghq.com`.
    pub site: Option<String>,
    /// New Relic region: `us` (default), `eu`, `jp`, `fedramp`.
    pub region: Option<String>,
    /// The service name attached to every event.
    pub service: Option<String>,
    /// The deployment environment (`prod`, `staging`), in each vendor's own field
    /// (Datadog's `env` tag, OTLP `deployment.environment.name`, ...; docs/vendors.md).
    pub env: Option<String>,
    /// The service's version, in each vendor's own field (Datadog's `version` tag, OTLP
    /// `service.version`, ...; docs/vendors.md).
    pub version: Option<String>,
    /// The source (Datadog `ddsource`, Splunk `source`, New Relic `logtype`, Dynatrace
    /// `log.source`). Default `rust`.
    pub source: Option<String>,
    /// Host name attached to every event. Default: this machine's host name.
    pub hostname: Option<String>,
    /// Tags as `key:value` strings, mapped to each vendor's own tag or attribute fields.
    pub tags: Vec<String>,
    /// Where span fields go (key `span_fields`). Default: [`SpanFields::Root`].
    pub span_fields: SpanFields,
    /// Whether each event's id is shipped (key `event_id`): as `_id` for
    /// Elasticsearch/OpenSearch (a replay is then refused with 409 instead of stored
    /// twice), as an attribute (`logship.id`, ...) for the other vendors. Default: true.
    pub event_id: bool,
    /// Splunk HTTP Event Collector options (keys `splunk_index`, `splunk_sourcetype`,
    /// `splunk_channel`). Default: none set.
    pub splunk: SplunkOptions,
    /// Grafana Loki options (keys `tenant_id`, `loki_labels`, `max_line_bytes`).
    /// Default: no tenant, no static labels, lines up to 256 KiB.
    pub loki: LokiOptions,
    /// User name for HTTP basic auth (Loki behind a gateway, Grafana Cloud: the
    /// instance ID; Elasticsearch / OpenSearch). Sent only together with `password`.
    pub username: Option<String>,
    /// Password or token for HTTP basic auth. A secret: never printed.
    pub password: Option<Secret>,
    /// Most uncompressed bytes in one request for intakes whose server decides it
    /// (Splunk's `max_content_length`, default 1,000,000, which fits hardened servers;
    /// Elasticsearch's `http.max_content_length`, default 100 MB).
    pub max_request_bytes: Option<usize>,
    /// Elasticsearch / OpenSearch options (key `index`). Default: the data stream
    /// `logs-logship-default`.
    pub elasticsearch: ElasticsearchOptions,
    /// OpenTelemetry OTLP/HTTP options (key `otlp_encoding`). Default: protobuf.
    pub otlp: OtlpOptions,
    /// Flush a batch when it holds this many events. Default 200.
    pub max_batch_records: usize,
    /// Flush a batch before its encoded, uncompressed body would exceed this. Default 1 MiB.
    pub max_batch_bytes: usize,
    /// Flush a batch when its oldest event is this old. Default 1000 ms.
    pub linger: Duration,
    /// Most events waiting in the queue. Default 10000.
    pub queue_capacity: usize,
    /// Most bytes of events held in memory (queued, batched or in flight). Default 64 MiB.
    pub queue_max_bytes: usize,
    /// What a log call does when the queue is full. Default: drop and count.
    pub overflow: Overflow,
    /// Most requests in flight at once (one sender thread each): the ceiling of the
    /// adaptive limit, or the fixed number when `adaptive_concurrency` is off. Default 16.
    pub max_in_flight: usize,
    /// Adapt the number of requests in flight to the intake's answers (AIMD, like
    /// Vector's adaptive request concurrency): start at 2, grow by one per round of
    /// requests while round-trip times stay flat and batches are waiting, halve on 429,
    /// 5xx, timeouts or network errors, shrink by a tenth when round-trip times rise.
    /// Default on.
    pub adaptive_concurrency: bool,
    /// Compress request bodies with gzip. Default on.
    pub gzip: bool,
    /// gzip level 0..=9. Default 3 (measured: within a few % of level 6's ratio, 40% faster).
    pub gzip_level: u32,
    /// Retries of a failed request (network errors, 408, 429, 5xx). Default 3.
    pub max_retries: u32,
    /// First retry delay ceiling; doubles per retry with full jitter. Default 200 ms.
    pub retry_initial_backoff: Duration,
    /// Longest delay between retries, also the cap on `Retry-After`. Default 10 s.
    pub retry_max_backoff: Duration,
    /// TCP + TLS connect timeout. Default 5 s.
    pub connect_timeout: Duration,
    /// Whole-request timeout (send and response). Default 30 s.
    pub request_timeout: Duration,
    /// How long the guard's drop (and `shutdown`) may take to deliver what is left. Default 5 s.
    pub shutdown_timeout: Duration,
    /// Events larger than this are truncated (with a marker) and counted. Default 1 MiB.
    pub max_event_bytes: usize,
    /// A PEM bundle of CA certificates trusted in addition to the operating system's
    /// trust store (an internal CA). Read and checked at `build()`. Default: none.
    pub tls_ca_file: Option<PathBuf>,
    /// A PEM client certificate chain for mutual TLS; needs `tls_client_key`.
    pub tls_client_cert: Option<PathBuf>,
    /// The PEM private key of `tls_client_cert`. Its contents are a secret: never shown.
    pub tls_client_key: Option<PathBuf>,
    /// Verify the intake's certificate (default `true`). `false` accepts any certificate
    /// for any name: for development only, warned about at start-up, in `config check`
    /// and in [`crate::Stats::tls_verify_disabled`].
    pub tls_verify: bool,
    /// The proxy for this pipeline: a URL (`http://[user:pass@]host:port`, or
    /// `https://` to reach the proxy over TLS), or `none` for a direct connection.
    /// Default: from `https_proxy`/`http_proxy`/`all_proxy` (either case) and `no_proxy`,
    /// as curl reads them. Credentials in it are secrets: never shown.
    pub proxy: Option<String>,
    /// Print start-up warnings, permanent delivery errors and the shutdown report to stderr.
    /// Default on.
    pub report_to_stderr: bool,
    /// Write events that cannot be delivered now (intake down, retries exhausted, a
    /// backlog the senders cannot drain, shutdown out of time) to disk and replay them
    /// later. Default on.
    pub spill_enabled: bool,
    /// Fail start-up when the spill directory cannot be used (held by another process,
    /// unwritable). Default off: the pipeline then starts without spill, says so once on
    /// stderr and in [`crate::Stats::spill_unavailable`], and keeps delivering from memory.
    pub spill_required: bool,
    /// A batch whose request has been out this long also gets an insurance copy in the
    /// spill (deleted once it settles), so a crash cannot lose it. Default 5 s, well under
    /// the 30 s request timeout.
    pub spill_in_flight_after: Duration,
    /// On a panic anywhere in the program, deliver what is queued first (bounded by the
    /// shorter of `shutdown_timeout` and 2 s), then run the previous panic hook. Default
    /// on: the events just before a crash are the ones worth having.
    pub flush_on_panic: bool,
    /// The spill directory (one process at a time). Default: a per-user cache directory
    /// named after the service: `$XDG_CACHE_HOME/logship/<service>` or
    /// `~/.cache/logship/<service>` (`default` without a service).
    pub spill_dir: Option<PathBuf>,
    /// Most bytes of spilled events on disk. Default 1 GiB.
    pub spill_max_bytes: u64,
    /// Size of one spill segment file. Default 16 MiB.
    pub spill_segment_bytes: u64,
    /// What happens when the spill is full. Default: drop the oldest segment (counted).
    pub spill_full: SpillFull,
    /// When spilled data is synced to the device. Default: when a segment is closed.
    pub spill_fsync: SpillFsync,
    // Issue 17 part 4: redaction.
    /// Redaction of secrets and personal data before events leave the process. Default: off.
    pub redaction: RedactionConfig,
    /// Burst limits, sampling and drop notices (issue #17 parts 1, 2, 5; keys in
    /// `keys/control.rs`). Default: all off.
    pub control: ControlConfig,
    /// Volume budgets (keys `budget_*`). Default: no cap.
    pub budget: BudgetConfig,
    /// The stall alarm and the `metrics` export (keys `stall_after_ms`,
    /// `metrics_interval_ms`). Default: no alarm; metrics every second with the feature.
    pub observe: ObserveConfig,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            vendor: Vendor::default(),
            endpoint: None,
            headers: Vec::new(),
            api_key: None,
            site: None,
            region: None,
            service: None,
            env: None,
            version: None,
            source: None,
            hostname: None,
            tags: Vec::new(),
            span_fields: SpanFields::Root,
            event_id: true,
            splunk: SplunkOptions::default(),
            loki: LokiOptions::default(),
            username: None,
            password: None,
            max_request_bytes: None,
            elasticsearch: ElasticsearchOptions::default(),
            otlp: OtlpOptions::default(),
            max_batch_records: 200,
            max_batch_bytes: 1024 * 1024,
            linger: Duration::from_millis(1000),
            queue_capacity: 10_000,
            queue_max_bytes: 64 * 1024 * 1024,
            overflow: Overflow::DropNewest,
            max_in_flight: 16,
            adaptive_concurrency: true,
            gzip: true,
            gzip_level: 3,
            max_retries: 3,
            retry_initial_backoff: Duration::from_millis(200),
            retry_max_backoff: Duration::from_secs(10),
            connect_timeout: Duration::from_secs(5),
            request_timeout: Duration::from_secs(30),
            shutdown_timeout: Duration::from_secs(5),
            max_event_bytes: 1024 * 1024,
            tls_ca_file: None,
            tls_client_cert: None,
            tls_client_key: None,
            tls_verify: true,
            proxy: None,
            report_to_stderr: true,
            spill_enabled: true,
            spill_required: false,
            spill_in_flight_after: Duration::from_secs(5),
            flush_on_panic: true,
            spill_dir: None,
            spill_max_bytes: SpillConfig::DEFAULT_MAX_TOTAL_BYTES,
            spill_segment_bytes: SpillConfig::DEFAULT_SEGMENT_MAX_BYTES,
            spill_full: SpillFull::DropOldest,
            spill_fsync: SpillFsync::OnSegmentClose,
            redaction: RedactionConfig::default(),
            control: ControlConfig::default(),
            budget: BudgetConfig::default(),
            observe: ObserveConfig::default(),
        }
    }
}

impl fmt::Debug for Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Config")
            .field("vendor", &self.vendor)
            .field("endpoint", &self.endpoint.as_deref().map(redact_url))
            .field(
                "headers",
                &self.headers.iter().map(|(k, v)| (k, v)).collect::<Vec<_>>(),
            )
            .field("api_key", &self.api_key)
            .field("site", &self.site)
            .field("region", &self.region)
            .field("service", &self.service)
            .field("env", &self.env)
            .field("version", &self.version)
            .field("source", &self.source)
            .field("hostname", &self.hostname)
            .field("tags", &self.tags)
            .field("span_fields", &self.span_fields)
            .field("event_id", &self.event_id)
            .field("splunk", &self.splunk)
            .field("loki", &self.loki)
            .field("username", &self.username)
            .field("password", &self.password)
            .field("max_request_bytes", &self.max_request_bytes)
            .field("elasticsearch", &self.elasticsearch)
            .field("otlp", &self.otlp)
            .field("max_batch_records", &self.max_batch_records)
            .field("max_batch_bytes", &self.max_batch_bytes)
            .field("linger", &self.linger)
            .field("queue_capacity", &self.queue_capacity)
            .field("queue_max_bytes", &self.queue_max_bytes)
            .field("overflow", &self.overflow)
            .field("max_in_flight", &self.max_in_flight)
            .field("adaptive_concurrency", &self.adaptive_concurrency)
            .field("gzip", &self.gzip)
            .field("gzip_level", &self.gzip_level)
            .field("max_retries", &self.max_retries)
            .field("retry_initial_backoff", &self.retry_initial_backoff)
            .field("retry_max_backoff", &self.retry_max_backoff)
            .field("connect_timeout", &self.connect_timeout)
            .field("request_timeout", &self.request_timeout)
            .field("shutdown_timeout", &self.shutdown_timeout)
            .field("max_event_bytes", &self.max_event_bytes)
            .field("tls_ca_file", &self.tls_ca_file)
            .field("tls_client_cert", &self.tls_client_cert)
            .field("tls_client_key", &self.tls_client_key)
            .field("tls_verify", &self.tls_verify)
            .field("proxy", &self.proxy.as_deref().map(redact_url))
            .field("spill_enabled", &self.spill_enabled)
            .field("spill_required", &self.spill_required)
            .field("spill_in_flight_after", &self.spill_in_flight_after)
            .field("flush_on_panic", &self.flush_on_panic)
            .field("spill_dir", &self.spill_dir)
            .field("spill_max_bytes", &self.spill_max_bytes)
            .field("spill_segment_bytes", &self.spill_segment_bytes)
            .field("spill_full", &self.spill_full)
            .field("spill_fsync", &self.spill_fsync)
            .field("redaction", &self.redaction)
            .field("control", &self.control)
            .field("budget", &self.budget)
            .field("observe", &self.observe)
            .finish()
    }
}

/// A URL with its query string and user-info hidden (they may carry keys).
pub(crate) fn redact_url(url: &str) -> String {
    let (base, had_query) = match url.split_once('?') {
        Some((b, _)) => (b, true),
        None => (url, false),
    };
    let base = match base.split_once("://") {
        Some((scheme, rest)) => match rest.split_once('@') {
            Some((_, host)) if !host.contains('/') || rest.find('@') < rest.find('/') => {
                format!("{scheme}://[redacted]@{host}")
            }
            _ => base.to_owned(),
        },
        // No scheme (a proxy written `user:pass@host:port`): user-info all the same.
        None => match base.split_once('@') {
            Some((_, host)) if !base[..base.find('@').unwrap_or(0)].contains('/') => {
                format!("[redacted]@{host}")
            }
            _ => base.to_owned(),
        },
    };
    if had_query {
        format!("{base}?[redacted]")
    } else {
        base
    }
}

impl Config {
    /// Each option's effective value, in TOML syntax, secrets shown as `[redacted]`;
    /// `None` for an unset option. In the order `config check` shows them.
    pub fn effective_values(&self) -> Vec<(&'static str, Option<String>)> {
        keys::all().map(|k| (k.name, (k.get)(self))).collect()
    }

    /// The spill settings, with the default directory filled in; `None` when spill is off.
    pub fn spill_config(&self) -> Option<SpillConfig> {
        if !self.spill_enabled {
            return None;
        }
        let dir = self
            .spill_dir
            .clone()
            .unwrap_or_else(|| default_spill_dir(self.service.as_deref()));
        Some(SpillConfig {
            dir,
            segment_max_bytes: self.spill_segment_bytes,
            max_total_bytes: self.spill_max_bytes,
            full: self.spill_full,
            fsync: self.spill_fsync,
        })
    }

    /// The API key: `api_key`, else the vendor's own environment variable, else
    /// `LOGSHIP_API_KEY`. `env` is the environment lookup (injectable for tests).
    pub fn resolve_api_key(&self, env: impl Fn(&str) -> Option<String>) -> Option<Secret> {
        if let Some(k) = self.api_key.as_ref().filter(|k| !k.is_empty()) {
            return Some(k.clone());
        }
        self.vendor
            .api_key_env()
            .into_iter()
            .chain(["LOGSHIP_API_KEY"])
            .find_map(|var| env(var).filter(|v| !v.trim().is_empty()))
            .map(|v| Secret::new(v.trim()))
    }
}

/// The per-user cache directory for a service's spill.
pub fn default_spill_dir(service: Option<&str>) -> PathBuf {
    let name: String = service
        .unwrap_or("default")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        })
        .unwrap_or_else(std::env::temp_dir);
    cache.join("logship").join(name)
}

/// True when `url` targets this machine (so plain HTTP exposes nothing).
pub(crate) fn is_loopback_url(url: &str) -> bool {
    let Ok(uri) = url.parse::<ureq::http::Uri>() else {
        return false;
    };
    matches!(uri.host(), Some("localhost") | Some("[::1]") | Some("::1"))
        || uri.host().is_some_and(|h| h.starts_with("127."))
}
