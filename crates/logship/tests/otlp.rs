//! OTLP/HTTP logs end to end against the intake's strict emulation, in both encodings:
//! every event and field arrives, only the spec's retryable statuses are retried, a 413
//! is split, and a `partialSuccess` is counted and never resent.

mod common;

use std::time::Duration;

use common::*;
use logship::{Builder, Level, Logship, OtlpEncoding, OtlpOptions, Record, Vendor};
use logship_intake::{Fault, Intake};

const ENCODINGS: [OtlpEncoding; 2] = [OtlpEncoding::Protobuf, OtlpEncoding::Json];

fn otlp_builder(intake: &Intake, encoding: OtlpEncoding) -> Builder {
    Logship::builder()
        .vendor(Vendor::Otlp)
        .otlp(OtlpOptions::default().encoding(encoding))
        .endpoint(intake.url(""))
        .service("checkout")
        .hostname("web-1")
        .tag("env:prod")
        .linger(Duration::from_millis(50))
        .retry_backoff(Duration::from_millis(1), Duration::from_millis(10))
        .shutdown_timeout(WAIT)
        .report_to_stderr(false)
        .spill(false)
}

fn event(i: usize) -> Record {
    let level = if i.is_multiple_of(10) {
        Level::Error
    } else {
        Level::Info
    };
    let mut r = Record::new(
        level,
        if i.is_multiple_of(3) {
            "app::db"
        } else {
            "app::pay"
        },
    );
    r.message(&format!("payment {i}"))
        .field("seq", i as u64)
        .field("amount", 12.5)
        .field("ok", true)
        .span("request")
        .field("trace_id", "4bf92f3577b34da6a3ce929d0e0e4736")
        .field("user", "ann");
    r
}

#[test]
fn every_event_arrives_with_its_fields_in_both_encodings() {
    for encoding in ENCODINGS {
        let intake = intake();
        let n = 3000;
        let logship = ship(
            otlp_builder(&intake, encoding).max_batch_records(500),
            (0..n).map(event),
        );
        assert!(intake.violations().is_empty(), "{:?}", intake.violations());
        assert_eq!(logship.stats().events_delivered as usize, n);
        let requests = intake.requests();
        assert!(requests.len() >= 6, "{encoding:?}: {}", requests.len());
        let content_type = match encoding {
            OtlpEncoding::Protobuf => "application/x-protobuf",
            OtlpEncoding::Json => "application/json",
        };
        for r in &requests {
            assert_eq!((r.path.as_str(), r.status), ("/v1/logs", 200));
            assert_eq!(r.vendor, "otlp");
            assert_eq!(r.header("content-type"), Some(content_type));
            assert_eq!(r.header("content-encoding"), Some("gzip"));
        }
        let mut seqs: Vec<u64> = intake
            .events()
            .iter()
            .map(|e| {
                let v = &e.value;
                let i = v["attributes"]["seq"].as_u64().unwrap();
                assert_eq!(v["message"], format!("payment {i}"));
                let (number, text) = if i.is_multiple_of(10) {
                    (17, "ERROR")
                } else {
                    (9, "INFO")
                };
                assert_eq!(v["severityNumber"], number);
                assert_eq!(v["severityText"], text);
                let scope = if i.is_multiple_of(3) {
                    "app::db"
                } else {
                    "app::pay"
                };
                assert_eq!(v["scope"], scope);
                assert_eq!(v["service.name"], "checkout");
                assert_eq!(v["host.name"], "web-1");
                assert_eq!(v["resource"]["env"], "prod");
                assert_eq!(v["attributes"]["amount"], 12.5);
                assert_eq!(v["attributes"]["ok"], true);
                assert_eq!(v["attributes"]["user"], "ann");
                assert_eq!(v["traceId"], "4bf92f3577b34da6a3ce929d0e0e4736");
                assert!(v["attributes"].get("trace_id").is_none());
                let t = v["timeUnixNano"].as_u64().unwrap();
                assert_eq!(v["observedTimeUnixNano"].as_u64(), Some(t));
                assert!(t > 1_700_000_000_000_000_000, "{t} is not nanoseconds");
                i
            })
            .collect();
        seqs.sort_unstable();
        assert_eq!(seqs, (0..n as u64).collect::<Vec<_>>(), "{encoding:?}");
    }
}

