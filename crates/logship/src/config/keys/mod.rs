//! THE table: every configuration key, once.
//!
//! Why it exists: a key's name, how its value is read, its range, its documented default,
//! its environment variable, its command-line flag, its camelCase attribute (the JVM
//! appender's, accepted in files and log4rs maps), its typed setter, its meaning, and how
//! it is stored in and read back from [`super::Config`] are facts about one key; each row
//! of the table keeps them together so that files, the environment, log4rs, the command
//! line, the JVM appender, `config check`, `config example`, `config keys`, validation,
//! "did you mean" and `docs/configuration.md` cannot disagree. The rows live with the
//! structs that store them (`pipeline.rs` here for [`super::Config`] itself, and one file per
//! option group); [`all`] walks them in the order `config check` shows them. A getter
//! must never return a secret: secret keys show `[redacted]`.
//!
//! The rows are crate-private; [`KeySpec`] is their read-only public view (for the
//! `logship` command and the JVM appender), so a new column is never a breaking change.

use std::fmt;

pub use super::key::Flag;
pub(crate) use super::key::{Kind, When};

mod pipeline;
#[cfg(test)]
mod tests;
pub(crate) mod vendor;

pub use pipeline::Config;
pub(crate) use pipeline::{all, pipeline_setters, AnyKey};

/// The row named `name`.
pub(crate) fn find(name: &str) -> Option<AnyKey> {
    all().find(|k| k.name == name)
}

/// The row whose name or attribute is `given` (files, log4rs maps, the JVM appender).
pub(crate) fn find_by_any_name(given: &str) -> Option<AnyKey> {
    all().find(|k| k.is_named(given))
}

/// The sections of the file (`follow`, `listen`): tables of keys of the `logship`
/// command, in the table's order.
pub(crate) fn sections() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for section in all().filter_map(|k| k.section) {
        if !out.contains(&section) {
            out.push(section);
        }
    }
    out
}

/// One configuration option as the key table describes it: the read-only view of a row.
///
/// `logship config keys` prints these, the `logship` command builds its flags from them,
/// and the JVM appender its attributes. [`keys`] lists them all.
#[derive(Clone, Copy)]
pub struct KeySpec(AnyKey);

impl KeySpec {
    /// The key's name in files and log4rs maps (`linger_ms`); a key of a section is
    /// written `section.key` (`follow.paths`).
    pub fn name(&self) -> &'static str {
        self.0.name
    }

    /// The type of its value, in words (`integer 0..=600000 milliseconds`, `boolean`,
    /// `one of text, json, ...`).
    pub fn type_name(&self) -> String {
        self.0.kind.describe()
    }

    /// Its default, as documented.
    pub fn default_value(&self) -> &'static str {
        self.0.default
    }

    /// What it does, in one sentence.
    pub fn doc(&self) -> &'static str {
        self.0.doc
    }

    /// Its environment variable (`LOGSHIP_LINGER_MS`).
    pub fn env(&self) -> String {
        self.0.env_var()
    }

    /// Its command-line flag.
    pub fn flag(&self) -> Flag {
        self.0.flag
    }

    /// Its key in a config file: the name, or `section.key` for a key of a section (the
    /// `key` of a `[section]` table).
    pub fn file_key(&self) -> &'static str {
        self.0.name
    }

    /// Its key in a log4rs appender map (`kind: batch_http`); `None` for a key of the
    /// `logship` command's own sections.
    pub fn log4rs_key(&self) -> Option<&'static str> {
        self.0.section.is_none().then_some(self.0.name)
    }

    /// Its camelCase attribute (the JVM appender's, also accepted in files and log4rs
    /// maps); `None` for a key of the `logship` command's own sections.
    pub fn attribute(&self) -> Option<String> {
        self.0.attribute()
    }

    /// The config file section it lives in (`follow`, `listen`), `None` at the top level.
    pub fn section(&self) -> Option<&'static str> {
        self.0.section
    }

    /// Whether its value is a secret (never shown).
    pub fn is_secret(&self) -> bool {
        self.0.kind.is_secret()
    }

    /// What the values of a repeated [`Flag::Many`] flag are joined with before they are
    /// read as one environment variable's value (`,` for lists, `;` for headers).
    pub fn list_separator(&self) -> &'static str {
        self.0.kind.joiner()
    }

    /// The values it accepts when it is one of a fixed set (`["beginning", "end"]`).
    pub fn choices(&self) -> Option<&'static [&'static str]> {
        match self.0.kind {
            Kind::Choice(names) => Some(names),
            _ => None,
        }
    }

    /// Whether it is a boolean.
    pub fn is_bool(&self) -> bool {
        matches!(self.0.kind, Kind::Bool)
    }

    /// The typed setter that sets it in code (`Builder::linger`, `LokiOptions::tenant_id`;
    /// every key can also be set by name with `Builder::set`); `None` for a key of a section.
    pub fn setter(&self) -> Option<String> {
        (!self.0.setter.is_empty()).then(|| format!("{}::{}", self.0.setters_on, self.0.setter))
    }

    /// The row as JSON: `name`, `type`, `default`, `doc`, `env`, `flag`, `file_key`,
    /// `log4rs_key`, `attribute`, `section` (what `logship config keys --format json`
    /// prints, one object per key).
    pub fn to_json(&self) -> serde_json::Value {
        let flag = match self.flag().off() {
            Some(off) => format!("{} | {off}", self.flag().long()),
            None => self.flag().long().to_owned(),
        };
        serde_json::json!({
            "name": self.name(),
            "type": self.type_name(),
            "default": self.default_value(),
            "doc": self.doc(),
            "env": self.env(),
            "flag": flag,
            "file_key": self.file_key(),
            "log4rs_key": self.log4rs_key(),
            "attribute": self.attribute(),
            "section": self.section(),
        })
    }
}

impl fmt::Debug for KeySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("KeySpec").field(&self.name()).finish()
    }
}

/// Every configuration option, in the order `config check` shows them: the key table.
pub fn keys() -> impl Iterator<Item = KeySpec> {
    all().map(KeySpec)
}
