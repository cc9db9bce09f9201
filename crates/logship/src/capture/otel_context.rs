//! The current OpenTelemetry trace context of an event (the `opentelemetry` feature).
//!
//! Why it exists: "jump from this trace to its logs" needs each log event to carry the
//! trace id and span id of the span it was emitted in. With `tracing-opentelemetry` in
//! the same subscriber, that is the OpenTelemetry span behind the event's innermost
//! `tracing` span; without a `tracing` span (the `log` facade, or an OpenTelemetry context
//! attached by hand) it is `opentelemetry::Context::current()`.
//!
//! The context is written into the record as the fields `trace_id` (32 lowercase hex
//! digits), `span_id` (16) and `trace_flags` (2), the same W3C form an application can
//! record itself without the feature, so every encoder, the spill and replay treat both
//! alike (docs/vendors.md, "Trace correlation"). An invalid (all-zero) context writes
//! nothing.
//!
//! What it must never do: hold a span's extensions while asking `tracing-opentelemetry`
//! for its context (that crate locks them itself), re-enter the pipeline (an event emitted
//! while the context is read, by the OpenTelemetry SDK's own diagnostics, is ignored), or
//! allocate more than the 50 bytes of text it adds.

use std::cell::Cell;

use opentelemetry::trace::{SpanContext, TraceContextExt};

use crate::capture::record::Record;

thread_local! {
    /// Set while this thread reads an OpenTelemetry context for an event.
    static READING: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread is inside [`from_span`] or [`current`]: an event seen now was
/// emitted by OpenTelemetry's own code while logship read its context, and must not be
/// shipped (a feedback loop in the making).
pub(crate) fn is_reading() -> bool {
    READING.with(Cell::get)
}

/// Runs `f` with [`is_reading`] set.
fn reading<T>(f: impl FnOnce() -> T) -> T {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            READING.with(|r| r.set(false));
        }
    }
    READING.with(|r| r.set(true));
    let _reset = Reset;
    f()
}

/// Adds the trace context of the `tracing` span `id` (kept by `tracing-opentelemetry`'s
/// layer in `dispatch`) to `record`; falls back to [`current`] when that span has none.
#[cfg(feature = "tracing")]
pub(crate) fn from_span(
    record: &mut Record,
    id: Option<&tracing_core::span::Id>,
    dispatch: Option<&tracing_core::dispatcher::WeakDispatch>,
) {
    let from_layer = reading(|| {
        let (id, dispatch) = (id?, dispatch?.upgrade()?);
        let cx = tracing_opentelemetry::get_otel_context(id, &dispatch)?;
        let span = cx.span();
        let sc = span.span_context();
        sc.is_valid().then(|| sc.clone())
    });
    match from_layer {
        Some(sc) => write(record, &sc),
        None => current(record),
    }
}

/// Adds the trace context of `opentelemetry::Context::current()` to `record`, if valid.
pub(crate) fn current(record: &mut Record) {
    let sc = reading(|| {
        opentelemetry::Context::map_current(|cx| {
            let sc = cx.span().span_context().clone();
            sc.is_valid().then_some(sc)
        })
    });
    if let Some(sc) = sc {
        write(record, &sc);
    }
}

/// Writes the three W3C fields.
fn write(record: &mut Record, sc: &SpanContext) {
    let mut trace = [0u8; 32];
    let mut span = [0u8; 16];
    let mut flags = [0u8; 2];
    record
        .field("trace_id", hex(&sc.trace_id().to_bytes(), &mut trace))
        .field("span_id", hex(&sc.span_id().to_bytes(), &mut span))
        .field("trace_flags", hex(&[sc.trace_flags().to_u8()], &mut flags));
}

/// Lowercase hex of `bytes` in `out` (twice as long): on the stack, so the caller's
/// thread allocates nothing for it.
fn hex<'a>(bytes: &[u8], out: &'a mut [u8]) -> &'a str {
    for (pair, &b) in out.chunks_exact_mut(2).zip(bytes) {
        pair.copy_from_slice(&crate::support::hex::pair(b));
    }
    // Only ASCII hex digits were written.
    std::str::from_utf8(out).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry::trace::{SpanId, TraceFlags, TraceId, TraceState};
    use opentelemetry::Context;

    fn fields(record: &Record) -> Vec<(String, String)> {
        record
            .entries()
            .filter_map(|e| match e {
                crate::capture::record::Entry::Field(k, crate::capture::record::Value::Str(v)) => {
                    Some((k.to_owned(), v.to_owned()))
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn the_current_context_is_written_in_w3c_form() {
        let sc = SpanContext::new(
            TraceId::from_hex("4bf92f3577b34da6a3ce929d0e0e4736").unwrap(),
            SpanId::from_hex("00f067aa0ba902b7").unwrap(),
            TraceFlags::SAMPLED,
            true,
            TraceState::default(),
        );
        let _attached = Context::current().with_remote_span_context(sc).attach();
        let mut r = Record::new(crate::Level::Info, "t");
        current(&mut r);
        assert_eq!(
            fields(&r),
            [
                ("trace_id".into(), "4bf92f3577b34da6a3ce929d0e0e4736".into()),
                ("span_id".into(), "00f067aa0ba902b7".into()),
                ("trace_flags".into(), "01".into()),
            ]
        );
        assert!(!is_reading(), "the flag is reset after reading");
    }

    #[test]
    fn no_context_writes_nothing() {
        let mut r = Record::new(crate::Level::Info, "t");
        current(&mut r);
        #[cfg(feature = "tracing")]
        from_span(&mut r, None, None);
        assert!(fields(&r).is_empty());
    }
}
