//! Pipeline options shared by `logship ship` and `logship demo`.
//!
//! Each option maps to one [`logship::Builder`] setter; an option left out keeps the value
//! from `LOGSHIP_*` environment variables, else from the `--config` file, else the
//! library's default (flags > environment > file > defaults). Range checks are the
//! library's: an unusable value comes back as an error that names the field and what is
//! allowed.

use std::time::Duration;

use clap::Args;
use logship::{Builder, Config, Layered, Origin, OtlpEncoding, Vendor};

use crate::exit::Failure;

/// Default for `--shutdown-timeout-ms`: a command-line run can afford to wait longer than
/// an application's exit.
pub const DEFAULT_SHUTDOWN_TIMEOUT_MS: u64 = 30_000;

/// Options that configure the logship pipeline.
#[derive(Args, Debug, Clone)]
pub struct PipelineArgs {
    /// A TOML config file (see `logship config example`). Flags override LOGSHIP_*
    /// environment variables, which override the file.
    #[arg(long, value_name = "FILE")]
    pub config: Option<std::path::PathBuf>,

    /// Intake: ndjson or json (generic, any --endpoint), or datadog, splunk, newrelic,
    /// dynatrace, loki, elasticsearch (also OpenSearch), otlp. [default: ndjson]
    #[arg(long, value_name = "VENDOR", value_parser = parse_vendor)]
    pub vendor: Option<Vendor>,

    /// The URL to POST to. For a vendor, a URL without a path gets the vendor's standard
    /// path; datadog and newrelic default to their public intake for --site/--region.
    #[arg(long, value_name = "URL")]
    pub endpoint: Option<String>,

    /// The vendor API key or token. [default: from DD_API_KEY, SPLUNK_HEC_TOKEN,
    /// NEW_RELIC_LICENSE_KEY or DT_API_TOKEN by vendor, then LOGSHIP_API_KEY]
    #[arg(long, value_name = "KEY")]
    pub api_key: Option<String>,

    /// Datadog site, e.g. datadoghq.com, datadoghq.eu, us3.datadoghq.com. [default: datadoghq.com]
    #[arg(long, value_name = "SITE")]
    pub site: Option<String>,

    /// New Relic region: us, eu, jp, fedramp. [default: us]
    #[arg(long, value_name = "REGION")]
    pub region: Option<String>,

    /// Service name attached to every event.
    #[arg(long, value_name = "NAME")]
    pub service: Option<String>,

    /// Deployment environment on every event (Datadog env tag, OTLP
    /// deployment.environment.name, ...). [default: DD_ENV for datadog]
    #[arg(long, value_name = "ENV")]
    pub env: Option<String>,

    /// Service version on every event (Datadog version tag, OTLP service.version, ...).
    /// [default: DD_VERSION for datadog]
    #[arg(long, value_name = "VERSION")]
    pub service_version: Option<String>,

    /// Source attached to every event (ddsource, source, logtype, log.source). [default: rust]
    #[arg(long, value_name = "NAME")]
    pub source: Option<String>,

    /// Host name attached to every event. [default: this machine's]
    #[arg(long, value_name = "NAME")]
    pub hostname: Option<String>,

    /// Tags as key:value pairs, comma-separated (repeatable), e.g. env:prod,team:pay.
    #[arg(long, value_name = "K:V,...")]
    pub tags: Vec<String>,

    /// Where span fields go: root (under their own names, the innermost span's value
    /// winning) or prefixed (<span>.<field>). [default: root]
    #[arg(long, value_name = "root|prefixed", value_parser = parse_span_fields)]
    pub span_fields: Option<logship::SpanFields>,

    /// Do not ship event ids (Elasticsearch `_id`, the `logship.id` attribute elsewhere):
    /// a replayed event may then be stored twice.
    #[arg(long)]
    pub no_event_id: bool,

    /// Splunk index. [default: the token's default index]
    #[arg(long, value_name = "INDEX")]
    pub splunk_index: Option<String>,

    /// Splunk sourcetype. [default: _json]
    #[arg(long, value_name = "TYPE")]
    pub splunk_sourcetype: Option<String>,

