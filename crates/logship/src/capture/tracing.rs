//! A `tracing_subscriber::Layer` that ships events.
//!
//! Span fields are captured once, when a span is created or recorded, into a compact
//! buffer stored in the span's extensions; each event inside copies those bytes, so an
//! event costs one allocation however deep its spans. Works in plain `main` and inside any
//! async runtime: it never needs one.

use std::fmt;

use tracing_core::field::{Field, Visit};
use tracing_core::span::{Attributes, Id, Record as SpanValues};
use tracing_core::{Event, Level as TLevel, Subscriber};
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

use crate::admit::control::Site;
use crate::capture::record::{Level, RawEntries, Record, Value};
use crate::error::BuildError;
use crate::pipeline::{Builder, Guard, Logship};
use crate::support::threads::is_logship_thread;

/// Ships every event it sees (compose it with a filter to choose which).
///
/// With the `opentelemetry` feature and `tracing-opentelemetry`'s layer in the same
/// subscriber, each event also carries the trace context of its span (see the crate docs,
/// "Trace correlation").
#[derive(Clone, Debug)]
pub struct LogshipLayer {
    logship: Logship,
    /// The subscriber this layer belongs to, where `tracing-opentelemetry` keeps each
    /// span's OpenTelemetry context.
    #[cfg(feature = "opentelemetry")]
    dispatch: std::sync::OnceLock<tracing_core::dispatcher::WeakDispatch>,
}

impl LogshipLayer {
    /// A layer feeding `logship`.
    pub fn new(logship: Logship) -> LogshipLayer {
        LogshipLayer {
            logship,
            #[cfg(feature = "opentelemetry")]
            dispatch: std::sync::OnceLock::new(),
        }
    }

    /// The pipeline behind the layer (for `stats`, `flush`, `shutdown`).
    pub fn logship(&self) -> &Logship {
        &self.logship
    }
}

/// Span fields, stored in the span's extensions.
struct SpanFields(RawEntries);

fn level(l: &TLevel) -> Level {
    match *l {
        TLevel::TRACE => Level::Trace,
        TLevel::DEBUG => Level::Debug,
        TLevel::INFO => Level::Info,
        TLevel::WARN => Level::Warn,
        _ => Level::Error,
    }
}

impl<S> Layer<S> for LogshipLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        if is_logship_thread() {
            return;
        }
        let Some(span) = ctx.span(id) else { return };
        let mut fields = RawEntries::default();
        attrs.record(&mut SpanVisitor(&mut fields));
        span.extensions_mut().insert(SpanFields(fields));
    }

    fn on_record(&self, id: &Id, values: &SpanValues<'_>, ctx: Context<'_, S>) {
        if is_logship_thread() {
            return;
        }
        let Some(span) = ctx.span(id) else { return };
        let mut ext = span.extensions_mut();
        if let Some(SpanFields(fields)) = ext.get_mut::<SpanFields>() {
            values.record(&mut SpanVisitor(fields));
        }
    }

    #[cfg(feature = "opentelemetry")]
    fn on_register_dispatch(&self, subscriber: &tracing_core::Dispatch) {
        let _ = self.dispatch.set(subscriber.downgrade());
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        #[cfg(feature = "opentelemetry")]
        if super::otel_context::is_reading() {
            return;
        }
        if is_logship_thread() {
            return;
        }
        let meta = event.metadata();
        // Burst limits and sampling first (a held-back event is not a drop), then the
        // queue's own overload check: neither builds the record.
        let site = || {
            let address = std::ptr::from_ref(meta) as usize;
            Site::from_address(address, meta.target(), meta.file(), meta.line())
        };
        if !self.logship.admit(level(meta.level()), site) || self.logship.shed() {
            return;
        }
        let mut record = Record::new(level(meta.level()), meta.target());
        event.record(&mut EventVisitor(&mut record));
        // The event's own fields (not its innermost span's), read before any span's
        // extensions are borrowed: tracing-opentelemetry locks them itself.
        #[cfg(feature = "opentelemetry")]
        super::otel_context::from_span(
            &mut record,
            ctx.event_span(event).map(|s| s.id()).as_ref(),
            self.dispatch.get(),
        );
        if let Some(scope) = ctx.event_scope(event) {
            for span in scope.from_root() {
                record.span(span.name());
                if let Some(SpanFields(fields)) = span.extensions().get::<SpanFields>() {
                    record.append_raw_entries(&fields.0);
                }
            }
        }
        let _ = self.logship.push_admitted(record);
    }
}

struct EventVisitor<'a>(&'a mut Record);

impl Visit for EventVisitor<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        if field.name() == "message" {
            self.0.message_fmt(format_args!("{value:?}"));
        } else {
            self.0.field_fmt(field.name(), format_args!("{value:?}"));
        }
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "message" {
            self.0.message(value);
        } else {
            self.0.field(field.name(), value);
        }
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.field(field.name(), value);
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.field(field.name(), value);
    }
    fn record_f64(&mut self, field: &Field, value: f64) {
        self.0.field(field.name(), value);
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.field(field.name(), value);
    }
    fn record_i128(&mut self, field: &Field, value: i128) {
        match i64::try_from(value) {
            Ok(v) => self.0.field(field.name(), v),
            Err(_) => self.0.field_fmt(field.name(), format_args!("{value}")),
        };
    }
    fn record_u128(&mut self, field: &Field, value: u128) {
        match u64::try_from(value) {
            Ok(v) => self.0.field(field.name(), v),
            Err(_) => self.0.field_fmt(field.name(), format_args!("{value}")),
        };
    }
    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        self.0.error(field.name(), value);
    }
}

struct SpanVisitor<'a>(&'a mut RawEntries);

impl Visit for SpanVisitor<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.0.field_fmt(field.name(), format_args!("{value:?}"));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.field(field.name(), Value::Str(value));
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.field(field.name(), Value::I64(value));
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.field(field.name(), Value::U64(value));
    }
    fn record_f64(&mut self, field: &Field, value: f64) {
        self.0.field(field.name(), Value::F64(value));
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.field(field.name(), Value::Bool(value));
    }
    fn record_error(&mut self, field: &Field, value: &(dyn std::error::Error + 'static)) {
        self.0.error(field.name(), value);
    }
}

impl Builder {
    /// Builds the pipeline and a `tracing` layer feeding it.
    pub fn build_layer(self) -> Result<(LogshipLayer, Guard), BuildError> {
        let (logship, guard) = self.build()?;
        Ok((LogshipLayer::new(logship), guard))
    }
}
