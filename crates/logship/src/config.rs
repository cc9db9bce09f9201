//! Every option of a pipeline, its default, and its validation.
//!
//! Why it exists: the builder, the CLI and (later) config files, environment variables and
//! log4rs all fill this one struct, so defaults and validation live in exactly one place.
//! Defaults follow the Java Batch HTTP appender that inspired logship, so settings carry
//! over. `validate` turns every unusable value into a [`ConfigError`] naming the field.

use std::fmt;
use std::time::Duration;

use std::path::PathBuf;

use crate::error::ConfigError;
use crate::secret::Secret;
use crate::spill::{SpillConfig, SpillFsync, SpillFull};

/// Where and how batches are sent: the wire format of the intake.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Vendor {
    /// Newline-delimited JSON objects (`application/x-ndjson`) to any URL.
    #[default]
    Ndjson,
    /// One JSON array of objects (`application/json`) to any URL.
    JsonArray,
    /// Datadog Logs API v2 (`DD-API-KEY`; URL from `site`).
    Datadog,
    /// Splunk HTTP Event Collector (`Authorization: Splunk <token>`; `endpoint` required).
    Splunk,
    /// New Relic Log API (`Api-Key`; URL from `region`).
    NewRelic,
    /// Dynatrace Log ingest v2 (`Authorization: Api-Token <token>`; `endpoint` required).
    Dynatrace,
    /// Grafana Loki push API (`endpoint` required; optional tenant and basic auth).
    Loki,
    /// Elasticsearch / OpenSearch `_bulk` (`create` actions; basic auth, `ApiKey` or none;
    /// `endpoint` required).
    Elasticsearch,
    /// OpenTelemetry OTLP/HTTP logs (`/v1/logs` on a collector; `endpoint` required,
    /// encoding from [`Config::otlp_encoding`]).
    Otlp,
}

/// The body encoding of [`Vendor::Otlp`] requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OtlpEncoding {
    /// Binary protobuf (`application/x-protobuf`), the OTLP default.
    #[default]
    Protobuf,
    /// The OTLP JSON mapping (`application/json`).
    Json,
}

impl OtlpEncoding {
    /// The name used on the command line and in config files.
    pub fn name(self) -> &'static str {
        match self {
            OtlpEncoding::Protobuf => "protobuf",
            OtlpEncoding::Json => "json",
        }
    }
}

impl Vendor {
    /// The name used on the command line and in config files.
    pub fn name(self) -> &'static str {
        match self {
            Vendor::Ndjson => "ndjson",
            Vendor::JsonArray => "json",
            Vendor::Datadog => "datadog",
            Vendor::Splunk => "splunk",
            Vendor::NewRelic => "newrelic",
            Vendor::Dynatrace => "dynatrace",
            Vendor::Loki => "loki",
            Vendor::Elasticsearch => "elasticsearch",
            Vendor::Otlp => "otlp",
        }
    }

    /// All vendors, for help texts and "did you mean" messages.
    pub const ALL: &'static [Vendor] = &[
        Vendor::Ndjson,
        Vendor::JsonArray,
        Vendor::Datadog,
        Vendor::Splunk,
        Vendor::NewRelic,
        Vendor::Dynatrace,
        Vendor::Loki,
        Vendor::Elasticsearch,
        Vendor::Otlp,
    ];

    /// The environment variable this vendor's own users already set for the API key
    /// (`LOGSHIP_API_KEY` is also read, after it).
    pub fn api_key_env(self) -> Option<&'static str> {
        match self {
            Vendor::Ndjson | Vendor::JsonArray | Vendor::Loki | Vendor::Otlp => None,
            Vendor::Datadog => Some("DD_API_KEY"),
            Vendor::Splunk => Some("SPLUNK_HEC_TOKEN"),
            Vendor::NewRelic => Some("NEW_RELIC_LICENSE_KEY"),
            Vendor::Dynatrace => Some("DT_API_TOKEN"),
            // Optional: a cluster may take basic auth, an API key, or nothing.
            Vendor::Elasticsearch => None,
        }
    }
}

impl std::str::FromStr for Vendor {
    type Err = ConfigError;