#[test]
fn only_429_502_503_and_504_are_retried() {
    for encoding in ENCODINGS {
        for (status, retried) in [
            (429, true),
            (502, true),
            (503, true),
            (504, true),
            (500, false),
            (400, false),
            (401, false),
            (408, false),
        ] {
            let intake = intake();
            intake.fail_next(1, Fault::retry_after(status, 0));
            let logship = ship(otlp_builder(&intake, encoding), (0..3).map(event));
            let stats = logship.stats();
            let what = format!("{encoding:?} {status}: {stats:?}");
            if retried {
                assert_eq!(intake.requests().len(), 2, "{what}");
                assert_eq!(stats.retries, 1, "{what}");
                assert_eq!(stats.events_delivered, 3, "{what}");
                assert_eq!(intake.stats().events, 3, "{what}");
            } else {
                assert_eq!(intake.requests().len(), 1, "{what}");
                assert_eq!(stats.retries, 0, "{what}");
                assert_eq!(stats.events_failed, 3, "{what}");
            }
            assert!(intake.violations().is_empty(), "{:?}", intake.violations());
        }
    }
}

#[test]
fn a_413_is_not_resent_as_is_but_split() {
    let intake = intake();
    intake.fail_next(1, Fault::json(413, r#"{"code":8,"message":"too large"}"#));
    let logship = ship(
        otlp_builder(&intake, OtlpEncoding::Protobuf),
        (0..10).map(event),
    );
    let stats = logship.stats();
    assert_eq!(stats.splits, 1, "{stats:?}");
    assert_eq!(stats.retries, 0);
    assert_eq!(stats.events_delivered, 10);
    assert_eq!(intake.requests().len(), 3);
    assert_eq!(intake.stats().events, 10);
}

#[test]
fn partial_success_counts_the_rejected_records_and_resends_nothing() {
    // ExportLogsServiceResponse { partial_success { rejected_log_records: 2,
    // error_message: "too old" } }, in protobuf and in JSON.
    let protobuf = "\x0a\x0b\x08\x02\x12\x07too old".to_owned();
    let json = r#"{"partialSuccess":{"rejectedLogRecords":"2","errorMessage":"too old"}}"#;
    for (encoding, content_type, body) in [
        (OtlpEncoding::Protobuf, "application/x-protobuf", protobuf),
        (OtlpEncoding::Json, "application/json", json.to_owned()),
    ] {
        let intake = intake();
        intake.fail_next(
            1,
            Fault::Status {
                status: 200,
                headers: vec![("Content-Type".into(), content_type.into())],
                body,
            },
        );
        let errors = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let seen = errors.clone();
        let logship = ship(
            otlp_builder(&intake, encoding).on_error(move |e| seen.lock().unwrap().push(e.clone())),
            (0..5).map(event),
        );
        let stats = logship.stats();
        assert_eq!(stats.partial_requests, 1, "{encoding:?} {stats:?}");
        assert_eq!(stats.events_delivered, 3);
        assert_eq!(stats.events_failed, 2);
        assert_eq!(stats.retries, 0);
        assert_eq!(intake.requests().len(), 1, "never resent");
        let errors = errors.lock().unwrap();
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].events, 2);
        assert!(errors[0].message.contains("rejected 2 of 5"), "{errors:?}");
    }
}

#[test]
fn trace_and_span_ids_come_from_tracing_span_fields() {
    use tracing_subscriber::layer::SubscriberExt;
    let intake = intake();
    let (layer, guard) = otlp_builder(&intake, OtlpEncoding::Protobuf)
        .build_layer()
        .unwrap();
    let subscriber = tracing_subscriber::registry().with(layer);
    tracing::subscriber::with_default(subscriber, || {
        let span = tracing::info_span!(
            "request",
            trace_id = "0af7651916cd43dd8448eb211c80319c",
            span_id = "b7ad6b7169203331",
            route = "/pay"
        );
        let _entered = span.enter();
        tracing::warn!(order = 7u64, "slow payment");
    });
    drop(guard);
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
    let events = intake.events();
    assert_eq!(events.len(), 1);
    let v = &events[0].value;
    assert_eq!(v["message"], "slow payment");
    assert_eq!(v["severityText"], "WARN");
    assert_eq!(v["traceId"], "0af7651916cd43dd8448eb211c80319c");
    assert_eq!(v["spanId"], "b7ad6b7169203331");
    assert_eq!(v["attributes"]["order"], 7);
    assert_eq!(v["attributes"]["route"], "/pay");
    assert!(v["scope"].as_str().unwrap().starts_with("otlp"));
}
