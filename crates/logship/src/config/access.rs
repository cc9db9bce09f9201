//! Reading and setting a [`Config`] as a whole: one key by name, every effective value,
//! the spill settings with their default directory, the API key with its variables.
//!
//! Why it exists: these read the key table and the parser, so they live apart from the
//! struct's definition (which the table generates) and from the module's re-exports. Must
//! never show a secret: effective values come from the getters.

use std::path::PathBuf;

use super::keys::{self, Config};
use super::{parse, suggest};
use crate::spill::SpillConfig;
use crate::support::secret::Secret;

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

    /// The API key: `api_key`, else the file `api_key_file` names, else the vendor's own
    /// environment variable, else `LOGSHIP_API_KEY`. `env` is the environment lookup (injectable for tests).
    pub fn resolve_api_key(&self, env: impl Fn(&str) -> Option<String>) -> Option<Secret> {
        if let Some(k) = self.api_key.as_ref().filter(|k| !k.is_empty()) {
            return Some(k.clone());
        }
        // A file that cannot be read fails `validate`, naming `api_key_file`.
        if let Some(k) = self
            .api_key_file
            .as_deref()
            .and_then(|p| Secret::from_file(p).ok())
        {
            return Some(k);
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
