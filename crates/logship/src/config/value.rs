//! A key's value once read, and how a value is shown back in TOML syntax.
//!
//! Why it exists: [`super::parse`] turns raw text (TOML or an environment variable) into a
//! [`Value`] of the key's kind, and the key's setter in [`super::keys`] stores it in
//! [`super::Config`]; getters show values with [`quote`] and [`list`]. Neither side needs
//! to know the other's format. A shown value must never contain a secret: getters of
//! secret keys show `[redacted]`.

use super::Vendor;
use crate::support::secret::Secret;

/// A parsed value, of the kind its key declares.
#[derive(Debug)]
pub(crate) enum Value {
    /// A string; `None` when empty.
    Text(Option<String>),
    /// A secret string; `None` when empty.
    Secret(Option<Secret>),
    /// A vendor name.
    Vendor(Vendor),
    /// Header names and (secret) values.
    Headers(Vec<(String, Secret)>),
    /// A list of strings.
    List(Vec<String>),
    /// A whole number, within the key's range.
    Int(u64),
    /// A boolean.
    Bool(bool),
    /// The position of one of the key's choices.
    Choice(usize),
    /// `false` for a key of kind `PathOrOff`: none at all.
    Off,
}

// Setters call the accessor of their key's kind; the every-key test proves each pairing.
impl Value {
    /// The string, for `Kind::Str`, `Kind::Url` and `Kind::Path` keys.
    pub(crate) fn text(self) -> Option<String> {
        match self {
            Value::Text(t) => t,
            _ => None,
        }
    }

    /// The secret, for `Kind::Secret` keys.
    pub(crate) fn secret(self) -> Option<Secret> {
        match self {
            Value::Secret(s) => s,
            _ => None,
        }
    }

    /// The vendor, for the `vendor` key.
    pub(crate) fn vendor(self) -> Vendor {
        match self {
            Value::Vendor(v) => v,
            _ => Vendor::default(),
        }
    }

    /// The headers, for the `headers` key.
    pub(crate) fn headers(self) -> Vec<(String, Secret)> {
        match self {
            Value::Headers(h) => h,
            _ => Vec::new(),
        }
    }

    /// The list, for `Kind::List` keys.
    pub(crate) fn list(self) -> Vec<String> {
        match self {
            Value::List(l) => l,
            _ => Vec::new(),
        }
    }

    /// The number, for `Kind::Int` keys.
    pub(crate) fn int(self) -> u64 {
        match self {
            Value::Int(n) => n,
            _ => 0,
        }
    }

    /// The number as a `usize` (ranges keep it well inside).
    pub(crate) fn usize(self) -> usize {
        usize::try_from(self.int()).unwrap_or(usize::MAX)
    }

    /// The number as a `u32` (ranges keep it well inside).
    pub(crate) fn u32(self) -> u32 {
        u32::try_from(self.int()).unwrap_or(u32::MAX)
    }

    /// The boolean, for `Kind::Bool` keys.
    pub(crate) fn bool(self) -> bool {
        matches!(self, Value::Bool(true))
    }

    /// For `Kind::PathOrOff` keys: `None` when empty (the default path), `Some(None)` for
    /// `false`, else the path.
    pub(crate) fn path_or_off(self) -> Option<Option<std::path::PathBuf>> {
        match self {
            Value::Off => Some(None),
            Value::Text(Some(p)) => Some(Some(p.into())),
            _ => None,
        }
    }

    /// The position of the choice, for `Kind::Choice` keys.
    pub(crate) fn choice(self) -> usize {
        match self {
            Value::Choice(i) => i,
            _ => 0,
        }
    }
}

/// A TOML string literal.
pub(crate) fn quote(s: &str) -> String {
    toml::Value::String(s.to_owned()).to_string()
}

/// A TOML array of strings, `None` when empty.
pub(crate) fn list(items: &[String]) -> Option<String> {
    (!items.is_empty()).then(|| {
        let quoted: Vec<String> = items.iter().map(|t| quote(t)).collect();
        format!("[{}]", quoted.join(", "))
    })
}
