//! # The cost guard's in-process workloads (run under callgrind by `guard/check.sh`)
//!
//! What it is: one deterministic workload per hot path of the library, chosen by the first
//! argument, each shipping `LOGSHIP_GUARD_EVENTS` events (default 2,000) over real HTTP to
//! a count-only [`Intake`] on 127.0.0.1 in this process. `crates/logship-bench/guard/check.sh`
//! runs each under `valgrind --tool=callgrind` with N and 2N events and divides the
//! difference by N: instructions per event, start-up and shutdown cancelled out. Instruction
//! counts repeat on a noisy machine where timings do not, so CI can compare them against the
//! committed baseline (`guard/baseline.tsv`) and fail on a rise of more than 10 %.
//!
//! Everything that could make a count depend on timing is fixed (`common/counted.rs`), and
//! burst limits, where on, are far above the rate (every event passes the bucket's
//! arithmetic).
//!
//! Workloads (`cost_guard NAME`):
//! - `log_call`, `log_call_limits`: `tracing::info!` through logship's layer (three fields,
//!   the 150-byte message), burst limits off / on; `check.sh` counts only the calling loop
//!   (`--toggle-collect`), i.e. what the application's thread pays.
//! - `admit_off`, `admit_on`: the same calls, whole process (capture, queue, batch, NDJSON
//!   encode, send, the intake's count); `admit_on` adds redaction with the default rules and
//!   burst limits, so the difference is admission.
//! - `encode_<vendor>`: records pushed with [`Logship::push`], whole process, gzip off, one
//!   per vendor (Elasticsearch against the strict intake, which writes the `_bulk` items its
//!   sender reads); `gzip_ndjson`: NDJSON with gzip on (the compressor's share).
//! - `otlp-body N`: not a workload: prints an OTLP/HTTP protobuf request of N log records
//!   (the `listen_otlp` input of `check.sh`) to stdout.
//!
//! Without valgrind it just runs and prints what was delivered.

use std::io::Write;
use std::time::Duration;

#[allow(dead_code)]
mod common;

use common::counted::{counted_pipeline, push_orders};
use common::MSG150 as MESSAGE;
use logship::{Builder, Vendor};
use logship_intake::{Intake, IntakeConfig};
use tracing_subscriber::layer::SubscriberExt;

/// Burst limits far above any rate reached here: every event pays the bucket, none is held.
const LIMITS: &str = "info=10000000/10000000";

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> Result<()> {
    let events: u64 = std::env::var("LOGSHIP_GUARD_EVENTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2_000);
    // `cargo bench` and `cargo test --benches` pass flags (`--bench`): not a workload.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let Some(name) = args.first() else {
        // No workload named: run each once, as a smoke test that they still deliver.
        for name in WORKLOADS {
            workload(name, events)?;
        }
        return Ok(());
    };
    if name == "otlp-body" {
        let n = args.get(1).and_then(|v| v.parse().ok()).unwrap_or(1000);
        std::io::stdout().write_all(&otlp_body(n))?;
        return Ok(());
    }
    workload(name, events)
}

/// Every workload of this file (what `guard/check.sh` runs in process).
const WORKLOADS: [&str; 13] = [
    "log_call",
    "log_call_limits",
    "admit_off",
    "admit_on",
    "encode_ndjson",
    "encode_datadog",
    "encode_splunk",
    "encode_newrelic",
    "encode_dynatrace",
    "encode_loki",
    "encode_elasticsearch",
    "encode_otlp",
    "gzip_ndjson",
];

/// Runs workload `name` with `events` events; fails unless every event was delivered.
fn workload(name: &str, events: u64) -> Result<()> {
    // Count-only, except for Elasticsearch: its sender reads the `_bulk` answer's items,
    // which only the strict emulation writes (so that row includes the intake's checks).
    let intake = Intake::start(IntakeConfig {
        keep_events: false,
        count_only: name != "encode_elasticsearch",
        ..IntakeConfig::default()
    })?;
    let delivered = match name {
        "log_call" | "admit_off" => traced(&intake, events, false, false)?,
        "log_call_limits" => traced(&intake, events, true, false)?,
        "admit_on" => traced(&intake, events, true, true)?,
        "gzip_ndjson" => pushed(&intake, Vendor::Ndjson, events, true)?,
        other => match other.strip_prefix("encode_").and_then(vendor) {
            Some(v) => pushed(&intake, v, events, false)?,
            None => return Err(format!("unknown workload {other:?} (see the file's docs)").into()),
        },
    };
    println!("{name}: {delivered} of {events} events delivered");
    if delivered != events {
        return Err("not every event was delivered".into());
    }
    Ok(())
}

