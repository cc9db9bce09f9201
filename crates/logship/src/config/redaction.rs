//! The redaction options of a pipeline (issue 17 part 4): which field names and which value
//! patterns are redacted before an event leaves the process or reaches the spill, and how.
//!
//! Why it exists: one sub-struct of [`super::Config`] for one concern, with its defaults and
//! its validation in one place; the rules themselves run in `crate::admit::redaction`. Must never:
//! show the hash key (it is a [`Secret`]), or accept a rule it cannot run (a bad regex or an
//! unknown pattern name fails `validate`, naming the option).

use super::key::{Flag::*, Kind};
use super::key_parts::*;
use super::options::options;
use super::value::list;
use crate::error::ConfigError;
use crate::support::secret::Secret;

/// Field names redacted by default when redaction is on (compared case-insensitively, with
/// `-`, `.` and camelCase read as `_`, and matching a name's last `_` parts too: `db.password`,
/// `X-Api-Key`, `accessToken`).
pub const DEFAULT_FIELDS: &[&str] = &[
    "password",
    "passwd",
    "pwd",
    "passphrase",
    "secret",
    "token",
    "api_key",
    "apikey",
    "authorization",
    "cookie",
    "set_cookie",
    "private_key",
    "secret_key",
    "secret_access_key",
    "credentials",
    "session_id",
];

/// Every built-in value pattern, by name.
pub const PATTERNS: &[&str] = &[
    "card",
    "jwt",
    "bearer",
    "aws_key_id",
    "aws_secret",
    "private_key",
    "email",
];

/// The value patterns on by default when redaction is on: every built-in one except
/// `email` (addresses are personal data, but many programs log them on purpose).
pub const DEFAULT_PATTERNS: &[&str] = PATTERNS.split_at(6).0;

/// Shortest hash key accepted (bytes): a shorter HMAC key would make the hashes guessable.
pub const MIN_HASH_KEY_BYTES: usize = 16;

/// What replaces a redacted value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum RedactAction {
    /// `[redacted:<rule>]` in place of the value (or of the matching text).
    #[default]
    Mask,
    /// `[hmac:<16 hex digits>]`: HMAC-SHA256 of the value under `redact_hash_key`, cut to
    /// 64 bits, so the same value can still be correlated across events.
    Hash,
    /// The whole field is removed (a match inside the message is masked).
    Drop,
}

impl RedactAction {
    /// The names in files, the environment and the CLI, in the order of [`Self::ALL`].
    pub const NAMES: &'static [&'static str] = &["mask", "hash", "drop"];
    /// Every action.
    pub const ALL: [RedactAction; 3] = [RedactAction::Mask, RedactAction::Hash, RedactAction::Drop];
}

const FIELDS: Kind = Kind::List {
    item: "field name",
    fix: "write redact_fields = [\"password\", \"token\", \"x-api-key\"]",
};
const PATTERN_NAMES: Kind = Kind::List {
    item: "pattern name",
    fix: "write redact_patterns = [\"card\", \"jwt\", \"bearer\", \"aws_key_id\", \"aws_secret\", \"private_key\", \"email\"]",
};
const REGEXES: Kind = Kind::List {
    item: "regular expression",
    fix: "write redact_regexes = [\"order-[0-9]{6}\"] (in a file: a comma inside an expression needs the array form)",
};

/// A rule list as `config check` shows it: `[]` when emptied on purpose.
fn rules(v: &[String]) -> Option<String> {
    Some(list(v).unwrap_or_else(|| "[]".into()))
}