    /// Splunk request channel: a GUID, or auto to generate one. [default: a GUID per
    /// process; a channel is always sent]
    #[arg(long, value_name = "GUID|auto")]
    pub splunk_channel: Option<String>,

    /// Splunk indexer acknowledgement: an event counts as delivered only once
    /// /services/collector/ack confirms it (for HEC tokens with "indexer
    /// acknowledgement" on). [default: off]
    #[arg(long)]
    pub splunk_ack: bool,

    /// With --splunk-ack: resend a batch whose acknowledgement has not come this many
    /// milliseconds after Splunk accepted it. [default: 300000]
    #[arg(long, value_name = "MS")]
    pub splunk_ack_timeout_ms: Option<u64>,

    /// Elasticsearch / OpenSearch data stream or index; a UTC date pattern (%Y, %m, %d,
    /// %H) is expanded from each event's timestamp, e.g. logs-%Y.%m.%d.
    /// [default: logs-logship-default]
    #[arg(long, value_name = "NAME")]
    pub index: Option<String>,

    /// OTLP body encoding: protobuf (application/x-protobuf) or json (application/json).
    /// [default: protobuf]
    #[arg(long, value_name = "protobuf|json", value_parser = parse_otlp_encoding)]
    pub otlp_encoding: Option<OtlpEncoding>,

    /// Most uncompressed bytes per request where the server sets it (Splunk's
    /// max_content_length [default: 1000000], Elasticsearch's http.max_content_length
    /// [default: 100000000]).
    #[arg(long, value_name = "BYTES")]
    pub max_request_bytes: Option<usize>,

    /// Loki tenant, sent as X-Scope-OrgID.
    #[arg(long, value_name = "TENANT")]
    pub tenant_id: Option<String>,

    /// User name for basic auth (Elasticsearch / OpenSearch; Loki behind a gateway;
    /// Grafana Cloud: the instance ID). [default: from LOGSHIP_USERNAME]
    #[arg(long, value_name = "USER")]
    pub username: Option<String>,

    /// Password or token for basic auth. Prefer LOGSHIP_PASSWORD: a flag is visible to
    /// other users of this machine.
    #[arg(long, value_name = "PASSWORD")]
    pub password: Option<String>,

    /// Static Loki stream labels as name=value, comma-separated (repeatable), e.g.
    /// env=prod,team=core. Keep them few and low-cardinality.
    #[arg(long, value_name = "NAME=VALUE,...")]
    pub loki_labels: Vec<String>,

    /// Loki lines longer than this are truncated and counted. [default: 262144]
    #[arg(long, value_name = "BYTES")]
    pub max_line_bytes: Option<usize>,

    /// Extra request header as 'Name: value' (repeatable). Values are treated as secrets.
    #[arg(long = "header", value_name = "'NAME: VALUE'")]
    pub headers: Vec<String>,

    /// Events per batch. [default: 200]
    #[arg(long, value_name = "N")]
    pub max_batch_records: Option<usize>,

    /// Uncompressed bytes per batch. [default: 1048576]
    #[arg(long, value_name = "BYTES")]
    pub max_batch_bytes: Option<usize>,

    /// Send a batch once its oldest event is this old. [default: 1000]
    #[arg(long, value_name = "MS")]
    pub linger_ms: Option<u64>,

    /// Events the in-memory queue holds. [default: 10000]
    #[arg(long, value_name = "N")]
    pub queue_capacity: Option<usize>,

    /// Bytes of events held in memory, queued or in flight. [default: 67108864]
    #[arg(long, value_name = "BYTES")]
    pub queue_max_bytes: Option<usize>,

    /// Most requests in flight at once: the ceiling of the adaptive limit, or the fixed
    /// number with --no-adaptive-concurrency. [default: 16]
    #[arg(long, value_name = "N")]
    pub max_in_flight: Option<usize>,

    /// Keep exactly --max-in-flight requests in flight instead of adapting the number
    /// to the intake's answers (adaptive is on by default).
    #[arg(long)]
    pub no_adaptive_concurrency: bool,

    /// Retries of a failed request (network errors, 408, 429, 5xx). [default: 3]
    #[arg(long, value_name = "N")]
    pub max_retries: Option<u32>,

