//! The shape of one configuration key: how its value is read, when its range is checked,
//! how it is set on the command line, and the facts a row of the key table holds.
//!
//! Why it exists: the table is long; its row type lives here so the table files are only
//! rows. A row is a [`Meta`] (every fact that does not depend on where the value is
//! stored: name, kind, flag, attribute, default, doc) plus a setter and a getter on the
//! struct that stores it ([`Key`]). Nothing here knows any particular key, and nothing
//! here may show a secret.

use std::ops::Deref;

use super::value::Value;

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
    /// A file system path, or `false` for none at all (unset: a default path).
    PathOrOff,
    /// One of these names (the setter receives its position).
    Choice(&'static [&'static str]),
}

impl Kind {
    /// Whether values of this kind are secrets (never shown, not even in errors).
    pub(crate) fn is_secret(self) -> bool {
        matches!(self, Kind::Secret | Kind::Headers)
    }

    /// The kind in words, as `logship config keys` prints it.
    pub(crate) fn describe(self) -> String {
        match self {
            Kind::Str => "string".into(),
            Kind::Secret => "secret string".into(),
            Kind::Url => "URL".into(),
            Kind::Vendor => "vendor name".into(),
            Kind::Headers => "table of header name to secret value".into(),
            Kind::List { item, .. } => format!("list of \"{item}\""),
            Kind::Int { min, max, unit } => format!("integer {min}..={max}{unit}"),
            Kind::Bool => "boolean".into(),
            Kind::Path => "path".into(),
            Kind::PathOrOff => "path, or false".into(),
            Kind::Choice(names) => format!("one of {}", names.join(", ")),
        }
    }

    /// The text a repeated flag's values are joined with before they are read (the
    /// separator an environment variable of this kind uses).
    pub(crate) fn joiner(self) -> &'static str {
        match self {
            Kind::Headers => ";",
            _ => ",",
        }
    }
}

/// When [`super::Config::validate`] checks an integer key's range (files and the
/// environment always check it when they read the value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum When {
    /// Whenever the getter shows a value (an unset optional key is not checked).
    Always,
    /// Only when spill is enabled.
    SpillEnabled,
    /// Never: only when read (a cross-key rule of `validate` covers it).
    Reading,
}

/// How a key is set on the `logship` command line. Every key has exactly one flag (or a
/// pair, for [`Flag::ValueOrOff`]); the CLI builds its options from these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Flag {
    /// `--flag VALUE`, read as the key's environment variable would be.
    Value(&'static str),
    /// `--flag VALUE`, repeatable; the values are joined as one environment variable's
    /// (`,` for lists, `;` for headers) and each may hold several items.
    Many(&'static str),
    /// `--flag VALUE`, repeatable; each value is one item of a list, never split (a
    /// regular expression may hold a comma).
    Each(&'static str),
    /// A switch that sets a boolean key to `true`.
    On(&'static str),
    /// A switch that sets a boolean key to `false` (`--no-gzip`).
    Off(&'static str),
    /// `--flag VALUE`, or the second switch for `false` (`--checkpoint F`, `--no-checkpoint`).
    ValueOrOff(&'static str, &'static str),
}

impl Flag {
    /// The long flag, `--` included.
    pub fn long(self) -> &'static str {
        match self {
            Flag::Value(f) | Flag::Many(f) | Flag::Each(f) | Flag::On(f) | Flag::Off(f) => f,
            Flag::ValueOrOff(f, _) => f,
        }
    }

    /// The second switch of [`Flag::ValueOrOff`] (sets `false`), if any.
    pub fn off(self) -> Option<&'static str> {
        match self {
            Flag::ValueOrOff(_, off) => Some(off),
            _ => None,
        }
    }

    /// Whether the flag takes a value (`--flag VALUE`) rather than being a switch.
    pub fn takes_value(self) -> bool {
        matches!(
            self,
            Flag::Value(_) | Flag::Many(_) | Flag::Each(_) | Flag::ValueOrOff(..)
        )
    }

    /// Whether the flag may be given more than once.
    pub fn repeatable(self) -> bool {
        matches!(self, Flag::Many(_) | Flag::Each(_))
    }
}

/// Every fact about a key that does not depend on where its value is stored.
#[derive(Debug)]
pub(crate) struct Meta {
    /// The name in files, log4rs maps and (upper-cased, `.` as `_`) `LOGSHIP_<NAME>`; a
    /// key of a section is written `section.key` (`follow.paths`).
    pub name: &'static str,
    /// How its value is read, and its range.
    pub kind: Kind,
    /// Whether the vendor's own API-key variable (its `Vendor::api_key_env`) is read before
    /// `LOGSHIP_<NAME>`.
    pub vendor_env: bool,
    /// When `validate` checks its range.
    pub when: When,
    /// The camelCase attribute name (the JVM appender's, accepted as a second name in
    /// files and log4rs maps) when it is not the name in camelCase (`lingerMillis`).
    pub attribute: Option<&'static str>,
    /// Its command-line flag.
    pub flag: Flag,
    /// The typed builder setter that sets it (`Builder::linger`, or a method of an option group),
    /// generated or hand-written; empty for a key of a section (the CLI's).
    pub setter: &'static str,
    /// The type `setter` is a method of (`Builder`, an option group).
    pub setters_on: &'static str,
    /// The default, as documented.
    pub default: &'static str,
    /// What it does, in one sentence.
    pub doc: &'static str,
    /// The file section it lives in (`follow`, `listen`), or `None` at the top level.
    pub section: Option<&'static str>,
}

impl Meta {
    /// Its environment variable: `LOGSHIP_` and the name in upper case, `.` as `_`.
    pub(crate) fn env_var(&self) -> String {
        format!(
            "LOGSHIP_{}",
            self.name.replace('.', "_").to_ascii_uppercase()
        )
    }

    /// Its camelCase attribute (the JVM appender's name, also accepted in files and log4rs
    /// maps); `None` for a key of a section, which only the command line reads.
    pub(crate) fn attribute(&self) -> Option<String> {
        if self.section.is_some() {
            return None;
        }
        Some(match self.attribute {
            Some(a) => a.to_owned(),
            None => camel_case(self.name),
        })
    }

    /// Its second name in files and log4rs maps, when its attribute differs from its name.
    pub(crate) fn alias(&self) -> Option<String> {
        self.attribute().filter(|a| a != self.name)
    }

    /// Whether `given` names this key in a file or map: its name or its attribute.
    pub(crate) fn is_named(&self, given: &str) -> bool {
        self.name == given || self.attribute().is_some_and(|a| a == given)
    }
}

/// `snake_case` as `camelCase`.
pub(crate) fn camel_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// One configuration key stored in a struct `T` (the pipeline's `Config`, or one of its
/// option groups): its facts, and how a value of its kind is stored and shown.
pub(crate) struct Key<T: 'static> {
    /// Its facts.
    pub meta: Meta,
    /// Stores a value of its kind.
    pub set: fn(&mut T, Value),
    /// Its effective value in TOML syntax (secrets `[redacted]`); `None` when unset.
    pub get: fn(&T) -> Option<String>,
}

impl<T> Deref for Key<T> {
    type Target = Meta;

    fn deref(&self) -> &Meta {
        &self.meta
    }
}

#[cfg(test)]
mod tests {
    use super::camel_case;

    #[test]
    fn snake_case_names_become_camel_case_attributes() {
        assert_eq!(camel_case("max_batch_records"), "maxBatchRecords");
        assert_eq!(camel_case("gzip"), "gzip");
        assert_eq!(camel_case("tls_ca_file"), "tlsCaFile");
    }
}
