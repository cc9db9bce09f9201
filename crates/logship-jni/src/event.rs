//! One JVM logging event, as the appenders hand it over, built into a [`Record`].
//!
//! Why it exists: Log4j2's `LogEvent` and Logback's `ILoggingEvent` carry the same parts
//! (time, level, logger, thread, message, context map, markers, throwable); both
//! appenders flatten them into these plain values so the Rust side has one builder.
//! The parts borrow from the buffer Java encoded them into (`wire`), so building a record
//! copies each byte once, into the record.
//! Must never: panic on any text Java sends, or allocate more than the record itself
//! (and the markers' JSON).

use std::borrow::Cow;

use logship::{Level, Record};

/// The field holding the thread's name (Datadog's Java attribute, kept for every vendor).
pub const THREAD: &str = "logger.thread_name";
/// The field holding the event's markers, a JSON array of their names.
pub const MARKERS: &str = "markers";
/// The key of the event's error-valued field.
pub const ERROR: &str = "error";

/// A text as the event carries it: borrowed from Java's buffer, owned only where bytes
/// that are not UTF-8 had to be replaced.
pub type Text<'a> = Cow<'a, str>;

/// The throwable of an event, as `Throwable` describes itself.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Thrown<'a> {
    /// The fully qualified class name (`java.io.IOException`).
    pub kind: Text<'a>,
    /// `getMessage()`, `""` when null.
    pub message: Text<'a>,
    /// The causes' messages, outermost first, one per line.
    pub causes: Text<'a>,
    /// `printStackTrace` text: every frame, `Caused by:` and `Suppressed:` sections.
    pub trace: Text<'a>,
}

/// A JVM event's parts.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Event<'a> {
    /// Nanoseconds since the Unix epoch (`0`: now).
    pub nanos: u64,
    /// 0 trace, 1 debug, 2 info, 3 warn, 4 error and fatal.
    pub level: i32,
    /// The logger's name.
    pub logger: Text<'a>,
    /// The thread's name.
    pub thread: Text<'a>,
    /// The formatted message, parameters resolved.
    pub message: Text<'a>,
    /// The MDC / ThreadContext and key-value pairs, in order.
    pub context: Vec<(Text<'a>, Text<'a>)>,
    /// The markers' names.
    pub markers: Vec<Text<'a>>,
    /// The throwable, if any.
    pub thrown: Option<Thrown<'a>>,
    /// Whether some text had bytes that were not UTF-8 replaced with U+FFFD (the record
    /// then says so and the pipeline counts it).
    pub invalid_utf8: bool,
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

impl Event<'_> {
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
            r.field(THREAD, &*self.thread);
        }
        for (k, v) in &self.context {
            r.field(k, &**v);
        }
        if !self.markers.is_empty() {
            // A list of strings always serialises; an empty array is the (unreachable) fallback.
            let json = serde_json::to_string(&self.markers).unwrap_or_else(|_| "[]".to_owned());
            r.field(MARKERS, logship::Value::Json(&json));
        }
        if let Some(t) = &self.thrown {
            r.error_parts(ERROR, &t.kind, &t.message, &t.causes, &t.trace);
        }
        if self.invalid_utf8 {
            r.mark_invalid_utf8();
        }
        r
    }
}
