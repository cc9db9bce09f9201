//! Typed errors a user can act on.
//!
//! Why it exists: a misconfigured shipper must fail at start-up with a message that names
//! the field, the value given, what is allowed, and what to do, instead of silently
//! shipping nowhere. Errors never contain secrets (API keys or authorisation headers).

use std::fmt;
use std::time::Duration;

/// A configuration value that cannot work.
#[derive(Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{field} = {value}: {problem}{}{}",
    fix.as_ref().map(|f| format!(" ({f})")).unwrap_or_default(),
    origin.as_ref().map(|o| format!(" [from {o}]")).unwrap_or_default()
)]
#[non_exhaustive]
pub struct ConfigError {
    /// The option's name, as spelled in the builder, the CLI (with dashes) and config files.
    pub field: &'static str,
    /// The value given, already redacted if it was a secret.
    pub value: String,
    /// What is allowed.
    pub problem: String,
    /// What to do about it, when there is something more specific than `problem`.
    pub fix: Option<String>,
    /// Where the value came from (`file logship.toml`, `env LOGSHIP_LINGER_MS`), when it
    /// was read from a config file or the environment.
    pub origin: Option<String>,
}

impl ConfigError {
    pub(crate) fn new(
        field: &'static str,
        value: impl ToString,
        problem: impl Into<String>,
    ) -> Self {
        ConfigError {
            field,
            value: value.to_string(),
            problem: problem.into(),
            fix: None,
            origin: None,
        }
    }

    pub(crate) fn fix(mut self, fix: impl Into<String>) -> Self {
        self.fix = Some(fix.into());
        self
    }

    /// Records where the value came from (kept if already set).
    pub(crate) fn origin(mut self, origin: impl ToString) -> Self {
        if self.origin.is_none() {
            self.origin = Some(origin.to_string());
        }
        self
    }
}

/// Why a pipeline could not be started.
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// A configuration value is invalid.
    #[error("invalid logship configuration: {0}")]
    Config(#[from] ConfigError),
    /// The spill directory cannot be used (another process holds it, or it is not
    /// writable).
    #[error("{0}")]
    Spill(#[from] crate::spill::SpillError),
    /// The operating system refused to start a worker thread.
    #[error("could not start the logship {thread} thread: {source}")]
    Spawn {
        /// Which thread.
        thread: String,
        /// The OS error.
        source: std::io::Error,
    },
}

/// `flush` did not finish in time.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("logship flush timed out after {timeout:?} with {pending} events still queued or in flight; they will keep being delivered in the background")]
#[non_exhaustive]
pub struct FlushTimeout {
    /// How long the call waited.
    pub timeout: Duration,
    /// Events accepted but not yet settled when the call gave up.
    pub pending: u64,
}

/// `Debug` is the message: `fn main() -> Result<(), Box<dyn Error>>` prints a returned error
/// with `Debug`, and a user should see what to fix, not a struct dump. (Every part of the
/// error is in the message; secrets never are.)
impl fmt::Debug for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// `Debug` is the message, for the same reason as [`ConfigError`]'s.
impl fmt::Debug for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}
