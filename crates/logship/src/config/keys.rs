//! THE table: every configuration key, once.
//!
//! Why it exists: a key's name, how its value is read, its range, its documented
//! default, its environment variable, its Java alias, its builder setter and CLI flag,
//! its meaning, and how it is stored in and read back from [`Config`] are facts about one
//! key; [`KEYS`] keeps them in one row so that files, the environment, `config check`,
//! `config example`, validation, "did you mean" and `docs/configuration.md` cannot
//! disagree. The order of the rows is the order `config check` shows keys in. A getter
//! must never return a secret: secret keys show `[redacted]`.
//!
//! The table is crate-private on purpose: the CLI reads it only through
//! [`Config::effective_values`], [`super::Resolved`] and [`super::example_toml`], and the
//! reference users read is `docs/configuration.md`, rendered from it. (The former
//! crate-root helpers `config_keys` and `env_var_name` had no caller outside the crate;
//! keeping the table private means a new column is never a breaking change.)

use std::time::Duration;

use super::value::{list, quote, Value};
use super::{redact_url, Config, OtlpEncoding, Overflow};
use crate::spill::{SpillFsync, SpillFull};

/// How a key's value is read.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind {
    /// Any string; `None` when empty.
    Str,
    /// A secret string (never shown).
    Secret,
    /// A URL (query and user-info hidden in errors).
    Url,
    /// A vendor name.
    Vendor,
    /// A table of header name to (secret) value.
    Headers,
    /// An array of strings, or one comma-separated string; `item` and `fix` word errors.
    List {
        item: &'static str,
        fix: &'static str,
    },
    /// A whole number in `min..=max`, with a unit for messages.
    Int {
        min: u64,
        max: u64,
        unit: &'static str,
    },
    /// `true` or `false`.
    Bool,
    /// A file system path.
    Path,
    /// One of these names (the setter receives its position).
    Choice(&'static [&'static str]),
}

impl Kind {
    /// Whether values of this kind are secrets (never shown, not even in errors).
    pub(crate) fn is_secret(self) -> bool {
        matches!(self, Kind::Secret | Kind::Headers)
    }
}

/// When [`Config::validate`] checks an integer key's range (files and the environment
/// always check it when they read the value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum When {
    /// Whenever the getter shows a value (an unset optional key is not checked).
    Always,
    /// Only when spill is enabled.
    SpillEnabled,
    /// Never: only when read (a cross-key rule of `validate` covers it).
    Reading,
}

/// One configuration key. `builder`, `default` and `doc` are documentation: they are
/// read by the reference renderer (`super::reference`, built with the tests).
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) struct Key {
    /// The snake_case name in files, log4rs maps and `LOGSHIP_<NAME>`.
    pub name: &'static str,
    /// How its value is read, and its range.
    pub kind: Kind,
    /// Whether the vendor's own API-key variable ([`super::Vendor::api_key_env`], e.g.
    /// `DD_API_KEY`) is read before `LOGSHIP_<NAME>`.
    pub vendor_env: bool,
    /// When `validate` checks its range.
    pub when: When,
    /// The Java Batch HTTP appender's name for it, if the appender has one (accepted in
    /// files and log4rs maps when it differs from `name`).
    pub java: Option<&'static str>,
    /// The builder setter and the CLI flag, as documented.
    pub builder: &'static str,
    /// The default, as documented.
    pub default: &'static str,
    /// What it does, in one line.
    pub doc: &'static str,
    /// Stores a value of its kind.
    pub set: fn(&mut Config, Value),
    /// Its effective value in TOML syntax (secrets `[redacted]`); `None` when unset.
    pub get: fn(&Config) -> Option<String>,
}

impl Key {
    /// Its environment variable: `LOGSHIP_` and the name in upper case.
    pub(crate) fn env_var(&self) -> String {
        format!("LOGSHIP_{}", self.name.to_ascii_uppercase())
    }

    /// Its Java alias when that differs from its name (then accepted as a second name).
    pub(crate) fn alias(&self) -> Option<&'static str> {
        self.java.filter(|j| *j != self.name)
    }
}

