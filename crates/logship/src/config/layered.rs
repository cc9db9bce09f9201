//! Layers of configuration and where each value came from.
//!
//! Why it exists: a program is configured by defaults, files, the environment and its own
//! explicit settings at once; [`Layered`] applies them in one precedence order whatever
//! the call order, and [`Resolved`] remembers each key's [`Origin`] for `config check`
//! and for messages. Explicit settings are stored as changes to a [`Config`], so this
//! module never depends on the pipeline: the `Builder`-facing methods
//! ([`Layered::explicit`], [`Layered::into_builder`]) live with the builder in
//! `pipeline.rs`. Resolving never prints: origins name files and variables, never values.

use std::collections::BTreeMap;
use std::fmt;

use super::env::{apply_logship_env, apply_vendor_env, process_env};
use super::file::{apply_table, parse_toml, read_file, Surface};
use super::parse::{self, Raw};
use super::{keys, suggest::unknown_key};
use super::{Config, Origin};
use crate::error::ConfigError;

type Explicit = Box<dyn FnOnce(&mut Config)>;
type EnvLookup = Box<dyn Fn(&str) -> Option<String>>;

/// Builds a [`Config`] from layers applied in precedence order, whatever the call order:
/// defaults (or a base config) < file < environment < explicit settings. The final
/// vendor's own variables (its SDK's endpoint, headers, service name: docs/vendors.md) are
/// read too, between the file and the `LOGSHIP_*` variables.
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
    strings: Vec<(String, Vec<(String, String)>)>,
    env: Option<EnvLookup>,
    flags: Vec<(String, Given)>,
    explicit: Vec<Explicit>,
}

/// A value given on a command line for one key (see [`Layered::flag`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Given {
    /// Text read as the key's environment variable would be (`--linger-ms 500`,
    /// `--tags a:b,c:d`, `true`/`false` for a switch).
    Text(String),
    /// Items of a list, each one item, never split (`--redact-regex` given twice).
    Items(Vec<String>),
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
            strings: Vec::new(),
            env: None,
            flags: Vec::new(),
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

    /// Adds an appender's attributes (the JVM appender's, by key name or camelCase
    /// attribute: `lingerMillis`), each value read as the key's environment variable
    /// would be, at the precedence of a file; `label` names them in messages and origins.
    /// Keys of the `logship` command's sections are refused.
    pub fn attributes(
        mut self,
        label: impl Into<String>,
        pairs: impl IntoIterator<Item = (String, String)>,
    ) -> Self {
        self.strings
            .push((label.into(), pairs.into_iter().collect()));
        self
    }

    /// Sets one key by name from a command line (the `logship` command's flags), over
    /// files and the environment. A bad name or value fails [`Layered::resolve`] naming
    /// the key.
    pub fn flag(mut self, name: impl Into<String>, value: Given) -> Self {
        self.flags.push((name.into(), value));
        self
    }

    /// Replaces the environment lookup (default: the process environment), used both for
    /// `LOGSHIP_*` variables and for `${env:VAR}` in files.
    pub fn env(mut self, env: impl Fn(&str) -> Option<String> + 'static) -> Self {
        self.env = Some(Box::new(env));
        self
    }

    /// Adds explicit settings as a change to the configuration, applied last (over file
    /// and environment). [`Layered::explicit`] (in `pipeline.rs`) is the same with a
    /// [`crate::Builder`].
    pub fn explicit_config(mut self, f: impl FnOnce(&mut Config) + 'static) -> Self {
        self.explicit.push(Box::new(f));
        self
    }

    /// Applies the layers in precedence order. Values are checked as they are read; the
    /// whole is validated by [`crate::Builder::build`] (or [`Config::validate`]).
    pub fn resolve(self) -> Result<Resolved, ConfigError> {
        let env: EnvLookup = self.env.unwrap_or_else(|| Box::new(process_env));
        let mut config = self.base;
        let mut origins = BTreeMap::new();
        for path in &self.files {
            let label = path.display().to_string();
            let table = parse_toml(&read_file(path)?, &label)?;
            apply_table(
                &mut config,
                &mut origins,
                &table,
                &label,
                &*env,
                Surface::File,
            )?;
        }
        for (label, text) in &self.texts {
            let table = parse_toml(text, label)?;
            apply_table(
                &mut config,
                &mut origins,
                &table,
                label,
                &*env,
                Surface::File,
            )?;
        }
        for (label, table) in &self.tables {
            apply_table(
                &mut config,
                &mut origins,
                table,
                label,
                &*env,
                Surface::Appender,
            )?;
        }
        for (label, pairs) in &self.strings {
            let origin = Origin::File(label.clone());
            for (given, text) in pairs {
                let Some(key) = keys::find_by_any_name(given).filter(|k| k.section.is_none())
                else {
                    return Err(unknown_key(given).origin(&origin));
                };
                parse::set(&mut config, key, &Raw::Env(text)).map_err(|e| e.origin(&origin))?;
                origins.insert(key.name, origin.clone());
            }
        }
        let mut set = apply_logship_env(&mut config, &mut origins, &*env)?;
        for (name, given) in &self.flags {
            let Some(key) = keys::find(name) else {
                return Err(unknown_key(name));
            };
            let items;
            let raw = match given {
                Given::Text(text) => Raw::Env(text),
                Given::Items(list) => {
                    items = toml::Value::from(list.clone());
                    Raw::Toml(&items)
                }
            };
            parse::set(&mut config, key, &raw)
                .map_err(|e| e.origin(format!("flag {}", key.flag.long())))?;
            origins.insert(key.name, Origin::Explicit);
            set.push(key.name);
        }
        if !self.explicit.is_empty() {
            let before = config.effective_values();
            for f in self.explicit {
                f(&mut config);
            }
            for ((key, old), (_, new)) in before.into_iter().zip(config.effective_values()) {
                if old != new {
                    origins.insert(key, Origin::Explicit);
                    set.push(key);
                }
            }
        }
        // Last, because whether they apply depends on the final vendor (often a flag).
        apply_vendor_env(&mut config, &mut origins, &*env, &set)?;
        Ok(Resolved { config, origins })
    }
}
