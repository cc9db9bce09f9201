//! Configuration from the environment: `LOGSHIP_<KEY>` variables, and the variables a
//! vendor's own SDKs and agents already read (each vendor folder translates its own, see
//! `Vendor::env_values`).
//!
//! Why it exists: containers are configured by their environment. Every key of
//! [`super::keys::all`] has a `LOGSHIP_<KEY>` variable read by the same parser as files,
//! so a bad value fails the same way, naming the variable. The API key is read from the
//! vendor's own variable first (`Vendor::api_key_env`). A variable's secret value is never
//! shown in an error.

use std::collections::BTreeMap;

use super::keys;
use super::parse::{self, Raw};
use super::{Config, Origin};
use crate::error::ConfigError;
use crate::support::secret::Secret;

/// One option set from a variable of the vendor's own SDKs and agents.
#[derive(Debug)]
pub(crate) struct EnvValue {
    /// The logship key it sets.
    pub key: &'static str,
    /// The variable it came from (shown as the value's origin).
    pub var: &'static str,
    /// The value.
    pub value: EnvSetting,
}

/// A value in the form its logship option takes.
#[derive(Debug)]
pub(crate) enum EnvSetting {
    /// Text checked and applied like a `LOGSHIP_<KEY>` variable's.
    Text(String),
    /// Request headers (`headers`).
    Headers(Vec<(String, Secret)>),
    /// `key:value` tags, merged into `tags` (these win per key).
    Tags(Vec<String>),
}

/// Applies every `LOGSHIP_<KEY>` variable that is set (and not empty). The API key is
/// read from the vendor's own variable first, then `LOGSHIP_API_KEY`,
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

/// Sets from the configured vendor's own variables (`Vendor::env_values`: those its SDKs
/// and agents already read) every key not in `skip` (the
/// keys set by `LOGSHIP_*` variables or explicitly, which win). They sit over files.
pub(crate) fn apply_vendor_env(
    config: &mut Config,
    origins: &mut BTreeMap<&'static str, Origin>,
    env: &dyn Fn(&str) -> Option<String>,
    skip: &[&'static str],
) -> Result<(), ConfigError> {
    let values = config.vendor.env_values(env)?;
    for value in values {
        if skip.contains(&value.key) {
            continue;
        }
        let origin = Origin::Env(value.var.to_owned());
        match value.value {
            EnvSetting::Text(text) => {
                let key = keys::find(value.key).expect("a vendor's variables set known keys");
                parse::set(config, key, &Raw::Env(&text)).map_err(|e| e.origin(&origin))?;
            }
            EnvSetting::Headers(headers) => config.headers = headers,
            EnvSetting::Tags(tags) => {
                let key_of = |t: &str| t.split_once(':').map_or(t, |(k, _)| k).to_owned();
                let theirs: Vec<String> = tags.iter().map(|t| key_of(t)).collect();
                config.tags.retain(|t| !theirs.contains(&key_of(t)));
                config.tags.extend(tags);
            }
        }
        origins.insert(value.key, origin);
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
        apply_vendor_env(self, &mut origins, &env, &set)
    }
}
