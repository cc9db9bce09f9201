//! A value only the command can check (a glob pattern, a multi-line rule, a listen URL, a
//! token), found wrong: the key, the value, what is wrong, the fix, and where the value
//! came from, in the library's own shape (`key = value: problem (fix) [from origin]`).
//!
//! Why it exists: the library reads and range-checks every key; what it cannot judge
//! (it never follows files nor listens) the command checks after resolution, and must
//! report as the library reports its own, whatever surface the value came from. Must
//! never: show a secret (the caller passes `[redacted]` as the value of one).

use std::fmt;

use logship::Origin;

use logship_cli::exit::Failure;

/// One bad value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The key (`follow.paths`).
    pub key: &'static str,
    /// The value as shown (TOML-like quoting; `[redacted]` for a secret).
    pub value: String,
    /// What is wrong.
    pub problem: String,
    /// What to do about it.
    pub fix: String,
    /// Where the value came from (`file logship.toml`, `env LOGSHIP_FOLLOW_PATHS`,
    /// `flag --follow`).
    pub origin: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} = {}: {} ({}) [from {}]",
            self.key, self.value, self.problem, self.fix, self.origin
        )
    }
}

/// Where a value came from, in words: `Origin::Explicit` is always a flag in this command.
pub fn origin_text(key: &str, origin: &Origin) -> String {
    match origin {
        Origin::Explicit => match logship::keys().find(|k| k.name() == key) {
            Some(spec) => format!("flag {}", spec.flag().long()),
            None => "flag".to_owned(),
        },
        other => other.to_string(),
    }
}

/// A string as the problems show it (quoted, escapes visible).
pub fn quoted(text: &str) -> String {
    format!("{text:?}")
}

/// Every problem found, one per line, as a usage error (exit 2).
pub fn failure(problems: &[Problem]) -> Failure {
    let lines: Vec<String> = problems
        .iter()
        .map(|p| format!("invalid logship configuration: {p}"))
        .collect();
    Failure::usage(lines.join("\nlogship: "))
}

/// A library error in resolving or validating the configuration, as a usage error.
pub fn invalid(e: logship::ConfigError) -> Failure {
    Failure::usage(format!("invalid logship configuration: {e}"))
}
