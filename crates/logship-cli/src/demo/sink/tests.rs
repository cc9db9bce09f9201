//! The sink counts exactly what logship delivered, for every vendor the demo ships to,
//! and reads every event's probes: the real pipeline over real HTTP on 127.0.0.1.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use logship::{Builder, Level, Logship, OtlpEncoding, OtlpOptions, Record, SpanFields, Vendor};

use super::{Probe, Sink};

/// Events each test ships: several batches of [`BATCH`].
const EVENTS: u64 = 450;
const BATCH: usize = 100;
/// `t_us` of the first event (each next one is one more).
const FIRST_T_US: u64 = 1_700_000_000_000_000;

/// Ships [`EVENTS`] events through `vendor` into a sink and checks that the sink counted
/// each one once, as logship did, and read its `t_us` and its span's `request_id`.
fn sink_counts_what_logship_delivered(vendor: Vendor, otlp: OtlpEncoding) {
    ships_and_counts(vendor, |b| b.otlp(OtlpOptions::default().encoding(otlp)));
}

/// [`sink_counts_what_logship_delivered`] with the pipeline's settings changed by `tweak`.
fn ships_and_counts(vendor: Vendor, tweak: impl FnOnce(Builder) -> Builder) {
    let seen: Arc<Mutex<Vec<Probe>>> = Arc::default();
    let sink = {
        let seen = Arc::clone(&seen);
        Sink::start(
            vendor,
            None,
            Box::new(move |probes, _arrival| seen.lock().unwrap().extend_from_slice(probes)),
        )
        .expect("sink")
    };
    let generic = matches!(vendor, Vendor::Ndjson | Vendor::JsonArray);
    let builder = Logship::builder()
        .vendor(vendor)
        .endpoint(sink.url(if generic { "/logs" } else { "" }))
        .max_batch_records(BATCH)
        .linger(Duration::from_millis(20))
        .max_retries(0)
        .spill(false);
    let builder = if generic {
        builder
    } else {
        builder.api_key("sink-test-key")
    };
    let (logship, _guard) = tweak(builder).build().expect("pipeline");
    for i in 0..EVENTS {
        let mut record = Record::new(Level::Info, "sink.test");
        record
            .message_fmt(format_args!("event {i}"))
            .field("t_us", FIRST_T_US + i)
            .span("request")
            .field("request_id", i);
        logship.push(record).expect("queued");
    }
    let report = logship.shutdown(Duration::from_secs(30));
    let name = vendor.name();
    assert_eq!(report.stats.events_delivered, EVENTS, "{name}: {report:?}");
    assert!(sink.wait_for_events(EVENTS, Duration::from_secs(10)));
    assert_eq!(sink.events(), EVENTS, "{name}");

    let seen = seen.lock().unwrap();
    let t_us: BTreeSet<u64> = seen.iter().filter_map(|p| p.t_us).collect();
    let ids: BTreeSet<u64> = seen.iter().filter_map(|p| p.request_id).collect();
    assert_eq!(seen.len() as u64, EVENTS, "{name}");
    assert_eq!(t_us, (FIRST_T_US..FIRST_T_US + EVENTS).collect(), "{name}");
    assert_eq!(ids, (0..EVENTS).collect(), "{name}");
}

#[test]
fn counts_ndjson_exactly() {
    sink_counts_what_logship_delivered(Vendor::Ndjson, OtlpEncoding::Protobuf);
}

#[test]
fn counts_a_json_array_exactly() {
    sink_counts_what_logship_delivered(Vendor::JsonArray, OtlpEncoding::Protobuf);
}

#[test]
fn counts_datadog_exactly() {
    sink_counts_what_logship_delivered(Vendor::Datadog, OtlpEncoding::Protobuf);
}

#[test]
fn counts_splunk_hec_exactly() {
    sink_counts_what_logship_delivered(Vendor::Splunk, OtlpEncoding::Protobuf);
}

#[test]
fn counts_new_relic_exactly() {
    sink_counts_what_logship_delivered(Vendor::NewRelic, OtlpEncoding::Protobuf);
}

#[test]
fn counts_dynatrace_exactly() {
    sink_counts_what_logship_delivered(Vendor::Dynatrace, OtlpEncoding::Protobuf);
}

#[test]
fn counts_loki_json_exactly() {
    sink_counts_what_logship_delivered(Vendor::Loki, OtlpEncoding::Protobuf);
}

#[test]
fn counts_elasticsearch_bulk_exactly() {
    sink_counts_what_logship_delivered(Vendor::Elasticsearch, OtlpEncoding::Protobuf);
}

#[test]
fn counts_otlp_protobuf_exactly() {
    sink_counts_what_logship_delivered(Vendor::Otlp, OtlpEncoding::Protobuf);
}

#[test]
fn counts_otlp_json_exactly() {
    sink_counts_what_logship_delivered(Vendor::Otlp, OtlpEncoding::Json);
}

#[test]
fn reads_span_fields_under_their_prefixed_names_too() {
    for vendor in [Vendor::Datadog, Vendor::Splunk, Vendor::Loki, Vendor::Otlp] {
        ships_and_counts(vendor, |b| b.span_fields(SpanFields::Prefixed));
    }
}

#[test]
fn a_sink_that_is_down_answers_nothing_and_counts_nothing() {
    let sink = Sink::start(Vendor::Ndjson, None, Box::new(|_, _| {})).expect("sink");
    sink.set_down(true);
    let (logship, _guard) = Logship::builder()
        .endpoint(sink.url("/logs"))
        .max_retries(0)
        .spill(false)
        .build()
        .expect("pipeline");
    let mut record = Record::new(Level::Info, "sink.test");
    record.message("lost while down");
    logship.push(record).expect("queued");
    let report = logship.shutdown(Duration::from_secs(30));
    assert_eq!(report.stats.events_delivered, 0, "{report:?}");
    assert_eq!(sink.events(), 0);
}