options! {
    /// How events are redacted. Off by default; [`RedactionConfig::default`] holds the
    /// default rules used once it is switched on.
    #[derive(Clone, PartialEq, Eq)]
    #[non_exhaustive]
    pub struct RedactionConfig {
        setters: redaction_setters,
        rows: [
            /// Redacts secrets and personal data before events are sent or spilled, with the
            /// rules below; on the batcher's thread, never the caller's. Counted in
            /// `stats().redactions`.
            enabled: bool = false => {
                name: "redact",
                kind: Kind::Bool,
                flag: On("--redact"),
                default: "`false`",
                doc: "redact secrets and personal data (the rules below) on the batcher's thread, before events are sent or spilled; counted per rule in `stats().redactions`",
                set: |c, v| c.enabled = v.bool(),
                get: |c| Some(c.enabled.to_string()),
                setter: fn redact(on: bool) |f| *f = on,
            },
            /// Field names redacted whatever their value (case-insensitive; `-`, `.` and
            /// camelCase read as `_`; `db.password` and `accessToken` match by their last part).
            fields: Vec<String> = DEFAULT_FIELDS.iter().map(|s| s.to_string()).collect() => {
                name: "redact_fields",
                kind: FIELDS,
                flag: Value("--redact-fields"),
                builder: "redact_fields",
                default: "`password`, `passwd`, `pwd`, `passphrase`, `secret`, `token`, `api_key`, `apikey`, `authorization`, `cookie`, `set_cookie`, `private_key`, `secret_key`, `secret_access_key`, `credentials`, `session_id`",
                doc: "field names whose value is always redacted (case-insensitive; `-`, `.` and camelCase read as `_`; `db.password` and `accessToken` match by their last part)",
                set: |c, v| c.fields = v.list(),
                get: |c| rules(&c.fields),
            },
            /// Built-in value patterns applied to the message and every text value.
            patterns: Vec<String> = DEFAULT_PATTERNS.iter().map(|s| s.to_string()).collect() => {
                name: "redact_patterns",
                kind: PATTERN_NAMES,
                flag: Value("--redact-patterns"),
                builder: "redact_patterns",
                default: "`card`, `jwt`, `bearer`, `aws_key_id`, `aws_secret`, `private_key` (add `email` for e-mail addresses)",
                doc: "built-in value patterns redacted in the message and every text value: `card` (Luhn-checked), `jwt`, `bearer`, `aws_key_id`, `aws_secret`, `private_key` (PEM), `email`",
                set: |c, v| c.patterns = v.list(),
                get: |c| rules(&c.patterns),
            },
            /// Regular expressions (Rust `regex` syntax) whose matches are redacted, counted
            /// as `regex1`, `regex2`, ... in the order given.
            regexes: Vec<String> = Vec::new() => {
                name: "redact_regexes",
                kind: REGEXES,
                flag: Each("--redact-regex"),
                builder: "redact_regex",
                default: "none",
                doc: "regular expressions (Rust `regex` syntax, linear time) whose matches are redacted, counted as `regex1`, `regex2`, ...",
                set: |c, v| c.regexes = v.list(),
                get: |c| list(&c.regexes),
            },
            /// What replaces a redacted value.
            action: RedactAction = RedactAction::Mask => {
                name: "redact_action",
                kind: Kind::Choice(RedactAction::NAMES),
                flag: Value("--redact-action"),
                default: "`mask`",
                doc: "`mask` writes `[redacted:<rule>]`; `hash` writes `[hmac:<16 hex>]` (HMAC-SHA256 under `redact_hash_key`, so values still correlate); `drop` removes the field",
                set: |c, v| c.action = RedactAction::ALL[v.choice()],
                get: |c| choice(RedactAction::NAMES, &RedactAction::ALL, &c.action),
                setter: fn redact_action(action: crate::RedactAction) |f| *f = action,
            },
            /// The HMAC key of [`crate::RedactAction::Hash`] (a secret, at least 16 bytes).
            hash_key: Option<Secret> = None => {
                name: "redact_hash_key",
                kind: Kind::Secret,
                flag: Value("--redact-hash-key"),
                default: "none (required by `redact_action = \"hash\"`)",
                doc: "the HMAC key of `hash` (a secret of at least 16 bytes, never shown)",
                set: |c, v| c.hash_key = v.secret(),
                get: |c| redacted(&c.hash_key),
                setter: fn redact_hash_key(key: impl Into<String>) |f| *f = Some(crate::Secret::new(key)),
            },
        ]
    }
}

/// Shows the rules by number only: a user regex may spell out the very value it hides.
impl std::fmt::Debug for RedactionConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedactionConfig")
            .field("enabled", &self.enabled)
            .field("fields", &self.fields.len())
            .field("patterns", &self.patterns)
            .field("regexes", &self.regexes.len())
            .field("action", &self.action)
            .field("hash_key", &self.hash_key)
            .finish()
    }
}

/// Most user regexes, and the compiled size each may take: bounded like everything else.
pub(crate) const MAX_REGEXES: usize = 64;
pub(crate) const REGEX_SIZE_LIMIT: usize = 1 << 20;

impl RedactionConfig {
    /// Compiles one user regex with the limits redaction runs it under.
    pub(crate) fn compile(pattern: &str) -> Result<regex::Regex, ConfigError> {
        regex::RegexBuilder::new(pattern)
            .size_limit(REGEX_SIZE_LIMIT)
            .build()
            .map_err(|e| {
                let why = e.to_string().replace('\n', " ");
                ConfigError::new("redact_regexes", pattern, format!("is not a valid regular expression ({why})"))
                    .fix("write the pattern in Rust regex syntax (https://docs.rs/regex), e.g. redact_regexes = [\"order-[0-9]{6}\"]")
            })
    }

    /// Checks the options (only when redaction is on): known pattern names, regexes that
    /// compile, a hash key when the action is `hash`.
    pub(crate) fn validate(&self) -> Result<(), ConfigError> {
        if !self.enabled {
            return Ok(());
        }
        for p in &self.patterns {
            if !PATTERNS.contains(&p.as_str()) {
                return Err(
                    ConfigError::new("redact_patterns", p, "is not a built-in pattern")
                        .fix(format!("use some of: {}", PATTERNS.join(", "))),
                );
            }
        }
        if self.regexes.len() > MAX_REGEXES {
            return Err(ConfigError::new(
                "redact_regexes",
                self.regexes.len(),
                format!("is more than {MAX_REGEXES} regular expressions"),
            )
            .fix("combine patterns with | into fewer expressions"));
        }
        for r in &self.regexes {
            Self::compile(r)?;
        }
        for f in &self.fields {
            if f.trim().is_empty() {
                return Err(
                    ConfigError::new("redact_fields", "\"\"", "contains an empty name")
                        .fix("remove the empty entry"),
                );
            }
        }
        if self.action == RedactAction::Hash {
            match &self.hash_key {
                None => {
                    return Err(ConfigError::new("redact_hash_key", "(none)", "is required when redact_action = \"hash\"")
                        .fix("set redact_hash_key (or LOGSHIP_REDACT_HASH_KEY) to a secret of at least 16 bytes"))
                }
                Some(k) if k.expose().len() < MIN_HASH_KEY_BYTES => {
                    return Err(ConfigError::new("redact_hash_key", "[redacted]", format!("is shorter than {MIN_HASH_KEY_BYTES} bytes"))
                        .fix("use a random secret of at least 16 bytes, e.g. `openssl rand -hex 32`"))
                }
                Some(_) => {}
            }
        }
        Ok(())
    }
}
