//! The shape of one configuration key: how its value is read, when its range is checked,
//! and the facts a row of [`super::keys::all`] holds.
//!
//! Why it exists: the table is long; its row type lives here so the table file is only
//! the table. Nothing here knows any particular key.

use super::value::Value;
use super::Config;

/// How a key's value is read.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind {
    /// Any string; `None` when empty.
    Str,
    /// A secret string (never shown).
    Secret,
    /// A URL (query and user-info hidden in errors).
    Url,
    /// A vendor name.
    Vendor,
    /// A table of header name to (secret) value.
    Headers,
    /// An array of strings, or one comma-separated string; `item` and `fix` word errors.
    List {
        item: &'static str,
        fix: &'static str,
    },
    /// A whole number in `min..=max`, with a unit for messages.
    Int {
        min: u64,
        max: u64,
        unit: &'static str,
    },
    /// `true` or `false`.
    Bool,
    /// A file system path.
    Path,
    /// One of these names (the setter receives its position).
    Choice(&'static [&'static str]),
}

impl Kind {
    /// Whether values of this kind are secrets (never shown, not even in errors).
    pub(crate) fn is_secret(self) -> bool {
        matches!(self, Kind::Secret | Kind::Headers)
    }
}

/// When [`Config::validate`] checks an integer key's range (files and the environment
/// always check it when they read the value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum When {
    /// Whenever the getter shows a value (an unset optional key is not checked).
    Always,
    /// Only when spill is enabled.
    SpillEnabled,
    /// Never: only when read (a cross-key rule of `validate` covers it).
    Reading,
}

/// One configuration key. `builder`, `default` and `doc` are documentation: they are
/// read by the reference renderer (`super::reference`, built with the tests).
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) struct Key {
    /// The snake_case name in files, log4rs maps and `LOGSHIP_<NAME>`.
    pub name: &'static str,
    /// How its value is read, and its range.
    pub kind: Kind,
    /// Whether the vendor's own API-key variable ([`super::Vendor::api_key_env`], e.g.
    /// `DD_API_KEY`) is read before `LOGSHIP_<NAME>`.
    pub vendor_env: bool,
    /// When `validate` checks its range.
    pub when: When,
    /// The Java Batch HTTP appender's name for it, if the appender has one (accepted in
    /// files and log4rs maps when it differs from `name`).
    pub java: Option<&'static str>,
    /// The builder setter and the CLI flag, as documented.
    pub builder: &'static str,
    /// The default, as documented.
    pub default: &'static str,
    /// What it does, in one line.
    pub doc: &'static str,
    /// Stores a value of its kind.
    pub set: fn(&mut Config, Value),
    /// Its effective value in TOML syntax (secrets `[redacted]`); `None` when unset.
    pub get: fn(&Config) -> Option<String>,
}

impl Key {
    /// Its environment variable: `LOGSHIP_` and the name in upper case.
    pub(crate) fn env_var(&self) -> String {
        format!("LOGSHIP_{}", self.name.to_ascii_uppercase())
    }

    /// Its Java alias when that differs from its name (then accepted as a second name).
    pub(crate) fn alias(&self) -> Option<&'static str> {
        self.java.filter(|j| *j != self.name)
    }
}
