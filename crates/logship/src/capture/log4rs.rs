//! A log4rs appender, `kind: batch_http`, configured from log4rs' own files.
//!
//! Why it exists: a program that logs through log4rs is configured by its `log4rs.yaml`
//! (or JSON/TOML), not by code. Registering [`BatchHttpAppenderDeserializer`] once (or
//! starting from [`deserializers`]) lets that file ship to any vendor: every logship option
//! is a key of the appender's map, with the same names, Java aliases, `${env:VAR}`
//! substitution, `LOGSHIP_*` overrides and start-up errors as a logship TOML file.
//!
//! Reloads: log4rs rebuilds every appender when its file changes, builds the new one
//! before it drops the old one, and drops the old one on whichever application thread
//! logged last. So the appender's pipeline is built with spill hand-over (the new one
//! joins the old one's spill directory instead of failing), and `Drop` never waits: it
//! hands the old pipeline's shutdown to a short-lived thread, whose leftovers go to the
//! shared spill for the new appender to replay.

use std::fmt;
use std::io::Write as _;
use std::path::Path;
use std::sync::{Arc, Mutex};

use log4rs::append::Append;
use log4rs::config::{Deserialize, Deserializers};

use crate::capture::log::LogshipLogger;
use crate::config::Layered;
use crate::error::{BuildError, ConfigError};
use crate::pipeline::{Builder, Logship};

/// The `kind` of the appender in log4rs configuration files.
pub const KIND: &str = "batch_http";

/// Where an appender's options come from, in error messages and origins.
const LABEL: &str = "log4rs configuration, kind: batch_http";

/// Looks up an environment variable (for `${env:VAR}` and `LOGSHIP_*`).
type EnvLookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// A log4rs appender that hands each record to a logship pipeline and returns.
///
/// Dropping it (as log4rs does on reload) shuts its pipeline down on a background thread,
/// bounded by `shutdown_timeout`; the caller never waits. log4rs does not flush appenders
/// at exit: call `log::logger().flush()` before the program ends.
pub struct BatchHttpAppender {
    logger: LogshipLogger,
}

impl BatchHttpAppender {
    /// Starts a pipeline from `builder` (with spill hand-over on, see
    /// [`Builder::spill_handover`]) and wraps it as an appender.
    pub fn build(builder: Builder) -> Result<BatchHttpAppender, BuildError> {
        let (logship, guard) = builder.spill_handover(true).build()?;
        // The appender's own drop shuts the pipeline down, without blocking.
        std::mem::forget(guard);
        Ok(BatchHttpAppender {
            logger: LogshipLogger::new(logship),
        })
    }

    /// The pipeline behind the appender (for `stats`, `flush`, ...).
    pub fn logship(&self) -> &Logship {
        self.logger.logship()
    }
}

impl fmt::Debug for BatchHttpAppender {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BatchHttpAppender")
            .field("logship", self.logship())
            .finish()
    }
}

impl Append for BatchHttpAppender {
    fn append(&self, record: &log::Record<'_>) -> anyhow::Result<()> {
        // Never fails and never blocks: a refused record is counted by the pipeline.
        log::Log::log(&self.logger, record);
        Ok(())
    }

    fn flush(&self) {
        log::Log::flush(&self.logger);
    }
}

impl Drop for BatchHttpAppender {
    fn drop(&mut self) {
        let logship = self.logship().clone();
        let retire = move || {
            logship.shutdown(logship.shutdown_timeout());
        };
        if let Err(e) = crate::support::threads::spawn("logship-retire".into(), retire) {
            // No thread to wait on: the pipeline keeps running until the process exits.
            let _ = writeln!(
                std::io::stderr(),
                "logship: could not start a thread to shut the replaced log4rs appender down: {e}"
            );
        }
    }
}

/// Builds [`BatchHttpAppender`]s from log4rs configuration maps; register it under
/// [`KIND`] (see [`register`]).
#[derive(Clone, Default)]
pub struct BatchHttpAppenderDeserializer {
    env: Option<EnvLookup>,
}

impl fmt::Debug for BatchHttpAppenderDeserializer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BatchHttpAppenderDeserializer")
    }
}

impl BatchHttpAppenderDeserializer {
    /// Reads `${env:VAR}` and `LOGSHIP_*` through `env` instead of the process
    /// environment (for tests and embedding).
    pub fn with_env(env: impl Fn(&str) -> Option<String> + Send + Sync + 'static) -> Self {
        BatchHttpAppenderDeserializer {
            env: Some(Arc::new(env)),
        }
    }

