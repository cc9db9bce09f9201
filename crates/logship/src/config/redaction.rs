//! The redaction options of a pipeline (issue 17 part 4): which field names and which value
//! patterns are redacted before an event leaves the process or reaches the spill, and how.
//!
//! Why it exists: one sub-struct of [`super::Config`] for one concern, with its defaults and
//! its validation in one place; the rules themselves run in `crate::privacy`. Must never:
//! show the hash key (it is a [`Secret`]), or accept a rule it cannot run (a bad regex or an
//! unknown pattern name fails `validate`, naming the option).

use crate::error::ConfigError;
use crate::secret::Secret;

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

/// How events are redacted. Off by default; [`RedactionConfig::default`] holds the default
/// rules used once it is switched on.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct RedactionConfig {
    /// Redaction on. Default: off.
    pub enabled: bool,
    /// Field names redacted whatever their value. Default: `password`, `passwd`, `pwd`,
    /// `passphrase`, `secret`, `token`, `api_key`, `apikey`, `authorization`, `cookie`,
    /// `set_cookie`, `private_key`, `secret_key`, `secret_access_key`, `credentials`,
    /// `session_id`.
    pub fields: Vec<String>,
    /// Built-in value patterns applied to the message and every text value (`card`,
    /// `jwt`, `bearer`, `aws_key_id`, `aws_secret`, `private_key`, `email`). Default: all
    /// but `email`.
    pub patterns: Vec<String>,
    /// Regular expressions (Rust `regex` syntax) whose matches are redacted, counted as
    /// `regex1`, `regex2`, ... in the order given. Default: none.
    pub regexes: Vec<String>,
    /// What replaces a redacted value. Default: mask.
    pub action: RedactAction,
    /// The HMAC key for [`RedactAction::Hash`] (a secret, at least 16 bytes).
    pub hash_key: Option<Secret>,
}

impl Default for RedactionConfig {
    fn default() -> Self {
        RedactionConfig {
            enabled: false,
            fields: DEFAULT_FIELDS.iter().map(|s| s.to_string()).collect(),
            patterns: DEFAULT_PATTERNS.iter().map(|s| s.to_string()).collect(),
            regexes: Vec::new(),
            action: RedactAction::Mask,
            hash_key: None,
        }
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