    /// Send request bodies uncompressed (gzip is on by default).
    #[arg(long)]
    pub no_gzip: bool,

    /// Spill directory: events that cannot be delivered now are kept there and replayed
    /// later (also by the next run). [default: ~/.cache/logship/<service>]
    #[arg(long, value_name = "DIR", conflicts_with = "no_spill")]
    pub spill_dir: Option<std::path::PathBuf>,

    /// Do not spill to disk: undeliverable events are counted as lost.
    #[arg(long)]
    pub no_spill: bool,

    /// Fail at start-up when the spill directory cannot be used (held by another process,
    /// unwritable) instead of running without spill.
    #[arg(long, conflicts_with = "no_spill")]
    pub spill_required: bool,

    /// Most bytes of spilled events on disk. [default: 1073741824]
    #[arg(long, value_name = "BYTES")]
    pub spill_max_bytes: Option<u64>,

    /// How long to keep delivering what is queued once input ends. [default: 30000]
    #[arg(long, value_name = "MS")]
    pub shutdown_timeout_ms: Option<u64>,

    /// A PEM bundle of CA certificates to trust besides the system's (an internal CA).
    #[arg(long, value_name = "FILE")]
    pub tls_ca_file: Option<std::path::PathBuf>,

    /// A PEM client certificate (chain) for mutual TLS; needs --tls-client-key.
    #[arg(long, value_name = "FILE")]
    pub tls_client_cert: Option<std::path::PathBuf>,

    /// The PEM private key of --tls-client-cert (its contents are never shown).
    #[arg(long, value_name = "FILE")]
    pub tls_client_key: Option<std::path::PathBuf>,

    /// Accept any TLS certificate (development only: loudly warned about).
    #[arg(long)]
    pub tls_no_verify: bool,

    /// Proxy URL (http://[user:pass@]host:port), or `none` to ignore https_proxy and
    /// friends. [default: from https_proxy/http_proxy/all_proxy and no_proxy]
    #[arg(long, value_name = "URL|none")]
    pub proxy: Option<String>,

    // Issue 17 part 4: redaction.
    /// Redact secrets and personal data (password/token/... fields, Luhn-valid card
    /// numbers, JWTs, bearer tokens, AWS keys, PEM private keys) before events are sent or
    /// spilled; counted per rule in the summary's stats.
    #[arg(long)]
    pub redact: bool,

    /// Field names always redacted, comma-separated (replaces the default list; implies
    /// --redact).
    #[arg(long, value_name = "NAMES")]
    pub redact_fields: Option<String>,

    /// Built-in patterns, comma-separated: card, jwt, bearer, aws_key_id, aws_secret,
    /// private_key, email (replaces the default: all but email; implies --redact).
    #[arg(long, value_name = "NAMES")]
    pub redact_patterns: Option<String>,

    /// A regular expression whose matches are redacted (repeatable; implies --redact).
    #[arg(long, value_name = "REGEX")]
    pub redact_regex: Vec<String>,

    /// mask, hash (needs LOGSHIP_REDACT_HASH_KEY or --redact-hash-key) or drop.
    /// [default: mask]
    #[arg(long, value_name = "ACTION", value_parser = parse_redact_action)]
    pub redact_action: Option<logship::RedactAction>,

    /// The HMAC key of --redact-action hash (prefer LOGSHIP_REDACT_HASH_KEY: a flag is
    /// visible to other users in the process list).
    #[arg(long, value_name = "SECRET")]
    pub redact_hash_key: Option<String>,
    /// Burst limits per call site (for `ship`: per logger name and level), as
    /// level=rate/burst, comma-separated (repeatable), e.g. info=100/1000,warn=100/1000.
    /// Held-back events are counted and summarised in one event per burst. [default: none]
    #[arg(long, value_name = "LEVEL=RATE/BURST,...")]
    pub burst_limits: Vec<String>,

    /// Call sites the burst table tracks; more share one bucket. [default: 1024]
    #[arg(long, value_name = "N")]
    pub burst_sites: Option<usize>,

