//! Trace correlation without the OpenTelemetry feature: fields named `trace_id` (32 hex
//! digits) and `span_id` (16 hex digits), W3C form, reach each vendor's own correlation
//! fields at its strict intake (docs/vendors.md, "Trace correlation"): Datadog
//! `dd.trace_id`/`dd.span_id` (decimal, lower 64 bits of the trace id), ECS and New Relic
//! `trace.id`/`span.id` (lowercase hex), OTLP `traceId`/`spanId`; the original fields stay.
//! A malformed id is only a field, and a user field named like a correlation field never
//! duplicates it.

mod common;

use common::vendors::*;
use common::*;
use logship::{Level, Record, Vendor};
use serde_json::Value;

const TRACE: &str = "4BF92F3577B34DA6A3CE929D0E0E4736";
const SPAN: &str = "00f067aa0ba902b7";

fn ship(vendor: Vendor, record: Record) -> Value {
    let intake = vendor_intake();
    let (logship, guard) = vendor_builder(&intake, vendor).build().unwrap();
    logship.push(record).unwrap();
    logship.flush(WAIT).unwrap();
    assert_clean(&intake, &logship, 1);
    drop(guard);
    intake.events().remove(0).value
}

fn traced() -> Record {
    let mut r = Record::new(Level::Info, "app::pay");
    r.message("charged")
        .field("dd.trace_id", "mine")
        .span("request")
        .field("trace_id", TRACE)
        .field("span_id", SPAN);
    r
}

#[test]
fn w3c_ids_reach_each_vendors_correlation_fields() {
    let v = ship(Vendor::Datadog, traced());
    assert_eq!(v["dd.trace_id"], "11803532876627986230", "{v:#}");
    assert_eq!(v["dd.span_id"], "67667974448284343", "{v:#}");
    assert_eq!(v["trace_id"], TRACE, "the full id stays: {v:#}");
    assert_eq!(v["field.dd.trace_id"], "mine", "{v:#}");

    let v = ship(Vendor::Elasticsearch, traced());
    assert_eq!(v["trace.id"], TRACE.to_lowercase(), "{v:#}");
    assert_eq!(v["span.id"], SPAN, "{v:#}");

    let v = ship(Vendor::NewRelic, traced());
    assert_eq!(v["attributes"]["trace.id"], TRACE.to_lowercase(), "{v:#}");
    assert_eq!(v["attributes"]["span.id"], SPAN, "{v:#}");

    let v = ship(Vendor::Otlp, traced());
    assert_eq!(v["traceId"], TRACE.to_lowercase(), "{v:#}");
    assert_eq!(v["spanId"], SPAN, "{v:#}");
}

#[test]
fn malformed_or_zero_ids_are_only_fields() {
    for bad in [
        "4bf92f35",
        "zz000000000000000000000000000000",
        "00000000000000000000000000000000",
    ] {
        let mut r = Record::new(Level::Info, "t");
        r.message("m")
            .field("trace_id", bad)
            .field("span_id", "xyz");
        let v = ship(Vendor::Datadog, r.clone());
        assert!(
            v.get("dd.trace_id").is_none() && v.get("dd.span_id").is_none(),
            "{v:#}"
        );
        assert_eq!(v["trace_id"], bad);
        let v = ship(Vendor::Elasticsearch, r);
        assert!(v.get("trace.id").is_none(), "{v:#}");
    }
}
