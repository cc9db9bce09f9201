//! The pipeline the per-vendor end-to-end tests share for the key-authenticated vendors
//! (Datadog, Splunk HEC, New Relic, Dynatrace): an intake that checks the key, a builder
//! whose own batch triggers are wide open, one event shape, and the clean-delivery check.

use std::time::Duration;

use logship::{Builder, Level, Logship, OtlpEncoding, OtlpOptions, Record, SplunkOptions, Vendor};
use logship_intake::{Intake, IntakeConfig};

use super::{assert_no_secret, WAIT};

pub const KEY: &str = "key-0123456789abcdef";

pub fn vendor_intake() -> Intake {
    Intake::start(IntakeConfig {
        api_key: Some(KEY.into()),
        ..IntakeConfig::default()
    })
    .unwrap()
}

/// A pipeline for `vendor` whose endpoint has no path (the vendor path is appended) and
/// whose own batch triggers are wide open, so the vendor's limits are what bind.
pub fn vendor_builder(intake: &Intake, vendor: Vendor) -> Builder {
    Logship::builder()
        .vendor(vendor)
        .endpoint(intake.url(""))
        .api_key(KEY)
        .service("checkout")
        .source("rust-test")
        .hostname("web-1")
        .tag("env:prod")
        .tag("team:pay")
        .max_batch_records(1_000_000)
        .max_batch_bytes(256 * 1024 * 1024)
        .linger(Duration::from_millis(50))
        .queue_capacity(100_000)
        .shutdown_timeout(WAIT)
        .report_to_stderr(false)
        .spill(false)
}

/// The generic intakes (NDJSON, JSON array).
#[allow(dead_code)]
pub const GENERIC: &[(Vendor, Option<OtlpEncoding>)] =
    &[(Vendor::Ndjson, None), (Vendor::JsonArray, None)];

/// Every vendor-specific intake, OTLP in both encodings.
#[allow(dead_code)]
pub const VENDOR_INTAKES: &[(Vendor, Option<OtlpEncoding>)] = &[
    (Vendor::Datadog, None),
    (Vendor::Splunk, None),
    (Vendor::NewRelic, None),
    (Vendor::Dynatrace, None),
    (Vendor::Loki, None),
    (Vendor::Elasticsearch, None),
    (Vendor::Otlp, Some(OtlpEncoding::Protobuf)),
    (Vendor::Otlp, Some(OtlpEncoding::Json)),
];

/// [`GENERIC`] then [`VENDOR_INTAKES`]: every encoder.
#[allow(dead_code)]
pub fn every_vendor() -> impl Iterator<Item = (Vendor, Option<OtlpEncoding>)> {
    GENERIC.iter().chain(VENDOR_INTAKES).copied()
}

/// `builder` with what `vendor` needs at [`vendor_intake`] beyond [`vendor_builder`]:
/// OTLP's `encoding`, a Splunk channel, and for Loki the basic auth of the gateway the
/// intake plays (its password is the key).
#[allow(dead_code)]
pub fn for_vendor(builder: Builder, vendor: Vendor, encoding: Option<OtlpEncoding>) -> Builder {
    let mut builder = builder;
    if let Some(e) = encoding {
        builder = builder.otlp(OtlpOptions::default().encoding(e));
    }
    match vendor {
        Vendor::Splunk => builder.splunk(SplunkOptions::default().channel("auto")),
        Vendor::Loki => builder.basic_auth("123456", KEY),
        _ => builder,
    }
}

pub fn event(i: usize, pad: usize) -> Record {
    let mut r = Record::new(
        if i.is_multiple_of(10) {
            Level::Error
        } else {
            Level::Info
        },
        "app::pay",
    );
    r.message(&format!("payment {i} {}", "p".repeat(pad)))
        .field("seq", i as u64)
        .field("amount", 12.5)
        .field("ok", true);
    r
}

pub fn assert_clean(intake: &Intake, logship: &Logship, n: usize) {
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
    assert_eq!(intake.stats().events as usize, n);
    let stats = logship.stats();
    assert_eq!(stats.events_delivered as usize, n, "{stats:?}");
    assert_no_secret(logship, KEY);
}
