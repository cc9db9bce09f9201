//! Configuration from TOML files and `LOGSHIP_*` environment variables, layered.
//!
//! Why it exists: a deployed program is configured by a file and the environment, not by
//! code. Every key has the builder's snake_case name (the Java appender's camelCase names
//! are accepted as aliases), every source fills the one [`Config`] struct, and every bad
//! key or value fails at start-up with the field, the value, what is allowed and where it
//! came from. Files are parsed into a raw table first, so unknown keys are reported (with
//! a "did you mean") instead of being silently ignored. Secrets never appear in errors.
//!
//! Precedence, lowest first: defaults < file < environment < explicit settings.

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use std::time::Duration;

use crate::config::{redact_url, Config, OtlpEncoding, Overflow, Vendor};
use crate::error::ConfigError;
use crate::otel_env::{self, OtelSetting};
use crate::pipeline::Builder;
use crate::secret::Secret;
use crate::spill::{SpillFsync, SpillFull};

/// How a key's value is read.
#[derive(Clone, Copy)]
enum Kind {
    /// Any string; `None` when empty.
    Str,
    /// A secret string (never shown).
    Secret,
    /// A URL (query and user-info hidden in errors).
    Url,
    Vendor,
    /// A table of header name to (secret) value.
    Headers,
    /// An array of `key:value` strings, or one comma-separated string.
    Tags,
    /// A whole number in `min..=max`, with a unit for messages.
    Int {
        min: u64,
        max: u64,
        unit: &'static str,
    },
    Bool,
    Path,
    SpillFull,
    SpillFsync,
    OtlpEncoding,
}

const MS: &str = " milliseconds";
const BYTES: &str = " bytes";

const fn int(min: u64, max: u64, unit: &'static str) -> Kind {
    Kind::Int { min, max, unit }
}

/// Every key, in the order `config check` and `config example` show them. Ranges are
/// those of [`Config::validate`].
const KEYS: &[(&str, Kind)] = &[
    ("vendor", Kind::Vendor),
    ("endpoint", Kind::Url),
    ("headers", Kind::Headers),
    ("api_key", Kind::Secret),
    ("username", Kind::Str),
    ("password", Kind::Secret),
    ("site", Kind::Str),
    ("region", Kind::Str),
    ("service", Kind::Str),
    ("source", Kind::Str),
    ("hostname", Kind::Str),
    ("tags", Kind::Tags),
    ("splunk_index", Kind::Str),
    ("splunk_sourcetype", Kind::Str),
    ("splunk_channel", Kind::Str),
    ("tenant_id", Kind::Str),
    ("loki_labels", Kind::Tags),
    ("max_line_bytes", int(1024, 256 * 1024 * 1024, BYTES)),
    ("index", Kind::Str),
    ("otlp_encoding", Kind::OtlpEncoding),
    (
        "max_request_bytes",
        int(16 * 1024, 1024 * 1024 * 1024, BYTES),
    ),
    ("max_batch_records", int(1, 1_000_000, "")),
    ("max_batch_bytes", int(1024, 256 * 1024 * 1024, BYTES)),
    ("linger_ms", int(0, 600_000, MS)),
    ("queue_capacity", int(1, 100_000_000, "")),
    (
        "queue_max_bytes",
        int(64 * 1024, 64 * 1024 * 1024 * 1024, BYTES),
    ),
    ("block_timeout_ms", int(1, 60_000, MS)),
    ("max_in_flight", int(1, 64, "")),
    ("adaptive_concurrency", Kind::Bool),
    ("gzip", Kind::Bool),
    ("gzip_level", int(0, 9, "")),
    ("max_retries", int(0, 100, "")),
    ("retry_initial_backoff_ms", int(1, 600_000, MS)),
    ("retry_max_backoff_ms", int(1, 3_600_000, MS)),
    ("connect_timeout_ms", int(1, 600_000, MS)),
    ("request_timeout_ms", int(1, 3_600_000, MS)),
    ("shutdown_timeout_ms", int(0, 3_600_000, MS)),
    ("max_event_bytes", int(1024, 256 * 1024 * 1024, BYTES)),
    ("report_to_stderr", Kind::Bool),
    ("spill_enabled", Kind::Bool),
    ("spill_dir", Kind::Path),
    ("spill_max_bytes", int(128 * 1024, 1 << 50, BYTES)),
    ("spill_segment_bytes", int(64 * 1024, 1 << 30, BYTES)),
    ("spill_full", Kind::SpillFull),
    ("spill_fsync", Kind::SpillFsync),
];

/// The Java Batch HTTP appender's names, accepted in files (not in the environment).
const ALIASES: &[(&str, &str)] = &[
    ("maxBatchRecords", "max_batch_records"),
    ("maxBatchBytes", "max_batch_bytes"),
    ("lingerMillis", "linger_ms"),
    ("queueCapacity", "queue_capacity"),
    ("maxRetries", "max_retries"),
    ("spillEnabled", "spill_enabled"),
    ("apiKey", "api_key"),
];

/// The names of every key, in display order.
pub fn config_keys() -> impl Iterator<Item = &'static str> {
    KEYS.iter().map(|(k, _)| *k)
}

/// The environment variable for a key: `LOGSHIP_` and the key in upper case.
pub fn env_var_name(key: &str) -> String {
    format!("LOGSHIP_{}", key.to_ascii_uppercase())
}

/// Where an option's effective value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Nobody set it.
    Default,
    /// A config file (its path as given).
    File(String),
    /// An environment variable (its name).
    Env(String),
    /// An explicit setting (builder call or command-line flag).
    Explicit,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Default => f.write_str("default"),
            Origin::File(p) => write!(f, "file {p}"),
            Origin::Env(v) => write!(f, "env {v}"),
            Origin::Explicit => f.write_str("explicit"),
        }
    }
}

/// One raw value: from a TOML file, or an environment variable's text.
enum Raw<'a> {
    Toml(&'a toml::Value),
    Env(&'a str),
}

fn kind_of(key: &str) -> Option<(&'static str, Kind)> {
    KEYS.iter().find(|(k, _)| *k == key).copied()
}

fn type_name(v: &toml::Value) -> &'static str {
    match v {
        toml::Value::String(_) => "a string",
        toml::Value::Integer(_) => "an integer",
        toml::Value::Float(_) => "a float",
        toml::Value::Boolean(_) => "a boolean",
        toml::Value::Datetime(_) => "a date",
        toml::Value::Array(_) => "an array",
        toml::Value::Table(_) => "a table",
    }
}

/// How a raw value is shown in an error: secrets hidden, URLs redacted.
fn shown(kind: Kind, raw: &Raw<'_>) -> String {
    match (kind, raw.map_str()) {
        (Kind::Secret | Kind::Headers, _) => "[redacted]".into(),
        (Kind::Url, Some(s)) => redact_url(&s),
        _ => match raw {
            Raw::Toml(v) => v.to_string(),
            Raw::Env(s) => (*s).to_owned(),
        },
    }
}

impl Raw<'_> {
    fn map_str(&self) -> Option<String> {
        match self {
            Raw::Toml(toml::Value::String(s)) => Some(s.clone()),
            Raw::Env(s) => Some((*s).to_owned()),
            _ => None,
        }
    }
}

fn type_error(key: &'static str, kind: Kind, raw: &Raw<'_>, want: &str) -> ConfigError {
    let got = match raw {
        Raw::Toml(v) => format!(", got {}", type_name(v)),
        Raw::Env(_) => String::new(),
    };
    ConfigError::new(key, shown(kind, raw), format!("must be {want}{got}"))
}

fn string(key: &'static str, kind: Kind, raw: &Raw<'_>) -> Result<String, ConfigError> {
    raw.map_str()
        .ok_or_else(|| type_error(key, kind, raw, "a string"))
}

fn non_empty(s: String) -> Option<String> {
    let t = s.trim();
    (!t.is_empty()).then(|| t.to_owned())
}

fn parse_bool(key: &'static str, raw: &Raw<'_>) -> Result<bool, ConfigError> {
    let bad = || {
        type_error(key, Kind::Bool, raw, "true or false")
            .fix(format!("write {key} = true or {key} = false"))
    };
    match raw {
        Raw::Toml(toml::Value::Boolean(b)) => Ok(*b),
        _ => match raw
            .map_str()
            .map(|s| s.trim().to_ascii_lowercase())
            .as_deref()
        {
            Some("true" | "1" | "yes" | "on") => Ok(true),
            Some("false" | "0" | "no" | "off") => Ok(false),
            _ => Err(bad()),
        },
    }
}

