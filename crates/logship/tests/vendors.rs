//! Each vendor end to end against the intake's strict emulation of it: documented shape
//! and units, limits never exceeded, oversized events capped, auth failures reported and
//! not retried, and the key never shown.

mod common;

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::*;
use logship::{Builder, Level, Logship, OtlpOptions, Record, SplunkOptions, Vendor};
use logship_intake::{Fault, Intake, IntakeConfig};

const KEY: &str = "key-0123456789abcdef";

fn vendor_intake() -> Intake {
    Intake::start(IntakeConfig {
        api_key: Some(KEY.into()),
        ..IntakeConfig::default()
    })
    .unwrap()
}

/// A pipeline for `vendor` whose endpoint has no path (the vendor path is appended) and
/// whose own batch triggers are wide open, so the vendor's limits are what bind.
fn vendor_builder(intake: &Intake, vendor: Vendor) -> Builder {
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

fn event(i: usize, pad: usize) -> Record {
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

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as u64
}

fn ship(builder: Builder, events: impl IntoIterator<Item = Record>) -> Logship {
    let (logship, guard) = builder.build().unwrap();
    for r in events {
        logship.push(r).unwrap();
    }
    drop(guard);
    logship
}

fn assert_clean(intake: &Intake, logship: &Logship, n: usize) {
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
    assert_eq!(intake.stats().events as usize, n);
    let stats = logship.stats();
    assert_eq!(stats.events_delivered as usize, n, "{stats:?}");
    assert_no_secret(logship, KEY);
}

#[test]
fn datadog_entries_arrive_as_documented_within_1000_per_request() {
    let intake = vendor_intake();
    let n = 5000;
    let logship = ship(
        vendor_builder(&intake, Vendor::Datadog),
        (0..n).map(|i| event(i, 50)),
    );
    assert_clean(&intake, &logship, n);
    let requests = intake.requests();
    assert!(requests.len() >= 5);
    for r in &requests {
        assert_eq!(r.path, "/api/v2/logs");
        assert_eq!(r.header("dd-api-key"), Some(KEY));
        assert!(
            r.events <= 1000 && r.decoded_bytes <= 5_000_000,
            "{} events",
            r.events
        );
    }
    let start = now_ms() - 60_000;
    for e in intake.events() {
        let v = &e.value;
        let i = v["seq"].as_u64().unwrap();
        assert_eq!(
            v["status"],
            if i.is_multiple_of(10) {
                "error"
            } else {
                "info"
            }
        );
        let ts = v["timestamp"].as_u64().unwrap();
        assert!(
            ts > start && ts <= now_ms(),
            "timestamp {ts} is not epoch ms"
        );
        assert_eq!(v["service"], "checkout");
        assert_eq!(v["ddsource"], "rust-test");
        assert_eq!(v["hostname"], "web-1");
        assert_eq!(v["ddtags"], "env:prod,team:pay");
        assert_eq!(v["amount"], 12.5);
        assert!(v["message"]
            .as_str()
            .unwrap()
            .starts_with(&format!("payment {i} ")));
    }
}

#[test]
fn datadog_caps_an_event_over_1_mb_and_counts_it() {
    let intake = vendor_intake();
    let mut big = event(0, 0);
    big.field("blob", "b".repeat(1_500_000).as_str());
    let logship = ship(
        vendor_builder(&intake, Vendor::Datadog).max_event_bytes(8 * 1024 * 1024),
        [big, event(1, 10)],
    );
    assert_clean(&intake, &logship, 2);
    assert_eq!(logship.stats().truncated, 1);
    let capped = intake
        .events()
        .into_iter()
        .find(|e| e.value["seq"] == 0)
        .unwrap();
    assert_eq!(capped.value["logship.truncated"], true);
    assert!(serde_json::to_vec(&capped.value).unwrap().len() <= 1_000_000);
}

#[test]
fn splunk_events_arrive_concatenated_in_seconds_within_the_request_cap() {
    let intake = vendor_intake();
    let n = 3000;
    let logship = ship(
        vendor_builder(&intake, Vendor::Splunk)
            .splunk(SplunkOptions::default().index("main").channel("auto")),
        (0..n).map(|i| event(i, 500)),
    );
    assert_clean(&intake, &logship, n);
    let requests = intake.requests();
    assert!(
        requests.len() >= 2,
        "1.6 MB must take more than one request"
    );
    let channel = requests[0]
        .header("x-splunk-request-channel")
        .unwrap()
        .to_owned();
    assert_eq!(channel.len(), 36);
    for r in &requests {
        assert_eq!(r.path, "/services/collector/event");
        assert_eq!(
            r.header("authorization"),
            Some(format!("Splunk {KEY}").as_str())
        );
        assert_eq!(r.header("x-splunk-request-channel"), Some(channel.as_str()));
        assert!(r.decoded_bytes <= 1_000_000, "{} bytes", r.decoded_bytes);
    }
    let now_s = now_ms() as f64 / 1000.0;
    for e in intake.events() {
        let v = &e.value;
        let t = v["time"].as_f64().unwrap();
        assert!(
            t > now_s - 60.0 && t <= now_s,
            "time {t} is not epoch seconds"
        );
        assert_eq!(v["host"], "web-1");
        assert_eq!(v["source"], "rust-test");
        assert_eq!(v["sourcetype"], "_json");
        assert_eq!(v["index"], "main");
        assert_eq!(
            v["fields"],
            serde_json::json!({"service": "checkout", "env": "prod", "team": "pay"})
        );
        assert!(v["event"]["message"]
            .as_str()
            .unwrap()
            .starts_with("payment "));
    }
}

#[test]
fn splunk_invalid_event_number_drops_that_event_and_resends_the_rest() {
    let intake = vendor_intake();
    intake.fail_next(
        1,
        Fault::Status {
            status: 400,
            headers: vec![],
            body: r#"{"text":"Invalid data format","code":6,"invalid-event-number":3}"#.into(),
        },
    );
    let (logship, guard) = vendor_builder(&intake, Vendor::Splunk).build().unwrap();
    for i in 0..10 {
        logship.push(event(i, 5)).unwrap();
    }
    logship.flush(WAIT).unwrap();
    drop(guard);
    let stats = logship.stats();
    assert_eq!(stats.events_failed, 1);
    assert_eq!(stats.events_delivered, 9);
    let requests = intake.requests();
    assert_eq!(
        requests.iter().map(|r| r.events).collect::<Vec<_>>(),
        vec![0, 9]
    );
    let seqs: Vec<u64> = intake
        .events()
        .iter()
        .map(|e| e.value["event"]["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, vec![0, 1, 2, 4, 5, 6, 7, 8, 9]);
}

#[test]
fn new_relic_900_kb_events_never_exceed_1_mb_on_the_wire() {
    let intake = vendor_intake();
    // Text gzip can barely shrink: a pseudo-random alphabet soup.
    let mut rng = fastrand::Rng::with_seed(7);
    let blob = |rng: &mut fastrand::Rng| -> String {
        (0..900 * 1024).map(|_| rng.alphanumeric()).collect()
    };
    let events: Vec<Record> = (0..6)
        .map(|i| {
            let mut r = event(i, 0);
            r.field("blob", blob(&mut rng).as_str());
            r
        })
        .collect();
    let logship = ship(vendor_builder(&intake, Vendor::NewRelic), events);
    assert_clean(&intake, &logship, 6);
    assert_eq!(
        logship.stats().truncated,
        0,
        "900 KiB fits New Relic's limit once compressed"
    );
    for r in intake.requests() {
        assert_eq!(r.path, "/log/v1");
        assert_eq!(r.header("api-key"), Some(KEY));
        assert!(
            r.body_bytes <= 1_000_000,
            "{} bytes on the wire",
            r.body_bytes
        );
    }
    for e in intake.events() {
        let v = &e.value;
        assert!(v["timestamp"].as_u64().unwrap() > now_ms() - 60_000);
        assert_eq!(
            v["attributes"]["level"],
            if v["attributes"]["seq"] == 0 {
                "ERROR"
            } else {
                "INFO"
            }
        );
        assert_eq!(v["common"]["service"], "checkout");
        assert_eq!(v["common"]["hostname"], "web-1");
        assert_eq!(v["common"]["env"], "prod");
    }
}

#[test]
fn new_relic_without_gzip_still_keeps_each_request_under_1_mb() {
    let intake = vendor_intake();
    let n = 400;
    let logship = ship(
        vendor_builder(&intake, Vendor::NewRelic).gzip(false),
        (0..n).map(|i| event(i, 10_000)),
    );
    assert_clean(&intake, &logship, n);
    assert!(intake.requests().len() >= 4);
    for r in intake.requests() {
        assert!(r.body_bytes <= 1_000_000, "{} bytes", r.body_bytes);
        assert_eq!(r.header("content-encoding"), None);
    }
}

#[test]
fn dynatrace_records_arrive_within_50000_per_request() {
    let intake = vendor_intake();
    let n = 60_000;
    let logship = ship(
        vendor_builder(&intake, Vendor::Dynatrace),
        (0..n).map(|i| event(i, 0)),
    );
    assert_clean(&intake, &logship, n);
    let requests = intake.requests();
    assert!(requests.len() >= 2);
    for r in &requests {
        assert_eq!(r.path, "/api/v2/logs/ingest");
        assert_eq!(
            r.header("authorization"),
            Some(format!("Api-Token {KEY}").as_str())
        );
        assert!(r.events <= 50_000 && r.decoded_bytes <= 10_000_000);
        assert_eq!(r.status, 204);
    }
    let e = intake
        .events()
        .into_iter()
        .find(|e| e.value["seq"] == 10)
        .unwrap()
        .value;
    assert_eq!(e["severity"], "ERROR");
    assert_eq!(e["log.source"], "rust-test");
    assert_eq!(e["service.name"], "checkout");
    assert_eq!(e["host.name"], "web-1");
    assert!(e["content"].as_str().unwrap().starts_with("payment 10"));
    assert!(e["timestamp"].as_str().unwrap().ends_with('Z'));
}

#[test]
fn dynatrace_partial_success_is_counted_and_not_resent() {
    let intake = vendor_intake();
    intake.fail_next(
        1,
        Fault::Status {
            status: 200,
            headers: vec![],
            body: r#"{"details":{"code":200,"message":"1 record too large"}}"#.into(),
        },
    );
    let logship = ship(
        vendor_builder(&intake, Vendor::Dynatrace),
        (0..5).map(|i| event(i, 0)),
    );
    let stats = logship.stats();
    assert_eq!(stats.partial_requests, 1);
    assert_eq!(stats.events_delivered, 5);
    assert_eq!(stats.retries, 0);
    assert_eq!(intake.requests().len(), 1);
}

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
        let mut builder = vendor_builder(&intake, vendor);
        if let Some(e) = encoding {
            builder = builder.otlp(OtlpOptions::default().encoding(e));
        }
        if vendor == Vendor::Splunk {
            builder = builder.splunk(SplunkOptions::default().channel("auto"));
        }
        if vendor == Vendor::Loki {
            // The intake plays a gateway checking basic auth whose password is the key.
            builder = builder.basic_auth("123456", KEY);
        }
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