fn vendor(name: &str) -> Option<Vendor> {
    Some(match name {
        "ndjson" => Vendor::Ndjson,
        "datadog" => Vendor::Datadog,
        "splunk" => Vendor::Splunk,
        "newrelic" => Vendor::NewRelic,
        "dynatrace" => Vendor::Dynatrace,
        "loki" => Vendor::Loki,
        "elasticsearch" => Vendor::Elasticsearch,
        "otlp" => Vendor::Otlp,
        _ => return None,
    })
}

/// The fixed, timing-free pipeline of every workload (see `common/counted.rs`).
fn builder(intake: &Intake, vendor: Vendor, events: u64, gzip: bool) -> Result<Builder> {
    Ok(counted_pipeline(intake, vendor, events, gzip)?)
}

/// `events` calls of `tracing::info!` through logship's layer; returns the events delivered.
fn traced(intake: &Intake, events: u64, limits: bool, redact: bool) -> Result<u64> {
    let mut b = builder(intake, Vendor::Ndjson, events, false)?;
    if limits {
        b = b.set("burst_limits", LIMITS)?;
    }
    if redact {
        b = b.set("redact", "true")?;
    }
    let (layer, guard) = b.build_layer()?;
    let logship = layer.logship().clone();
    let subscriber = tracing_subscriber::registry().with(layer);
    tracing::subscriber::with_default(subscriber, || calls(events));
    logship.flush(Duration::from_secs(600))?;
    let delivered = logship.stats().events_delivered;
    drop(guard);
    Ok(delivered)
}

/// The measured loop of `log_call` (check.sh collects only inside this function).
#[inline(never)]
fn calls(events: u64) {
    for i in 0..events {
        let message = MESSAGE;
        tracing::info!(order_id = i, region = "eu-west", ratio = 0.5, "{message}");
    }
}

/// `events` records pushed with [`Logship::push`] to `vendor`; returns the events delivered.
fn pushed(intake: &Intake, vendor: Vendor, events: u64, gzip: bool) -> Result<u64> {
    let (logship, guard) = builder(intake, vendor, events, gzip)?.build()?;
    push_orders(&logship, events)?;
    logship.flush(Duration::from_secs(600))?;
    let delivered = logship.stats().events_delivered;
    drop(guard);
    Ok(delivered)
}

/// An OTLP/HTTP `ExportLogsServiceRequest` of `n` records (one resource, one scope), each
/// with the 150-byte message, a severity, a timestamp and two attributes.
fn otlp_body(n: u64) -> Vec<u8> {
    use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
    use opentelemetry_proto::tonic::common::v1::{any_value, AnyValue, KeyValue};
    use opentelemetry_proto::tonic::logs::v1::{LogRecord, ResourceLogs, ScopeLogs};
    use opentelemetry_proto::tonic::resource::v1::Resource;
    use prost::Message;
    let text = |s: &str| AnyValue {
        value: Some(any_value::Value::StringValue(s.to_owned())),
    };
    let attr = |k: &str, v: AnyValue| KeyValue {
        key: k.to_owned(),
        value: Some(v),
        ..Default::default()
    };
    let records = (0..n)
        .map(|i| LogRecord {
            time_unix_nano: 1_764_900_000_000_000_000 + i * 1000,
            severity_number: 9,
            severity_text: "INFO".to_owned(),
            body: Some(text(MESSAGE)),
            attributes: vec![
                attr(
                    "order_id",
                    AnyValue {
                        value: Some(any_value::Value::IntValue(i64::try_from(i).unwrap_or(0))),
                    },
                ),
                attr("region", text("eu-west")),
            ],
            ..Default::default()
        })
        .collect();
    ExportLogsServiceRequest {
        resource_logs: vec![ResourceLogs {
            resource: Some(Resource {
                attributes: vec![attr("service.name", text("bench"))],
                ..Default::default()
            }),
            scope_logs: vec![ScopeLogs {
                log_records: records,
                ..Default::default()
            }],
            ..Default::default()
        }],
    }
    .encode_to_vec()
}
