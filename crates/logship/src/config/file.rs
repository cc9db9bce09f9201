//! TOML configuration: files, text, and `${env:VAR}` substitution.
//!
//! Why it exists: a deployed program is configured by a file, not by code. A file is
//! parsed into a raw table first, so every unknown key is reported (with a "did you
//! mean") instead of being silently ignored; each known key is then read by its row of
//! [`super::keys::all`]. The Java appender's camelCase names are accepted as aliases.
//! A TOML parse error never quotes the file's line (it could hold a secret), and a
//! secret's value never appears in a substitution error.

use std::collections::BTreeMap;
use std::path::Path;

use super::env::process_env;
use super::keys;
use super::parse::{self, Raw};
use super::suggest::{suggest, unknown_key};
use super::{Config, Origin};
use crate::error::ConfigError;

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

/// Which keys a table may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Surface {
    /// A config file: every key, the `logship` command's under their `[section]`.
    File,
    /// A map of an appender (log4rs, the JVM): the pipeline's keys only, by name or
    /// attribute.
    Appender,
}

/// Applies a parsed TOML table to `config`, recording origins. `label` names the file.
/// Stops at the first bad key (see [`apply_table_all`] for every one).
pub(crate) fn apply_table(
    config: &mut Config,
    origins: &mut BTreeMap<&'static str, Origin>,
    table: &toml::Table,
    label: &str,
    env: &dyn Fn(&str) -> Option<String>,
    surface: Surface,
) -> Result<(), ConfigError> {
    match apply_table_all(config, origins, table, label, env, surface)
        .into_iter()
        .next()
    {
        Some((_, e)) => Err(e),
        None => Ok(()),
    }
}

/// Applies every good key of a parsed TOML table to `config`, recording origins, and
/// returns every bad one: the key as the table spells it (`linger_ms`, `follow.paths`)
/// with its error. A bad key leaves its option as it was.
pub(crate) fn apply_table_all(
    config: &mut Config,
    origins: &mut BTreeMap<&'static str, Origin>,
    table: &toml::Table,
    label: &str,
    env: &dyn Fn(&str) -> Option<String>,
    surface: Surface,
) -> Vec<(String, ConfigError)> {
    let origin = Origin::File(label.to_owned());
    let mut errors = Vec::new();
    let mut seen: BTreeMap<&'static str, &str> = BTreeMap::new();
    let sections = keys::sections();
    for (given, value) in table {
        if surface == Surface::File && sections.contains(&given.as_str()) {
            let Some(inner) = value.as_table() else {
                errors.push((
                    given.clone(),
                    ConfigError::new(given_name(given), value.to_string(), "must be a table")
                        .fix(format!("write the options under a [{given}] header"))
                        .origin(&origin),
                ));
                continue;
            };
            for (key, value) in inner {
                let full = format!("{given}.{key}");
                let Some(row) = keys::find(&full).filter(|k| k.section.is_some()) else {
                    errors.push((full, unknown_section_key(given, key).origin(&origin)));
                    continue;
                };
                if let Err(e) = apply_one(config, origins, row, value, &origin, env) {
                    errors.push((full, e));
                }
            }
            continue;
        }
        let row = keys::find_by_any_name(given).filter(|k| k.section.is_none());
        let Some(row) = row else {
            let section = (surface == Surface::File && value.is_table())
                .then(|| suggest(given, sections.iter().copied()))
                .flatten();
            let e = match section {
                Some(section) => {
                    ConfigError::new("section", format!("[{given}]"), "is not a logship section")
                        .fix(format!("did you mean [{section}]?"))
                }
                None => unknown_key(given),
            };
            errors.push((given.clone(), e.origin(&origin)));
            continue;
        };
        let key = row.name;
        if let Some(first) = seen.insert(key, given) {
            let mut names = [first, given.as_str()];
            names.sort_unstable();
            errors.push((
                given.clone(),
                ConfigError::new(key, names.join(", "), "is set twice under two names")
                    .fix("keep one of them")
                    .origin(&origin),
            ));
            continue;
        }
        if let Err(e) = apply_one(config, origins, row, value, &origin, env) {
            errors.push((given.clone(), e));
        }
    }
    errors
}

/// Where each key of a TOML text starts (`key`, and `section.key` for a section's), so
/// that errors can be told in the order of the file. Empty when the text does not parse.
pub(crate) fn key_offsets(text: &str) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    let Ok(table) = toml::de::DeTable::parse(text) else {
        return out;
    };
    for (key, value) in table.get_ref().iter() {
        out.insert(key.get_ref().to_string(), key.span().start);
        if let toml::de::DeValue::Table(inner) = value.get_ref() {
            for (k, _) in inner.iter() {
                out.insert(format!("{}.{}", key.get_ref(), k.get_ref()), k.span().start);
            }
        }
    }
    out
}

/// Sorts errors found in a file's `text` into the file's order (unplaced ones last).
pub(crate) fn in_file_order(text: &str, mut found: Vec<(String, ConfigError)>) -> Vec<ConfigError> {
    let offsets = key_offsets(text);
    found.sort_by_key(|(given, _)| offsets.get(given).copied().unwrap_or(usize::MAX));
    found.into_iter().map(|(_, e)| e).collect()
}

/// The canonical names of the keys `text` sets, in the order the text gives them.
pub(crate) fn key_order(text: &str) -> Vec<&'static str> {
    let mut offsets: Vec<(String, usize)> = key_offsets(text).into_iter().collect();
    offsets.sort_by_key(|(_, at)| *at);
    offsets
        .iter()
        .filter_map(|(given, _)| keys::find_by_any_name(given).or_else(|| keys::find(given)))
        .map(|row| row.name)
        .collect()
}

/// A section's name as an error shows it.
fn given_name(given: &str) -> &'static str {
    keys::sections()
        .into_iter()
        .find(|s| *s == given)
        .unwrap_or("section")
}

/// The error for a key of a section that the section does not have.
fn unknown_section_key(section: &str, key: &str) -> ConfigError {
    let prefix = format!("{section}.");
    let names: Vec<&'static str> = keys::all()
        .filter_map(|k| k.name.strip_prefix(prefix.as_str()))
        .collect();
    let err = ConfigError::new(
        given_name(section),
        format!("{section}.{key}"),
        format!("is not a {section} option"),
    );
    match suggest(key, names.iter().copied()) {
        Some(s) => err.fix(format!("did you mean {s}?")),
        None => err.fix(format!("the [{section}] options are {}", names.join(", "))),
    }
}

/// Reads one value of `row` (with `${env:VAR}` substituted) into `config`.
fn apply_one(
    config: &mut Config,
    origins: &mut BTreeMap<&'static str, Origin>,
    row: keys::AnyKey,
    value: &toml::Value,
    origin: &Origin,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<(), ConfigError> {
    let key = row.name;
    let value =
        substitute_all(key, row.kind.is_secret(), value, env).map_err(|e| e.origin(origin))?;
    parse::set(config, row, &Raw::Toml(&value)).map_err(|e| e.origin(origin))?;
    origins.insert(key, origin.clone());
    Ok(())
}

pub(crate) fn parse_toml(text: &str, label: &str) -> Result<toml::Table, ConfigError> {
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

pub(crate) fn read_file(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path).map_err(|e| {
        ConfigError::new("config", path.display(), format!("cannot be read: {e}"))
            .fix("check the path given to --config")
    })
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
            Surface::File,
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
            Surface::File,
        )?;
        Ok(config)
    }
}
