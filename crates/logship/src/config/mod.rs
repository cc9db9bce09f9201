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
//! Every key is one row, written once beside the struct that stores it: the pipeline's own
//! in `keys/pipeline.rs` (which generates [`Config`]), each option group's in its file
//! ([`SplunkOptions`], [`RedactionConfig`], the `logship` command's [`FollowOptions`] and
//! [`ListenOptions`], ...). A row holds the name, the kind, the default, the doc, the flag,
//! the camelCase attribute, and how the value is stored and shown; `options.rs` generates
//! the struct, its `Default` and `Debug`, the typed setters and the rows from it, and
//! [`keys::all`] walks them. Files ([`file`]), the environment ([`env`]), log4rs maps and
//! the JVM appender's attributes ([`Layered::attributes`]), the command line
//! ([`Layered::flag`], flags built from [`KeySpec::flag`]), [`Config::set`], `config check`
//! ([`Config::effective_values`], [`Resolved`]), `config example` ([`example`]), `config
//! keys` ([`keys()`]), range validation ([`validate`]), "did you mean" ([`suggest`]) and the
//! reference in `docs/configuration.md` ([`reference`]) all read the rows. Adding an option
//! is one row plus the code that uses it.
//!
//! # Option groups
//! Options that only one intake reads are grouped in a typed struct held in [`Config`]:
//! [`SplunkOptions`], [`LokiOptions`], [`ElasticsearchOptions`], [`OtlpOptions`], each
//! with its own rules beside it. Options that several intakes read stay top-level, where
//! every intake finds them: `username`/`password`, `max_request_bytes`, `api_key`, `site`,
//! `region`. The key names (TOML, `LOGSHIP_*`, log4rs) do not show the grouping:
//! `splunk_index` is `config.splunk.index`. The `logship` command's own options live in
//! the file's `[follow]` and `[listen]` sections and are named `follow.paths`, ...

pub(crate) mod budget;
pub(crate) mod control;
pub(crate) mod dd_env;
pub(crate) mod elasticsearch;
mod env;
mod example;
mod file;
pub(crate) mod hosted;
pub(crate) mod key;
mod key_parts;
mod keys;
mod layered;
pub(crate) mod loki;
pub(crate) mod options;
pub(crate) mod otel_env;
mod otlp;
mod parse;
pub(crate) mod redaction;
#[cfg(test)]
mod reference;
pub(crate) mod sidecar;
pub(crate) mod splunk;
mod suggest;
mod validate;
mod value;
mod vendor;

#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::time::Duration;

use crate::secret::Secret;
use crate::spill::SpillConfig;

pub use budget::{BudgetConfig, ObserveConfig};
pub use control::ControlConfig;
pub use elasticsearch::ElasticsearchOptions;
pub use example::example_toml;
pub(crate) use keys::pipeline_setters;
pub use keys::{keys, Config, Flag, KeySpec};
pub use layered::{Given, Layered, Origin, Resolved};
pub use loki::LokiOptions;
pub use otlp::{OtlpEncoding, OtlpOptions};
pub use redaction::{RedactAction, RedactionConfig};
pub use sidecar::{FollowOptions, ListenOptions};
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
    /// Sets one option by its key name or camelCase attribute (`linger_ms` or
    /// `lingerMillis`), the text read as the key's `LOGSHIP_*` variable would be. A bad
    /// name or value is an error naming the key and the fix (a secret's value never shown).
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), crate::ConfigError> {
        let row = keys::find_by_any_name(key).ok_or_else(|| suggest::unknown_key(key))?;
        parse::set(self, row, &parse::Raw::Env(value))
    }

    /// Each option's effective value, in TOML syntax, secrets shown as `[redacted]`;
    /// `None` for an unset option. In the order `config check` shows them.
    pub fn effective_values(&self) -> Vec<(&'static str, Option<String>)> {
        keys::all().map(|k| (k.name, k.get(self))).collect()
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
