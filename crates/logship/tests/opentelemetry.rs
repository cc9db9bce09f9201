//! Trace correlation with the `opentelemetry` feature, through the real parts a user
//! composes: `tracing-opentelemetry`'s layer over the OpenTelemetry SDK's tracer, and
//! logship's layer, in one subscriber. An event inside a span arrives at every vendor's
//! strict intake with the ids the SDK gave that span, in the vendor's own correlation
//! fields (docs/vendors.md, "Trace correlation"); an event outside any span carries none;
//! the `log` facade takes the ids of an OpenTelemetry context attached by hand.

mod common;

use std::sync::{Arc, Mutex};

use common::vendors::*;
use common::*;
use logship::{OtlpEncoding, Vendor};
use opentelemetry::trace::{
    SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState, TracerProvider as _,
};
use opentelemetry_sdk::trace::{Sampler, SdkTracerProvider};
use serde_json::Value;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::layer::SubscriberExt;

/// The ids the SDK gave the current `tracing` span, in W3C hex.
fn current_ids() -> (String, String, u8) {
    let cx = tracing::Span::current().context();
    let span = cx.span();
    let sc = span.span_context();
    (
        format!("{:032x}", sc.trace_id()),
        format!("{:016x}", sc.span_id()),
        sc.trace_flags().to_u8(),
    )
}

/// Ships what `log_events` logs through tracing-opentelemetry + the SDK (sampling
/// everything, or nothing) + logship, and returns the events the intake decoded and the
/// ids `log_events` saw.
fn ship_traced(
    vendor: Vendor,
    sampler: Sampler,
    log_events: impl FnOnce() -> Vec<(String, String, u8)>,
) -> (Vec<Value>, Vec<(String, String, u8)>) {
    ship_encoded(vendor, None, sampler, log_events)
}

/// [`ship_traced`], with OTLP's encoding chosen.
fn ship_encoded(
    vendor: Vendor,
    encoding: Option<OtlpEncoding>,
    sampler: Sampler,
    log_events: impl FnOnce() -> Vec<(String, String, u8)>,
) -> (Vec<Value>, Vec<(String, String, u8)>) {
    let intake = vendor_intake();
    let builder = for_vendor(vendor_builder(&intake, vendor), vendor, encoding);
    let (layer, guard) = builder.build_layer().unwrap();
    let logship = layer.logship().clone();
    let provider = SdkTracerProvider::builder().with_sampler(sampler).build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("test")))
        .with(layer);
    let seen = tracing::subscriber::with_default(subscriber, log_events);
    logship.flush(WAIT).unwrap();
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
    drop(guard);
    let events = intake.events().into_iter().map(|e| e.value).collect();
    (events, seen)
}

/// Two nested spans; one event in each, and one outside both.
fn nested() -> Vec<(String, String, u8)> {
    let mut seen = Vec::new();
    let outer = tracing::info_span!("request", route = "/pay");
    outer.in_scope(|| {
        seen.push(current_ids());
        tracing::info!("in outer");
        tracing::info_span!("db").in_scope(|| {
            seen.push(current_ids());
            tracing::info!("in inner");
        });
    });
    tracing::info!("outside");
    seen
}

fn message(v: &Value) -> &str {
    ["message", "msg", "line", "content", "body", "event"]
        .iter()
        .find_map(|k| v.get(*k).and_then(Value::as_str))
        .or_else(|| v["body"]["stringValue"].as_str())
        .or_else(|| v["event"]["message"].as_str())
        .unwrap_or_default()
}

