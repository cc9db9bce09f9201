//! A `log::Log` that ships records, with their key-values.
//!
//! The HTTP client logs through `log` on logship's sender threads; those records are
//! ignored here, which is what keeps the `log` integration from feeding itself.

use std::fmt;

use log::kv::{Error as KvError, Key, Value as KvValue, VisitSource};

use crate::admit::control::Site;
use crate::capture::record::{Level, Record};
use crate::error::BuildError;
use crate::pipeline::{Builder, Guard, Logship};
use crate::support::threads::is_logship_thread;

/// Ships every `log` record at or above its level.
#[derive(Clone, Debug)]
pub struct LogshipLogger {
    logship: Logship,
    level: log::LevelFilter,
}

impl LogshipLogger {
    /// A logger feeding `logship`, passing every level (set one with [`LogshipLogger::level`]).
    pub fn new(logship: Logship) -> LogshipLogger {
        LogshipLogger {
            logship,
            level: log::LevelFilter::Trace,
        }
    }

    /// Ships only records at or above `level`.
    pub fn level(mut self, level: log::LevelFilter) -> Self {
        self.level = level;
        self
    }

    /// The pipeline behind the logger.
    pub fn logship(&self) -> &Logship {
        &self.logship
    }

    /// Installs this logger as the global `log` logger and sets the max level.
    pub fn init(self) -> Result<(), log::SetLoggerError> {
        let level = self.level;
        log::set_boxed_logger(Box::new(self))?;
        log::set_max_level(level);
        Ok(())
    }
}

fn level(l: log::Level) -> Level {
    match l {
        log::Level::Trace => Level::Trace,
        log::Level::Debug => Level::Debug,
        log::Level::Info => Level::Info,
        log::Level::Warn => Level::Warn,
        log::Level::Error => Level::Error,
    }
}

impl log::Log for LogshipLogger {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        #[cfg(feature = "opentelemetry")]
        if super::otel_context::is_reading() {
            return false;
        }
        metadata.level() <= self.level && !is_logship_thread()
    }

    fn log(&self, record: &log::Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        // Burst limits and sampling, before the record is built; the call site is the
        // target + file + line.
        let site = || Site::from_text(record.target(), record.file(), record.line());
        if !self.logship.admit(level(record.level()), site) {
            return;
        }
        let mut r = Record::new(level(record.level()), record.target());
        r.message_fmt(*record.args());
        let _ = record.key_values().visit(&mut KvVisitor(&mut r));
        #[cfg(feature = "opentelemetry")]
        super::otel_context::current(&mut r);
        let _ = self.logship.push_admitted(r);
    }

    fn flush(&self) {
        let _ = self.logship.flush(self.logship.shutdown_timeout());
    }
}

struct KvVisitor<'a>(&'a mut Record);

impl<'kvs> VisitSource<'kvs> for KvVisitor<'_> {
    fn visit_pair(&mut self, key: Key<'kvs>, value: KvValue<'kvs>) -> Result<(), KvError> {
        let key = key.as_str();
        if let Some(e) = value.to_borrowed_error() {
            self.0.error(key, e);
        } else if let Some(v) = value.to_borrowed_str() {
            self.0.field(key, v);
        } else if let Some(v) = value.to_i64() {
            self.0.field(key, v);
        } else if let Some(v) = value.to_u64() {
            self.0.field(key, v);
        } else if let Some(v) = value.to_f64() {
            self.0.field(key, v);
        } else if let Some(v) = value.to_bool() {
            self.0.field(key, v);
        } else {
            self.0
                .field_fmt(key, format_args!("{}", DisplayValue(&value)));
        }
        Ok(())
    }
}

struct DisplayValue<'a, 'v>(&'a KvValue<'v>);

impl fmt::Display for DisplayValue<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self.0, f)
    }
}

impl Builder {
    /// Builds the pipeline and a `log::Log` feeding it.
    pub fn build_logger(self) -> Result<(LogshipLogger, Guard), BuildError> {
        let (logship, guard) = self.build()?;
        Ok((LogshipLogger::new(logship), guard))
    }
}
