//! THE table's first part: the pipeline's own options (where to send, how to batch, send,
//! retry and spill), the [`Config`] struct generated from them, and the list of option
//! groups it holds (each group's rows live with its struct).
//!
//! Why it exists: one row per option is the only copy of that option's facts; see
//! `config/options.rs` for everything generated from a row. The order of the rows is the
//! order `config check` shows keys in. A getter must never return a secret.

use std::path::PathBuf;
use std::time::Duration;

use crate::config::key::{Flag::*, Kind};
use crate::config::key_parts::*;
use crate::config::options::options;
use crate::config::value::{list, quote};
use crate::config::{redact_url, Overflow, SpanFields, Vendor};
use crate::spill::{SpillConfig, SpillFsync, SpillFull};
use crate::support::secret::Secret;

options! {
    /// The full configuration of a pipeline. Build it with [`crate::Builder`], a file
    /// ([`Config::load`]), the environment ([`Config::apply_env`]) or [`crate::Layered`];
    /// every field has a documented default, and every field is one key of the key table
    /// (`logship config keys` lists them).
    #[derive(Clone)]
    #[non_exhaustive]
    pub struct Config {
        setters: pipeline_setters,
        debug: generated,
        groups: [
            /// Splunk HTTP Event Collector options (keys `splunk_*`).
            splunk: crate::vendors::splunk::options::SplunkOptions => fn splunk,
            /// Grafana Loki options (keys `tenant_id`, `loki_labels`, `max_line_bytes`).
            loki: crate::vendors::loki::options::LokiOptions => fn loki,
            /// Elasticsearch / OpenSearch options (key `index`).
            elasticsearch: crate::vendors::elasticsearch::options::ElasticsearchOptions => fn elasticsearch,
            /// OpenTelemetry OTLP/HTTP options (key `otlp_encoding`).
            otlp: crate::vendors::otlp::options::OtlpOptions => fn otlp,
            /// Apache Kafka output options (keys `kafka_*`).
            kafka: crate::vendors::kafka::options::KafkaOptions => fn kafka,
            /// Redaction of secrets and personal data before events leave the process
            /// (keys `redact*`). Default: off.
            redaction: crate::config::RedactionConfig,
            /// Burst limits, sampling and drop notices (keys `burst_*`, `sample_*`,
            /// `drop_notices`). Default: all off.
            control: crate::config::ControlConfig,
            /// Volume budgets (keys `budget_*`). Default: no cap.
            budget: crate::config::BudgetConfig,
            /// The stall alarm and the `metrics` export (keys `stall_after_ms`,
            /// `metrics_interval_ms`).
            observe: crate::config::ObserveConfig,
            /// What the `logship` command follows (its `[follow]` section). The library
            /// never reads files: it only carries these for the command.
            follow: crate::config::FollowOptions,
            /// What the `logship` command listens on (its `[listen]` section). The library
            /// never listens: it only carries these for the command.
            listen: crate::config::ListenOptions,
            /// SASL and TLS of the `logship` command's Kafka inputs (keys
            /// `listen.kafka_*`, in its `[listen]` section). The library never consumes.
            kafka_input: crate::vendors::kafka::input_options::KafkaInputOptions,
        ],
        rows: [
            /// Wire format of the intake.
            vendor: Vendor = Vendor::default() => {
                name: "vendor",
                kind: Kind::Vendor,
                flag: Value("--vendor"),
                default: "`ndjson`",
                doc: "`ndjson`, `json`, `datadog`, `splunk`, `newrelic`, `dynatrace`, `loki`, `elasticsearch`, `otlp`, `kafka`",
                set: |c, v| c.vendor = v.vendor(),
                get: |c| Some(quote(c.vendor.name())),
                setter: fn vendor(vendor: crate::Vendor) |f| *f = vendor,
            },
            /// The URL batches are POSTed to; for a vendor, a URL without a path gets the
            /// vendor's standard path. Required for generic intakes.
            endpoint: Option<String> = None => {
                name: "endpoint",
                kind: Kind::Url,
                flag: Value("--endpoint"),
                default: "none (datadog/newrelic: public intake)",
                doc: "URL to POST to; for a vendor, a URL without a path gets the standard path",
                set: |c, v| c.endpoint = v.text(),
                get: |c| c.endpoint.as_deref().map(|u| quote(&redact_url(u))),
                setter: fn endpoint(url: impl Into<String>) |f| *f = Some(url.into()),
            },
            /// Extra request headers (an authorisation header, say). Values are secrets:
            /// never printed. The setter adds one.
            headers: Vec<(String, Secret)> = Vec::new() => {
                name: "headers",
                kind: Kind::Headers,
                flag: Each("--header"),
                default: "none",
                doc: "extra request headers (values treated as secrets)",
                set: |c, v| c.headers = v.headers(),
                get: |c| {
                    (!c.headers.is_empty()).then(|| {
                        let items: Vec<String> = c
                            .headers
                            .iter()
                            .map(|(k, _)| format!("{} = \"[redacted]\"", quote(k)))
                            .collect();
                        format!("{{ {} }}", items.join(", "))
                    })
                },
                setter: fn header(name: impl Into<String>, value: impl Into<crate::Secret>)
                    |f| f.push((name.into(), value.into())),
            },
            /// The vendor's API key or token. When unset, read from the vendor's own
            /// environment variable (`DD_API_KEY`, `SPLUNK_HEC_TOKEN`,
            /// `NEW_RELIC_LICENSE_KEY`, `DT_API_TOKEN`), then from `LOGSHIP_API_KEY`.
            api_key: Option<Secret> = None => {
                name: "api_key",
                kind: Kind::Secret,
                vendor_env: true,
                flag: Value("--api-key"),
                default: "the vendor's variable (`DD_API_KEY`, `SPLUNK_HEC_TOKEN`, `NEW_RELIC_LICENSE_KEY`, `DT_API_TOKEN`)",
                doc: "vendor key or token",
                set: |c, v| c.api_key = v.secret(),
                get: |c| redacted(&c.api_key),
                setter: fn api_key(key: impl Into<crate::Secret>) |f| *f = Some(key.into()),
            },
            /// A file holding the vendor's API key or token (its whole text, trimmed),
            /// read at start-up: keeps the key out of the command line
            /// (`/proc/PID/cmdline`), the environment and the config file. Used when
            /// `api_key` is set nowhere (nor the vendor's own variable).
            api_key_file: Option<PathBuf> = None => {
                name: "api_key_file",
                kind: Kind::Path,
                flag: Value("--api-key-file"),
                default: "none",
                doc: "a file holding the vendor key or token (keeps it out of the command line and the environment)",
                set: |c, v| c.api_key_file = v.text().map(Into::into),
                get: |c| c.api_key_file.as_ref().map(|p| quote(&p.display().to_string())),
                setter: fn api_key_file(path: impl Into<std::path::PathBuf>) |f| *f = Some(path.into()),
            },
            /// User name for HTTP basic auth (Loki behind a gateway, Grafana Cloud: the
            /// instance ID; Elasticsearch / OpenSearch). Sent only together with `password`.
            username: Option<String> = None => {
                name: "username",
                kind: Kind::Str,
                flag: Value("--username"),
                builder: "basic_auth",
                default: "none",
                doc: "basic-auth user (Elasticsearch/OpenSearch, Loki gateways, Grafana Cloud user id)",
                set: |c, v| c.username = v.text(),
                get: |c| text(&c.username),
            },
            /// Password or token for HTTP basic auth. A secret: never printed.
            password: Option<Secret> = None => {
                name: "password",
                kind: Kind::Secret,
                flag: Value("--password"),
                builder: "basic_auth",
                default: "none",
                doc: "basic-auth password or token (a secret)",
                set: |c, v| c.password = v.secret(),
                get: |c| redacted(&c.password),
            },
            /// Datadog site, e.g. `datadoghq.com`, `datadoghq.eu`, `us3.datadoghq.com`.
            site: Option<String> = None => {
                name: "site",
                kind: Kind::Str,
                flag: Value("--site"),
                default: "`datadoghq.com`",
                doc: "Datadog site (us3, us5, eu, ap1, ap2, uk1, gov, us2.gov)",
                set: |c, v| c.site = v.text(),
                get: |c| text(&c.site),
                setter: fn site(site: impl Into<String>) |f| *f = Some(site.into()),
            },
            /// New Relic region: `us`, `eu`, `jp`, `fedramp`.
            region: Option<String> = None => {
                name: "region",
                kind: Kind::Str,
                flag: Value("--region"),
                default: "`us`",
                doc: "New Relic region: us, eu, jp, fedramp",
                set: |c, v| c.region = v.text(),
                get: |c| text(&c.region),
                setter: fn region(region: impl Into<String>) |f| *f = Some(region.into()),
            },
            /// The service name attached to every event.
            service: Option<String> = None => {
                name: "service",
                kind: Kind::Str,
                flag: Value("--service"),
                default: "none",
                doc: "service name on every event",
                set: |c, v| c.service = v.text(),
                get: |c| text(&c.service),
                setter: fn service(service: impl Into<String>) |f| *f = Some(service.into()),
            },
            /// The deployment environment (`prod`, `staging`) on every event, in each
            /// vendor's own field (Datadog's `env` tag, OTLP `deployment.environment.name`).
            env: Option<String> = None => {
                name: "env",
                kind: Kind::Str,
                flag: Value("--env"),
                default: "none (datadog: `DD_ENV`)",
                doc: "deployment environment on every event, in each vendor's field (Datadog `env` tag, OTLP `deployment.environment.name`)",
                set: |c, v| c.env = v.text(),
                get: |c| text(&c.env),
                setter: fn env(env: impl Into<String>) |f| *f = Some(env.into()),
            },
            /// The service's version on every event, in each vendor's own field (Datadog's
            /// `version` tag, OTLP `service.version`).
            version: Option<String> = None => {
                name: "version",
                kind: Kind::Str,
                flag: Value("--service-version"),
                default: "none (datadog: `DD_VERSION`)",
                doc: "service version on every event, in each vendor's field (Datadog `version` tag, OTLP `service.version`)",
                set: |c, v| c.version = v.text(),
                get: |c| text(&c.version),
                setter: fn version(version: impl Into<String>) |f| *f = Some(version.into()),
            },
            /// The source on every event (Datadog `ddsource`, Splunk `source`, New Relic
            /// `logtype`, Dynatrace `log.source`).
            source: Option<String> = None => {
                name: "source",
                kind: Kind::Str,
                flag: Value("--source"),
                default: "`rust`",
                doc: "ddsource / source / logtype / log.source",
                set: |c, v| c.source = v.text(),
                get: |c| text(&c.source),
                setter: fn source(source: impl Into<String>) |f| *f = Some(source.into()),
            },
            /// The host name attached to every event.
            hostname: Option<String> = None => {
                name: "hostname",
                kind: Kind::Str,
                flag: Value("--hostname"),
                default: "this machine's",
                doc: "host field on every event",
                set: |c, v| c.hostname = v.text(),
                get: |c| text(&c.hostname),
                setter: fn hostname(hostname: impl Into<String>) |f| *f = Some(hostname.into()),
            },
            /// Tags as `key:value` strings, mapped to each vendor's own tag or attribute
            /// fields. The setter adds one.
            tags: Vec<String> = Vec::new() => {
                name: "tags",
                kind: TAGS,
                flag: Many("--tags"),
                default: "none",
                doc: "tags mapped to each vendor's tag fields",
                set: |c, v| c.tags = v.list(),
                get: |c| list(&c.tags),
                setter: fn tag(tag: impl Into<String>) |f| f.push(tag.into()),
            },
            /// Where span fields go: at the event's root (the innermost span's value wins)
            /// or as `<span>.<field>`. Either way no name is ever written twice.
            span_fields: SpanFields = SpanFields::Root => {
                name: "span_fields",
                kind: Kind::Choice(SpanFields::NAMES),
                flag: Value("--span-fields"),
                default: "`root`",
                doc: "span fields at the event's root (`root`, innermost span wins) or as `<span>.<field>` (`prefixed`)",
                set: |c, v| c.span_fields = SpanFields::ALL[v.choice()],
                get: |c| choice(SpanFields::NAMES, &SpanFields::ALL, &c.span_fields),
                setter: fn span_fields(mode: crate::SpanFields) |f| *f = mode,
            },
            /// Whether each event's id is shipped: as `_id` for Elasticsearch/OpenSearch
            /// (a replay is then refused with 409 instead of stored twice), as an attribute
            /// (`logship.id`, ...) for the other vendors.
            event_id: bool = true => {
                name: "event_id",
                kind: Kind::Bool,
                flag: Off("--no-event-id"),
                default: "true",
                doc: "ship each event's id: Elasticsearch `_id` (a replayed event answers 409 instead of being stored twice; off: the cluster picks ids, a little faster to index), other vendors the attribute `logship.id` (OTLP `log.record.uid`, Loki `logship_id`; docs/vendors.md)",
                set: |c, v| c.event_id = v.bool(),
                get: |c| Some(c.event_id.to_string()),
                setter: fn event_id(on: bool) |f| *f = on,
            },
            /// Most uncompressed bytes in one request for intakes whose server decides it
            /// (Splunk's `max_content_length`, default 1,000,000; Elasticsearch's
            /// `http.max_content_length`, default 100 MB).
            max_request_bytes: Option<usize> = None => {
                name: "max_request_bytes",
                kind: int(16 * 1024, 1024 * 1024 * 1024, BYTES),
                flag: Value("--max-request-bytes"),
                default: "1,000,000 (Splunk)",
                doc: "largest uncompressed request where the server sets it",
                set: |c, v| c.max_request_bytes = Some(v.usize()),
                get: |c| c.max_request_bytes.map(|n| n.to_string()),
                setter: fn max_request_bytes(n: usize) |f| *f = Some(n),
            },
            /// Flush a batch when it holds this many events.
            max_batch_records: usize = 200 => {
                name: "max_batch_records",
                kind: int(1, 1_000_000, ""),
                attribute: "maxBatchRecords",
                flag: Value("--max-batch-records"),
                default: "200 (`ship --follow` and `--listen`: 1,000; `ship` to Kafka: 2,000)",
                doc: "flush when a batch has this many events (the vendor's own limit caps it)",
                set: |c, v| c.max_batch_records = v.usize(),
                get: |c| Some(c.max_batch_records.to_string()),
                setter: fn max_batch_records(n: usize) |f| *f = n,
            },
            /// Flush a batch before its encoded, uncompressed body would exceed this.
            max_batch_bytes: usize = 1024 * 1024 => {
                name: "max_batch_bytes",
                kind: int(1024, 256 * 1024 * 1024, BYTES),
                attribute: "maxBatchBytes",
                flag: Value("--max-batch-bytes"),
                default: "1 MiB",
                doc: "flush before the encoded, uncompressed body would exceed this",
                set: |c, v| c.max_batch_bytes = v.usize(),
                get: |c| Some(c.max_batch_bytes.to_string()),
                setter: fn max_batch_bytes(n: usize) |f| *f = n,
            },
            /// Flush a batch when its oldest event is this old.
            linger: Duration = Duration::from_millis(1000) => {
                name: "linger_ms",
                kind: int(0, 600_000, MS),
                attribute: "lingerMillis",
                flag: Value("--linger-ms"),
                default: "1000",
                doc: "flush when the oldest event in the batch is this old",
                set: |c, v| c.linger = ms(v.int()),
                get: |c| millis(c.linger),
                setter: fn linger(d: std::time::Duration) |f| *f = d,
            },
            /// Most events waiting in the queue.
            queue_capacity: usize = 10_000 => {
                name: "queue_capacity",
                kind: int(1, 100_000_000, ""),
                attribute: "queueCapacity",
                flag: Value("--queue-capacity"),
                default: "10,000",
                doc: "events the queue holds",
                set: |c, v| c.queue_capacity = v.usize(),
                get: |c| Some(c.queue_capacity.to_string()),
                setter: fn queue_capacity(n: usize) |f| *f = n,
            },
            /// Most bytes of events held in memory: queued, batched or in flight.
            queue_max_bytes: usize = 64 * 1024 * 1024 => {
                name: "queue_max_bytes",
                kind: int(64 * 1024, 64 * 1024 * 1024 * 1024, BYTES),
                flag: Value("--queue-max-bytes"),
                default: "64 MiB",
                doc: "bytes held in memory: queued, batched and in flight",
                set: |c, v| c.queue_max_bytes = v.usize(),
                get: |c| Some(c.queue_max_bytes.to_string()),
                setter: fn queue_max_bytes(n: usize) |f| *f = n,
            },
            /// What a log call does when the queue is full: drop and count (the default),
            /// or wait up to a bound (key `block_timeout_ms`).
            overflow: Overflow = Overflow::DropNewest => {
                name: "block_timeout_ms",
                kind: int(1, 60_000, MS),
                flag: Value("--block-timeout-ms"),
                default: "unset: drop and count",
                doc: "when set, a full queue makes the caller wait up to this long (≤ 60 s)",
                set: |c, v| c.overflow = Overflow::Block(ms(v.int())),
                get: |c| match c.overflow {
                    Overflow::Block(d) => millis(d),
                    Overflow::DropNewest => None,
                },
                setter: fn overflow(policy: crate::Overflow) |f| *f = policy,
            },
            /// Most requests in flight at once (one sender thread each): the ceiling of
            /// the adaptive limit, or the fixed number when `adaptive_concurrency` is off.
            max_in_flight: usize = 16 => {
                name: "max_in_flight",
                kind: int(1, 64, ""),
                flag: Value("--max-in-flight"),
                default: "16",
                doc: "most requests in flight (one sender thread each, started as the limit grows): the adaptive limit's ceiling",
                set: |c, v| c.max_in_flight = v.usize(),
                get: |c| Some(c.max_in_flight.to_string()),
                setter: fn max_in_flight(n: usize) |f| *f = n,
            },
            /// Adapt the number of requests in flight to the intake's answers (AIMD, like
            /// Vector's adaptive request concurrency), between 1 and `max_in_flight`. A
            /// vendor with a transport of its own (`kafka`) gives no HTTP answers to learn
            /// from: its limit is `max_in_flight`, fixed.
            adaptive_concurrency: bool = true => {
                name: "adaptive_concurrency",
                kind: Kind::Bool,
                flag: Off("--no-adaptive-concurrency"),
                default: "true",
                doc: "adapt HTTP requests in flight to the intake (1 to `max_in_flight`); off, and for `kafka` (no HTTP answers to learn from): fixed at `max_in_flight`",
                set: |c, v| c.adaptive_concurrency = v.bool(),
                get: |c| Some(c.adaptive_concurrency.to_string()),
                setter: fn adaptive_concurrency(on: bool) |f| *f = on,
            },
            /// Compress request bodies with gzip.
            gzip: bool = true => {
                name: "gzip",
                kind: Kind::Bool,
                flag: Off("--no-gzip"),
                default: "true",
                doc: "gzip request bodies",
                set: |c, v| c.gzip = v.bool(),
                get: |c| Some(c.gzip.to_string()),
                setter: fn gzip(on: bool) |f| *f = on,
            },
            /// gzip level, 0 (stored) to 9 (smallest, slowest); checked by `build`. The
            /// default, 2, keeps 97.6 to 99.4 % of level 3's ratio for 59 to 69 % of its
            /// instructions on logship's bodies (docs/performance.md, "Compressor and level").
            gzip_level: u32 = 2 => {
                name: "gzip_level",
                kind: int(0, 9, ""),
                flag: Value("--gzip-level"),
                default: "2",
                doc: "gzip level 0..=9",
                set: |c, v| c.gzip_level = v.u32(),
                get: |c| Some(c.gzip_level.to_string()),
                setter: fn gzip_level(level: u32) |f| *f = level,
            },
            /// Retries of a failed request (network errors, 408, 429, 5xx).
            max_retries: u32 = 3 => {
                name: "max_retries",
                kind: int(0, 100, ""),
                attribute: "maxRetries",
                flag: Value("--max-retries"),
                default: "3",
                doc: "retries of a failed request",
                set: |c, v| c.max_retries = v.u32(),
                get: |c| Some(c.max_retries.to_string()),
                setter: fn max_retries(n: u32) |f| *f = n,
            },
            /// The first retry delay's ceiling; it doubles per retry, with full jitter.
            retry_initial_backoff: Duration = Duration::from_millis(200) => {
                name: "retry_initial_backoff_ms",
                kind: int(1, 600_000, MS),
                flag: Value("--retry-initial-backoff-ms"),
                builder: "retry_backoff",
                default: "200",
                doc: "first backoff (jittered, doubling)",
                set: |c, v| c.retry_initial_backoff = ms(v.int()),
                get: |c| millis(c.retry_initial_backoff),
            },
            /// The longest delay between retries, also the cap on `Retry-After`.
            retry_max_backoff: Duration = Duration::from_secs(10) => {
                name: "retry_max_backoff_ms",
                kind: int(1, 3_600_000, MS),
                flag: Value("--retry-max-backoff-ms"),
                builder: "retry_backoff",
                default: "10,000",
                doc: "backoff ceiling (also caps `Retry-After`)",
                set: |c, v| c.retry_max_backoff = ms(v.int()),
                get: |c| millis(c.retry_max_backoff),
            },
            /// TCP + TLS connect timeout.
            connect_timeout: Duration = Duration::from_secs(5) => {
                name: "connect_timeout_ms",
                kind: int(1, 600_000, MS),
                flag: Value("--connect-timeout-ms"),
                builder: "timeouts",
                default: "5,000",
                doc: "per connection attempt",
                set: |c, v| c.connect_timeout = ms(v.int()),
                get: |c| millis(c.connect_timeout),
            },
            /// Whole-request timeout (send and response).
            request_timeout: Duration = Duration::from_secs(30) => {
                name: "request_timeout_ms",
                kind: int(1, 3_600_000, MS),
                flag: Value("--request-timeout-ms"),
                builder: "timeouts",
                default: "30,000",
                doc: "per request",
                set: |c, v| c.request_timeout = ms(v.int()),
                get: |c| millis(c.request_timeout),
            },
            /// How long the guard's drop (and `shutdown`) may take to deliver what is left.
            shutdown_timeout: Duration = Duration::from_secs(5) => {
                name: "shutdown_timeout_ms",
                kind: int(0, 3_600_000, MS),
                flag: Value("--shutdown-timeout-ms"),
                default: "5,000 (CLI: 30,000)",
                doc: "how long shutdown may take",
                set: |c, v| c.shutdown_timeout = ms(v.int()),
                get: |c| millis(c.shutdown_timeout),
                setter: fn shutdown_timeout(d: std::time::Duration) |f| *f = d,
            },
            /// Events larger than this are truncated (with a marker) and counted.
            max_event_bytes: usize = 1024 * 1024 => {
                name: "max_event_bytes",
                kind: int(1024, 256 * 1024 * 1024, BYTES),
                flag: Value("--max-event-bytes"),
                default: "1 MiB",
                doc: "larger events are truncated with a marker and counted",
                set: |c, v| c.max_event_bytes = v.usize(),
                get: |c| Some(c.max_event_bytes.to_string()),
                setter: fn max_event_bytes(n: usize) |f| *f = n,
            },
            /// A PEM bundle of CA certificates trusted besides the operating system's
            /// trust store (an internal CA). Read and checked at `build()`.
            tls_ca_file: Option<PathBuf> = None => {
                name: "tls_ca_file",
                kind: Kind::Path,
                flag: Value("--tls-ca-file"),
                default: "none: the system trust store (`SSL_CERT_FILE`/`SSL_CERT_DIR` honoured)",
                doc: "PEM bundle of CAs trusted besides the system's (an internal CA); read at start-up",
                set: |c, v| c.tls_ca_file = v.text().map(Into::into),
                get: |c| path(&c.tls_ca_file),
                setter: fn tls_ca_file(path: impl Into<std::path::PathBuf>) |f| *f = Some(path.into()),
            },
            /// A PEM client certificate chain for mutual TLS; needs `tls_client_key`.
            tls_client_cert: Option<PathBuf> = None => {
                name: "tls_client_cert",
                kind: Kind::Path,
                flag: Value("--tls-client-cert"),
                builder: "tls_client_cert",
                default: "none",
                doc: "PEM client certificate chain for mutual TLS (with `tls_client_key`)",
                set: |c, v| c.tls_client_cert = v.text().map(Into::into),
                get: |c| path(&c.tls_client_cert),
            },
            /// The PEM private key of `tls_client_cert`. Its contents are a secret.
            tls_client_key: Option<PathBuf> = None => {
                name: "tls_client_key",
                kind: Kind::Path,
                flag: Value("--tls-client-key"),
                builder: "tls_client_cert",
                default: "none",
                doc: "PEM private key of `tls_client_cert` (its contents are never shown)",
                set: |c, v| c.tls_client_key = v.text().map(Into::into),
                get: |c| path(&c.tls_client_key),
            },
            /// Verify the intake's certificate. `false` accepts any certificate for any
            /// name: development only, warned about at start-up, in `config check` and in
            /// [`crate::Stats::tls_verify_disabled`].
            tls_verify: bool = true => {
                name: "tls_verify",
                kind: Kind::Bool,
                flag: Off("--tls-no-verify"),
                default: "true",
                doc: "`false` accepts any certificate: development only, warned about at start-up and in `config check`",
                set: |c, v| c.tls_verify = v.bool(),
                get: |c| Some(c.tls_verify.to_string()),
                setter: fn tls_verify(on: bool) |f| *f = on,
            },
            /// The proxy for this pipeline: a URL (`http://[user:pass@]host:port`, or
            /// `https://` to reach the proxy over TLS), or `none` for a direct connection.
            /// Unset: `https_proxy`/`http_proxy`/`all_proxy` and `no_proxy`, as curl reads
            /// them. Credentials in it are secrets.
            proxy: Option<String> = None => {
                name: "proxy",
                kind: Kind::Str,
                flag: Value("--proxy"),
                default: "`HTTPS_PROXY`/`HTTP_PROXY`/`ALL_PROXY` with `NO_PROXY` (either case)",
                doc: "proxy URL (`http://[user:pass@]host:port`) for this pipeline, or `none`; credentials are secrets",
                set: |c, v| c.proxy = v.text(),
                get: |c| c.proxy.as_deref().map(|u| quote(&redact_url(u))),
                setter: fn proxy(proxy: impl Into<String>) |f| *f = Some(proxy.into()),
            },
            /// Print start-up warnings, permanent delivery errors and the shutdown report
            /// to stderr.
            report_to_stderr: bool = true => {
                name: "report_to_stderr",
                kind: Kind::Bool,
                flag: Off("--no-report-to-stderr"),
                default: "true",
                doc: "print problems and the shutdown report",
                set: |c, v| c.report_to_stderr = v.bool(),
                get: |c| Some(c.report_to_stderr.to_string()),
                setter: fn report_to_stderr(on: bool) |f| *f = on,
            },
            /// Write events that cannot be delivered now (intake down, retries exhausted,
            /// a backlog the senders cannot drain, shutdown out of time) to disk and replay
            /// them later.
            spill_enabled: bool = true => {
                name: "spill_enabled",
                kind: Kind::Bool,
                attribute: "spillEnabled",
                flag: Off("--no-spill"),
                default: "true",
                doc: "keep undeliverable events on disk and replay them",
                set: |c, v| c.spill_enabled = v.bool(),
                get: |c| Some(c.spill_enabled.to_string()),
                setter: fn spill(on: bool) |f| *f = on,
            },
            /// Fail start-up when the spill directory cannot be used (held by another
            /// process, unwritable). Off: the pipeline starts without spill, says so once
            /// on stderr and in [`crate::Stats::spill_unavailable`], and keeps delivering.
            spill_required: bool = false => {
                name: "spill_required",
                kind: Kind::Bool,
                flag: On("--spill-required"),
                default: "false",
                doc: "fail start-up when the spill directory cannot be used (locked, unwritable) instead of running without spill",
                set: |c, v| c.spill_required = v.bool(),
                get: |c| Some(c.spill_required.to_string()),
                setter: fn spill_required(on: bool) |f| *f = on,
            },
            /// A batch whose request has been out this long also gets an insurance copy in
            /// the spill (deleted once it settles), so a crash cannot lose it.
            spill_in_flight_after: Duration = Duration::from_secs(5) => {
                name: "spill_in_flight_after_ms",
                kind: int(100, 600_000, MS),
                flag: Value("--spill-in-flight-after-ms"),
                default: "5000",
                doc: "a batch whose request has been out this long also gets a copy in the spill, so a crash cannot lose it",
                set: |c, v| c.spill_in_flight_after = ms(v.int()),
                get: |c| millis(c.spill_in_flight_after),
                setter: fn spill_in_flight_after(d: std::time::Duration) |f| *f = d,
            },
            /// On a panic anywhere in the program, deliver what is queued first (bounded by
            /// the shorter of `shutdown_timeout` and 2 s), then run the previous panic hook.
            flush_on_panic: bool = true => {
                name: "flush_on_panic",
                kind: Kind::Bool,
                flag: Off("--no-flush-on-panic"),
                default: "true",
                doc: "a panic anywhere in the program first delivers what is queued (at most 2 s)",
                set: |c, v| c.flush_on_panic = v.bool(),
                get: |c| Some(c.flush_on_panic.to_string()),
                setter: fn flush_on_panic(on: bool) |f| *f = on,
            },
            /// The spill directory (one process at a time). Unset: a per-user cache
            /// directory named after the service, `$XDG_CACHE_HOME/logship/<service>` or
            /// `~/.cache/logship/<service>` (`default` without a service).
            spill_dir: Option<PathBuf> = None => {
                name: "spill_dir",
                kind: Kind::Path,
                flag: Value("--spill-dir"),
                builder: "spill_dir",
                default: "`~/.cache/logship/<service>` (`$XDG_CACHE_HOME` first)",
                doc: "the spill directory (one process at a time; by default the first free of `<service>`, `<service>.2` .. `<service>.8`)",
                set: |c, v| c.spill_dir = v.text().map(Into::into),
                get: |c| c.spill_dir.as_ref().map(|p| quote(&p.display().to_string())),
            },
            /// Most bytes of spilled events on disk.
            spill_max_bytes: u64 = SpillConfig::DEFAULT_MAX_TOTAL_BYTES => {
                name: "spill_max_bytes",
                kind: int(128 * 1024, 1 << 50, BYTES),
                when: Reading,
                flag: Value("--spill-max-bytes"),
                builder: "spill_max_bytes",
                default: "1 GiB",
                doc: "spill size cap",
                set: |c, v| c.spill_max_bytes = v.int(),
                get: |c| Some(c.spill_max_bytes.to_string()),
            },
            /// Size of one spill segment file.
            spill_segment_bytes: u64 = SpillConfig::DEFAULT_SEGMENT_MAX_BYTES => {
                name: "spill_segment_bytes",
                kind: int(64 * 1024, 1 << 30, BYTES),
                when: SpillEnabled,
                flag: Value("--spill-segment-bytes"),
                default: "16 MiB",
                doc: "size of one segment file",
                set: |c, v| c.spill_segment_bytes = v.int(),
                get: |c| Some(c.spill_segment_bytes.to_string()),
                setter: fn spill_segment_bytes(n: u64) |f| *f = n,
            },
            /// What happens when the spill is full: drop the oldest segment, or the newest
            /// events (counted either way).
            spill_full: SpillFull = SpillFull::DropOldest => {
                name: "spill_full",
                kind: Kind::Choice(SPILL_FULL_NAMES),
                flag: Value("--spill-full"),
                builder: "spill_max_bytes",
                default: "`drop_oldest`",
                doc: "at the cap: `drop_oldest` or `drop_newest`",
                set: |c, v| c.spill_full = SPILL_FULL[v.choice()],
                get: |c| choice(SPILL_FULL_NAMES, &SPILL_FULL, &c.spill_full),
            },
            /// When spilled data is synced to the device.
            spill_fsync: SpillFsync = SpillFsync::OnSegmentClose => {
                name: "spill_fsync",
                kind: Kind::Choice(SPILL_FSYNC_NAMES),
                flag: Value("--spill-fsync"),
                default: "`on_segment_close`",
                doc: "`always` syncs every write; `never` leaves it to the OS",
                set: |c, v| c.spill_fsync = SPILL_FSYNC[v.choice()],
                get: |c| choice(SPILL_FSYNC_NAMES, &SPILL_FSYNC, &c.spill_fsync),
                setter: fn spill_fsync(policy: crate::SpillFsync) |f| *f = policy,
            },
        ]
    }
}
