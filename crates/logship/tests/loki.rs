//! Grafana Loki end to end against the intake's strict emulation of the push API: streams
//! grouped by label set and time-ordered, labels and structured metadata as configured,
//! long lines cut and counted, label mistakes caught at start-up, tenant and basic auth
//! sent and the password never shown, 429 retried and 400 not.

mod common;

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::*;
use logship::{Builder, Level, Logship, LokiOptions, Record, Vendor};
use logship_intake::{Fault, Intake, IntakeConfig};
use serde_json::{json, Value};

const PASSWORD: &str = "glc_secret-token-0123456789";
const LEVELS: [Level; 4] = [Level::Info, Level::Warn, Level::Error, Level::Debug];

fn loki_intake() -> Intake {
    Intake::start(IntakeConfig {
        api_key: Some(PASSWORD.into()),
        ..IntakeConfig::default()
    })
    .unwrap()
}

fn loki_builder(intake: &Intake) -> Builder {
    Logship::builder()
        .vendor(Vendor::Loki)
        .endpoint(intake.url(""))
        .service("checkout")
        .hostname("web-1")
        .tag("team:pay")
        .loki(
            LokiOptions::default()
                .label("env", "prod")
                .tenant_id("team-a"),
        )
        .basic_auth("123456", PASSWORD)
        .max_batch_records(1000)
        .linger(Duration::from_millis(50))
        .queue_capacity(100_000)
        .retry_backoff(Duration::from_millis(1), Duration::from_millis(20))
        .shutdown_timeout(WAIT)
        .report_to_stderr(false)
        .spill(false)
}

fn now_ns() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos() as u64
}

/// Event `i`: levels interleaved, timestamps deliberately out of arrival order (within a
/// minute of now, so Loki's age window accepts them).
fn event(i: usize, base_ns: u64) -> Record {
    let mut r = Record::new(LEVELS[i % LEVELS.len()], "app::pay");
    let jitter = ((i * 7919) % 60_000) as u64 * 1_000_000;
    r.set_timestamp_nanos(base_ns - jitter)
        .message(&format!("payment {i}"))
        .field("seq", i as u64)
        .field("amount", 12.5)
        .span("request")
        .field("id", "r-1");
    r
}

#[test]
fn streams_arrive_grouped_time_ordered_with_labels_and_metadata() {
    let intake = loki_intake();
    let n = 5000;
    let base = now_ns();
    let logship = ship(loki_builder(&intake), (0..n).map(|i| event(i, base)));
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
    assert_eq!(logship.stats().events_delivered as usize, n);
    assert_eq!(
        received_metadata_seqs(&intake),
        (0..n as u64).collect::<Vec<_>>()
    );
    let requests = intake.requests();
    assert!(requests.len() >= 5, "{} requests", requests.len());
    for r in &requests {
        assert_eq!(r.path, "/loki/api/v1/push");
        assert_eq!(r.status, 204);
        assert_eq!(r.header("x-scope-orgid"), Some("team-a"));
        assert_eq!(r.header("content-encoding"), Some("gzip"));
        assert_eq!(r.header("content-type"), Some("application/json"));
        assert!(r.header("authorization").unwrap().starts_with("Basic "));
    }
    // Per request: each stream is one contiguous run, its label set unique in the request,
    // its entries in time order.
    let mut by_request: BTreeMap<u64, Vec<Value>> = BTreeMap::new();
    for e in intake.events() {
        by_request.entry(e.request_id).or_default().push(e.value);
    }
    for events in by_request.values() {
        let mut seen = HashSet::new();
        let mut last: Option<(u64, u128)> = None;
        for e in events {
            let stream = e["stream"].as_u64().unwrap();
            let ts: u128 = e["timestamp_ns"].as_str().unwrap().parse().unwrap();
            match last {
                Some((s, t)) if s == stream => assert!(ts >= t, "stream {s} out of order"),
                _ => assert!(
                    seen.insert(e["labels"].to_string()),
                    "label set split over streams"
                ),
            }
            last = Some((stream, ts));
        }
        assert!(seen.len() <= LEVELS.len());
    }
    let mut ids = std::collections::HashSet::new();
    for e in intake.events() {
        let mut v = e.value.clone();
        take_event_id(&mut v["metadata"], "logship_id", &mut ids);
        let v = &v;
        let i = v["metadata"]["seq"]
            .as_str()
            .unwrap()
            .parse::<usize>()
            .unwrap();
        let level = format!("{:?}", LEVELS[i % LEVELS.len()]).to_lowercase();
        assert_eq!(
            v["labels"],
            json!({"service": "checkout", "level": level, "env": "prod"})
        );
        assert_eq!(v["line"], format!("payment {i}"));
        assert_eq!(
            v["metadata"],
            json!({"target": "app::pay", "hostname": "web-1", "team": "pay",
                   "seq": i.to_string(), "amount": "12.5", "id": "r-1"})
        );
        assert_eq!(v["tenant"], "team-a");
    }
    let shown = format!("{logship:?} {:?}", logship.stats());
    assert!(!shown.contains(PASSWORD), "password leaked: {shown}");
}