fn parse_int(key: &'static str, kind: Kind, raw: &Raw<'_>) -> Result<u64, ConfigError> {
    let Kind::Int { min, max, unit } = kind else {
        unreachable!("parse_int on a non-integer key")
    };
    let range = format!("{min}..={max}{unit}");
    let fix = format!("set {key} to a whole number from {min} to {max}");
    let n: Option<i128> = match raw {
        Raw::Toml(toml::Value::Integer(n)) => Some(i128::from(*n)),
        _ => raw
            .map_str()
            .and_then(|s| s.trim().replace('_', "").parse().ok()),
    };
    let Some(n) = n else {
        return Err(type_error(key, kind, raw, &format!("a whole number {range}")).fix(fix));
    };
    if n < i128::from(min) || n > i128::from(max) {
        return Err(ConfigError::new(key, shown(kind, raw), format!("must be {range}")).fix(fix));
    }
    Ok(n as u64)
}

fn choice<T: Copy>(
    key: &'static str,
    kind: Kind,
    raw: &Raw<'_>,
    options: &[(&str, T)],
) -> Result<T, ConfigError> {
    let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
    let want = format!("one of {}", names.join(", "));
    let s = string(key, kind, raw).map_err(|_| type_error(key, kind, raw, &want))?;
    let norm = s.trim().to_ascii_lowercase().replace('-', "_");
    if let Some((_, v)) = options.iter().find(|(n, _)| *n == norm) {
        return Ok(*v);
    }
    let mut err = ConfigError::new(key, shown(kind, raw), format!("must be {want}"));
    if let Some(s) = suggest(&norm, names.iter().copied()) {
        err = err.fix(format!("did you mean {s}?"));
    }
    Err(err)
}

fn parse_tags(key: &'static str, raw: &Raw<'_>) -> Result<Vec<String>, ConfigError> {
    let (item, fix) = if key == "loki_labels" {
        (
            "name=value",
            "write loki_labels = [\"env=prod\", \"team=core\"]",
        )
    } else {
        (
            "key:value",
            "write tags = [\"env:prod\", \"team:payments\"]",
        )
    };
    let split = |s: &str| -> Vec<String> {
        s.split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
            .collect()
    };
    match raw {
        Raw::Toml(toml::Value::String(s)) => Ok(split(s)),
        Raw::Env(s) => Ok(split(s)),
        Raw::Toml(toml::Value::Array(items)) => items
            .iter()
            .map(|v| match v {
                toml::Value::String(s) => Ok(s.trim().to_owned()),
                other => Err(ConfigError::new(
                    key,
                    other.to_string(),
                    format!(
                        "each item must be a \"{item}\" string, got {}",
                        type_name(other)
                    ),
                )
                .fix(fix)),
            })
            .collect(),
        Raw::Toml(_) => Err(type_error(
            key,
            Kind::Tags,
            raw,
            &format!("an array of \"{item}\" strings or one comma-separated string"),
        )
        .fix(fix)),
    }
}

fn parse_headers(key: &'static str, raw: &Raw<'_>) -> Result<Vec<(String, Secret)>, ConfigError> {
    let fix_file = "write [headers] with one Name = \"value\" per line";
    match raw {
        Raw::Toml(toml::Value::Table(t)) => t
            .iter()
            .map(|(name, v)| match v {
                toml::Value::String(s) => Ok((name.trim().to_owned(), Secret::new(s.trim()))),
                other => Err(ConfigError::new(
                    key,
                    format!("{name} = [redacted]"),
                    format!("header values must be strings, got {}", type_name(other)),
                )
                .fix(fix_file)),
            })
            .collect(),
        Raw::Env(s) => s
            .split(';')
            .filter(|h| !h.trim().is_empty())
            .map(|h| match h.split_once(':') {
                Some((n, v)) if !n.trim().is_empty() => {
                    Ok((n.trim().to_owned(), Secret::new(v.trim())))
                }
                _ => Err(
                    ConfigError::new(key, "[redacted]", "each header must be 'Name: value'")
                        .fix("separate headers with ';', e.g. 'X-A: 1; X-B: 2'"),
                ),
            })
            .collect(),
        Raw::Toml(_) => {
            Err(type_error(key, Kind::Headers, raw, "a table of name = \"value\"").fix(fix_file))
        }
    }
}

/// Sets one key on `config`. `key` is a canonical key name.
fn set(
    config: &mut Config,
    key: &'static str,
    kind: Kind,
    raw: &Raw<'_>,
) -> Result<(), ConfigError> {
    let ms = |n: u64| Duration::from_millis(n);
    match kind {
        Kind::Vendor => {
            let s = string(key, kind, raw)?;
            let mut v: Result<Vendor, ConfigError> = s.parse();
            if let Err(e) = &mut v {
                if let Some(s) = suggest(
                    &s.to_ascii_lowercase(),
                    Vendor::ALL.iter().map(|v| v.name()),
                ) {
                    e.fix = Some(format!("did you mean {s}?"));
                }
            }
            config.vendor = v.map_err(|mut e| {
                e.value = shown(kind, raw);
                e
            })?;
        }
        Kind::Url => config.endpoint = non_empty(string(key, kind, raw)?),
        Kind::Secret => {
            let v = non_empty(string(key, kind, raw)?).map(Secret::new);
            match key {
                "api_key" => config.api_key = v,
                "password" => config.password = v,
                _ => unreachable!("secret key {key}"),
            }
        }
        Kind::Headers => config.headers = parse_headers(key, raw)?,
        Kind::Tags => {
            let v = parse_tags(key, raw)?;
            match key {
                "tags" => config.tags = v,
                "loki_labels" => config.loki_labels = v,
                _ => unreachable!("list key {key}"),
            }
        }
        Kind::Str => {
            let v = non_empty(string(key, kind, raw)?);
            match key {
                "site" => config.site = v,
                "region" => config.region = v,
                "service" => config.service = v,
                "source" => config.source = v,
                "hostname" => config.hostname = v,
                "splunk_index" => config.splunk_index = v,
                "splunk_sourcetype" => config.splunk_sourcetype = v,
                "splunk_channel" => config.splunk_channel = v,
                "tenant_id" => config.tenant_id = v,
                "index" => config.index = v,
                "username" => config.username = v,
                _ => unreachable!("string key {key}"),
            }
        }
        Kind::Path => {
            config.spill_dir = non_empty(string(key, kind, raw)?).map(Into::into);
        }
        Kind::Bool => {
            let b = parse_bool(key, raw)?;
            match key {
                "gzip" => config.gzip = b,
                "adaptive_concurrency" => config.adaptive_concurrency = b,
                "report_to_stderr" => config.report_to_stderr = b,
                "spill_enabled" => config.spill_enabled = b,
                _ => unreachable!("bool key {key}"),
            }
        }
        Kind::SpillFull => {
            config.spill_full = choice(
                key,
                kind,
                raw,
                &[
                    ("drop_oldest", SpillFull::DropOldest),
                    ("drop_newest", SpillFull::DropNewest),
                ],
            )?;
        }
        Kind::SpillFsync => {
            config.spill_fsync = choice(
                key,
                kind,
                raw,
                &[
                    ("on_segment_close", SpillFsync::OnSegmentClose),
                    ("always", SpillFsync::Always),
                    ("never", SpillFsync::Never),
                ],
            )?;
        }
        Kind::OtlpEncoding => {
            config.otlp_encoding = choice(
                key,
                kind,
                raw,
                &[
                    ("protobuf", OtlpEncoding::Protobuf),
                    ("json", OtlpEncoding::Json),
                ],
            )?;
        }
        Kind::Int { .. } => {
            let n = parse_int(key, kind, raw)?;
            let z = n as usize;
            match key {
                "max_request_bytes" => config.max_request_bytes = Some(z),
                "max_batch_records" => config.max_batch_records = z,
                "max_batch_bytes" => config.max_batch_bytes = z,
                "linger_ms" => config.linger = ms(n),
                "queue_capacity" => config.queue_capacity = z,
                "queue_max_bytes" => config.queue_max_bytes = z,
                "block_timeout_ms" => config.overflow = Overflow::Block(ms(n)),
                "max_in_flight" => config.max_in_flight = z,
                "gzip_level" => config.gzip_level = n as u32,
                "max_retries" => config.max_retries = n as u32,
                "retry_initial_backoff_ms" => config.retry_initial_backoff = ms(n),
                "retry_max_backoff_ms" => config.retry_max_backoff = ms(n),
                "connect_timeout_ms" => config.connect_timeout = ms(n),
                "request_timeout_ms" => config.request_timeout = ms(n),
                "shutdown_timeout_ms" => config.shutdown_timeout = ms(n),
                "max_event_bytes" => config.max_event_bytes = z,
                "max_line_bytes" => config.max_line_bytes = z,
                "spill_max_bytes" => config.spill_max_bytes = n,
                "spill_segment_bytes" => config.spill_segment_bytes = n,
                _ => unreachable!("integer key {key}"),
            }
        }
    }
    Ok(())
}