    fn from_str(s: &str) -> Result<Vendor, ConfigError> {
        let lower = s.trim().to_ascii_lowercase();
        match lower.as_str() {
            "ndjson" | "jsonl" => Ok(Vendor::Ndjson),
            "json" | "json_array" | "json-array" => Ok(Vendor::JsonArray),
            "datadog" | "dd" => Ok(Vendor::Datadog),
            "splunk" | "splunk_hec" | "splunk-hec" | "hec" => Ok(Vendor::Splunk),
            "newrelic" | "new_relic" | "new-relic" | "nr" => Ok(Vendor::NewRelic),
            "dynatrace" | "dt" => Ok(Vendor::Dynatrace),
            "loki" | "grafana_loki" | "grafana-loki" => Ok(Vendor::Loki),
            "elasticsearch" | "elastic" | "es" | "opensearch" => Ok(Vendor::Elasticsearch),
            "otlp" | "opentelemetry" | "otel" => Ok(Vendor::Otlp),
            _ => Err(ConfigError::new(
                "vendor",
                s,
                format!(
                    "unknown vendor; choose one of: {}",
                    Vendor::ALL
                        .iter()
                        .map(|v| v.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )),
        }
    }
}

impl std::str::FromStr for OtlpEncoding {
    type Err = ConfigError;

    fn from_str(s: &str) -> Result<OtlpEncoding, ConfigError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "protobuf" | "proto" => Ok(OtlpEncoding::Protobuf),
            "json" => Ok(OtlpEncoding::Json),
            _ => Err(ConfigError::new(
                "otlp_encoding",
                s,
                "must be one of protobuf, json",
            )),
        }
    }
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
    /// The source (Datadog `ddsource`, Splunk `source`, New Relic `logtype`, Dynatrace
    /// `log.source`). Default `rust`.
    pub source: Option<String>,
    /// Host name attached to every event. Default: this machine's host name.
    pub hostname: Option<String>,
    /// Tags as `key:value` strings, mapped to each vendor's own tag or attribute fields.
    pub tags: Vec<String>,
    /// Splunk `index` (default: the token's default index).
    pub splunk_index: Option<String>,
    /// Splunk `sourcetype`. Default `_json`.
    pub splunk_sourcetype: Option<String>,
    /// Splunk request channel: a GUID, or `auto` to generate one. Default: none.
    pub splunk_channel: Option<String>,
    /// Loki tenant, sent as `X-Scope-OrgID`. Default: none (single-tenant Loki).
    pub tenant_id: Option<String>,
    /// User name for HTTP basic auth (Loki behind a gateway, Grafana Cloud: the
    /// instance ID; Elasticsearch / OpenSearch). Sent only together with `password`.
    pub username: Option<String>,
    /// Password or token for HTTP basic auth. A secret: never printed.
    pub password: Option<Secret>,
    /// Static Loki stream labels as `name=value` strings (names `[a-zA-Z_][a-zA-Z0-9_]*`),
    /// added to `service` and `level`. Keep them low-cardinality.
    pub loki_labels: Vec<String>,
    /// Loki lines (the message) longer than this many bytes are truncated and counted
    /// (Loki's `max_line_size`). Default 256 KiB.
    pub max_line_bytes: usize,
    /// OTLP body encoding: protobuf (default) or JSON.
    pub otlp_encoding: OtlpEncoding,
    /// Most uncompressed bytes in one request for intakes whose server decides it
    /// (Splunk's `max_content_length`, default 1,000,000, which fits hardened servers;
    /// Elasticsearch's `http.max_content_length`, default 100 MB).
    pub max_request_bytes: Option<usize>,
    /// Elasticsearch / OpenSearch target: a data stream or an index, optionally with a
    /// UTC date pattern taken from each event's timestamp (`%Y`, `%m`, `%d`, `%H`, e.g.
    /// `logs-%Y.%m.%d`). Default `logs-logship-default` (a data stream).
    pub index: Option<String>,
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
    /// Print start-up warnings, permanent delivery errors and the shutdown report to stderr.
    /// Default on.
    pub report_to_stderr: bool,
    /// Write events that cannot be delivered now (intake down, retries exhausted, a
    /// backlog the senders cannot drain, shutdown out of time) to disk and replay them
    /// later. Default on.
    pub spill_enabled: bool,
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
            source: None,
            hostname: None,
            tags: Vec::new(),
            splunk_index: None,
            splunk_sourcetype: None,
            splunk_channel: None,
            tenant_id: None,
            username: None,
            password: None,
            loki_labels: Vec::new(),
            max_line_bytes: 256 * 1024,
            otlp_encoding: OtlpEncoding::Protobuf,
            max_request_bytes: None,
            index: None,
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
            report_to_stderr: true,
            spill_enabled: true,
            spill_dir: None,
            spill_max_bytes: SpillConfig::DEFAULT_MAX_TOTAL_BYTES,
            spill_segment_bytes: SpillConfig::DEFAULT_SEGMENT_MAX_BYTES,
            spill_full: SpillFull::DropOldest,
            spill_fsync: SpillFsync::OnSegmentClose,
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
            .field("source", &self.source)
            .field("hostname", &self.hostname)
            .field("tags", &self.tags)
            .field("splunk_index", &self.splunk_index)
            .field("splunk_sourcetype", &self.splunk_sourcetype)
            .field("splunk_channel", &self.splunk_channel)
            .field("tenant_id", &self.tenant_id)
            .field("username", &self.username)
            .field("password", &self.password)
            .field("loki_labels", &self.loki_labels)
            .field("max_line_bytes", &self.max_line_bytes)
            .field("otlp_encoding", &self.otlp_encoding)
            .field("max_request_bytes", &self.max_request_bytes)
            .field("index", &self.index)
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
            .field("spill_enabled", &self.spill_enabled)
            .field("spill_dir", &self.spill_dir)
            .field("spill_max_bytes", &self.spill_max_bytes)
            .field("spill_segment_bytes", &self.spill_segment_bytes)
            .field("spill_full", &self.spill_full)
            .field("spill_fsync", &self.spill_fsync)
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
        None => base.to_owned(),
    };
    if had_query {
        format!("{base}?[redacted]")
    } else {
        base
    }
}