    /// Longest a burst going on waits for its summary event. [default: 10000]
    #[arg(long, value_name = "MS")]
    pub burst_summary_interval_ms: Option<u64>,

    /// Fractions kept per level, as level=percent, comma-separated (repeatable), e.g.
    /// debug=10%. [default: none, everything kept]
    #[arg(long, value_name = "LEVEL=PERCENT,...")]
    pub sample_rates: Vec<String>,

    /// Sample at random even when events carry a trace_id (default: by trace id, so a
    /// trace's events are all kept or all dropped).
    #[arg(long)]
    pub no_sample_by_trace: bool,

    /// One synthetic event per drop episode saying how many were dropped, why and when.
    #[arg(long)]
    pub drop_notices: bool,
    /// Volume budget: most event bytes shipped per clock hour (UTC); warns at 80 %,
    /// sheds past 100 % (DEBUG first, then sampling, then all). [default: no cap]
    #[arg(long, value_name = "BYTES")]
    pub budget_hour_bytes: Option<u64>,

    /// Volume budget: most event bytes shipped per UTC day. [default: no cap]
    #[arg(long, value_name = "BYTES")]
    pub budget_day_bytes: Option<u64>,

    /// Volume budget: most events shipped per clock hour (UTC). [default: no cap]
    #[arg(long, value_name = "N")]
    pub budget_hour_events: Option<u64>,

    /// Volume budget: most events shipped per UTC day. [default: no cap]
    #[arg(long, value_name = "N")]
    pub budget_day_events: Option<u64>,

    /// One level's own cap of event bytes per clock hour (UTC), as level=bytes,
    /// comma-separated (repeatable), e.g. debug=100000000: past it that level is dropped,
    /// counted; the others go on. [default: none]
    #[arg(long, value_name = "LEVEL=BYTES,...")]
    pub budget_level_hour_bytes: Vec<String>,

    /// One level's own cap of event bytes per UTC day, as level=bytes. [default: none]
    #[arg(long, value_name = "LEVEL=BYTES,...")]
    pub budget_level_day_bytes: Vec<String>,

    /// Past a budget's cap, shed gradually over this share of it before dropping all.
    /// [default: 10]
    #[arg(long, value_name = "PERCENT")]
    pub budget_overdraft_percent: Option<u64>,

    /// Share of INFO and WARN kept while a budget samples. [default: 10]
    #[arg(long, value_name = "PERCENT")]
    pub budget_sample_percent: Option<u64>,

    /// Where a budget's spent amounts survive restarts. [default: <spill dir>/budget.json]
    #[arg(long, value_name = "FILE")]
    pub budget_state_file: Option<std::path::PathBuf>,

    /// Health `stalled` (said once on stderr) when nothing is delivered this long while
    /// events wait. [default: off]
    #[arg(long, value_name = "MS")]
    pub stall_after_ms: Option<u64>,

    /// How often counters reach a `metrics` recorder (library feature `metrics`).
    /// [default: 1000]
    #[arg(long, value_name = "MS")]
    pub metrics_interval_ms: Option<u64>,
}

impl PipelineArgs {
    /// Layers `base` (its values count as defaults), the `--config` file, `LOGSHIP_*`
    /// environment variables and the flags, in that order of precedence. Fails (usage
    /// error) on an unreadable or invalid file or variable, or a bad `--header`; the
    /// whole is validated by `build`.
    pub fn resolve(&self, base: Config) -> Result<Config, Failure> {
        // Checked up front so the flags can be applied as an infallible explicit layer
        // (which must come before the OpenTelemetry variables are weighed: they apply
        // only when the vendor, often a flag, is otlp).
        let headers = self
            .headers
            .iter()
            .map(|h| parse_header(h))
            .collect::<Result<Vec<_>, _>>()?;
        let flags = self.clone();
        let mut layered =
            Layered::from_config(base).explicit(move |b| flags.apply_flags(b, headers));
        if let Some(path) = &self.config {
            // The file's [follow] section is the CLI's (follow/settings.rs): the library
            // reads the rest.
            let file = crate::follow::settings::ConfigFile::read(path)?;
            layered = match file.library_text {
                Some(text) => layered.toml_str(file.label, text),
                None => layered.file(path.clone()),
            };
        }
        let resolved = layered
            .resolve()
            .map_err(|e| Failure::usage(format!("invalid logship configuration: {e}")))?;
        // The flag counts when given, even with the library's default value (5000): the
        // layering sees only changed values as explicit.
        let timeout_is_default = self.shutdown_timeout_ms.is_none()
            && resolved.origin("shutdown_timeout_ms") == Origin::Default;
        let mut config = resolved.config;
        // A command-line run can afford to wait longer than an application's exit.
        if timeout_is_default {
            config.shutdown_timeout = Duration::from_millis(DEFAULT_SHUTDOWN_TIMEOUT_MS);
        }
        Ok(config)
    }

