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
use super::file::{apply_table_all, in_file_order, key_order, parse_toml, read_file, Surface};
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
    /// whole is validated by [`crate::Builder::build`] (or [`Config::validate`]). Fails
    /// with the first bad value (in the order of each file); [`Layered::resolve_all`]
    /// tells every one.
    pub fn resolve(self) -> Result<Resolved, ConfigError> {
        let (resolved, errors) = self.resolve_all();
        match errors.into_iter().next() {
            Some(e) => Err(e),
            None => Ok(resolved),
        }
    }

    /// Applies the layers like [`Layered::resolve`], going on past bad values: returns
    /// the configuration with every bad value left at what the layers below gave it, and
    /// every error, each file's in the order of the file, then the environment's and the
    /// flags'. `logship config check` reports them all at once.
    pub fn resolve_all(self) -> (Resolved, Vec<ConfigError>) {
        let env: EnvLookup = self.env.unwrap_or_else(|| Box::new(process_env));
        let mut config = self.base;
        let mut origins = BTreeMap::new();
        let mut errors = Vec::new();
        let mut texts: Vec<(String, Result<String, ConfigError>)> = self
            .files
            .iter()
            .map(|path| (path.display().to_string(), read_file(path)))
            .collect();
        texts.extend(
            self.texts
                .into_iter()
                .map(|(label, text)| (label, Ok(text))),
        );
        for (label, text) in &texts {
            let table = match text {
                Ok(text) => parse_toml(text, label).map(|table| (text, table)),
                Err(e) => Err(e.clone()),
            };
            match table {
                Ok((text, table)) => {
                    let found = apply_table_all(
                        &mut config,
                        &mut origins,
                        &table,
                        label,
                        &*env,
                        Surface::File,
                    );
                    errors.extend(in_file_order(text, found));
                }
                Err(e) => errors.push(e),
            }
        }
        for (label, table) in &self.tables {
            let found = apply_table_all(
                &mut config,
                &mut origins,
                table,
                label,
                &*env,
                Surface::Appender,
            );
            errors.extend(found.into_iter().map(|(_, e)| e));
        }
        for (label, pairs) in &self.strings {
            let origin = Origin::File(label.clone());
            for (given, text) in pairs {
                let Some(key) = keys::find_by_any_name(given).filter(|k| k.section.is_none())
                else {
                    errors.push(unknown_key(given).origin(&origin));
                    continue;
                };
                match parse::set(&mut config, key, &Raw::Env(text)) {
                    Ok(()) => {
                        origins.insert(key.name, origin.clone());
                    }
                    Err(e) => errors.push(e.origin(&origin)),
                }
            }
        }
        let mut set = apply_logship_env(&mut config, &mut origins, &*env).unwrap_or_else(|e| {
            errors.push(e);
            Vec::new()
        });
        for (name, given) in &self.flags {
            let Some(key) = keys::find(name) else {
                errors.push(unknown_key(name));
                continue;
            };
            let items;
            let raw = match given {
                Given::Text(text) => Raw::Env(text),
                Given::Items(list) => {
                    items = toml::Value::from(list.clone());
                    Raw::Toml(&items)
                }
            };
            match parse::set(&mut config, key, &raw) {
                Ok(()) => {
                    origins.insert(key.name, Origin::Explicit);
                    set.push(key.name);
                }
                Err(e) => errors.push(e.origin(format!("flag {}", key.flag.long()))),
            }
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
        if let Err(e) = apply_vendor_env(&mut config, &mut origins, &*env, &set) {
            errors.push(e);
        }
        (Resolved { config, origins }, errors)
    }

    /// The keys the files set, in the order they give them (each file in turn): the
    /// order in which `config check` tells problems found after resolution.
    pub fn key_order(&self) -> Vec<&'static str> {
        let mut order = Vec::new();
        for path in &self.files {
            if let Ok(text) = read_file(path) {
                order.extend(key_order(&text));
            }
        }
        for (_, text) in &self.texts {
            order.extend(key_order(text));
        }
        order
    }
}