fn range<T: PartialOrd + fmt::Display + Copy>(
    field: &'static str,
    value: T,
    min: T,
    max: T,
    unit: &str,
) -> Result<(), ConfigError> {
    if value < min || value > max {
        return Err(ConfigError::new(
            field,
            value,
            format!("must be {min}..={max}{unit}"),
        ));
    }
    Ok(())
}

fn millis(field: &'static str, d: Duration, min_ms: u64, max_ms: u64) -> Result<(), ConfigError> {
    range(field, d.as_millis() as u64, min_ms, max_ms, " milliseconds")
}

impl Config {
    /// Checks every option; the first unusable one is returned as an error naming it.
    pub fn validate(&self) -> Result<(), ConfigError> {
        match self.endpoint.as_deref() {
            None | Some("") => {
                if crate::protocol::needs_endpoint(self.vendor) {
                    return Err(ConfigError::new(
                        "endpoint",
                        "(none)",
                        "an endpoint URL is required",
                    )
                    .fix(crate::protocol::endpoint_example(self.vendor)));
                }
            }
            Some(url) => validate_url(url)?,
        }
        crate::protocol::validate(self)?;
        for (name, value) in &self.headers {
            if name.is_empty()
                || !name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
            {
                return Err(
                    ConfigError::new("header", name, "is not a valid HTTP header name")
                        .fix("use the form 'Name: value', e.g. 'X-Api-Key: abc'"),
                );
            }
            if value
                .expose()
                .bytes()
                .any(|b| b == b'\r' || b == b'\n' || b == 0)
            {
                return Err(ConfigError::new(
                    "header",
                    format!("{name}: [redacted]"),
                    "header values may not contain line breaks or NUL",
                ));
            }
        }
        range(
            "max_batch_records",
            self.max_batch_records,
            1,
            1_000_000,
            "",
        )?;
        range(
            "max_batch_bytes",
            self.max_batch_bytes,
            1024,
            256 * 1024 * 1024,
            " bytes",
        )?;
        millis("linger_ms", self.linger, 0, 600_000)?;
        range("queue_capacity", self.queue_capacity, 1, 100_000_000, "")?;
        range(
            "queue_max_bytes",
            self.queue_max_bytes,
            64 * 1024,
            64 * 1024 * 1024 * 1024,
            " bytes",
        )?;
        if let Overflow::Block(t) = self.overflow {
            millis("block_timeout_ms", t, 1, 60_000)?;
        }
        range("max_in_flight", self.max_in_flight, 1, 64, "")?;
        range("gzip_level", self.gzip_level, 0, 9, "")?;
        range("max_retries", self.max_retries, 0, 100, "")?;
        millis(
            "retry_initial_backoff_ms",
            self.retry_initial_backoff,
            1,
            600_000,
        )?;
        millis("retry_max_backoff_ms", self.retry_max_backoff, 1, 3_600_000)?;
        if self.retry_max_backoff < self.retry_initial_backoff {
            return Err(ConfigError::new(
                "retry_max_backoff_ms",
                self.retry_max_backoff.as_millis(),
                format!(
                    "must be at least retry_initial_backoff_ms ({})",
                    self.retry_initial_backoff.as_millis()
                ),
            ));
        }
        millis("connect_timeout_ms", self.connect_timeout, 1, 600_000)?;
        millis("request_timeout_ms", self.request_timeout, 1, 3_600_000)?;
        millis("shutdown_timeout_ms", self.shutdown_timeout, 0, 3_600_000)?;
        range(
            "max_event_bytes",
            self.max_event_bytes,
            1024,
            256 * 1024 * 1024,
            " bytes",
        )?;
        range(
            "max_line_bytes",
            self.max_line_bytes,
            1024,
            256 * 1024 * 1024,
            " bytes",
        )?;
        if self.spill_enabled {
            range(
                "spill_segment_bytes",
                self.spill_segment_bytes,
                64 * 1024,
                1 << 30,
                " bytes",
            )?;
            if self.spill_max_bytes < self.spill_segment_bytes * 2 {
                return Err(ConfigError::new(
                    "spill_max_bytes",
                    self.spill_max_bytes,
                    format!(
                        "must be at least twice spill_segment_bytes ({})",
                        self.spill_segment_bytes
                    ),
                )
                .fix("raise spill_max_bytes or lower spill_segment_bytes"));
            }
        }
        if let Some(n) = self.max_request_bytes {
            range(
                "max_request_bytes",
                n,
                16 * 1024,
                1024 * 1024 * 1024,
                " bytes",
            )?;
        }
        for tag in &self.tags {
            if tag.trim().is_empty() || tag.contains(',') {
                return Err(ConfigError::new(
                    "tags",
                    tag,
                    "each tag must be a non-empty key:value without commas",
                )
                .fix("write tags as env:prod,team:payments"));
            }
        }
        Ok(())
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

fn validate_url(url: &str) -> Result<(), ConfigError> {
    let shown = redact_url(url);
    let uri: ureq::http::Uri = url.parse().map_err(|e| {
        ConfigError::new("endpoint", &shown, format!("is not a valid URL ({e})"))
            .fix("use a full URL such as https://intake.example.com/v1/logs")
    })?;
    match uri.scheme_str() {
        Some("http") | Some("https") => {}
        _ => {
            return Err(
                ConfigError::new("endpoint", &shown, "must start with http:// or https://")
                    .fix("add the scheme, e.g. https://"),
            )
        }
    }
    if uri.host().is_none_or(str::is_empty) {
        return Err(ConfigError::new("endpoint", &shown, "has no host"));
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;

    fn valid() -> Config {
        Config {
            endpoint: Some("http://127.0.0.1:9/logs".into()),
            ..Config::default()
        }
    }

    #[test]
    fn defaults_follow_the_java_appender() {
        let c = Config::default();
        assert_eq!(c.max_batch_records, 200);
        assert_eq!(c.max_batch_bytes, 1 << 20);
        assert_eq!(c.linger, Duration::from_secs(1));
        assert_eq!(c.queue_capacity, 10_000);
        assert!(c.gzip);
        assert_eq!(c.max_retries, 3);
        assert_eq!(c.max_in_flight, 16);
        assert!(c.adaptive_concurrency);
        valid().validate().unwrap();
    }

    #[test]
    fn bad_values_name_the_field_and_the_allowed_range() {
        let cases: Vec<(Config, &str)> = vec![
            (
                Config {
                    endpoint: None,
                    ..valid()
                },
                "endpoint = (none): an endpoint URL is required",
            ),
            (
                Config {
                    endpoint: Some("ftp://x/y".into()),
                    ..valid()
                },
                "endpoint = ftp://x/y: must start with http:// or https://",
            ),
            (
                Config {
                    linger: Duration::from_secs(3600),
                    ..valid()
                },
                "linger_ms = 3600000: must be 0..=600000 milliseconds",
            ),
            (
                Config {
                    max_batch_records: 0,
                    ..valid()
                },
                "max_batch_records = 0: must be 1..=1000000",
            ),
            (
                Config {
                    max_in_flight: 0,
                    ..valid()
                },
                "max_in_flight = 0: must be 1..=64",
            ),
            (
                Config {
                    gzip_level: 12,
                    ..valid()
                },
                "gzip_level = 12: must be 0..=9",
            ),
            (
                Config {
                    headers: vec![("Bad Name".into(), "v".into())],
                    ..valid()
                },
                "header = Bad Name: is not a valid HTTP header name",
            ),
        ];
        for (config, want) in cases {
            let err = config.validate().unwrap_err().to_string();
            assert!(err.starts_with(want), "got {err:?}, want {want:?}");
        }
    }

    #[test]
    fn debug_hides_header_values_and_url_secrets() {
        let c = Config {
            endpoint: Some("https://user:pw@host.example/p?api_key=sk123".into()),
            headers: vec![("Authorization".into(), "Bearer sk123".into())],
            ..Config::default()
        };
        let shown = format!("{c:?}");
        assert!(!shown.contains("sk123"), "{shown}");
        assert!(!shown.contains("pw"), "{shown}");
        assert!(shown.contains("host.example"));
    }

    #[test]
    fn loopback_detection() {
        assert!(is_loopback_url("http://127.0.0.1:8/x"));
        assert!(is_loopback_url("http://localhost/x"));
        assert!(!is_loopback_url("http://example.com/x"));
    }
}