/// Levenshtein distance (case-insensitive), for "did you mean".
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The closest candidate within a third of the word's length (at least 2 edits).
fn suggest<'a>(word: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let word = word.replace('-', "_");
    let limit = (word.chars().count() / 3).max(2);
    candidates
        .map(|c| (distance(&word, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

fn unknown_key(key: &str) -> ConfigError {
    let candidates = config_keys().chain(ALIASES.iter().map(|(a, _)| *a));
    let err = ConfigError::new("key", key, "is not a logship option");
    match suggest(key, candidates) {
        Some(s) => err.fix(format!("did you mean {s}?")),
        None => err.fix("`logship config example` lists every option"),
    }
}

/// Replaces `${env:VAR}` and `${env:VAR:-default}` in `text`.
fn substitute(
    key: &'static str,
    secret: bool,
    text: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<String, ConfigError> {
    let shown = || {
        if secret {
            "[redacted]".to_owned()
        } else {
            text.to_owned()
        }
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("${env:") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "${env:".len()..];
        let Some(end) = after.find('}') else {
            return Err(
                ConfigError::new(key, shown(), "has an unterminated ${env:...}")
                    .fix("write ${env:VAR} or ${env:VAR:-default}"),
            );
        };
        let body = &after[..end];
        let (var, default) = match body.split_once(":-") {
            Some((v, d)) => (v, Some(d)),
            None => (body, None),
        };
        let var = var.trim();
        if var.is_empty() {
            return Err(
                ConfigError::new(key, shown(), "has ${env:} without a variable name")
                    .fix("write ${env:VAR} or ${env:VAR:-default}"),
            );
        }
        match env(var).or_else(|| default.map(str::to_owned)) {
            Some(v) => out.push_str(&v),
            None => {
                return Err(ConfigError::new(
                    key,
                    shown(),
                    format!("environment variable {var} is not set"),
                )
                .fix(format!(
                    "set {var}, or give a default: ${{env:{var}:-value}}"
                )))
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Applies `substitute` to every string inside `value`.
fn substitute_all(
    key: &'static str,
    secret: bool,
    value: &toml::Value,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<toml::Value, ConfigError> {
    Ok(match value {
        toml::Value::String(s) => toml::Value::String(substitute(key, secret, s, env)?),
        toml::Value::Array(a) => toml::Value::Array(
            a.iter()
                .map(|v| substitute_all(key, secret, v, env))
                .collect::<Result<_, _>>()?,
        ),
        toml::Value::Table(t) => {
            let mut out = toml::Table::new();
            for (k, v) in t {
                out.insert(k.clone(), substitute_all(key, secret, v, env)?);
            }
            toml::Value::Table(out)
        }
        other => other.clone(),
    })
}

/// Applies a parsed TOML table to `config`, recording origins. `label` names the file.
fn apply_table(
    config: &mut Config,
    origins: &mut BTreeMap<&'static str, Origin>,
    table: &toml::Table,
    label: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(), ConfigError> {
    let origin = Origin::File(label.to_owned());
    let mut seen: BTreeMap<&'static str, &str> = BTreeMap::new();
    for (given, value) in table {
        let canonical = ALIASES
            .iter()
            .find(|(a, _)| a == given)
            .map(|(_, k)| *k)
            .unwrap_or(given.as_str());
        let Some((key, kind)) = kind_of(canonical) else {
            return Err(unknown_key(given).origin(&origin));
        };
        if let Some(first) = seen.insert(key, given) {
            let mut names = [first, given.as_str()];
            names.sort_unstable();
            return Err(
                ConfigError::new(key, names.join(", "), "is set twice under two names")
                    .fix("keep one of them")
                    .origin(&origin),
            );
        }
        let secret = matches!(kind, Kind::Secret | Kind::Headers);
        let value = substitute_all(key, secret, value, env).map_err(|e| e.origin(&origin))?;
        set(config, key, kind, &Raw::Toml(&value)).map_err(|e| e.origin(&origin))?;
        origins.insert(key, origin.clone());
    }
    Ok(())
}

fn parse_toml(text: &str, label: &str) -> Result<toml::Table, ConfigError> {
    text.parse::<toml::Table>().map_err(|e| {
        let line = e
            .span()
            .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1);
        // Only the parser's message: its snippet of the line could show a secret.
        let at = line.map(|l| format!(" at line {l}")).unwrap_or_default();
        ConfigError::new(
            "config",
            label,
            format!("is not valid TOML{at}: {}", e.message().trim()),
        )
        .fix("see `logship config example` for the format")
    })
}

fn read_file(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|e| {
        ConfigError::new("config", path.display(), format!("cannot be read: {e}"))
            .fix("check the path given to --config")
    })
}

/// Applies every `LOGSHIP_<KEY>` variable that is set (and not empty). The API key is
/// read from the vendor's own variable (`DD_API_KEY`, ...) first, then `LOGSHIP_API_KEY`,
/// as [`Config::resolve_api_key`] does. Returns the keys it set.
fn apply_logship_env(
    config: &mut Config,
    origins: &mut BTreeMap<&'static str, Origin>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<&'static str>, ConfigError> {
    let mut from_logship = Vec::new();
    for &(key, kind) in KEYS {
        let mut vars = vec![env_var_name(key)];
        if key == "api_key" {
            if let Some(v) = config.vendor.api_key_env() {
                vars.insert(0, v.to_owned());
            }
        }
        let Some((var, value)) = vars
            .into_iter()
            .find_map(|var| env(&var).filter(|v| !v.trim().is_empty()).map(|v| (var, v)))
        else {
            continue;
        };
        let origin = Origin::Env(var);
        set(config, key, kind, &Raw::Env(&value)).map_err(|e| e.origin(&origin))?;
        origins.insert(key, origin);
        from_logship.push(key);
    }
    Ok(from_logship)
}

/// With `vendor = otlp`, sets from the OpenTelemetry SDK's variables (`otel_env`) every
/// key not in `skip` (the keys set by `LOGSHIP_*` variables or explicitly, which win).
fn apply_otel_env(
    config: &mut Config,
    origins: &mut BTreeMap<&'static str, Origin>,
    env: &dyn Fn(&str) -> Option<String>,
    skip: &[&'static str],
) -> Result<(), ConfigError> {
    if config.vendor == Vendor::Otlp {
        for otel in otel_env::read(env)? {
            if skip.contains(&otel.key) {
                continue;
            }
            let origin = Origin::Env(otel.var.to_owned());
            match otel.value {
                OtelSetting::Text(text) => {
                    let (key, kind) = kind_of(otel.key).expect("otel_env sets known keys");
                    set(config, key, kind, &Raw::Env(&text)).map_err(|e| e.origin(&origin))?;
                }
                OtelSetting::Headers(headers) => config.headers = headers,
                OtelSetting::Encoding(encoding) => config.otlp_encoding = encoding,
                OtelSetting::Tags(tags) => {
                    let key_of = |t: &str| t.split_once(':').map_or(t, |(k, _)| k).to_owned();
                    let theirs: Vec<String> = tags.iter().map(|t| key_of(t)).collect();
                    config.tags.retain(|t| !theirs.contains(&key_of(t)));
                    config.tags.extend(tags);
                }
            }
            origins.insert(otel.key, origin);
        }
    }
    Ok(())
}

fn process_env(var: &str) -> Option<String> {
    std::env::var(var).ok()
}

impl Config {
    /// Reads a TOML configuration over the defaults. `${env:VAR}` and
    /// `${env:VAR:-default}` in strings are read from the process environment.
    pub fn from_toml_str(text: &str) -> Result<Config, ConfigError> {
        let mut config = Config::default();
        let table = parse_toml(text, "(string)")?;
        apply_table(
            &mut config,
            &mut BTreeMap::new(),
            &table,
            "(string)",
            &process_env,
        )?;
        Ok(config)
    }

    /// Reads a TOML configuration file over the defaults.
    pub fn load(path: impl AsRef<Path>) -> Result<Config, ConfigError> {
        let path = path.as_ref();
        let label = path.display().to_string();
        let table = parse_toml(&read_file(path)?, &label)?;
        let mut config = Config::default();
        apply_table(
            &mut config,
            &mut BTreeMap::new(),
            &table,
            &label,
            &process_env,
        )?;
        Ok(config)
    }

    /// Applies every `LOGSHIP_<KEY>` environment variable that is set, over this
    /// configuration. `env` looks a variable up (`|v| std::env::var(v).ok()` for the
    /// process environment).
    pub fn apply_env(&mut self, env: impl Fn(&str) -> Option<String>) -> Result<(), ConfigError> {
        let mut origins = BTreeMap::new();
        let set = apply_logship_env(self, &mut origins, &env)?;
        apply_otel_env(self, &mut origins, &env, &set)
    }

    /// Each option's effective value, in TOML syntax, secrets shown as `[redacted]`;
    /// `None` for an unset option. In the order of [`config_keys`].
    pub fn effective_values(&self) -> Vec<(&'static str, Option<String>)> {
        config_keys().map(|k| (k, value_of(self, k))).collect()
    }
}

fn quote(s: &str) -> String {
    toml::Value::String(s.to_owned()).to_string()
}

/// A TOML array of strings, `None` when empty.
fn list(items: &[String]) -> Option<String> {
    (!items.is_empty()).then(|| {
        let quoted: Vec<String> = items.iter().map(|t| quote(t)).collect();
        format!("[{}]", quoted.join(", "))
    })
}

fn value_of(c: &Config, key: &str) -> Option<String> {
    let q = |s: &Option<String>| s.as_deref().map(quote);
    let ms = |d: Duration| Some(d.as_millis().to_string());
    let n = |n: usize| Some(n.to_string());
    match key {
        "vendor" => Some(quote(c.vendor.name())),
        "endpoint" => c.endpoint.as_deref().map(|u| quote(&redact_url(u))),
        "headers" => (!c.headers.is_empty()).then(|| {
            let items: Vec<String> = c
                .headers
                .iter()
                .map(|(k, _)| format!("{} = \"[redacted]\"", quote(k)))
                .collect();
            format!("{{ {} }}", items.join(", "))
        }),
        "api_key" => c.api_key.as_ref().map(|_| quote("[redacted]")),
        "username" => q(&c.username),
        "password" => c.password.as_ref().map(|_| quote("[redacted]")),
        "site" => q(&c.site),
        "region" => q(&c.region),
        "service" => q(&c.service),
        "source" => q(&c.source),
        "hostname" => q(&c.hostname),
        "tags" => list(&c.tags),
        "loki_labels" => list(&c.loki_labels),
        "tenant_id" => q(&c.tenant_id),
        "max_line_bytes" => n(c.max_line_bytes),
        "splunk_index" => q(&c.splunk_index),
        "splunk_sourcetype" => q(&c.splunk_sourcetype),
        "splunk_channel" => q(&c.splunk_channel),
        "index" => q(&c.index),
        "otlp_encoding" => Some(quote(c.otlp_encoding.name())),
        "max_request_bytes" => c.max_request_bytes.map(|n| n.to_string()),
        "max_batch_records" => n(c.max_batch_records),
        "max_batch_bytes" => n(c.max_batch_bytes),
        "linger_ms" => ms(c.linger),
        "queue_capacity" => n(c.queue_capacity),
        "queue_max_bytes" => n(c.queue_max_bytes),
        "block_timeout_ms" => match c.overflow {
            Overflow::Block(d) => ms(d),
            Overflow::DropNewest => None,
        },
        "max_in_flight" => n(c.max_in_flight),
        "adaptive_concurrency" => Some(c.adaptive_concurrency.to_string()),
        "gzip" => Some(c.gzip.to_string()),
        "gzip_level" => Some(c.gzip_level.to_string()),
        "max_retries" => Some(c.max_retries.to_string()),
        "retry_initial_backoff_ms" => ms(c.retry_initial_backoff),
        "retry_max_backoff_ms" => ms(c.retry_max_backoff),
        "connect_timeout_ms" => ms(c.connect_timeout),
        "request_timeout_ms" => ms(c.request_timeout),
        "shutdown_timeout_ms" => ms(c.shutdown_timeout),
        "max_event_bytes" => n(c.max_event_bytes),
        "report_to_stderr" => Some(c.report_to_stderr.to_string()),
        "spill_enabled" => Some(c.spill_enabled.to_string()),
        "spill_dir" => c
            .spill_dir
            .as_ref()
            .map(|p| quote(&p.display().to_string())),
        "spill_max_bytes" => Some(c.spill_max_bytes.to_string()),
        "spill_segment_bytes" => Some(c.spill_segment_bytes.to_string()),
        "spill_full" => Some(quote(match c.spill_full {
            SpillFull::DropOldest => "drop_oldest",
            SpillFull::DropNewest => "drop_newest",
        })),
        "spill_fsync" => Some(quote(match c.spill_fsync {
            SpillFsync::OnSegmentClose => "on_segment_close",
            SpillFsync::Always => "always",
            SpillFsync::Never => "never",
        })),
        _ => None,
    }
}

type Explicit = Box<dyn FnOnce(Builder) -> Builder>;
type EnvLookup = Box<dyn Fn(&str) -> Option<String>>;

/// Builds a [`Config`] from layers applied in precedence order, whatever the call order:
/// defaults (or a base config) < file < environment < explicit settings. With the final
/// vendor `otlp`, the OpenTelemetry SDK's variables (`OTEL_EXPORTER_OTLP_*`,
/// `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`) are read too, between the file and
/// the `LOGSHIP_*` variables.
///
/// ```no_run
/// let (logship, _guard) = logship::Layered::new()
///     .file("logship.toml")
///     .explicit(|b| b.service("checkout"))
///     .into_builder()
///     .expect("valid configuration")
///     .build()
///     .expect("pipeline started");
/// ```
pub struct Layered {
    base: Config,
    files: Vec<std::path::PathBuf>,
    texts: Vec<(String, String)>,
    tables: Vec<(String, toml::Table)>,
    env: Option<EnvLookup>,
    explicit: Vec<Explicit>,
}

impl Default for Layered {
    fn default() -> Self {
        Layered::new()
    }
}

impl fmt::Debug for Layered {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Layered")
            .field("base", &self.base)
            .field("files", &self.files)
            .field("explicit", &self.explicit.len())
            .finish()
    }
}

/// The outcome of [`Layered::resolve`]: the configuration and where each value came from.
#[derive(Clone, Debug)]
pub struct Resolved {
    /// The effective configuration (not yet validated).
    pub config: Config,
    /// Where each option was last set; options not listed are defaults.
    pub origins: BTreeMap<&'static str, Origin>,
}

impl Resolved {
    /// Where `key`'s value came from.
    pub fn origin(&self, key: &str) -> Origin {
        self.origins.get(key).cloned().unwrap_or(Origin::Default)
    }
}

impl Layered {
    /// Defaults, the process environment, no file.
    pub fn new() -> Layered {
        Layered::from_config(Config::default())
    }

    /// Starts from `base` instead of the defaults (its values count as defaults).
    pub fn from_config(base: Config) -> Layered {
        Layered {
            base,
            files: Vec::new(),
            texts: Vec::new(),
            tables: Vec::new(),
            env: None,
            explicit: Vec::new(),
        }
    }

    /// Adds a TOML file (later files override earlier ones).
    pub fn file(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.files.push(path.into());
        self
    }

    /// Adds TOML text; `label` names it in messages and origins.
    pub fn toml_str(mut self, label: impl Into<String>, text: impl Into<String>) -> Self {
        self.texts.push((label.into(), text.into()));
        self
    }

    /// Adds options already parsed from another format (a log4rs appender's map), at the
    /// precedence of a file; `label` names it in messages and origins.
    #[cfg(feature = "log4rs")]
    pub(crate) fn table(mut self, label: impl Into<String>, table: toml::Table) -> Self {
        self.tables.push((label.into(), table));
        self
    }

    /// Replaces the environment lookup (default: the process environment), used both for
    /// `LOGSHIP_*` variables and for `${env:VAR}` in files.
    pub fn env(mut self, env: impl Fn(&str) -> Option<String> + 'static) -> Self {
        self.env = Some(Box::new(env));
        self
    }

    /// Adds explicit settings, applied last (over file and environment).
    pub fn explicit(mut self, f: impl FnOnce(Builder) -> Builder + 'static) -> Self {
        self.explicit.push(Box::new(f));
        self
    }

    /// Applies the layers in precedence order. Values are checked as they are read; the
    /// whole is validated by [`Builder::build`] (or [`Config::validate`]).
    pub fn resolve(self) -> Result<Resolved, ConfigError> {
        let env: EnvLookup = self.env.unwrap_or_else(|| Box::new(process_env));
        let mut config = self.base;
        let mut origins = BTreeMap::new();
        for path in &self.files {
            let label = path.display().to_string();
            let table = parse_toml(&read_file(path)?, &label)?;
            apply_table(&mut config, &mut origins, &table, &label, &*env)?;
        }
        for (label, text) in &self.texts {
            let table = parse_toml(text, label)?;
            apply_table(&mut config, &mut origins, &table, label, &*env)?;
        }
        for (label, table) in &self.tables {
            apply_table(&mut config, &mut origins, table, label, &*env)?;
        }
        let mut set = apply_logship_env(&mut config, &mut origins, &*env)?;
        if !self.explicit.is_empty() {
            let before = config.effective_values();
            let mut builder = Builder::from_config(config);
            for f in self.explicit {
                builder = f(builder);
            }
            config = builder.config().clone();
            for ((key, old), (_, new)) in before.into_iter().zip(config.effective_values()) {
                if old != new {
                    origins.insert(key, Origin::Explicit);
                    set.push(key);
                }
            }
        }
        // Last, because whether they apply depends on the final vendor (often a flag).
        apply_otel_env(&mut config, &mut origins, &*env, &set)?;
        Ok(Resolved { config, origins })
    }

    /// Resolves the layers into a builder, ready for more settings and `build`.
    pub fn into_builder(self) -> Result<Builder, ConfigError> {
        Ok(Builder::from_config(self.resolve()?.config))
    }
}

/// An annotated TOML configuration for `vendor` that passes validation as it is (with a
/// placeholder API key read from the vendor's usual variable when set).
pub fn example_toml(vendor: Vendor) -> String {
    let mut out = String::new();
    out.push_str("# logship configuration. Every key is optional unless noted; the values shown\n");
    out.push_str(
        "# commented out are the defaults. Each key can also be set with the environment\n",
    );
    out.push_str(
        "# variable LOGSHIP_<KEY> (e.g. LOGSHIP_LINGER_MS=500), which wins over this file.\n",
    );
    out.push_str("# Strings may use ${env:VAR} or ${env:VAR:-default}.\n\n");
    out.push_str(&format!("vendor = {}\n", quote(vendor.name())));
    match vendor {
        Vendor::Ndjson | Vendor::JsonArray => {
            out.push_str("# Required for generic intakes: the URL batches are POSTed to.\n");
            out.push_str("endpoint = \"http://127.0.0.1:8080/logs\"\n");
        }
        Vendor::Datadog => {
            out.push_str("# Datadog site: datadoghq.com, datadoghq.eu, us3.datadoghq.com, ...\n");
            out.push_str("site = \"datadoghq.com\"\n");
        }
        Vendor::NewRelic => {
            out.push_str("# New Relic region: us, eu, jp, fedramp.\n");
            out.push_str("region = \"us\"\n");
        }
        Vendor::Splunk => {
            out.push_str("# Required: your HTTP Event Collector (the standard path is added).\n");
            out.push_str("endpoint = \"https://splunk.example.com:8088\"\n");
            out.push_str("# splunk_index = \"main\"\n# splunk_sourcetype = \"_json\"\n# splunk_channel = \"auto\"\n");
        }
        Vendor::Dynatrace => {
            out.push_str("# Required: your environment's URL (the standard path is added).\n");
            out.push_str("endpoint = \"https://abc12345.live.dynatrace.com\"\n");
        }
        Vendor::Loki => {
            out.push_str("# Required: your Loki or gateway (the standard path is added).\n");
            out.push_str("endpoint = \"http://loki:3100\"\n");
            out.push_str("# Static stream labels besides service and level: keep them few and\n");
            out.push_str("# low-cardinality (fields travel as structured metadata).\n");
            out.push_str("loki_labels = [\"env=prod\"]\n");
            out.push_str("# tenant_id = \"team-a\"    # sent as X-Scope-OrgID\n");
            out.push_str("# username = \"123456\"    # basic auth, e.g. Grafana Cloud\n");
            out.push_str("# password: set LOGSHIP_PASSWORD (a secret, never printed)\n");
            out.push_str("# max_line_bytes = 262144\n");
        }
        Vendor::Elasticsearch => {
            out.push_str("# Required: the cluster (or a coordinating node); /_bulk is added.\n");
            out.push_str("endpoint = \"https://es.example.internal:9200\"\n");
            out.push_str(
                "# A data stream or index; a UTC date pattern (%Y %m %d %H) is allowed.\n",
            );
            out.push_str("# index = \"logs-logship-default\"\n");
            out.push_str(
                "# Basic auth (the password is a secret), or api_key for `ApiKey` auth.\n",
            );
            out.push_str("# username = \"logship\"\n");
            out.push_str("# password = \"${env:LOGSHIP_PASSWORD}\"\n");
            out.push_str("# api_key = \"${env:LOGSHIP_API_KEY}\"\n");
        }
        Vendor::Otlp => {
            out.push_str("# Required: your OpenTelemetry Collector's OTLP/HTTP receiver (/v1/logs is added).\n");
            out.push_str("endpoint = \"http://otel-collector:4318\"\n");
            out.push_str("# protobuf (application/x-protobuf) or json (application/json).\n");
            out.push_str("otlp_encoding = \"protobuf\"\n");
        }
    }
    if let Some(var) = vendor.api_key_env() {
        out.push_str(
            "# The API key: a secret, never printed. Prefer the environment to the file.\n",
        );
        out.push_str(&format!(
            "api_key = \"${{env:{var}:-replace-with-your-key}}\"\n"
        ));
    }
    out.push_str("\nservice = \"checkout\"\n");
    out.push_str("tags = [\"env:prod\", \"team:payments\"]\n");
    out.push_str("# source = \"rust\"\n# hostname = \"(this machine's)\"\n");
    out.push_str(
        "# Extra request headers (values are secrets):\n# [headers]\n# X-Scope = \"logs\"\n\n",
    );
    out.push_str("# Batching and memory.\n");
    out.push_str("# max_batch_records = 200\n# max_batch_bytes = 1048576\n# linger_ms = 1000\n");
    out.push_str("# queue_capacity = 10000\n# queue_max_bytes = 67108864\n");
    out.push_str(
        "# When set, a full queue makes the log call wait up to this long (else it drops).\n",
    );
    out.push_str("# block_timeout_ms = 100\n\n");
    out.push_str("# Sending.\n");
    out.push_str("# Requests in flight adapt between 1 and max_in_flight (fixed when off).\n");
    out.push_str("# max_in_flight = 16\n# adaptive_concurrency = true\n");
    out.push_str("# gzip = true\n# gzip_level = 3\n# max_retries = 3\n");
    out.push_str("# retry_initial_backoff_ms = 200\n# retry_max_backoff_ms = 10000\n");
    out.push_str("# connect_timeout_ms = 5000\n# request_timeout_ms = 30000\n");
    out.push_str(
        "# shutdown_timeout_ms = 5000\n# max_event_bytes = 1048576\n# report_to_stderr = true\n\n",
    );
    out.push_str("# Spill to disk what cannot be delivered now.\n");
    out.push_str("# spill_enabled = true\n# spill_dir = \"~/.cache/logship/<service>\"\n");
    out.push_str("# spill_max_bytes = 1073741824\n# spill_segment_bytes = 16777216\n");
    out.push_str("# spill_full = \"drop_oldest\"    # or drop_newest\n");
    out.push_str("# spill_fsync = \"on_segment_close\"    # or always, never\n");
    out
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::path::PathBuf;

    use super::*;

    fn env_of(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + 'static {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        move |var| map.get(var).cloned()
    }

    fn from_file(text: &str, env: &[(&str, &str)]) -> Result<Resolved, ConfigError> {
        Layered::new()
            .env(env_of(env))
            .toml_str("logship.toml", text)
            .resolve()
    }

    type Check = fn(&Config) -> bool;

    /// Every key: its TOML value, the same as an environment variable, and the field.
    const EVERY_KEY: &[(&str, &str, &str, Check)] = &[
        ("vendor", "\"splunk\"", "splunk", |c| {
            c.vendor == Vendor::Splunk
        }),
        ("endpoint", "\"http://h:1/x\"", "http://h:1/x", |c| {
            c.endpoint.as_deref() == Some("http://h:1/x")
        }),
        (
            "headers",
            "{ X-A = \"1\", X-B = \"2\" }",
            "X-A: 1; X-B: 2",
            |c| {
                c.headers.len() == 2
                    && c.headers[0].0 == "X-A"
                    && c.headers[0].1.expose() == "1"
                    && c.headers[1].1.expose() == "2"
            },
        ),
        ("api_key", "\"k-123\"", "k-123", |c| {
            c.api_key.as_ref().map(Secret::expose) == Some("k-123")
        }),
        ("username", "\"u1\"", "u1", |c| {
            c.username.as_deref() == Some("u1")
        }),
        ("password", "\"pw-1\"", "pw-1", |c| {
            c.password.as_ref().map(Secret::expose) == Some("pw-1")
        }),
        ("site", "\"datadoghq.eu\"", "datadoghq.eu", |c| {
            c.site.as_deref() == Some("datadoghq.eu")
        }),
        ("region", "\"eu\"", "eu", |c| {
            c.region.as_deref() == Some("eu")
        }),
        ("service", "\"svc\"", "svc", |c| {
            c.service.as_deref() == Some("svc")
        }),
        ("source", "\"src\"", "src", |c| {
            c.source.as_deref() == Some("src")
        }),
        ("hostname", "\"h1\"", "h1", |c| {
            c.hostname.as_deref() == Some("h1")
        }),
        (
            "tags",
            "[\"env:prod\", \"team:pay\"]",
            "env:prod,team:pay",
            |c| c.tags == ["env:prod", "team:pay"],
        ),
        ("splunk_index", "\"main\"", "main", |c| {
            c.splunk_index.as_deref() == Some("main")
        }),
        ("splunk_sourcetype", "\"st\"", "st", |c| {
            c.splunk_sourcetype.as_deref() == Some("st")
        }),
        ("splunk_channel", "\"auto\"", "auto", |c| {
            c.splunk_channel.as_deref() == Some("auto")
        }),
        ("tenant_id", "\"team-a\"", "team-a", |c| {
            c.tenant_id.as_deref() == Some("team-a")
        }),
        (
            "loki_labels",
            "[\"env=prod\", \"team=core\"]",
            "env=prod,team=core",
            |c| c.loki_labels == ["env=prod", "team=core"],
        ),
        ("max_line_bytes", "2048", "2048", |c| {
            c.max_line_bytes == 2048
        }),
        ("index", "\"logs-%Y.%m.%d\"", "logs-%Y.%m.%d", |c| {
            c.index.as_deref() == Some("logs-%Y.%m.%d")
        }),
        ("otlp_encoding", "\"json\"", "json", |c| {
            c.otlp_encoding == OtlpEncoding::Json
        }),
        ("max_request_bytes", "20000", "20000", |c| {
            c.max_request_bytes == Some(20_000)
        }),
        ("max_batch_records", "7", "7", |c| c.max_batch_records == 7),
        ("max_batch_bytes", "2048", "2048", |c| {
            c.max_batch_bytes == 2048
        }),
        ("linger_ms", "250", "250", |c| {
            c.linger == Duration::from_millis(250)
        }),
        ("queue_capacity", "99", "99", |c| c.queue_capacity == 99),
        ("queue_max_bytes", "100000", "100000", |c| {
            c.queue_max_bytes == 100_000
        }),
        ("block_timeout_ms", "40", "40", |c| {
            c.overflow == Overflow::Block(Duration::from_millis(40))
        }),
        ("max_in_flight", "5", "5", |c| c.max_in_flight == 5),
        ("adaptive_concurrency", "false", "false", |c| {
            !c.adaptive_concurrency
        }),
        ("gzip", "false", "false", |c| !c.gzip),
        ("gzip_level", "9", "9", |c| c.gzip_level == 9),
        ("max_retries", "0", "0", |c| c.max_retries == 0),
        ("retry_initial_backoff_ms", "11", "11", |c| {
            c.retry_initial_backoff == Duration::from_millis(11)
        }),
        ("retry_max_backoff_ms", "12000", "12000", |c| {
            c.retry_max_backoff == Duration::from_millis(12_000)
        }),
        ("connect_timeout_ms", "13", "13", |c| {
            c.connect_timeout == Duration::from_millis(13)
        }),
        ("request_timeout_ms", "14", "14", |c| {
            c.request_timeout == Duration::from_millis(14)
        }),
        ("shutdown_timeout_ms", "15", "15", |c| {
            c.shutdown_timeout == Duration::from_millis(15)
        }),
        ("max_event_bytes", "4096", "4096", |c| {
            c.max_event_bytes == 4096
        }),
        ("report_to_stderr", "false", "false", |c| {
            !c.report_to_stderr
        }),
        ("spill_enabled", "false", "false", |c| !c.spill_enabled),
        ("spill_dir", "\"/tmp/sp\"", "/tmp/sp", |c| {
            c.spill_dir == Some(PathBuf::from("/tmp/sp"))
        }),
        ("spill_max_bytes", "1000000", "1000000", |c| {
            c.spill_max_bytes == 1_000_000
        }),
        ("spill_segment_bytes", "70000", "70000", |c| {
            c.spill_segment_bytes == 70_000
        }),
        ("spill_full", "\"drop_newest\"", "drop_newest", |c| {
            c.spill_full == SpillFull::DropNewest
        }),
        ("spill_fsync", "\"always\"", "always", |c| {
            c.spill_fsync == SpillFsync::Always
        }),
    ];

    #[test]
    fn every_key_is_read_from_a_file_and_from_the_environment() {
        assert_eq!(
            EVERY_KEY.iter().map(|(k, ..)| *k).collect::<Vec<_>>(),
            config_keys().collect::<Vec<_>>(),
            "the table covers every key"
        );
        for (key, toml_value, env_value, check) in EVERY_KEY {
            let file = from_file(&format!("{key} = {toml_value}\n"), &[])
                .unwrap_or_else(|e| panic!("{key} from file: {e}"));
            assert!(check(&file.config), "{key} from file: {:?}", file.config);
            assert!(
                !check(&Config::default()),
                "{key}: the value is not the default"
            );
            assert_eq!(
                file.origin(key),
                Origin::File("logship.toml".into()),
                "{key}"
            );

            let var = env_var_name(key);
            let env = from_file("", &[(var.as_str(), env_value)])
                .unwrap_or_else(|e| panic!("{key} from env: {e}"));
            assert!(check(&env.config), "{key} from {var}: {:?}", env.config);
            assert_eq!(env.origin(key), Origin::Env(var.clone()), "{key}");

            let mut direct = Config::default();
            direct
                .apply_env(env_of(&[(var.as_str(), env_value)]))
                .unwrap_or_else(|e| panic!("{key} from apply_env: {e}"));
            assert!(check(&direct), "{key} via Config::apply_env");
        }
    }

    /// Captures an appender's map as log4rs hands it over, instead of building it.
    #[cfg(feature = "log4rs")]
    #[derive(Clone, Default)]
    struct Capture(std::sync::Arc<std::sync::Mutex<Option<toml::Table>>>);

    #[cfg(feature = "log4rs")]
    impl log4rs::config::Deserialize for Capture {
        type Trait = dyn log4rs::append::Append;
        type Config = toml::Table;
        fn deserialize(
            &self,
            config: toml::Table,
            _: &log4rs::config::Deserializers,
        ) -> anyhow::Result<Box<dyn log4rs::append::Append>> {
            *self.0.lock().unwrap() = Some(config);
            Ok(Box::new(Noop))
        }
    }

    #[cfg(feature = "log4rs")]
    #[derive(Debug)]
    struct Noop;

    #[cfg(feature = "log4rs")]
    impl log4rs::append::Append for Noop {
        fn append(&self, _: &log::Record<'_>) -> anyhow::Result<()> {
            Ok(())
        }
        fn flush(&self) {}
    }

    #[cfg(feature = "log4rs")]
    #[test]
    fn every_key_is_read_from_a_log4rs_yaml_and_json_file() {
        let dir = std::env::temp_dir().join(format!("logship-log4rs-keys-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for (key, toml_value, _, check) in EVERY_KEY {
            // The TOML literals are YAML and JSON too, but for the inline table's `=`.
            let value = toml_value
                .replace(" = ", ": ")
                .replace("X-A", "\"X-A\"")
                .replace("X-B", "\"X-B\"");
            let files = [
                (
                    "log4rs.yaml",
                    format!("appenders:\n  ship:\n    kind: batch_http\n    {key}: {value}\n"),
                ),
                (
                    "log4rs.json",
                    format!(
                        r#"{{"appenders": {{"ship": {{"kind": "batch_http", "{key}": {value}}}}}}}"#
                    ),
                ),
            ];
            for (name, text) in files {
                let path = dir.join(name);
                std::fs::write(&path, &text).unwrap();
                let capture = Capture::default();
                let mut deserializers = log4rs::config::Deserializers::empty();
                deserializers.insert("batch_http", capture.clone());
                let _ = log4rs::config::load_config_file(&path, deserializers);
                let table = capture
                    .0
                    .lock()
                    .unwrap()
                    .take()
                    .unwrap_or_else(|| panic!("{key}: log4rs did not read {text}"));
                let builder = crate::log4rs::BatchHttpAppenderDeserializer::with_env(env_of(&[]))
                    .builder(table)
                    .unwrap_or_else(|e| panic!("{key} from {name}: {e}"));
                assert!(
                    check(builder.config()),
                    "{key} from {name}: {:?}",
                    builder.config()
                );
            }
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_readme_reference_lists_every_key_with_its_variable_and_java_alias() {
        let readme = include_str!("../../../README.md");
        for key in config_keys() {
            let row = readme
                .lines()
                .find(|l| l.starts_with(&format!("| `{key}` |")))
                .unwrap_or_else(|| panic!("README's configuration reference has no row for {key}"));
            assert!(
                row.contains(&format!("`{}`", env_var_name(key))),
                "{key}: {row}"
            );
            for (alias, _) in ALIASES.iter().filter(|(_, k)| *k == key) {
                assert!(row.contains(&format!("`{alias}`")), "{key}: {row}");
            }
        }
    }

    #[test]
    fn precedence_is_default_then_file_then_env_then_explicit() {
        let file = "linger_ms = 100\nmax_retries = 5\nservice = \"from-file\"\ngzip_level = 4\n";
        let env = [
            ("LOGSHIP_MAX_RETRIES", "6"),
            ("LOGSHIP_SERVICE", "from-env"),
        ];
        // Registered in reverse order: precedence does not depend on call order.
        let r = Layered::new()
            .explicit(|b| b.service("explicit"))
            .env(env_of(&env))
            .toml_str("f.toml", file)
            .resolve()
            .expect("valid");
        let c = &r.config;
        assert_eq!(c.max_batch_records, 200, "default");
        assert_eq!(c.linger, Duration::from_millis(100), "file");
        assert_eq!(c.gzip_level, 4, "file");
        assert_eq!(c.max_retries, 6, "env over file");
        assert_eq!(c.service.as_deref(), Some("explicit"), "explicit over env");
        let origins: Vec<(&str, String)> =
            ["max_batch_records", "linger_ms", "max_retries", "service"]
                .iter()
                .map(|k| (*k, r.origin(k).to_string()))
                .collect();
        assert_eq!(
            origins,
            [
                ("max_batch_records", "default".to_owned()),
                ("linger_ms", "file f.toml".to_owned()),
                ("max_retries", "env LOGSHIP_MAX_RETRIES".to_owned()),
                ("service", "explicit".to_owned()),
            ]
        );
    }

    #[test]
    fn the_vendors_own_api_key_variable_wins_over_logship_api_key() {
        let env = [("DD_API_KEY", "dd"), ("LOGSHIP_API_KEY", "ls")];
        let r = from_file("vendor = \"datadog\"\napi_key = \"file\"", &env).expect("valid");
        assert_eq!(r.config.api_key.as_ref().map(Secret::expose), Some("dd"));
        assert_eq!(r.origin("api_key"), Origin::Env("DD_API_KEY".into()));
        let r = from_file("api_key = \"file\"", &env).expect("valid");
        assert_eq!(r.config.api_key.as_ref().map(Secret::expose), Some("ls"));
    }

    /// The OpenTelemetry SDK's variables of a typical Kubernetes deployment.
    const OTEL_ENV: &[(&str, &str)] = &[
        ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"),
        ("OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Bearer%20tok3n"),
        ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
        ("OTEL_EXPORTER_OTLP_TIMEOUT", "2500"),
        ("OTEL_SERVICE_NAME", "checkout"),
        (
            "OTEL_RESOURCE_ATTRIBUTES",
            "deployment.environment=prod,k8s.pod.name=web-7",
        ),
    ];

    #[test]
    fn with_vendor_otlp_the_opentelemetry_variables_set_what_the_file_does_not() {
        let file = "vendor = \"otlp\"\nendpoint = \"http://file:4318\"\ntags = [\"deployment.environment:dev\", \"team:pay\"]\n";
        let r = from_file(file, OTEL_ENV).expect("valid");
        let c = &r.config;
        assert_eq!(c.endpoint.as_deref(), Some("http://collector:4318/v1/logs"));
        let headers: Vec<(&str, &str)> = c
            .headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.expose()))
            .collect();
        assert_eq!(headers, [("Authorization", "Bearer tok3n")]);
        assert_eq!(c.otlp_encoding, OtlpEncoding::Json);
        assert_eq!(c.request_timeout, Duration::from_millis(2500));
        assert_eq!(c.service.as_deref(), Some("checkout"));
        // Merged per key: the environment's value wins, the file's other tags stay.
        assert_eq!(
            c.tags,
            [
                "team:pay",
                "deployment.environment:prod",
                "k8s.pod.name:web-7"
            ]
        );
        for (key, var) in [
            ("endpoint", "OTEL_EXPORTER_OTLP_ENDPOINT"),
            ("headers", "OTEL_EXPORTER_OTLP_HEADERS"),
            ("otlp_encoding", "OTEL_EXPORTER_OTLP_PROTOCOL"),
            ("request_timeout_ms", "OTEL_EXPORTER_OTLP_TIMEOUT"),
            ("service", "OTEL_SERVICE_NAME"),
            ("tags", "OTEL_RESOURCE_ATTRIBUTES"),
        ] {
            assert_eq!(r.origin(key), Origin::Env(var.into()), "{key}");
        }
        assert!(c.validate().is_ok());
        assert!(!format!("{r:?}").contains("tok3n"));
    }

    #[test]
    fn logship_variables_and_explicit_settings_win_over_the_opentelemetry_ones() {
        let mut env = OTEL_ENV.to_vec();
        env.push(("LOGSHIP_ENDPOINT", "http://logship-env:4318"));
        let r = Layered::new()
            .env(env_of(&env))
            // The vendor comes from a flag, as with `logship ship --vendor otlp`: the
            // OpenTelemetry variables still apply.
            .explicit(|b| b.vendor(Vendor::Otlp).service("explicit"))
            .resolve()
            .expect("valid");
        assert_eq!(
            r.config.endpoint.as_deref(),
            Some("http://logship-env:4318")
        );
        assert_eq!(r.origin("endpoint"), Origin::Env("LOGSHIP_ENDPOINT".into()));
        assert_eq!(r.config.service.as_deref(), Some("explicit"));
        assert_eq!(r.origin("service"), Origin::Explicit);
        assert_eq!(r.config.otlp_encoding, OtlpEncoding::Json);
    }

    #[test]
    fn other_vendors_ignore_the_opentelemetry_variables() {
        let r = from_file("endpoint = \"http://127.0.0.1:9/logs\"", OTEL_ENV).expect("valid");
        assert_eq!(
            r.config.endpoint.as_deref(),
            Some("http://127.0.0.1:9/logs")
        );
        assert!(r.config.headers.is_empty());
        assert_eq!(r.config.service, None);
        assert_eq!(r.config.request_timeout, Config::default().request_timeout);
        let mut direct = Config::default();
        direct.apply_env(env_of(OTEL_ENV)).expect("valid");
        assert_eq!(direct.endpoint, None);
    }

    #[test]
    fn a_bad_opentelemetry_value_fails_naming_the_option_and_the_variable() {
        let cases = [
            (
                ("OTEL_EXPORTER_OTLP_TIMEOUT", "0"),
                "request_timeout_ms = 0: must be 1..=3600000 milliseconds",
            ),
            (
                ("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", "grpc"),
                "otlp_encoding = grpc: logship speaks OTLP/HTTP, not OTLP/gRPC",
            ),
        ];
        for ((var, value), message) in cases {
            let e = from_file("vendor = \"otlp\"", &[(var, value)]).unwrap_err();
            let text = e.to_string();
            assert!(text.starts_with(message), "{text}");
            assert!(text.ends_with(&format!("[from env {var}]")), "{text}");
        }
        // Config::apply_env reads them too once the vendor is otlp.
        let mut c = Config {
            vendor: Vendor::Otlp,
            ..Config::default()
        };
        c.apply_env(env_of(OTEL_ENV)).expect("valid");
        assert_eq!(c.endpoint.as_deref(), Some("http://collector:4318/v1/logs"));
    }

    #[test]
    fn java_appender_names_are_aliases() {
        let cases: &[(&str, Check)] = &[
            ("maxBatchRecords = 9", |c| c.max_batch_records == 9),
            ("maxBatchBytes = 4096", |c| c.max_batch_bytes == 4096),
            ("lingerMillis = 33", |c| {
                c.linger == Duration::from_millis(33)
            }),
            ("queueCapacity = 77", |c| c.queue_capacity == 77),
            ("gzip = false", |c| !c.gzip),
            ("maxRetries = 8", |c| c.max_retries == 8),
            ("spillEnabled = false", |c| !c.spill_enabled),
            ("vendor = \"newrelic\"", |c| c.vendor == Vendor::NewRelic),
            ("site = \"us5.datadoghq.com\"", |c| {
                c.site.as_deref() == Some("us5.datadoghq.com")
            }),
            ("apiKey = \"ak\"", |c| {
                c.api_key.as_ref().map(Secret::expose) == Some("ak")
            }),
            ("service = \"s\"", |c| c.service.as_deref() == Some("s")),
            ("source = \"java\"", |c| c.source.as_deref() == Some("java")),
        ];
        for (line, check) in cases {
            let r = from_file(line, &[]).unwrap_or_else(|e| panic!("{line}: {e}"));
            assert!(check(&r.config), "{line}");
        }
    }

    #[test]
    fn env_substitution_in_strings() {
        let env = [("SVC", "payments"), ("DIR", "/var/spill")];
        let r = from_file(
            "service = \"${env:SVC}-api\"\nsource = \"${env:NOPE:-rust}\"\n\
             spill_dir = \"${env:DIR}\"\nlinger_ms = \"${env:LINGER:-250}\"\n\
             tags = [\"svc:${env:SVC}\"]\n[headers]\nX-Svc = \"${env:SVC}\"",
            &env,
        )
        .expect("valid");
        let c = &r.config;
        assert_eq!(c.service.as_deref(), Some("payments-api"));
        assert_eq!(c.source.as_deref(), Some("rust"));
        assert_eq!(c.spill_dir, Some(PathBuf::from("/var/spill")));
        assert_eq!(c.linger, Duration::from_millis(250));
        assert_eq!(c.tags, ["svc:payments"]);
        assert_eq!(c.headers[0].1.expose(), "payments");
    }

    #[test]
    fn bad_inputs_fail_with_an_exact_message() {
        let f = "[from file logship.toml]";
        type Vars = &'static [(&'static str, &'static str)];
        let cases: Vec<(&str, Vars, String)> = vec![
            (
                "lingr_ms = 5",
                &[],
                format!("key = lingr_ms: is not a logship option (did you mean linger_ms?) {f}"),
            ),
            (
                "maxBatchRecord = 5",
                &[],
                format!("key = maxBatchRecord: is not a logship option (did you mean maxBatchRecords?) {f}"),
            ),
            (
                "colour = \"red\"",
                &[],
                format!("key = colour: is not a logship option (`logship config example` lists every option) {f}"),
            ),
            (
                "linger_ms = -5",
                &[],
                format!("linger_ms = -5: must be 0..=600000 milliseconds (set linger_ms to a whole number from 0 to 600000) {f}"),
            ),
            (
                "max_in_flight = 65",
                &[],
                format!("max_in_flight = 65: must be 1..=64 (set max_in_flight to a whole number from 1 to 64) {f}"),
            ),
            (
                "linger_ms = true",
                &[],
                format!("linger_ms = true: must be a whole number 0..=600000 milliseconds, got a boolean (set linger_ms to a whole number from 0 to 600000) {f}"),
            ),
            (
                "max_batch_bytes = 1.5",
                &[],
                format!("max_batch_bytes = 1.5: must be a whole number 1024..=268435456 bytes, got a float (set max_batch_bytes to a whole number from 1024 to 268435456) {f}"),
            ),
            (
                "gzip = \"maybe\"",
                &[],
                format!("gzip = \"maybe\": must be true or false, got a string (write gzip = true or gzip = false) {f}"),
            ),
            (
                "service = 5",
                &[],
                format!("service = 5: must be a string, got an integer {f}"),
            ),
            (
                "vendor = \"datadg\"",
                &[],
                format!("vendor = \"datadg\": unknown vendor; choose one of: ndjson, json, datadog, splunk, newrelic, dynatrace, loki, elasticsearch, otlp (did you mean datadog?) {f}"),
            ),
            (
                "spill_fsync = \"sometimes\"",
                &[],
                format!("spill_fsync = \"sometimes\": must be one of on_segment_close, always, never {f}"),
            ),
            (
                "spill_full = \"drop-oldst\"",
                &[],
                format!("spill_full = \"drop-oldst\": must be one of drop_oldest, drop_newest (did you mean drop_oldest?) {f}"),
            ),
            (
                "service = \"${env:SERVICE_NAME}\"",
                &[],
                format!("service = ${{env:SERVICE_NAME}}: environment variable SERVICE_NAME is not set (set SERVICE_NAME, or give a default: ${{env:SERVICE_NAME:-value}}) {f}"),
            ),
            (
                "api_key = \"${env:MY_KEY}\"",
                &[],
                format!("api_key = [redacted]: environment variable MY_KEY is not set (set MY_KEY, or give a default: ${{env:MY_KEY:-value}}) {f}"),
            ),
            (
                "max_retries = 3\nmaxRetries = 4",
                &[],
                format!("max_retries = maxRetries, max_retries: is set twice under two names (keep one of them) {f}"),
            ),
            (
                "",
                &[("LOGSHIP_LINGER_MS", "soon")],
                "linger_ms = soon: must be a whole number 0..=600000 milliseconds (set linger_ms to a whole number from 0 to 600000) [from env LOGSHIP_LINGER_MS]".to_owned(),
            ),
            (
                "",
                &[("LOGSHIP_SPILL_FULL", "keep")],
                "spill_full = keep: must be one of drop_oldest, drop_newest [from env LOGSHIP_SPILL_FULL]".to_owned(),
            ),
            (
                "linger_ms = ",
                &[],
                "config = logship.toml: is not valid TOML at line 1: string values must be quoted, expected literal string (see `logship config example` for the format)".to_owned(),
            ),
        ];
        for (text, env, want) in cases {
            let err = from_file(text, env).expect_err(text).to_string();
            assert_eq!(err, want, "for {text:?} / {env:?}");
        }
    }

    #[test]
    fn secrets_never_show_in_errors_or_debug() {
        let secret = "sk-live-SECRET";
        let good = [
            format!("api_key = \"{secret}\""),
            format!("apiKey = \"{secret}\""),
            format!("[headers]\nAuthorization = \"Bearer {secret}\""),
        ];
        for text in &good {
            let r = from_file(text, &[]).expect("valid");
            let shown = format!("{:?} {:?}", r.config, r.config.effective_values());
            assert!(!shown.contains(secret), "{shown}");
            assert!(shown.contains("[redacted]"), "{shown}");
        }
        let r = from_file("", &[("LOGSHIP_API_KEY", secret)]).expect("valid");
        assert!(!format!("{r:?}").contains(secret));
        let bad: &[(&str, &[(&str, &str)])] = &[
            ("api_key = 5", &[]),
            ("api_key = [\"sk-live-SECRET\"]", &[]),
            ("[headers]\nAuthorization = 7\nX = \"sk-live-SECRET\"", &[]),
            ("headers = \"sk-live-SECRET\"", &[]),
            ("", &[("LOGSHIP_HEADERS", "sk-live-SECRET")]),
            ("api_key = \"sk-live-SECRET${env:NOPE}\"", &[]),
            ("api_key = \"sk-live-SECRET", &[]),
            (
                "endpoint = \"https://u:sk-live-SECRET@h/x?k=sk-live-SECRET\"\nlinger_ms = -1",
                &[],
            ),
        ];
        for (text, env) in bad {
            let err = from_file(text, env).map(|r| r.config.validate());
            let shown = format!(
                "{err:?} {}",
                match &err {
                    Err(e) | Ok(Err(e)) => e.to_string(),
                    Ok(Ok(())) => String::new(),
                }
            );
            assert!(!shown.contains(secret), "{text}: {shown}");
        }
    }

    #[test]
    fn examples_pass_validation_for_every_vendor() {
        for vendor in Vendor::ALL {
            let r = from_file(&example_toml(*vendor), &[])
                .unwrap_or_else(|e| panic!("{}: {e}", vendor.name()));
            assert_eq!(r.config.vendor, *vendor);
            r.config
                .validate()
                .unwrap_or_else(|e| panic!("{}: {e}", vendor.name()));
        }
    }

    #[test]
    fn suggestions_use_edit_distance() {
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(
            suggest("queue_capacty", config_keys()),
            Some("queue_capacity")
        );
        assert_eq!(suggest("linger-ms", config_keys()), Some("linger_ms"));
        assert_eq!(suggest("zzzzzz", config_keys()), None);
    }

    #[test]
    fn loading_a_file_and_a_missing_one() {
        let dir = std::env::temp_dir().join(format!("logship-config-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("mkdir");
        let path = dir.join("logship.toml");
        std::fs::write(&path, "linger_ms = 42\n").expect("write");
        assert_eq!(
            Config::load(&path).expect("load").linger,
            Duration::from_millis(42)
        );
        assert_eq!(
            Config::from_toml_str("max_retries = 1")
                .expect("parse")
                .max_retries,
            1
        );
        let missing = dir.join("missing.toml");
        let err = Config::load(&missing).expect_err("missing").to_string();
        assert!(
            err.starts_with(&format!("config = {}: cannot be read", missing.display())),
            "{err}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
