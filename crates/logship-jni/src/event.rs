//! One JVM logging event, as the appenders hand it over, built into a [`Record`].
//!
//! Why it exists: Log4j2's `LogEvent` and Logback's `ILoggingEvent` carry the same parts
//! (time, level, logger, thread, message, context map, markers, throwable); both
//! appenders flatten them into these plain values so the Rust side has one builder.
//! Must never: panic on any text Java sends, or allocate more than the record itself
//! (and the markers' JSON).

use logship::{Level, Record};

/// The field holding the thread's name (Datadog's Java attribute, kept for every vendor).
pub const THREAD: &str = "logger.thread_name";
/// The field holding the event's markers, a JSON array of their names.
pub const MARKERS: &str = "markers";
/// The key of the event's error-valued field.
pub const ERROR: &str = "error";

/// The throwable of an event, as `Throwable` describes itself.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Thrown {
    /// The fully qualified class name (`java.io.IOException`).
    pub kind: String,
    /// `getMessage()`, `""` when null.
    pub message: String,
    /// The causes' messages, outermost first, one per line.
    pub causes: String,
    /// `printStackTrace` text: every frame, `Caused by:` and `Suppressed:` sections.
    pub trace: String,
}

/// A JVM event's parts.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Event {
    /// Nanoseconds since the Unix epoch (`0`: now).
    pub nanos: u64,
    /// 0 trace, 1 debug, 2 info, 3 warn, 4 error and fatal.
    pub level: i32,
    /// The logger's name.
    pub logger: String,
    /// The thread's name.
    pub thread: String,
    /// The formatted message, parameters resolved.
    pub message: String,
    /// The MDC / ThreadContext and key-value pairs, in order.
    pub context: Vec<(String, String)>,
    /// The markers' names.
    pub markers: Vec<String>,
    /// The throwable, if any.
    pub thrown: Option<Thrown>,
}

/// The level for Java's number (anything out of range is read as error: never dropped).
pub fn level(n: i32) -> Level {
    match n {
        0 => Level::Trace,
        1 => Level::Debug,
        2 => Level::Info,
        3 => Level::Warn,
        _ => Level::Error,
    }
}

impl Event {
    /// The record this event becomes.
    pub fn record(&self) -> Record {
        let extra: usize = self
            .context
            .iter()
            .map(|(k, v)| k.len() + v.len() + 10)
            .sum();
        let thrown = self.thrown.as_ref().map_or(0, |t| {
            t.kind.len() + t.message.len() + t.causes.len() + t.trace.len() + 32
        });
        let mut r = Record::with_capacity(
            level(self.level),
            &self.logger,
            64 + self.message.len() + self.thread.len() + extra + thrown,
        );
        if self.nanos != 0 {
            r.set_timestamp_nanos(self.nanos);
        }
        r.message(&self.message);
        if !self.thread.is_empty() {
            r.field(THREAD, self.thread.as_str());
        }
        for (k, v) in &self.context {
            r.field(k, v.as_str());
        }
        if !self.markers.is_empty() {
            let json = serde_json::Value::from(self.markers.clone()).to_string();
            r.field(MARKERS, logship::Value::Json(&json));
        }
        if let Some(t) = &self.thrown {
            r.error_parts(ERROR, &t.kind, &t.message, &t.causes, &t.trace);
        }
        r
    }
}