    /// [`PipelineArgs::resolve`] over `builder`'s configuration.
    pub fn apply(&self, builder: Builder) -> Result<Builder, Failure> {
        Ok(Builder::from_config(
            self.resolve(builder.config().clone())?,
        ))
    }

    /// Applies every given flag to `builder`; `headers` are the parsed `--header`s.
    fn apply_flags(&self, builder: Builder, headers: Vec<(String, String)>) -> Builder {
        let mut config = builder.config().clone();
        // Lists given as flags replace those of the file or environment.
        if !self.tags.is_empty() {
            config.tags.clear();
        }
        if !headers.is_empty() {
            config.headers.clear();
        }
        if !self.loki_labels.is_empty() {
            // Kept as given: the library checks each name=value and names a bad one.
            config.loki.labels = split_items(&self.loki_labels);
        }
        // Either half of basic auth may come from a flag, the other from elsewhere.
        if let Some(user) = &self.username {
            config.username = Some(user.clone());
        }
        if let Some(password) = &self.password {
            config.password = Some(logship::Secret::new(password.as_str()));
        }
        let mut builder = Builder::from_config(config);
        if let Some(vendor) = self.vendor {
            builder = builder.vendor(vendor);
        }
        if let Some(url) = &self.endpoint {
            builder = builder.endpoint(url.clone());
        }
        if let Some(key) = &self.api_key {
            builder = builder.api_key(key.as_str());
        }
        if let Some(site) = &self.site {
            builder = builder.site(site.clone());
        }
        if let Some(region) = &self.region {
            builder = builder.region(region.clone());
        }
        if let Some(service) = &self.service {
            builder = builder.service(service.clone());
        }
        if let Some(env) = &self.env {
            builder = builder.env(env.clone());
        }
        if let Some(version) = &self.service_version {
            builder = builder.version(version.clone());
        }
        if let Some(source) = &self.source {
            builder = builder.source(source.clone());
        }
        if let Some(hostname) = &self.hostname {
            builder = builder.hostname(hostname.clone());
        }
        for tag in self.tags.iter().flat_map(|t| t.split(',')) {
            builder = builder.tag(tag.trim());
        }
        if let Some(mode) = self.span_fields {
            builder = builder.span_fields(mode);
        }
        if self.no_event_id {
            builder = builder.event_id(false);
        }
        if self.splunk_index.is_some()
            || self.splunk_sourcetype.is_some()
            || self.splunk_channel.is_some()
        {
            // The three flags replace the whole Splunk group, as one setting (the
            // acknowledgement keys are kept, and set by their own flags below).
            let kept = builder.config().splunk.clone();
            let mut splunk = logship::SplunkOptions::default()
                .ack(kept.ack)
                .ack_timeout(kept.ack_timeout);
            splunk.index = self.splunk_index.clone();
            splunk.sourcetype = self.splunk_sourcetype.clone();
            splunk.channel = self.splunk_channel.clone();
            builder = builder.splunk(splunk);
        }
        if self.splunk_ack || self.splunk_ack_timeout_ms.is_some() {
            let mut splunk = builder.config().splunk.clone();
            splunk.ack |= self.splunk_ack;
            if let Some(ms) = self.splunk_ack_timeout_ms {
                splunk.ack_timeout = std::time::Duration::from_millis(ms);
            }
            builder = builder.splunk(splunk);
        }
        if let Some(index) = &self.index {
            builder = builder.elasticsearch(logship::ElasticsearchOptions::default().index(index));
        }
        if let Some(encoding) = self.otlp_encoding {
            builder = builder.otlp(logship::OtlpOptions::default().encoding(encoding));
        }
        if let Some(n) = self.max_request_bytes {
            builder = builder.max_request_bytes(n);
        }
        // Each Loki flag changes its own option of the group, the others stay.
        let mut loki = builder.config().loki.clone();
        if let Some(tenant) = &self.tenant_id {
            loki = loki.tenant_id(tenant.clone());
        }
        if let Some(n) = self.max_line_bytes {
            loki = loki.max_line_bytes(n);
        }
        builder = builder.loki(loki);
        for (name, value) in headers {
            builder = builder.header(name, value);
        }
        if let Some(n) = self.max_batch_records {
            builder = builder.max_batch_records(n);
        }
        if let Some(n) = self.max_batch_bytes {
            builder = builder.max_batch_bytes(n);
        }
        if let Some(ms) = self.linger_ms {
            builder = builder.linger(Duration::from_millis(ms));
        }
        if let Some(n) = self.queue_capacity {
            builder = builder.queue_capacity(n);
        }
        if let Some(n) = self.queue_max_bytes {
            builder = builder.queue_max_bytes(n);
        }
        if let Some(n) = self.max_in_flight {
            builder = builder.max_in_flight(n);
        }
        if self.no_adaptive_concurrency {
            builder = builder.adaptive_concurrency(false);
        }
        if let Some(n) = self.max_retries {
            builder = builder.max_retries(n);
        }
        if self.no_gzip {
            builder = builder.gzip(false);
        }
        if self.no_spill {
            builder = builder.spill(false);
        }
        if let Some(dir) = &self.spill_dir {
            builder = builder.spill_dir(dir.clone());
        }
        if self.spill_required {
            builder = builder.spill_required(true);
        }
        if let Some(n) = self.spill_max_bytes {
            builder = builder.spill_max_bytes(n, logship::SpillFull::DropOldest);
        }
        if let Some(ms) = self.shutdown_timeout_ms {
            builder = builder.shutdown_timeout(Duration::from_millis(ms));
        }
        if let Some(path) = &self.tls_ca_file {
            builder = builder.tls_ca_file(path.clone());
        }
        // Either half of the client certificate may come from a flag.
        let mut config = builder.config().clone();
        if let Some(path) = &self.tls_client_cert {
            config.tls_client_cert = Some(path.clone());
        }
        if let Some(path) = &self.tls_client_key {
            config.tls_client_key = Some(path.clone());
        }
        let mut builder = Builder::from_config(config);
        if self.tls_no_verify {
            builder = builder.tls_verify(false);
        }
        if let Some(proxy) = &self.proxy {
            builder = builder.proxy(proxy.clone());
        }
        let builder = self.apply_control(builder);
        let builder = self.apply_budget_flags(builder);
        self.apply_redaction(builder)
    }

