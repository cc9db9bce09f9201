//! Reading one raw value (TOML, or an environment variable's text) as a key's kind.
//!
//! Why it exists: files, log4rs maps, `LOGSHIP_*` and `OTEL_*` variables all give raw
//! values; each is read here by the kind its row in [`super::keys::all`] declares, so a
//! bad value fails the same way wherever it came from: the key, the value, what is
//! allowed, the fix. A secret's value is never part of an error (`[redacted]`), and a
//! URL's query and user-info are hidden.

use super::key::Kind;
use super::keys::AnyKey;
use super::redact_url;
use super::suggest::suggest;
use super::value::Value;
use super::{Config, Vendor};
use crate::error::ConfigError;
use crate::support::secret::Secret;

/// One raw value: from a TOML file, or an environment variable's text.
pub(crate) enum Raw<'a> {
    Toml(&'a toml::Value),
    Env(&'a str),
}

pub(crate) fn type_name(v: &toml::Value) -> &'static str {
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

fn choice(
    key: &'static str,
    kind: Kind,
    raw: &Raw<'_>,
    names: &[&'static str],
) -> Result<usize, ConfigError> {
    let want = format!("one of {}", names.join(", "));
    let s = string(key, kind, raw).map_err(|_| type_error(key, kind, raw, &want))?;
    let norm = s.trim().to_ascii_lowercase().replace('-', "_");
    if let Some(i) = names.iter().position(|n| *n == norm) {
        return Ok(i);
    }
    let mut err = ConfigError::new(key, shown(kind, raw), format!("must be {want}"));
    if let Some(s) = suggest(&norm, names.iter().copied()) {
        err = err.fix(format!("did you mean {s}?"));
    }
    Err(err)
}

fn parse_list(
    key: &'static str,
    kind: Kind,
    raw: &Raw<'_>,
    item: &str,
    fix: &str,
) -> Result<Vec<String>, ConfigError> {
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
            kind,
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
        // Each item one `Name: value` (a repeated `--header`): a value may hold `;`.
        Raw::Toml(toml::Value::Array(items)) => items
            .iter()
            .map(|item| match item.as_str().and_then(|h| h.split_once(':')) {
                Some((n, v)) if !n.trim().is_empty() => {
                    Ok((n.trim().to_owned(), Secret::new(v.trim())))
                }
                _ => Err(
                    ConfigError::new(key, "[redacted]", "each header must be 'Name: value'")
                        .fix("write --header 'X-Api-Key: abc'"),
                ),
            })
            .collect(),
        Raw::Toml(_) => {
            Err(type_error(key, Kind::Headers, raw, "a table of name = \"value\"").fix(fix_file))
        }
    }
}

/// A path, or `false` for none (`Kind::PathOrOff`).
fn parse_path_or_off(key: &'static str, raw: &Raw<'_>) -> Result<Value, ConfigError> {
    match raw {
        Raw::Toml(toml::Value::Boolean(false)) => Ok(Value::Off),
        Raw::Toml(toml::Value::String(s)) => Ok(Value::Text(non_empty(s.clone()))),
        Raw::Env(s)
            if matches!(
                s.trim().to_ascii_lowercase().as_str(),
                "false" | "off" | "none"
            ) =>
        {
            Ok(Value::Off)
        }
        Raw::Env(s) => Ok(Value::Text(non_empty((*s).to_owned()))),
        Raw::Toml(_) => Err(
            type_error(key, Kind::PathOrOff, raw, "a path, or false for none").fix(format!(
                "write {key} = \"/var/lib/logship/file\" (or false for none)"
            )),
        ),
    }
}

/// Reads `raw` as a value of `key`'s kind and stores it in `config`.
pub(crate) fn set(config: &mut Config, key: AnyKey, raw: &Raw<'_>) -> Result<(), ConfigError> {
    let (name, kind) = (key.name, key.kind);
    let value = match kind {
        Kind::Vendor => {
            let s = string(name, kind, raw)?;
            let mut v: Result<Vendor, ConfigError> = s.parse();
            if let Err(e) = &mut v {
                if let Some(s) = suggest(
                    &s.to_ascii_lowercase(),
                    Vendor::ALL.iter().map(|v| v.name()),
                ) {
                    e.fix = Some(format!("did you mean {s}?"));
                }
            }
            Value::Vendor(v.map_err(|mut e| {
                e.value = shown(kind, raw);
                e
            })?)
        }
        Kind::Str | Kind::Url | Kind::Path => Value::Text(non_empty(string(name, kind, raw)?)),
        Kind::Secret => Value::Secret(non_empty(string(name, kind, raw)?).map(Secret::new)),
        Kind::Headers => Value::Headers(parse_headers(name, raw)?),
        Kind::List { item, fix } => Value::List(parse_list(name, kind, raw, item, fix)?),
        Kind::Bool => Value::Bool(parse_bool(name, raw)?),
        Kind::Choice(names) => Value::Choice(choice(name, kind, raw, names)?),
        Kind::Int { .. } => Value::Int(parse_int(name, kind, raw)?),
        Kind::PathOrOff => parse_path_or_off(name, raw)?,
    };
    key.set(config, value);
    Ok(())
}
