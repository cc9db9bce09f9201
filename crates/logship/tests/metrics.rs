//! The `metrics` feature (issue 17 part 6): every field of `stats()` reaches a real
//! recorder (the `metrics` project's own debugging recorder), with its unit, and every
//! exported name is documented in docs/metrics.md. The field list comes from `Stats`'
//! serialised fields, so a counter added later cannot be forgotten.

mod common;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use common::{builder, intake, rec, WAIT};
use metrics_util::debugging::{DebugValue, DebuggingRecorder, Snapshotter};
use metrics_util::MetricKind;

/// Name -> (kind, unit, value) of everything in the recorder.
fn read(
    snapshotter: &Snapshotter,
) -> HashMap<String, (MetricKind, Option<metrics::Unit>, DebugValue)> {
    snapshotter
        .snapshot()
        .into_vec()
        .into_iter()
        .map(|(key, unit, _, value)| (key.key().name().to_owned(), (key.kind(), unit, value)))
        .collect()
}

/// Every field of `Stats` as serialised.
fn stats_fields(stats: &logship::Stats) -> Vec<String> {
    match serde_json::to_value(stats).unwrap() {
        serde_json::Value::Object(fields) => fields.keys().cloned().collect(),
        _ => unreachable!(),
    }
}

#[test]
fn every_stats_field_is_exported_with_its_unit_and_documented() {
    let intake = intake();
    let (logship, _guard) = builder(&intake).build().unwrap();
    for i in 0..10 {
        logship.push(rec(&format!("event {i}"))).unwrap();
    }
    logship.flush(WAIT).unwrap();
    let stats = logship.stats();
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    metrics::with_local_recorder(&recorder, || logship::metrics::export(&stats));
    let exported = read(&snapshotter);
    let docs = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../docs/metrics.md"
    ))
    .unwrap();
    let fields = stats_fields(&stats);
    let serialised = serde_json::to_value(&stats).unwrap();
    assert!(fields.len() > 40, "{fields:?}");
    for field in &fields {
        if logship::metrics::LEFT_OUT.contains(&field.as_str()) {
            assert!(!exported.contains_key(&format!("logship_{field}")));
            continue;
        }
        let name = format!("{}{field}", logship::metrics::PREFIX);
        if serialised[field.as_str()].is_object() {
            // A count per rule, exported with a `rule` label once a rule has counted.
            assert!(
                docs.contains(&format!("`{name}`")),
                "docs/metrics.md does not name {name}"
            );
            continue;
        }
        let (kind, ..) = exported
            .get(&name)
            .unwrap_or_else(|| panic!("{name} is not exported"));
        let gauge = logship::metrics::GAUGES.contains(&field.as_str());
        if gauge {
            assert_eq!(*kind, MetricKind::Gauge, "{name}");
        }
        assert!(
            docs.contains(&format!("`{name}`")),
            "docs/metrics.md does not name {name}"
        );
    }
    assert_eq!(
        exported["logship_events_delivered"],
        (
            MetricKind::Counter,
            Some(metrics::Unit::Count),
            DebugValue::Counter(10)
        )
    );
    assert_eq!(exported["logship_enqueued"].2, DebugValue::Counter(10));
    assert_eq!(exported["logship_bytes_raw"].1, Some(metrics::Unit::Bytes));
    assert!(matches!(exported["logship_bytes_raw"].2, DebugValue::Counter(n) if n > 0));
    assert!(matches!(exported["logship_health"].2, DebugValue::Gauge(v) if v.into_inner() == 0.0));
}

#[test]
fn the_observer_thread_feeds_the_installed_recorder_without_any_call() {
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    recorder
        .install()
        .expect("the only global recorder of this test binary");
    let intake = intake();
    let (logship, _guard) = builder(&intake)
        .metrics_interval(Duration::from_millis(100))
        .build()
        .unwrap();
    for i in 0..7 {
        logship.push(rec(&format!("event {i}"))).unwrap();
    }
    logship.flush(WAIT).unwrap();
    let deadline = Instant::now() + WAIT;
    loop {
        let exported = read(&snapshotter);
        let seen = exported
            .get("logship_events_delivered")
            .map(|t| format!("{:?}", t.2));
        if seen.as_deref() == Some("Counter(7)") {
            break;
        }
        assert!(Instant::now() < deadline, "not exported: {seen:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}