/// Where each vendor puts the hex trace and span ids of an event (None: not there).
fn hex_ids(vendor: Vendor, v: &Value) -> (Option<String>, Option<String>) {
    let s = |x: &Value| x.as_str().map(str::to_owned);
    match vendor {
        Vendor::Elasticsearch => (s(&v["trace.id"]), s(&v["span.id"])),
        Vendor::NewRelic => (
            s(&v["attributes"]["trace.id"]),
            s(&v["attributes"]["span.id"]),
        ),
        Vendor::Otlp => (s(&v["traceId"]), s(&v["spanId"])),
        Vendor::Loki => (s(&v["metadata"]["trace_id"]), s(&v["metadata"]["span_id"])),
        Vendor::Splunk => (s(&v["event"]["trace_id"]), s(&v["event"]["span_id"])),
        _ => (s(&v["trace_id"]), s(&v["span_id"])),
    }
}

#[test]
fn every_vendor_gets_the_ids_of_the_span_the_sdk_started() {
    for (vendor, encoding) in every_vendor() {
        let (events, seen) = ship_encoded(vendor, encoding, Sampler::AlwaysOn, nested);
        assert_eq!(events.len(), 3, "{vendor:?}: {events:#?}");
        let (outer, inner) = (&seen[0], &seen[1]);
        assert_eq!(outer.0, inner.0, "one trace");
        assert_ne!(outer.1, inner.1, "two spans");
        assert_eq!(outer.2, 1, "sampled");
        for v in &events {
            let expect = match message(v) {
                "in outer" => Some(outer),
                "in inner" => Some(inner),
                "outside" => None,
                other => panic!("{vendor:?}: unexpected message {other:?} in {v:#}"),
            };
            let (trace, span) = hex_ids(vendor, v);
            assert_eq!(trace.as_ref(), expect.map(|e| &e.0), "{vendor:?}: {v:#}");
            assert_eq!(span.as_ref(), expect.map(|e| &e.1), "{vendor:?}: {v:#}");
            if vendor == Vendor::Datadog {
                let low64 = |hex: &str| u64::from_str_radix(&hex[16..], 16).unwrap().to_string();
                let span_dec = |hex: &str| u64::from_str_radix(hex, 16).unwrap().to_string();
                assert_eq!(
                    v["dd.trace_id"].as_str(),
                    expect.map(|e| low64(&e.0)).as_deref(),
                    "{v:#}"
                );
                assert_eq!(
                    v["dd.span_id"].as_str(),
                    expect.map(|e| span_dec(&e.1)).as_deref(),
                    "{v:#}"
                );
            }
            if vendor == Vendor::Otlp {
                let flags = v.get("flags").and_then(Value::as_u64);
                assert_eq!(flags, expect.map(|_| 1), "sampled flag: {v:#}");
                assert!(v["attributes"].get("trace_flags").is_none(), "{v:#}");
            }
        }
    }
}

#[test]
fn an_unsampled_trace_keeps_its_ids_and_says_it_is_not_sampled() {
    let (events, seen) = ship_encoded(
        Vendor::Otlp,
        Some(OtlpEncoding::Protobuf),
        Sampler::AlwaysOff,
        || {
            let mut seen = Vec::new();
            tracing::info_span!("quiet").in_scope(|| {
                seen.push(current_ids());
                tracing::info!("in quiet");
            });
            seen
        },
    );
    assert_eq!(seen[0].2, 0, "the SDK did not sample it");
    assert_eq!(events.len(), 1);
    let v = &events[0];
    assert_eq!(
        hex_ids(Vendor::Otlp, v).0.as_ref(),
        Some(&seen[0].0),
        "{v:#}"
    );
    assert!(
        v.get("flags").is_none(),
        "flags 0 is proto3's default: {v:#}"
    );
}