/// The row named `name`.
pub(crate) fn find(name: &str) -> Option<&'static Key> {
    KEYS.iter().find(|k| k.name == name)
}

/// The row whose name or Java alias is `given`.
pub(crate) fn find_by_any_name(given: &str) -> Option<&'static Key> {
    KEYS.iter()
        .find(|k| k.name == given || k.alias() == Some(given))
}

const MS: &str = " milliseconds";
const BYTES: &str = " bytes";

const fn int(min: u64, max: u64, unit: &'static str) -> Kind {
    Kind::Int { min, max, unit }
}

const TAGS: Kind = Kind::List {
    item: "key:value",
    fix: "write tags = [\"env:prod\", \"team:payments\"]",
};
const LABELS: Kind = Kind::List {
    item: "name=value",
    fix: "write loki_labels = [\"env=prod\", \"team=core\"]",
};

const SPILL_FULL_NAMES: &[&str] = &["drop_oldest", "drop_newest"];
const SPILL_FULL: [SpillFull; 2] = [SpillFull::DropOldest, SpillFull::DropNewest];
const SPILL_FSYNC_NAMES: &[&str] = &["on_segment_close", "always", "never"];
const SPILL_FSYNC: [SpillFsync; 3] = [
    SpillFsync::OnSegmentClose,
    SpillFsync::Always,
    SpillFsync::Never,
];
const OTLP_ENCODING_NAMES: &[&str] = &["protobuf", "json"];

fn text(s: &Option<String>) -> Option<String> {
    s.as_deref().map(quote)
}