    /// The effective builder for one appender's map: defaults < map < `LOGSHIP_*`.
    pub fn builder(&self, map: toml::Table) -> Result<Builder, ConfigError> {
        if map.contains_key("encoder") {
            return Err(ConfigError::new(
                "encoder",
                "(given)",
                "is not used: logship sends each event as structured JSON in the vendor's format",
            )
            .fix("remove encoder from this appender"));
        }
        let mut layers = Layered::new().table(LABEL, map);
        if let Some(env) = &self.env {
            let env = env.clone();
            layers = layers.env(move |v| env(v));
        }
        // The environment layer reads the API key from the vendor's variable, then
        // `LOGSHIP_API_KEY`, with the same lookup as the rest of the map.
        Ok(Builder::from_config(layers.resolve()?.config))
    }
}

impl Deserialize for BatchHttpAppenderDeserializer {
    type Trait = dyn Append;
    type Config = toml::Table;

    fn deserialize(
        &self,
        config: toml::Table,
        _: &Deserializers,
    ) -> anyhow::Result<Box<dyn Append>> {
        let builder = self.builder(config)?;
        Ok(Box::new(BatchHttpAppender::build(builder)?))
    }
}

/// Registers the appender under [`KIND`] in `deserializers`.
pub fn register(deserializers: &mut Deserializers) {
    deserializers.insert(KIND, BatchHttpAppenderDeserializer::default());
}

/// log4rs' default deserializers plus `kind: batch_http`: pass it to
/// `log4rs::init_file` or `log4rs::config::load_config_file`.
pub fn deserializers() -> Deserializers {
    let mut d = Deserializers::default();
    register(&mut d);
    d
}

/// Why [`init_file`] refused a configuration file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Log4rsError {
    /// A `batch_http` appender's options are invalid (each message names the field and
    /// the fix).
    #[error("invalid logship appender in {file}: {}", .problems.join("; "))]
    InvalidAppender {
        /// The configuration file.
        file: String,
        /// One message per invalid appender.
        problems: Vec<String>,
    },
    /// log4rs could not read, parse or install the file.
    #[error("log4rs could not load {file}: {source}")]
    Log4rs {
        /// The configuration file.
        file: String,
        /// log4rs' error.
        #[source]
        source: anyhow::Error,
    },
}

/// Checks only the options of `batch_http` appenders, recording what is wrong.
#[derive(Clone, Default)]
struct Checker {
    problems: Arc<Mutex<Vec<String>>>,
}

impl Deserialize for Checker {
    type Trait = dyn Append;
    type Config = toml::Table;

    fn deserialize(
        &self,
        config: toml::Table,
        _: &Deserializers,
    ) -> anyhow::Result<Box<dyn Append>> {
        let problem = match BatchHttpAppenderDeserializer::default().builder(config) {
            Ok(builder) => builder.config().validate().err(),
            Err(e) => Some(e),
        };
        if let Some(e) = problem {
            let message = e.to_string();
            self.problems
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(message);
            return Err(e.into());
        }
        Ok(Box::new(Unused))
    }
}

/// What [`Checker`] returns for a valid appender: never installed.
#[derive(Debug)]
struct Unused;

impl Append for Unused {
    fn append(&self, _: &log::Record<'_>) -> anyhow::Result<()> {
        Ok(())
    }
    fn flush(&self) {}
}

/// Like `log4rs::init_file(path, deserializers())`, but fails (instead of starting without
/// the appender, as log4rs does with an appender it cannot build) when a `batch_http`
/// appender's options are invalid. Reloads (`refresh_rate`) work as with log4rs.
pub fn init_file(path: impl AsRef<Path>) -> Result<(), Log4rsError> {
    let path = path.as_ref();
    let file = path.display().to_string();
    let checker = Checker::default();
    let mut checking = Deserializers::default();
    checking.insert(KIND, checker.clone());
    log4rs::config::load_config_file(path, checking).map_err(|source| Log4rsError::Log4rs {
        file: file.clone(),
        source,
    })?;
    let problems = std::mem::take(&mut *checker.problems.lock().unwrap_or_else(|e| e.into_inner()));
    if !problems.is_empty() {
        return Err(Log4rsError::InvalidAppender { file, problems });
    }
    log4rs::init_file(path, deserializers()).map_err(|source| Log4rsError::Log4rs { file, source })
}