    /// The redaction flags (issue 17 part 4).
    fn apply_redaction(&self, mut builder: Builder) -> Builder {
        let split = |s: &str| -> Vec<String> {
            s.split(',')
                .map(|x| x.trim().to_owned())
                .filter(|x| !x.is_empty())
                .collect()
        };
        if self.redact {
            builder = builder.redact(true);
        }
        if let Some(names) = &self.redact_fields {
            builder = builder.redact_fields(split(names));
        }
        if let Some(names) = &self.redact_patterns {
            builder = builder.redact_patterns(split(names));
        }
        for r in &self.redact_regex {
            builder = builder.redact_regex(r.clone());
        }
        if let Some(action) = self.redact_action {
            builder = builder.redact_action(action);
        }
        if let Some(key) = &self.redact_hash_key {
            builder = builder.redact_hash_key(key.clone());
        }
        builder
    }

    /// The budget and observe flags (issue 17 parts 3 and 6).
    fn apply_budget_flags(&self, mut builder: Builder) -> Builder {
        if let Some(n) = self.budget_hour_bytes {
            builder = builder.budget_hour_bytes(n);
        }
        if let Some(n) = self.budget_day_bytes {
            builder = builder.budget_day_bytes(n);
        }
        if let Some(n) = self.budget_hour_events {
            builder = builder.budget_hour_events(n);
        }
        if let Some(n) = self.budget_day_events {
            builder = builder.budget_day_events(n);
        }
        if let Some(p) = self.budget_overdraft_percent {
            builder = builder.budget_overdraft_percent(p);
        }
        if let Some(p) = self.budget_sample_percent {
            builder = builder.budget_sample_percent(p);
        }
        if let Some(path) = &self.budget_state_file {
            builder = builder.budget_state_file(path.clone());
        }
        if let Some(ms) = self.stall_after_ms {
            builder = builder.stall_after(Duration::from_millis(ms));
        }
        if let Some(ms) = self.metrics_interval_ms {
            builder = builder.metrics_interval(Duration::from_millis(ms));
        }
        builder
    }