fn millis(d: Duration) -> Option<String> {
    Some(d.as_millis().to_string())
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

fn redacted<T>(v: &Option<T>) -> Option<String> {
    v.as_ref().map(|_| quote("[redacted]"))
}

fn choice<T: PartialEq>(names: &[&str], values: &[T], v: &T) -> Option<String> {
    values.iter().position(|x| x == v).map(|i| quote(names[i]))
}

/// Every key, in the order `config check` and `config example` show them.
pub(crate) const KEYS: &[Key] = &[
    Key {
        name: "vendor",
        kind: Kind::Vendor,
        vendor_env: false,
        when: When::Always,
        java: Some("vendor"),
        builder: "`vendor` / `--vendor`",
        default: "`ndjson`",
        doc: "`ndjson`, `json`, `datadog`, `splunk`, `newrelic`, `dynatrace`, `loki`, `elasticsearch`, `otlp`",
        set: |c, v| c.vendor = v.vendor(),
        get: |c| Some(quote(c.vendor.name())),
    },
    Key {
        name: "endpoint",
        kind: Kind::Url,
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`endpoint` / `--endpoint`",
        default: "none (datadog/newrelic: public intake)",
        doc: "URL to POST to; for a vendor, a URL without a path gets the standard path",
        set: |c, v| c.endpoint = v.text(),
        get: |c| c.endpoint.as_deref().map(|u| quote(&redact_url(u))),
    },
    Key {
        name: "headers",
        kind: Kind::Headers,
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`header` / `--header 'K: V'`",
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
    },
    Key {
        name: "api_key",
        kind: Kind::Secret,
        vendor_env: true,
        when: When::Always,
        java: Some("apiKey"),
        builder: "`api_key` / `--api-key`",
        default: "the vendor's variable (`DD_API_KEY`, `SPLUNK_HEC_TOKEN`, `NEW_RELIC_LICENSE_KEY`, `DT_API_TOKEN`)",
        doc: "vendor key or token",
        set: |c, v| c.api_key = v.secret(),
        get: |c| redacted(&c.api_key),
    },
    Key {
        name: "username",
        kind: Kind::Str,
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`basic_auth` / `--username`",
        default: "none",
        doc: "basic-auth user (Elasticsearch/OpenSearch, Loki gateways, Grafana Cloud user id)",
        set: |c, v| c.username = v.text(),
        get: |c| text(&c.username),
    },
    Key {
        name: "password",
        kind: Kind::Secret,
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`basic_auth` / `--password`",
        default: "none",
        doc: "basic-auth password or token (a secret)",
        set: |c, v| c.password = v.secret(),
        get: |c| redacted(&c.password),
    },
    Key {
        name: "site",
        kind: Kind::Str,
        vendor_env: false,
        when: When::Always,
        java: Some("site"),
        builder: "`site` / `--site`",
        default: "`datadoghq.com`",
        doc: "Datadog site (us3, us5, eu, ap1, ap2, uk1, gov, us2.gov)",
        set: |c, v| c.site = v.text(),
        get: |c| text(&c.site),
    },
    Key {
        name: "region",
        kind: Kind::Str,
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`region` / `--region`",
        default: "`us`",
        doc: "New Relic region: us, eu, jp, fedramp",
        set: |c, v| c.region = v.text(),
        get: |c| text(&c.region),
    },
    Key {
        name: "service",
        kind: Kind::Str,
        vendor_env: false,
        when: When::Always,
        java: Some("service"),
        builder: "`service` / `--service`",
        default: "none",
        doc: "service name on every event",
        set: |c, v| c.service = v.text(),
        get: |c| text(&c.service),
    },
    Key {
        name: "source",
        kind: Kind::Str,
        vendor_env: false,
        when: When::Always,
        java: Some("source"),
        builder: "`source` / `--source`",
        default: "`rust`",
        doc: "ddsource / source / logtype / log.source",
        set: |c, v| c.source = v.text(),
        get: |c| text(&c.source),
    },
    Key {
        name: "hostname",
        kind: Kind::Str,
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`hostname` / `--hostname`",
        default: "this machine's",
        doc: "host field on every event",
        set: |c, v| c.hostname = v.text(),
        get: |c| text(&c.hostname),
    },
    Key {
        name: "tags",
        kind: TAGS,
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`tag` / `--tags k:v,k2:v2`",
        default: "none",
        doc: "tags mapped to each vendor's tag fields",
        set: |c, v| c.tags = v.list(),
        get: |c| list(&c.tags),
    },
    Key {
        name: "splunk_index",
        kind: Kind::Str,
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`splunk` / `--splunk-index`",
        default: "none",
        doc: "Splunk index",
        set: |c, v| c.splunk.index = v.text(),
        get: |c| text(&c.splunk.index),
    },
    Key {
        name: "splunk_sourcetype",
        kind: Kind::Str,
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`splunk` / `--splunk-sourcetype`",
        default: "`_json`",
        doc: "Splunk sourcetype",
        set: |c, v| c.splunk.sourcetype = v.text(),
        get: |c| text(&c.splunk.sourcetype),
    },
    Key {
        name: "splunk_channel",
        kind: Kind::Str,
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`splunk` / `--splunk-channel`",
        default: "none",
        doc: "Splunk channel: a GUID or `auto`",
        set: |c, v| c.splunk.channel = v.text(),
        get: |c| text(&c.splunk.channel),
    },
    Key {
        name: "tenant_id",
        kind: Kind::Str,
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`loki` / `--tenant-id`",
        default: "none",
        doc: "Loki `X-Scope-OrgID`",
        set: |c, v| c.loki.tenant_id = v.text(),
        get: |c| text(&c.loki.tenant_id),
    },
    Key {
        name: "loki_labels",
        kind: LABELS,
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`loki` / `--loki-labels env=prod,team=core`",
        default: "none",
        doc: "static Loki stream labels (besides `service` and `level`)",
        set: |c, v| c.loki.labels = v.list(),
        get: |c| list(&c.loki.labels),
    },
    Key {
        name: "max_line_bytes",
        kind: int(1024, 256 * 1024 * 1024, BYTES),
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`loki` / `--max-line-bytes`",
        default: "256 KiB",
        doc: "Loki: longer lines are truncated and counted",
        set: |c, v| c.loki.max_line_bytes = v.usize(),
        get: |c| Some(c.loki.max_line_bytes.to_string()),
    },
    Key {
        name: "index",
        kind: Kind::Str,
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`elasticsearch` / `--index`",
        default: "`logs-logship-default`",
        doc: "Elasticsearch/OpenSearch data stream or index; `%Y %m %d %H` expand from each event's UTC timestamp",
        set: |c, v| c.elasticsearch.index = v.text(),
        get: |c| text(&c.elasticsearch.index),
    },
    Key {
        name: "otlp_encoding",
        kind: Kind::Choice(OTLP_ENCODING_NAMES),
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`otlp` / `--otlp-encoding`",
        default: "`protobuf`",
        doc: "OTLP body: `protobuf` (`application/x-protobuf`) or `json` (`application/json`)",
        set: |c, v| c.otlp.encoding = OtlpEncoding::ALL[v.choice()],
        get: |c| Some(quote(c.otlp.encoding.name())),
    },
    Key {
        name: "max_request_bytes",
        kind: int(16 * 1024, 1024 * 1024 * 1024, BYTES),
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`max_request_bytes` / `--max-request-bytes`",
        default: "1,000,000 (Splunk)",
        doc: "largest uncompressed request where the server sets it",
        set: |c, v| c.max_request_bytes = Some(v.usize()),
        get: |c| c.max_request_bytes.map(|n| n.to_string()),
    },
    Key {
        name: "max_batch_records",
        kind: int(1, 1_000_000, ""),
        vendor_env: false,
        when: When::Always,
        java: Some("maxBatchRecords"),
        builder: "`max_batch_records` / `--max-batch-records`",
        default: "200",
        doc: "flush when a batch has this many events",
        set: |c, v| c.max_batch_records = v.usize(),
        get: |c| Some(c.max_batch_records.to_string()),
    },
    Key {
        name: "max_batch_bytes",
        kind: int(1024, 256 * 1024 * 1024, BYTES),
        vendor_env: false,
        when: When::Always,
        java: Some("maxBatchBytes"),
        builder: "`max_batch_bytes` / `--max-batch-bytes`",
        default: "1 MiB",
        doc: "flush before the encoded, uncompressed body would exceed this",
        set: |c, v| c.max_batch_bytes = v.usize(),
        get: |c| Some(c.max_batch_bytes.to_string()),
    },
    Key {
        name: "linger_ms",
        kind: int(0, 600_000, MS),
        vendor_env: false,
        when: When::Always,
        java: Some("lingerMillis"),
        builder: "`linger` / `--linger-ms`",
        default: "1000",
        doc: "flush when the oldest event in the batch is this old",
        set: |c, v| c.linger = ms(v.int()),
        get: |c| millis(c.linger),
    },
    Key {
        name: "queue_capacity",
        kind: int(1, 100_000_000, ""),
        vendor_env: false,
        when: When::Always,
        java: Some("queueCapacity"),
        builder: "`queue_capacity` / `--queue-capacity`",
        default: "10,000",
        doc: "events the queue holds",
        set: |c, v| c.queue_capacity = v.usize(),
        get: |c| Some(c.queue_capacity.to_string()),
    },
    Key {
        name: "queue_max_bytes",
        kind: int(64 * 1024, 64 * 1024 * 1024 * 1024, BYTES),
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`queue_max_bytes` / `--queue-max-bytes`",
        default: "64 MiB",
        doc: "bytes held in memory: queued, batched and in flight",
        set: |c, v| c.queue_max_bytes = v.usize(),
        get: |c| Some(c.queue_max_bytes.to_string()),
    },
    Key {
        name: "block_timeout_ms",
        kind: int(1, 60_000, MS),
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`overflow(Overflow::Block(..))`",
        default: "unset: drop and count",
        doc: "when set, a full queue makes the caller wait up to this long (≤ 60 s)",
        set: |c, v| c.overflow = Overflow::Block(ms(v.int())),
        get: |c| match c.overflow {
            Overflow::Block(d) => millis(d),
            Overflow::DropNewest => None,
        },
    },
    Key {
        name: "max_in_flight",
        kind: int(1, 64, ""),
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`max_in_flight` / `--max-in-flight`",
        default: "16",
        doc: "most requests in flight (one sender thread each, started as the limit grows): the adaptive limit's ceiling",
        set: |c, v| c.max_in_flight = v.usize(),
        get: |c| Some(c.max_in_flight.to_string()),
    },
    Key {
        name: "adaptive_concurrency",
        kind: Kind::Bool,
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`adaptive_concurrency` / `--no-adaptive-concurrency`",
        default: "true",
        doc: "adapt requests in flight to the intake (1 to `max_in_flight`); off: fixed at `max_in_flight`",
        set: |c, v| c.adaptive_concurrency = v.bool(),
        get: |c| Some(c.adaptive_concurrency.to_string()),
    },
    Key {
        name: "gzip",
        kind: Kind::Bool,
        vendor_env: false,
        when: When::Always,
        java: Some("gzip"),
        builder: "`gzip` / `--no-gzip`",
        default: "true",
        doc: "gzip request bodies",
        set: |c, v| c.gzip = v.bool(),
        get: |c| Some(c.gzip.to_string()),
    },
    Key {
        name: "gzip_level",
        kind: int(0, 9, ""),
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "",
        default: "3",
        doc: "gzip level 0..=9",
        set: |c, v| c.gzip_level = v.u32(),
        get: |c| Some(c.gzip_level.to_string()),
    },
    Key {
        name: "max_retries",
        kind: int(0, 100, ""),
        vendor_env: false,
        when: When::Always,
        java: Some("maxRetries"),
        builder: "`max_retries` / `--max-retries`",
        default: "3",
        doc: "retries of a failed request",
        set: |c, v| c.max_retries = v.u32(),
        get: |c| Some(c.max_retries.to_string()),
    },
    Key {
        name: "retry_initial_backoff_ms",
        kind: int(1, 600_000, MS),
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`retry_backoff`",
        default: "200",
        doc: "first backoff (jittered, doubling)",
        set: |c, v| c.retry_initial_backoff = ms(v.int()),
        get: |c| millis(c.retry_initial_backoff),
    },
    Key {
        name: "retry_max_backoff_ms",
        kind: int(1, 3_600_000, MS),
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`retry_backoff`",
        default: "10,000",
        doc: "backoff ceiling (also caps `Retry-After`)",
        set: |c, v| c.retry_max_backoff = ms(v.int()),
        get: |c| millis(c.retry_max_backoff),
    },
    Key {
        name: "connect_timeout_ms",
        kind: int(1, 600_000, MS),
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`timeouts`",
        default: "5,000",
        doc: "per connection attempt",
        set: |c, v| c.connect_timeout = ms(v.int()),
        get: |c| millis(c.connect_timeout),
    },
    Key {
        name: "request_timeout_ms",
        kind: int(1, 3_600_000, MS),
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`timeouts`",
        default: "30,000",
        doc: "per request",
        set: |c, v| c.request_timeout = ms(v.int()),
        get: |c| millis(c.request_timeout),
    },
    Key {
        name: "shutdown_timeout_ms",
        kind: int(0, 3_600_000, MS),
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`shutdown_timeout` / `--shutdown-timeout-ms`",
        default: "5,000 (CLI: 30,000)",
        doc: "how long shutdown may take",
        set: |c, v| c.shutdown_timeout = ms(v.int()),
        get: |c| millis(c.shutdown_timeout),
    },
    Key {
        name: "max_event_bytes",
        kind: int(1024, 256 * 1024 * 1024, BYTES),
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`max_event_bytes`",
        default: "1 MiB",
        doc: "larger events are truncated with a marker and counted",
        set: |c, v| c.max_event_bytes = v.usize(),
        get: |c| Some(c.max_event_bytes.to_string()),
    },
    Key {
        name: "report_to_stderr",
        kind: Kind::Bool,
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`report_to_stderr`",
        default: "true",
        doc: "print problems and the shutdown report",
        set: |c, v| c.report_to_stderr = v.bool(),
        get: |c| Some(c.report_to_stderr.to_string()),
    },
    Key {
        name: "spill_enabled",
        kind: Kind::Bool,
        vendor_env: false,
        when: When::Always,
        java: Some("spillEnabled"),
        builder: "`spill` / `--no-spill`",
        default: "true",
        doc: "keep undeliverable events on disk and replay them",
        set: |c, v| c.spill_enabled = v.bool(),
        get: |c| Some(c.spill_enabled.to_string()),
    },
    Key {
        name: "spill_required",
        kind: Kind::Bool,
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`spill_required` / `--spill-required`",
        default: "false",
        doc: "fail start-up when the spill directory cannot be used (locked, unwritable) instead of running without spill",
        set: |c, v| c.spill_required = v.bool(),
        get: |c| Some(c.spill_required.to_string()),
    },
    Key {
        name: "spill_in_flight_after_ms",
        kind: int(100, 600_000, MS),
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`spill_in_flight_after`",
        default: "5000",
        doc: "a batch whose request has been out this long also gets a copy in the spill, so a crash cannot lose it",
        set: |c, v| c.spill_in_flight_after = ms(v.int()),
        get: |c| millis(c.spill_in_flight_after),
    },
    Key {
        name: "flush_on_panic",
        kind: Kind::Bool,
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`flush_on_panic`",
        default: "true",
        doc: "a panic anywhere in the program first delivers what is queued (at most 2 s)",
        set: |c, v| c.flush_on_panic = v.bool(),
        get: |c| Some(c.flush_on_panic.to_string()),
    },
    Key {
        name: "spill_dir",
        kind: Kind::Path,
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`spill_dir` / `--spill-dir`",
        default: "`~/.cache/logship/<service>` (`$XDG_CACHE_HOME` first)",
        doc: "the spill directory (one process at a time; by default the first free of `<service>`, `<service>.2` .. `<service>.8`)",
        set: |c, v| c.spill_dir = v.text().map(Into::into),
        get: |c| c.spill_dir.as_ref().map(|p| quote(&p.display().to_string())),
    },
    Key {
        name: "spill_max_bytes",
        kind: int(128 * 1024, 1 << 50, BYTES),
        vendor_env: false,
        when: When::Reading,
        java: None,
        builder: "`spill_max_bytes` / `--spill-max-bytes`",
        default: "1 GiB",
        doc: "spill size cap",
        set: |c, v| c.spill_max_bytes = v.int(),
        get: |c| Some(c.spill_max_bytes.to_string()),
    },
    Key {
        name: "spill_segment_bytes",
        kind: int(64 * 1024, 1 << 30, BYTES),
        vendor_env: false,
        when: When::SpillEnabled,
        java: None,
        builder: "`spill_segment_bytes`",
        default: "16 MiB",
        doc: "size of one segment file",
        set: |c, v| c.spill_segment_bytes = v.int(),
        get: |c| Some(c.spill_segment_bytes.to_string()),
    },
    Key {
        name: "spill_full",
        kind: Kind::Choice(SPILL_FULL_NAMES),
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`spill_max_bytes`",
        default: "`drop_oldest`",
        doc: "at the cap: `drop_oldest` or `drop_newest`",
        set: |c, v| c.spill_full = SPILL_FULL[v.choice()],
        get: |c| choice(SPILL_FULL_NAMES, &SPILL_FULL, &c.spill_full),
    },
    Key {
        name: "spill_fsync",
        kind: Kind::Choice(SPILL_FSYNC_NAMES),
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`spill_fsync`",
        default: "`on_segment_close`",
        doc: "`always` syncs every write; `never` leaves it to the OS",
        set: |c, v| c.spill_fsync = SPILL_FSYNC[v.choice()],
        get: |c| choice(SPILL_FSYNC_NAMES, &SPILL_FSYNC, &c.spill_fsync),
    },
];
