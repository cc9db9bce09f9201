//! Configuration from the environment: `LOGSHIP_<KEY>` variables, the OpenTelemetry
//! SDK's variables for `vendor = otlp`, and Datadog's unified service tagging variables
//! (`DD_SERVICE`, `DD_ENV`, `DD_VERSION`, `DD_TAGS`, `DD_SITE`) for `vendor = datadog`.
//!
//! Why it exists: containers are configured by their environment. Every key of
//! [`super::keys::all`] has a `LOGSHIP_<KEY>` variable read by the same parser as files,
//! so a bad value fails the same way, naming the variable. The API key is read from the
//! vendor's own variable first (`DD_API_KEY`, ...). A variable's secret value is never
//! shown in an error.

use std::collections::BTreeMap;

use super::dd_env;
use super::keys;
use super::otel_env::{self, OtelSetting};
use super::parse::{self, Raw};
use super::{Config, Origin, Vendor};
use crate::error::ConfigError;

/// Applies every `LOGSHIP_<KEY>` variable that is set (and not empty). The API key is
/// read from the vendor's own variable (`DD_API_KEY`, ...) first, then `LOGSHIP_API_KEY`,
/// as [`Config::resolve_api_key`] does. Returns the keys it set.
pub(crate) fn apply_logship_env(
    config: &mut Config,
    origins: &mut BTreeMap<&'static str, Origin>,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<&'static str>, ConfigError> {
    let mut from_logship = Vec::new();
    for key in keys::all() {
        let mut vars = vec![key.env_var()];
        if key.vendor_env {
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
        parse::set(config, key, &Raw::Env(&value)).map_err(|e| e.origin(&origin))?;
        origins.insert(key.name, origin);
        from_logship.push(key.name);
    }
    Ok(from_logship)
}

/// With `vendor = otlp`, sets from the OpenTelemetry SDK's variables (`otel_env`), and with
/// `vendor = datadog` from Datadog's (`dd_env`), every key not in `skip` (the keys set by
/// `LOGSHIP_*` variables or explicitly, which win). Both sit over configuration files.
pub(crate) fn apply_otel_env(
    config: &mut Config,
    origins: &mut BTreeMap<&'static str, Origin>,
    env: &dyn Fn(&str) -> Option<String>,
    skip: &[&'static str],
) -> Result<(), ConfigError> {
    let values = match config.vendor {
        Vendor::Otlp => otel_env::read(env)?,
        Vendor::Datadog => dd_env::read(env),
        _ => Vec::new(),
    };
    for otel in values {
        if skip.contains(&otel.key) {
            continue;
        }
        let origin = Origin::Env(otel.var.to_owned());
        match otel.value {
            OtelSetting::Text(text) => {
                let key = keys::find(otel.key).expect("otel_env sets known keys");
                parse::set(config, key, &Raw::Env(&text)).map_err(|e| e.origin(&origin))?;
            }
            OtelSetting::Headers(headers) => config.headers = headers,
            OtelSetting::Encoding(encoding) => config.otlp.encoding = encoding,
            OtelSetting::Tags(tags) => {
                let key_of = |t: &str| t.split_once(':').map_or(t, |(k, _)| k).to_owned();
                let theirs: Vec<String> = tags.iter().map(|t| key_of(t)).collect();
                config.tags.retain(|t| !theirs.contains(&key_of(t)));
                config.tags.extend(tags);
            }
        }
        origins.insert(otel.key, origin);
    }
    Ok(())
}

/// The process environment.
pub(crate) fn process_env(var: &str) -> Option<String> {
    std::env::var(var).ok()
}

impl Config {
    /// Applies every `LOGSHIP_<KEY>` environment variable that is set, over this
    /// configuration. `env` looks a variable up (`|v| std::env::var(v).ok()` for the
    /// process environment).
    pub fn apply_env(&mut self, env: impl Fn(&str) -> Option<String>) -> Result<(), ConfigError> {
        let mut origins = BTreeMap::new();
        let set = apply_logship_env(self, &mut origins, &env)?;
        apply_otel_env(self, &mut origins, &env, &set)
    }
}
