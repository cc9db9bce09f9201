//! Error values at every vendor's strict intake: a `dyn Error` recorded with tracing's
//! `record_error` or as a `log` key-value arrives in the vendor's own error fields, with
//! its type, message and source chain, and without violations.

mod common;

use std::fmt;

use common::vendors::*;
use common::*;
use logship::{OtlpEncoding, Vendor};
use serde_json::Value;
use tracing_subscriber::prelude::*;

#[derive(Debug)]
struct PaymentFailed {
    source: std::num::ParseIntError,
}

impl fmt::Display for PaymentFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("payment failed")
    }
}

impl std::error::Error for PaymentFailed {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

fn failure() -> PaymentFailed {
    PaymentFailed {
        source: "x1".parse::<u32>().unwrap_err(),
    }
}

/// The value of the first member named `key` at any depth of `v`.
fn find<'a>(v: &'a Value, key: &str) -> Option<&'a Value> {
    match v {
        Value::Object(map) => map
            .get(key)
            .or_else(|| map.values().find_map(|child| find(child, key))),
        Value::Array(items) => items.iter().find_map(|child| find(child, key)),
        _ => None,
    }
}

/// (vendor, OTLP encoding, names of the error's type, message and stack).
const CASES: &[(Vendor, Option<OtlpEncoding>, [&str; 3])] = &[
    (
        Vendor::Datadog,
        None,
        ["error.kind", "error.message", "error.stack"],
    ),
    (
        Vendor::Elasticsearch,
        None,
        ["error.type", "error.message", "error.stack_trace"],
    ),
    (
        Vendor::NewRelic,
        None,
        ["error.class", "error.message", "error.stack"],
    ),
    (
        Vendor::Splunk,
        None,
        [
            "exception.type",
            "exception.message",
            "exception.stacktrace",
        ],
    ),
    (
        Vendor::Dynatrace,
        None,
        [
            "exception.type",
            "exception.message",
            "exception.stacktrace",
        ],
    ),
    (
        Vendor::Loki,
        None,
        [
            "exception_type",
            "exception_message",
            "exception_stacktrace",
        ],
    ),
    (
        Vendor::Otlp,
        Some(OtlpEncoding::Protobuf),
        [
            "exception.type",
            "exception.message",
            "exception.stacktrace",
        ],
    ),
    (
        Vendor::Otlp,
        Some(OtlpEncoding::Json),
        [
            "exception.type",
            "exception.message",
            "exception.stacktrace",
        ],
    ),
];

fn builder_for(
    intake: &logship_intake::Intake,
    vendor: Vendor,
    encoding: Option<OtlpEncoding>,
) -> logship::Builder {
    for_vendor(vendor_builder(intake, vendor), vendor, encoding)
}

fn check(what: &str, intake: &logship_intake::Intake, names: [&str; 3]) {
    assert!(intake.wait_for_events(1, WAIT), "{what}");
    assert!(
        intake.violations().is_empty(),
        "{what}: {:?}",
        intake.violations()
    );
    let event = &intake.events()[0].value;
    let [kind, message, stack] = names;
    assert_eq!(
        find(event, kind),
        Some(&Value::from("PaymentFailed")),
        "{what}: {event}"
    );
    assert_eq!(
        find(event, message),
        Some(&Value::from("payment failed")),
        "{what}: {event}"
    );
    assert_eq!(
        find(event, stack),
        Some(&Value::from(
            "PaymentFailed: payment failed\nCaused by: invalid digit found in string"
        )),
        "{what}: {event}"
    );
}

#[test]
fn a_tracing_error_fills_each_vendors_error_fields() {
    for &(vendor, encoding, names) in CASES {
        let intake = vendor_intake();
        let (layer, guard) = builder_for(&intake, vendor, encoding)
            .build_layer()
            .unwrap();
        let subscriber = tracing_subscriber::registry().with(layer);
        tracing::subscriber::with_default(subscriber, || {
            let err = failure();
            tracing::error!(error = &err as &dyn std::error::Error, "charging failed");
        });
        drop(guard);
        check(&format!("{vendor:?} {encoding:?}"), &intake, names);
    }
}

#[test]
fn a_log_key_value_error_fills_the_vendors_error_fields() {
    // `log` has one global logger per process: one vendor here, the mapping is shared.
    let intake = vendor_intake();
    let (logger, guard) = builder_for(&intake, Vendor::Datadog, None)
        .build_logger()
        .unwrap();
    logger.init().unwrap();
    let err = failure();
    log::error!(error:err = err; "charging failed");
    log::logger().flush();
    drop(guard);
    check("log", &intake, CASES[0].2);
}

#[test]
fn the_generic_format_keeps_the_error_as_an_object() {
    let intake = intake();
    let (layer, guard) = builder(&intake).build_layer().unwrap();
    tracing::subscriber::with_default(tracing_subscriber::registry().with(layer), || {
        let err = failure();
        tracing::error!(cause = &err as &dyn std::error::Error, "charging failed");
    });
    drop(guard);
    assert!(intake.wait_for_events(1, WAIT));
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
    assert_eq!(
        intake.events()[0].value["cause"],
        serde_json::json!({"type": "PaymentFailed", "message": "payment failed",
                           "sources": ["invalid digit found in string"]})
    );
}
