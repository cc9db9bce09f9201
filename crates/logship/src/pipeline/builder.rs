//! The builder: every setting of a pipeline, with its default named.
//!
//! Why it exists: the one obvious way to configure a pipeline in code, over the same
//! [`Config`] the file and the environment fill; it holds settings only and starts
//! nothing (see `start` for [`Builder::build`]). It must never accept a value that
//! `build` would not check.

use std::sync::Arc;
use std::time::Duration;

use crate::config::{
    Config, ElasticsearchOptions, Layered, LokiOptions, OtlpOptions, Overflow, SplunkOptions,
    Vendor,
};
use crate::error::ConfigError;
use crate::reporter::{DeliveryError, ErrorCallback};
use crate::secret::Secret;

/// Configures and starts a pipeline. Every setter names its default.
#[derive(Default)]
pub struct Builder {
    pub(super) config: Config,
    pub(super) on_error: Option<ErrorCallback>,
    pub(super) spill_handover: bool,
    pub(super) on_stall: Option<crate::StallCallback>,
    pub(super) budget_clock: Option<crate::BudgetClock>,
}

impl std::fmt::Debug for Builder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Builder")
            .field("config", &self.config)
            .finish()
    }
}

impl Builder {
    /// Starts from a complete configuration.
    pub fn from_config(config: Config) -> Builder {
        Builder {
            config,
            on_error: None,
            spill_handover: false,
            on_stall: None,
            budget_clock: None,
        }
    }

    /// The configuration so far.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Wire format (default NDJSON).
    pub fn vendor(mut self, vendor: Vendor) -> Self {
        self.config.vendor = vendor;
        self
    }

    /// The URL to POST to.
    pub fn endpoint(mut self, url: impl Into<String>) -> Self {
        self.config.endpoint = Some(url.into());
        self
    }

