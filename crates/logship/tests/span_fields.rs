//! Span fields at every vendor's strict intake: nested spans with the same name, a span
//! field recorded twice and a span field named like an event field arrive with each
//! name once (the intake counts a duplicate name as a violation) and with the value
//! `span_fields` promises.

mod common;

use common::vendors::*;
use common::*;
use logship::{SpanFields, Vendor};
use tracing_subscriber::prelude::*;

/// One event inside `request > request`, whose inner span records `step` three times.
fn log_through_tracing(layer: logship::LogshipLayer) {
    let subscriber = tracing_subscriber::registry().with(layer);
    tracing::subscriber::with_default(subscriber, || {
        let outer = tracing::info_span!("request", step = "outer-step", who = "outer-who");
        let _o = outer.enter();
        let inner = tracing::info_span!("request", step = "first-step", status = "span-status");
        inner.record("step", "second-step");
        inner.record("step", "last-step");
        let _i = inner.enter();
        tracing::info!(who = "event-who", "inside two spans");
    });
}

#[test]
fn nested_spans_and_repeated_fields_arrive_once_at_every_vendor() {
    for mode in [SpanFields::Root, SpanFields::Prefixed] {
        for (vendor, encoding) in every_vendor() {
            let what = format!("{vendor:?} {encoding:?} {mode:?}");
            let intake = vendor_intake();
            let builder = vendor_builder(&intake, vendor).span_fields(mode);
            let mut builder = for_vendor(builder, vendor, encoding);
            if matches!(vendor, Vendor::Ndjson | Vendor::JsonArray) {
                builder = builder.endpoint(intake.url("/logs"));
            }
            let (layer, guard) = builder.build_layer().unwrap();
            log_through_tracing(layer);
            drop(guard);
            assert!(intake.wait_for_events(1, WAIT), "{what}");
            assert!(
                intake.violations().is_empty(),
                "{what}: {:?}",
                intake.violations()
            );
            let events = intake.events();
            assert_eq!(events.len(), 1, "{what}");
            let text = events[0].value.to_string();
            assert!(text.contains("last-step"), "{what}: {text}");
            assert!(text.contains("event-who"), "{what}: {text}");
            assert!(text.contains("span-status"), "{what}: {text}");
            assert!(
                !text.contains("first-step"),
                "{what}: a replaced value: {text}"
            );
            assert!(
                !text.contains("second-step"),
                "{what}: a replaced value: {text}"
            );
            let generic = matches!(vendor, Vendor::Ndjson | Vendor::JsonArray);
            if mode == SpanFields::Root && !generic {
                // At the root the event's own field and the innermost span's win.
                assert!(!text.contains("outer-who"), "{what}: {text}");
                assert!(!text.contains("outer-step"), "{what}: {text}");
            } else {
                // Prefixed: same-named spans share one prefix, the innermost value wins
                // there too; the generic format keeps each span apart.
                assert!(text.contains("outer-who"), "{what}: {text}");
                assert_eq!(text.contains("outer-step"), generic, "{what}: {text}");
            }
        }
    }
}