#[test]
fn the_context_wins_over_id_fields_of_the_application_and_no_key_is_duplicated() {
    let clash = || {
        let mut seen = Vec::new();
        tracing::info_span!("request", trace_id = "not-hex").in_scope(|| {
            seen.push(current_ids());
            tracing::info!(span_id = 7u64, "clash");
        });
        seen
    };
    // The strict intakes reject duplicate keys (checked in ship_traced).
    let (events, seen) = ship_traced(Vendor::Datadog, Sampler::AlwaysOn, clash);
    let (v, (trace, span, _)) = (&events[0], &seen[0]);
    let low64 = u64::from_str_radix(&trace[16..], 16).unwrap().to_string();
    let span_dec = u64::from_str_radix(span, 16).unwrap().to_string();
    assert_eq!(v["dd.trace_id"].as_str(), Some(low64.as_str()), "{v:#}");
    assert_eq!(v["dd.span_id"].as_str(), Some(span_dec.as_str()), "{v:#}");
    assert_eq!(
        v["trace_id"].as_str(),
        Some(trace.as_str()),
        "the span's malformed one loses: {v:#}"
    );
    assert_eq!(
        v["span_id"].as_str(),
        Some(span.as_str()),
        "the context wins: {v:#}"
    );

    for vendor in [Vendor::Elasticsearch, Vendor::NewRelic, Vendor::Otlp] {
        let (events, seen) = ship_traced(vendor, Sampler::AlwaysOn, clash);
        let (v, (trace, span, _)) = (&events[0], &seen[0]);
        let ids = (Some(trace.clone()), Some(span.clone()));
        assert_eq!(hex_ids(vendor, v), ids, "{vendor:?}: {v:#}");
    }
    // Generic NDJSON keeps spans nested: the application's field stays on its span.
    let (events, seen) = ship_traced(Vendor::Ndjson, Sampler::AlwaysOn, clash);
    let v = &events[0];
    assert_eq!(v["trace_id"].as_str(), Some(seen[0].0.as_str()), "{v:#}");
    assert_eq!(v["spans"][0]["trace_id"], "not-hex", "{v:#}");
}

/// A `log` logger is global to the process: this is the only test here that installs one.
#[test]
fn the_log_facade_takes_the_attached_context() {
    let intake = vendor_intake();
    let (logger, guard) = vendor_builder(&intake, Vendor::Elasticsearch)
        .build_logger()
        .unwrap();
    let logship = logger.logship().clone();
    log::set_boxed_logger(Box::new(logger)).unwrap();
    log::set_max_level(log::LevelFilter::Info);
    let trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    let span = "00f067aa0ba902b7";
    {
        let sc = SpanContext::new(
            TraceId::from_hex(trace).unwrap(),
            SpanId::from_hex(span).unwrap(),
            TraceFlags::SAMPLED,
            true,
            TraceState::default(),
        );
        let _attached = opentelemetry::Context::current()
            .with_remote_span_context(sc)
            .attach();
        log::info!("attached");
    }
    log::info!("detached");
    logship.flush(WAIT).unwrap();
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
    drop(guard);
    let events: Vec<Value> = intake.events().into_iter().map(|e| e.value).collect();
    let by = |m: &str| events.iter().find(|v| message(v) == m).unwrap().clone();
    let v = by("attached");
    assert_eq!(v["trace.id"], trace, "{v:#}");
    assert_eq!(v["span.id"], span, "{v:#}");
    let v = by("detached");
    assert!(v.get("trace.id").is_none(), "{v:#}");
}

/// The layer keeps working when the OpenTelemetry layer is absent: no ids, nothing lost.
#[test]
fn without_the_opentelemetry_layer_events_ship_without_ids() {
    let intake = vendor_intake();
    let (layer, guard) = vendor_builder(&intake, Vendor::Elasticsearch)
        .build_layer()
        .unwrap();
    let logship = layer.logship().clone();
    let seen = Arc::new(Mutex::new(0));
    tracing::subscriber::with_default(tracing_subscriber::registry().with(layer), || {
        tracing::info_span!("plain").in_scope(|| tracing::info!("no otel"));
        *seen.lock().unwrap() += 1;
    });
    logship.flush(WAIT).unwrap();
    drop(guard);
    let events = intake.events();
    assert_eq!(events.len(), 1);
    assert!(
        events[0].value.get("trace.id").is_none(),
        "{:#}",
        events[0].value
    );
    assert_eq!(*seen.lock().unwrap(), 1);
}