    /// The flags of control at the source (issue #17): lists given replace those of the
    /// file or environment; items are checked by the library, which names a bad one.
    fn apply_control(&self, builder: Builder) -> Builder {
        let mut config = builder.config().clone();
        if !self.budget_level_hour_bytes.is_empty() {
            config.budget.level_hour_bytes = split_items(&self.budget_level_hour_bytes);
        }
        if !self.budget_level_day_bytes.is_empty() {
            config.budget.level_day_bytes = split_items(&self.budget_level_day_bytes);
        }
        let control = &mut config.control;
        if !self.burst_limits.is_empty() {
            control.burst_limits = split_items(&self.burst_limits);
        }
        if !self.sample_rates.is_empty() {
            control.sample_rates = split_items(&self.sample_rates);
        }
        if let Some(n) = self.burst_sites {
            control.burst_sites = n;
        }
        if let Some(ms) = self.burst_summary_interval_ms {
            control.burst_summary_interval = Duration::from_millis(ms);
        }
        if self.no_sample_by_trace {
            control.sample_by_trace = false;
        }
        if self.drop_notices {
            control.drop_notices = true;
        }
        Builder::from_config(config)
    }
}

/// The items of repeatable, comma-separated list flags, trimmed, empty ones left out.
fn split_items(given: &[String]) -> Vec<String> {
    given
        .iter()
        .flat_map(|l| l.split(','))
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

fn parse_redact_action(s: &str) -> Result<logship::RedactAction, String> {
    let names = logship::RedactAction::NAMES;
    names
        .iter()
        .position(|n| n.eq_ignore_ascii_case(s.trim()))
        .map(|i| logship::RedactAction::ALL[i])
        .ok_or_else(|| format!("{s:?}: must be one of {}", names.join(", ")))
}

fn parse_vendor(s: &str) -> Result<Vendor, logship::ConfigError> {
    s.parse()
}

fn parse_span_fields(s: &str) -> Result<logship::SpanFields, String> {
    match s.trim().to_ascii_lowercase().as_str() {
        "root" => Ok(logship::SpanFields::Root),
        "prefixed" => Ok(logship::SpanFields::Prefixed),
        _ => Err(format!("{s:?}: must be root or prefixed")),
    }
}

fn parse_otlp_encoding(s: &str) -> Result<OtlpEncoding, logship::ConfigError> {
    s.parse()
}

/// Splits `Name: value`. The value is never echoed in the error: it may be an API key.
fn parse_header(raw: &str) -> Result<(String, String), Failure> {
    match raw.split_once(':') {
        Some((name, value)) if !name.trim().is_empty() => {
            Ok((name.trim().to_owned(), value.trim().to_owned()))
        }
        _ => Err(Failure::usage(
            "--header expects 'Name: value', e.g. --header 'X-Api-Key: abc' \
             (one --header has no name before ':'; its value is not shown because it may be secret)",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_split_on_the_first_colon() {
        let (n, v) = parse_header("Authorization: Bearer a:b").expect("valid header");
        assert_eq!((n.as_str(), v.as_str()), ("Authorization", "Bearer a:b"));
        let err = parse_header("sk-secret").expect_err("no colon");
        assert!(err.message.contains("--header"));
        assert!(!err.message.contains("sk-secret"));
        assert!(parse_header(": v").is_err());
    }
}
