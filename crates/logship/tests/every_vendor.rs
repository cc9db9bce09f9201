//! What every vendor promises alike, checked vendor by vendor against the intake's strict
//! emulations: a rejected key fails fast and is never shown, and odd text arrives
//! unchanged and without violations.

mod common;

use common::vendors::*;
use common::*;
use logship::{Level, Record, Vendor};

#[test]
fn a_rejected_key_fails_fast_for_every_vendor_and_is_never_shown() {
    for vendor in [
        Vendor::Datadog,
        Vendor::Splunk,
        Vendor::NewRelic,
        Vendor::Dynatrace,
    ] {
        let intake = vendor_intake();
        let wrong = "wrong-secret-key-42";
        let errors = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = errors.clone();
        let logship = ship(
            vendor_builder(&intake, vendor)
                .api_key(wrong)
                .max_batch_records(10)
                .on_error(move |e| seen.lock().unwrap().push(e.clone())),
            (0..30).map(|i| event(i, 0)),
        );
        let stats = logship.stats();
        assert_eq!(
            intake.requests().len(),
            3,
            "{vendor:?}: one attempt per batch"
        );
        assert_eq!(intake.stats().auth_failures, 3);
        assert_eq!(stats.retries, 0);
        assert_eq!(stats.events_failed, 30);
        let errors = errors.lock().unwrap();
        assert_eq!(errors.len(), 3);
        assert!(errors
            .iter()
            .all(|e| e.permanent && matches!(e.status, Some(401 | 403))));
        let shown = format!("{logship:?} {stats:?} {errors:?}");
        assert!(!shown.contains(wrong), "{vendor:?} leaked the key: {shown}");
        assert!(shown.contains("credentials were rejected"), "{shown}");
    }
}

/// Every vendor ships odd text safely: the strict intake sees no violation, every event
/// is delivered once, and the message arrives unchanged.
#[test]
fn odd_text_reaches_every_vendor_unchanged_and_without_violations() {
    let cases: &[(Vendor, Option<logship::OtlpEncoding>, &str)] = &[
        (Vendor::Datadog, None, "/message"),
        (Vendor::Splunk, None, "/event/message"),
        (Vendor::NewRelic, None, "/message"),
        (Vendor::Dynatrace, None, "/content"),
        (Vendor::Loki, None, "/line"),
        (Vendor::Elasticsearch, None, "/message"),
        (
            Vendor::Otlp,
            Some(logship::OtlpEncoding::Protobuf),
            "/message",
        ),
        (Vendor::Otlp, Some(logship::OtlpEncoding::Json), "/message"),
    ];
    for &(vendor, encoding, message_at) in cases {
        let intake = vendor_intake();
        let builder = for_vendor(vendor_builder(&intake, vendor), vendor, encoding);
        // Field values differ from the message, so a field that overwrote the message
        // (a field named `message`, say) would show.
        let events = ODD_TEXTS.iter().enumerate().map(|(i, text)| {
            let mut r = Record::new(Level::Warn, text);
            r.message(text)
                .field("seq", i as u64)
                .field(text, "a field value")
                .span(text)
                .field(text, "a span field value");
            r
        });
        let logship = ship(builder, events);
        let what = format!("{vendor:?} {encoding:?}");
        assert!(
            intake.violations().is_empty(),
            "{what}: {:?}",
            intake.violations()
        );
        let stats = logship.stats();
        assert_eq!(
            stats.events_delivered as usize,
            ODD_TEXTS.len(),
            "{what}: {stats:?}"
        );
        let mut want: Vec<String> = ODD_TEXTS.iter().map(|t| t.to_string()).collect();
        want.sort();
        assert_eq!(intake.sorted_strings_at(message_at), want, "{what}");
    }
}