fn received_metadata_seqs(intake: &Intake) -> Vec<u64> {
    let mut seqs: Vec<u64> = intake
        .events()
        .iter()
        .map(|e| {
            e.value["metadata"]["seq"]
                .as_str()
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect();
    seqs.sort_unstable();
    seqs
}

#[test]
fn a_line_over_max_line_bytes_is_cut_and_counted() {
    let intake = loki_intake();
    let mut long = Record::new(Level::Info, "app");
    long.message(&"l".repeat(300 * 1024)).field("seq", 1u64);
    let mut short = Record::new(Level::Info, "app");
    short.message("short").field("seq", 2u64);
    let logship = ship(loki_builder(&intake), [long, short]);
    // The intake answers 400 line_too_long to a line over 256 KB: none means it was cut.
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
    let stats = logship.stats();
    assert_eq!(stats.truncated, 1);
    assert_eq!(stats.events_delivered, 2);
    let events = intake.events();
    let cut = events
        .iter()
        .find(|e| e.value["metadata"]["seq"] == "1")
        .unwrap();
    let line = cut.value["line"].as_str().unwrap();
    assert!(line.len() <= 256 * 1024, "{}", line.len());
    assert!(line.len() > 255 * 1024, "{}", line.len());
    assert!(line.ends_with("…[truncated]"));
    assert_eq!(cut.value["metadata"]["logship_truncated"], "true");
    // Every byte cut is counted; the line's other fields stay.
    let kept = line.len() - "…[truncated]".len();
    assert_eq!(
        cut.value["metadata"]["logship_truncated_bytes"],
        (300 * 1024 - kept).to_string()
    );
    let original: usize = cut.value["metadata"]["logship_original_bytes"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .unwrap();
    assert!(original > 300 * 1024, "{original}");
}

#[test]
fn a_bad_label_fails_at_build_with_the_field_and_the_fix() {
    let intake = loki_intake();
    let builder = loki_builder(&intake);
    let loki = builder.config().loki.clone().label("team-name", "core");
    let err = builder.loki(loki).build().err().unwrap().to_string();
    assert_eq!(
        err,
        "invalid logship configuration: loki_labels = team-name=core: label name \"team-name\" must match [a-zA-Z_][a-zA-Z0-9_]* (use letters, digits and underscores, not starting with a digit, e.g. env=prod)"
    );
    assert_eq!(intake.stats().requests, 0);
}

#[test]
fn a_wrong_password_fails_once_and_is_never_shown() {
    let intake = loki_intake();
    let wrong = "wrong-password-42";
    let errors = Arc::new(Mutex::new(Vec::new()));
    let seen = errors.clone();
    let logship = ship(
        loki_builder(&intake)
            .basic_auth("123456", wrong)
            .on_error(move |e| seen.lock().unwrap().push(format!("{e:?}"))),
        (0..10).map(|i| event(i, now_ns())),
    );
    let stats = logship.stats();
    assert_eq!(stats.events_failed, 10);
    assert_eq!(stats.retries, 0);
    assert_eq!(intake.stats().auth_failures, intake.stats().requests);
    let errors = errors.lock().unwrap();
    assert!(!errors.is_empty());
    let shown = format!("{errors:?} {logship:?} {stats:?}");
    assert!(shown.contains("401"), "{shown}");
    assert!(
        !shown.contains(wrong) && !shown.contains(PASSWORD),
        "{shown}"
    );
}

#[test]
fn rate_limits_are_retried_and_a_400_is_not() {
    let intake = loki_intake();
    intake.fail_next(
        2,
        Fault::Status {
            status: 429,
            headers: vec![],
            body: "Ingestion rate limit exceeded (rate_limited)\n".into(),
        },
    );
    let logship = ship(loki_builder(&intake), (0..10).map(|i| event(i, now_ns())));
    let stats = logship.stats();
    assert_eq!(stats.events_delivered, 10);
    assert_eq!(stats.retries, 2);
    assert_eq!(intake.stats().events, 10);

    let intake = loki_intake();
    intake.fail_next(
        1,
        Fault::Status {
            status: 400,
            headers: vec![],
            body: "entry for stream '{level=\"info\"}' has timestamp too old\n".into(),
        },
    );
    let logship = ship(loki_builder(&intake), (0..10).map(|i| event(i, now_ns())));
    let stats = logship.stats();
    assert_eq!(stats.events_failed, 10);
    assert_eq!(stats.retries, 0);
    assert_eq!(intake.stats().requests, 1);
}
