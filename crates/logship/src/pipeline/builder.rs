//! The builder: every setting of a pipeline, with its default named.
//!
//! Why it exists: the one obvious way to configure a pipeline in code, over the same
//! [`Config`] the file and the environment fill; it holds settings only and starts
//! nothing (see `start` for [`Builder::build`]). It must never accept a value that
//! `build` would not check.

use std::sync::Arc;
use std::time::Duration;

use crate::config::{Config, Layered};
use crate::error::ConfigError;
use crate::observe::reporter::{DeliveryError, ErrorCallback};
use crate::support::secret::Secret;

/// Configures and starts a pipeline. Every setter names its default.
#[derive(Default)]
pub struct Builder {
    pub(super) config: Config,
    pub(super) on_error: Option<ErrorCallback>,
    pub(super) spill_handover: bool,
    pub(super) on_stall: Option<crate::StallCallback>,
    pub(super) budget_clock: Option<crate::BudgetClock>,
}

impl std::fmt::Debug for Builder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Builder")
            .field("config", &self.config)
            .finish()
    }
}

impl Builder {
    crate::config::pipeline_setters!(config.);
    crate::config::redaction::redaction_setters!(config.redaction.);
    crate::config::control::control_setters!(config.control.);
    crate::config::budget::budget_setters!(config.budget.);
    crate::config::budget::observe_setters!(config.observe.);

    /// Sets one option by its key name or camelCase attribute (`linger_ms` or
    /// `lingerMillis`), the text read as the key's `LOGSHIP_*` variable would be: any key
    /// of the table (`logship config keys`), the way the JVM appender and the command line
    /// set them. A bad name or value fails here, naming the key and the fix.
    ///
    /// ```
    /// let builder = logship::Logship::builder().set("lingerMillis", "250")?;
    /// assert_eq!(builder.config().linger, std::time::Duration::from_millis(250));
    /// assert!(logship::Logship::builder().set("linger_ms", "soon").is_err());
    /// # Ok::<(), logship::ConfigError>(())
    /// ```
    pub fn set(mut self, key: &str, value: &str) -> Result<Self, ConfigError> {
        self.config.set(key, value)?;
        Ok(self)
    }

    /// Starts from a complete configuration.
    pub fn from_config(config: Config) -> Builder {
        Builder {
            config,
            on_error: None,
            spill_handover: false,
            on_stall: None,
            budget_clock: None,
        }
    }

    /// The configuration so far.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// HTTP basic auth, for intakes that take it (behind a gateway, or a cluster's own
    /// users: docs/vendors.md). The password is a secret, never printed.
    pub fn basic_auth(mut self, username: impl Into<String>, password: impl Into<Secret>) -> Self {
        self.config.username = Some(username.into());
        self.config.password = Some(password.into());
        self
    }

    /// First and largest retry delay (defaults 200 ms and 10 s).
    pub fn retry_backoff(mut self, initial: Duration, max: Duration) -> Self {
        self.config.retry_initial_backoff = initial;
        self.config.retry_max_backoff = max;
        self
    }

    /// Connect and whole-request timeouts (defaults 5 s and 30 s).
    pub fn timeouts(mut self, connect: Duration, request: Duration) -> Self {
        self.config.connect_timeout = connect;
        self.config.request_timeout = request;
        self
    }

    /// The spill directory (default: `~/.cache/logship/<service>`). One process at a time.
    pub fn spill_dir(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.config.spill_dir = Some(dir.into());
        self.config.spill_enabled = true;
        self
    }

    /// Most bytes of spilled events on disk (default 1 GiB), and what happens when it is
    /// reached (default: drop the oldest segment, counted).
    pub fn spill_max_bytes(mut self, n: u64, when_full: crate::spill::SpillFull) -> Self {
        self.config.spill_max_bytes = n;
        self.config.spill_full = when_full;
        self
    }

    /// Present this client certificate (PEM chain) and private key (PEM) for mutual TLS.
    /// Read and checked by `build`; the key's contents are never shown.
    pub fn tls_client_cert(
        mut self,
        cert: impl Into<std::path::PathBuf>,
        key: impl Into<std::path::PathBuf>,
    ) -> Self {
        self.config.tls_client_cert = Some(cert.into());
        self.config.tls_client_key = Some(key.into());
        self
    }

    /// Called on every delivery error (on a logship thread; keep it quick, and do not log
    /// through logship from it: such events are ignored).
    pub fn on_error(mut self, f: impl Fn(&DeliveryError) + Send + Sync + 'static) -> Self {
        self.on_error = Some(Arc::new(f));
        self
    }

    /// The clock the budget reads, in seconds since the Unix epoch. Not API: for tests
    /// that stand at a day boundary.
    #[doc(hidden)]
    pub fn budget_clock(mut self, clock: crate::BudgetClock) -> Self {
        self.budget_clock = Some(clock);
        self
    }

    /// Called once when a stall begins and once when it ends (on a logship thread: what it
    /// logs is not shipped). Needs [`Builder::stall_after`].
    pub fn on_stall(mut self, f: impl Fn(&crate::StallAlarm) + Send + Sync + 'static) -> Self {
        self.on_stall = Some(Arc::new(f));
        self
    }

    /// Lets this pipeline share its spill directory with another pipeline of this process
    /// that allowed hand-over too, instead of failing because the directory is held
    /// (default off). The two write to and replay from one spill, and the directory is
    /// released when the last of them shuts down. Meant for configuration reloads that
    /// build the new pipeline before the old one is dropped (the log4rs appender sets it);
    /// the spill settings of whichever pipeline opened the directory first stay in force.
    pub fn spill_handover(mut self, on: bool) -> Self {
        self.spill_handover = on;
        self
    }

    /// Replaces the field-name denylist (and turns redaction on).
    pub fn redact_fields<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.config.redaction.fields = names.into_iter().map(Into::into).collect();
        self.config.redaction.enabled = true;
        self
    }

    /// Replaces the built-in value patterns applied (`card`, `jwt`, `bearer`,
    /// `aws_key_id`, `aws_secret`, `private_key`, `email`; and turns redaction on).
    pub fn redact_patterns<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.config.redaction.patterns = names.into_iter().map(Into::into).collect();
        self.config.redaction.enabled = true;
        self
    }

    /// Adds a regular expression whose matches are redacted (compiled at `build`; a bad
    /// one fails it naming `redact_regexes`; and turns redaction on).
    pub fn redact_regex(mut self, pattern: impl Into<String>) -> Self {
        self.config.redaction.regexes.push(pattern.into());
        self.config.redaction.enabled = true;
        self
    }
}

/// The builder-facing layer methods (the layering itself lives in `config`, which does
/// not know the builder).
impl Layered {
    /// Adds explicit settings, applied last (over file and environment): `f` gets a
    /// builder holding the configuration so far and returns it changed. Only its
    /// configuration is kept (not `on_error` or `spill_handover`).
    pub fn explicit(self, f: impl FnOnce(Builder) -> Builder + 'static) -> Self {
        self.explicit_config(move |config| {
            let builder = f(Builder::from_config(std::mem::take(config)));
            *config = builder.config;
        })
    }

    /// Resolves the layers into a builder, ready for more settings and `build`.
    pub fn into_builder(self) -> Result<Builder, ConfigError> {
        Ok(Builder::from_config(self.resolve()?.config))
    }
}