    /// Adds a request header; its value is treated as a secret.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<Secret>) -> Self {
        self.config.headers.push((name.into(), value.into()));
        self
    }

    /// The vendor's API key or token (default: from `DD_API_KEY`, `SPLUNK_HEC_TOKEN`,
    /// `NEW_RELIC_LICENSE_KEY` or `DT_API_TOKEN` by vendor, then `LOGSHIP_API_KEY`).
    pub fn api_key(mut self, key: impl Into<Secret>) -> Self {
        self.config.api_key = Some(key.into());
        self
    }

    /// Datadog site (default `datadoghq.com`).
    pub fn site(mut self, site: impl Into<String>) -> Self {
        self.config.site = Some(site.into());
        self
    }

    /// New Relic region: `us` (default), `eu`, `jp`, `fedramp`.
    pub fn region(mut self, region: impl Into<String>) -> Self {
        self.config.region = Some(region.into());
        self
    }

    /// Service name attached to every event (default none).
    pub fn service(mut self, service: impl Into<String>) -> Self {
        self.config.service = Some(service.into());
        self
    }

    /// The deployment environment (`prod`, `staging`) on every event, in each vendor's own
    /// field (Datadog's `env` tag, OTLP `deployment.environment.name`, ...).
    pub fn env(mut self, env: impl Into<String>) -> Self {
        self.config.env = Some(env.into());
        self
    }

    /// The service's version on every event, in each vendor's own field (Datadog's
    /// `version` tag, OTLP `service.version`, ...).
    pub fn version(mut self, version: impl Into<String>) -> Self {
        self.config.version = Some(version.into());
        self
    }

    /// Source attached to every event (default `rust`).
    pub fn source(mut self, source: impl Into<String>) -> Self {
        self.config.source = Some(source.into());
        self
    }

    /// Host name attached to every event (default: this machine's).
    pub fn hostname(mut self, hostname: impl Into<String>) -> Self {
        self.config.hostname = Some(hostname.into());
        self
    }

    /// Adds a `key:value` tag (default none).
    pub fn tag(mut self, tag: impl Into<String>) -> Self {
        self.config.tags.push(tag.into());
        self
    }

    /// Where span fields go: at the event's root (the default; the innermost span's value
    /// wins) or as `<span>.<field>`. Either way no name is ever written twice.
    pub fn span_fields(mut self, mode: crate::SpanFields) -> Self {
        self.config.span_fields = mode;
        self
    }

    /// Whether each event's id is shipped (default: yes): as `_id` for
    /// Elasticsearch/OpenSearch, whose `create` then refuses a replayed event with 409
    /// instead of storing it twice, and as the attribute `logship.id` (or the vendor's
    /// equivalent, docs/wire-formats.md) elsewhere, for deduplicating in queries.
    pub fn event_id(mut self, on: bool) -> Self {
        self.config.event_id = on;
        self
    }

    /// HTTP basic auth (Loki behind a gateway, Grafana Cloud: instance ID and token;
    /// Elasticsearch / OpenSearch). The password is a secret, never printed.
    pub fn basic_auth(mut self, username: impl Into<String>, password: impl Into<Secret>) -> Self {
        self.config.username = Some(username.into());
        self.config.password = Some(password.into());
        self
    }

    /// The Splunk HTTP Event Collector options, replacing any set before. Default: no
    /// index (the token's default), sourcetype `_json`, no channel.
    pub fn splunk(mut self, options: SplunkOptions) -> Self {
        self.config.splunk = options;
        self
    }

    /// The Grafana Loki options, replacing any set before. Default: no tenant, no
    /// static labels besides `service` and `level`, lines up to 256 KiB.
    pub fn loki(mut self, options: LokiOptions) -> Self {
        self.config.loki = options;
        self
    }

    /// The Elasticsearch / OpenSearch options, replacing any set before. Default: the
    /// data stream `logs-logship-default`.
    pub fn elasticsearch(mut self, options: ElasticsearchOptions) -> Self {
        self.config.elasticsearch = options;
        self
    }

    /// The OpenTelemetry OTLP/HTTP options, replacing any set before. Default: protobuf
    /// bodies.
    pub fn otlp(mut self, options: OtlpOptions) -> Self {
        self.config.otlp = options;
        self
    }

    /// Most uncompressed bytes per request where the server sets it (Splunk, default
    /// 1,000,000; Elasticsearch, default 100 MB).
    pub fn max_request_bytes(mut self, n: usize) -> Self {
        self.config.max_request_bytes = Some(n);
        self
    }

    /// Events per batch (default 200).
    pub fn max_batch_records(mut self, n: usize) -> Self {
        self.config.max_batch_records = n;
        self
    }

    /// Encoded, uncompressed bytes per batch (default 1 MiB).
    pub fn max_batch_bytes(mut self, n: usize) -> Self {
        self.config.max_batch_bytes = n;
        self
    }

    /// Age of the oldest event that forces a flush (default 1000 ms).
    pub fn linger(mut self, d: Duration) -> Self {
        self.config.linger = d;
        self
    }

    /// Events the queue holds (default 10000).
    pub fn queue_capacity(mut self, n: usize) -> Self {
        self.config.queue_capacity = n;
        self
    }

    /// Bytes of events held in memory, queued or in flight (default 64 MiB).
    pub fn queue_max_bytes(mut self, n: usize) -> Self {
        self.config.queue_max_bytes = n;
        self
    }

    /// What a log call does when the queue is full (default: drop and count).
    pub fn overflow(mut self, policy: Overflow) -> Self {
        self.config.overflow = policy;
        self
    }

    /// Most requests in flight (default 16): the ceiling of the adaptive limit, or the
    /// fixed number when adaptive concurrency is off. One sender thread each.
    pub fn max_in_flight(mut self, n: usize) -> Self {
        self.config.max_in_flight = n;
        self
    }

    /// Adapt the number of requests in flight to the intake's answers, between 1 and
    /// `max_in_flight` (default on); off, it is fixed at `max_in_flight`.
    pub fn adaptive_concurrency(mut self, on: bool) -> Self {
        self.config.adaptive_concurrency = on;
        self
    }

    /// gzip request bodies (default on).
    pub fn gzip(mut self, on: bool) -> Self {
        self.config.gzip = on;
        self
    }

    /// gzip level, 0 (stored) to 9 (smallest, slowest); default 3. Checked by `build`.
    pub fn gzip_level(mut self, level: u32) -> Self {
        self.config.gzip_level = level;
        self
    }

    /// Retries per request (default 3).
    pub fn max_retries(mut self, n: u32) -> Self {
        self.config.max_retries = n;
        self
    }

    /// First and largest retry delay (defaults 200 ms and 10 s).
    pub fn retry_backoff(mut self, initial: Duration, max: Duration) -> Self {
        self.config.retry_initial_backoff = initial;
        self.config.retry_max_backoff = max;
        self
    }

    /// Connect and whole-request timeouts (defaults 5 s and 30 s).
    pub fn timeouts(mut self, connect: Duration, request: Duration) -> Self {
        self.config.connect_timeout = connect;
        self.config.request_timeout = request;
        self
    }

    /// How long the guard's drop may take (default 5 s).
    pub fn shutdown_timeout(mut self, d: Duration) -> Self {
        self.config.shutdown_timeout = d;
        self
    }

    /// Largest event before truncation (default 1 MiB).
    pub fn max_event_bytes(mut self, n: usize) -> Self {
        self.config.max_event_bytes = n;
        self
    }

    /// Spill undeliverable events to disk and replay them later (default on).
    pub fn spill(mut self, on: bool) -> Self {
        self.config.spill_enabled = on;
        self
    }

    /// The spill directory (default: `~/.cache/logship/<service>`). One process at a time.
    pub fn spill_dir(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.config.spill_dir = Some(dir.into());
        self.config.spill_enabled = true;
        self
    }

    /// Most bytes of spilled events on disk (default 1 GiB), and what happens when it is
    /// reached (default: drop the oldest segment, counted).
    pub fn spill_max_bytes(mut self, n: u64, when_full: crate::spill::SpillFull) -> Self {
        self.config.spill_max_bytes = n;
        self.config.spill_full = when_full;
        self
    }

    /// Size of one spill segment file (default 16 MiB).
    pub fn spill_segment_bytes(mut self, n: u64) -> Self {
        self.config.spill_segment_bytes = n;
        self
    }

    /// When spilled data is synced to the device (default: when a segment is closed).
    pub fn spill_fsync(mut self, policy: crate::spill::SpillFsync) -> Self {
        self.config.spill_fsync = policy;
        self
    }

    /// Trust the CA certificates of this PEM bundle besides the system's trust store (an
    /// internal CA). Read and checked by `build`.
    pub fn tls_ca_file(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.config.tls_ca_file = Some(path.into());
        self
    }

    /// Present this client certificate (PEM chain) and private key (PEM) for mutual TLS.
    /// Read and checked by `build`; the key's contents are never shown.
    pub fn tls_client_cert(
        mut self,
        cert: impl Into<std::path::PathBuf>,
        key: impl Into<std::path::PathBuf>,
    ) -> Self {
        self.config.tls_client_cert = Some(cert.into());
        self.config.tls_client_key = Some(key.into());
        self
    }

    /// Verify the intake's TLS certificate (default on). Off accepts any certificate:
    /// development only, warned about at start-up and in `Stats::tls_verify_disabled`.
    pub fn tls_verify(mut self, on: bool) -> Self {
        self.config.tls_verify = on;
        self
    }

    /// The proxy for this pipeline (`http://[user:pass@]host:port`), or `none` for a
    /// direct connection, instead of `https_proxy`/`http_proxy`/`all_proxy`/`no_proxy`.
    pub fn proxy(mut self, proxy: impl Into<String>) -> Self {
        self.config.proxy = Some(proxy.into());
        self
    }

    /// Print problems and the shutdown report to stderr (default on).
    pub fn report_to_stderr(mut self, on: bool) -> Self {
        self.config.report_to_stderr = on;
        self
    }

    /// Called on every delivery error (on a logship thread; keep it quick, and do not log
    /// through logship from it: such events are ignored).
    pub fn on_error(mut self, f: impl Fn(&DeliveryError) + Send + Sync + 'static) -> Self {
        self.on_error = Some(Arc::new(f));
        self
    }

    /// Caps one level's own event bytes per clock hour (UTC), on top of the pipeline's
    /// caps: past it, events of that level are dropped (`budget_dropped_level`) while the
    /// other levels go on. Repeatable, one call per level. Default: none.
    pub fn budget_level_hour_bytes(mut self, level: crate::Level, bytes: u64) -> Self {
        self.config
            .budget
            .level_hour_bytes
            .push(format!("{}={bytes}", level.as_str()));
        self
    }

    /// Caps one level's own event bytes per UTC day, like
    /// [`Builder::budget_level_hour_bytes`]. Default: none.
    pub fn budget_level_day_bytes(mut self, level: crate::Level, bytes: u64) -> Self {
        self.config
            .budget
            .level_day_bytes
            .push(format!("{}={bytes}", level.as_str()));
        self
    }

    /// Caps the event bytes shipped per clock hour (UTC). Default: no cap. At 80 % one
    /// `budget_warning` event ships and health becomes `budget_warning`; past 100 % TRACE
    /// and DEBUG go first, then INFO and WARN are sampled, then everything is dropped
    /// (see [`Builder::budget_overdraft_percent`]), each counted in `stats()`.
    pub fn budget_hour_bytes(mut self, bytes: u64) -> Self {
        self.config.budget.hour_bytes = Some(bytes);
        self
    }

    /// Caps the event bytes shipped per UTC day, like [`Builder::budget_hour_bytes`].
    /// Default: no cap.
    pub fn budget_day_bytes(mut self, bytes: u64) -> Self {
        self.config.budget.day_bytes = Some(bytes);
        self
    }

    /// Caps the events shipped per clock hour (UTC), like [`Builder::budget_hour_bytes`].
    /// Default: no cap.
    pub fn budget_hour_events(mut self, events: u64) -> Self {
        self.config.budget.hour_events = Some(events);
        self
    }

    /// Caps the events shipped per UTC day, like [`Builder::budget_hour_bytes`]. Default:
    /// no cap.
    pub fn budget_day_events(mut self, events: u64) -> Self {
        self.config.budget.day_events = Some(events);
        self
    }

    /// How far past a cap (percent of it) shedding is gradual: the first half drops TRACE
    /// and DEBUG, the second also samples INFO and WARN (ERROR kept); past it, everything
    /// is dropped. Default 10; 0 drops everything at the cap.
    pub fn budget_overdraft_percent(mut self, percent: u64) -> Self {
        self.config.budget.overdraft_percent = percent;
        self
    }

    /// The share of INFO and WARN kept while a budget samples, in percent. Default 10.
    pub fn budget_sample_percent(mut self, percent: u64) -> Self {
        self.config.budget.sample_percent = percent;
        self
    }

    /// Where the amounts a budget spent are kept across restarts. Default: `budget.json`
    /// in the spill directory (none without spill).
    pub fn budget_state_file(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.config.budget.state_file = Some(path.into());
        self
    }

    /// The clock the budget reads, in seconds since the Unix epoch. Not API: for tests
    /// that stand at a day boundary.
    #[doc(hidden)]
    pub fn budget_clock(mut self, clock: crate::BudgetClock) -> Self {
        self.budget_clock = Some(clock);
        self
    }

    /// Turns the stall alarm on: health becomes `stalled` (counted in `stalls`, said once
    /// on stderr, and [`Builder::on_stall`] called) when nothing has been delivered for
    /// `after` while events keep arriving; it clears when delivery resumes. Default: off.
    pub fn stall_after(mut self, after: Duration) -> Self {
        self.config.observe.stall_after = Some(after);
        self
    }

    /// Called once when a stall begins and once when it ends (on a logship thread: what it
    /// logs is not shipped). Needs [`Builder::stall_after`].
    pub fn on_stall(mut self, f: impl Fn(&crate::StallAlarm) + Send + Sync + 'static) -> Self {
        self.on_stall = Some(Arc::new(f));
        self
    }

    /// How often the counters are handed to the `metrics` recorder (the `metrics`
    /// feature). Default 1 s.
    pub fn metrics_interval(mut self, every: Duration) -> Self {
        self.config.observe.metrics_interval = every;
        self
    }

    /// How long a batch's request may be out before the batch also gets an insurance copy
    /// in the spill (deleted once it settles), so that a crash or SIGKILL meanwhile cannot
    /// lose it. Default 5 s; 100 ms to 10 minutes.
    pub fn spill_in_flight_after(mut self, d: Duration) -> Self {
        self.config.spill_in_flight_after = d;
        self
    }

    /// Fails `build` when the spill directory cannot be used (held by another process,
    /// unwritable) instead of starting without spill. Default off: logging never keeps the
    /// program from starting; the pipeline says so once on stderr and in
    /// [`Stats::spill_unavailable`](crate::Stats::spill_unavailable).
    pub fn spill_required(mut self, on: bool) -> Self {
        self.config.spill_required = on;
        self
    }

    /// On a panic anywhere in the program, delivers what is queued first (at most the
    /// shorter of the shutdown timeout and 2 s), then runs the previous panic hook. Default
    /// on; it also covers `panic = "abort"`, where no guard is ever dropped.
    pub fn flush_on_panic(mut self, on: bool) -> Self {
        self.config.flush_on_panic = on;
        self
    }

    /// Lets this pipeline share its spill directory with another pipeline of this process
    /// that allowed hand-over too, instead of failing because the directory is held
    /// (default off). The two write to and replay from one spill, and the directory is
    /// released when the last of them shuts down. Meant for configuration reloads that
    /// build the new pipeline before the old one is dropped (the log4rs appender sets it);
    /// the spill settings of whichever pipeline opened the directory first stay in force.
    pub fn spill_handover(mut self, on: bool) -> Self {
        self.spill_handover = on;
        self
    }

    // Issue 17 part 4: redaction (see `RedactionConfig`).

    /// Redacts secrets and personal data before events are sent or spilled (default off),
    /// with the default rules unless changed by the setters below; on the batcher's
    /// thread, never the caller's. Counted in `stats().redactions`.
    pub fn redact(mut self, on: bool) -> Self {
        self.config.redaction.enabled = on;
        self
    }

    /// Replaces the field-name denylist (and turns redaction on).
    pub fn redact_fields<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.config.redaction.fields = names.into_iter().map(Into::into).collect();
        self.config.redaction.enabled = true;
        self
    }

    /// Replaces the built-in value patterns applied (`card`, `jwt`, `bearer`,
    /// `aws_key_id`, `aws_secret`, `private_key`, `email`; and turns redaction on).
    pub fn redact_patterns<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.config.redaction.patterns = names.into_iter().map(Into::into).collect();
        self.config.redaction.enabled = true;
        self
    }

    /// Adds a regular expression whose matches are redacted (compiled at `build`; a bad
    /// one fails it naming `redact_regexes`; and turns redaction on).
    pub fn redact_regex(mut self, pattern: impl Into<String>) -> Self {
        self.config.redaction.regexes.push(pattern.into());
        self.config.redaction.enabled = true;
        self
    }

    /// What replaces a redacted value (default mask).
    pub fn redact_action(mut self, action: crate::RedactAction) -> Self {
        self.config.redaction.action = action;
        self
    }

    /// The HMAC key of [`crate::RedactAction::Hash`] (a secret, at least 16 bytes).
    pub fn redact_hash_key(mut self, key: impl Into<String>) -> Self {
        self.config.redaction.hash_key = Some(crate::Secret::new(key));
        self
    }
}

/// The builder-facing layer methods (the layering itself lives in `config`, which does
/// not know the builder).
impl Layered {
    /// Adds explicit settings, applied last (over file and environment): `f` gets a
    /// builder holding the configuration so far and returns it changed. Only its
    /// configuration is kept (not `on_error` or `spill_handover`).
    pub fn explicit(self, f: impl FnOnce(Builder) -> Builder + 'static) -> Self {
        self.explicit_config(move |config| {
            let builder = f(Builder::from_config(std::mem::take(config)));
            *config = builder.config;
        })
    }

    /// Resolves the layers into a builder, ready for more settings and `build`.
    pub fn into_builder(self) -> Result<Builder, ConfigError> {
        Ok(Builder::from_config(self.resolve()?.config))
    }
}
