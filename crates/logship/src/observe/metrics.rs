//! Every counter of `stats()` handed to the `metrics` facade (the `metrics` feature).
//!
//! Why it exists: users already run a Prometheus, StatsD or OpenTelemetry exporter; with
//! the facade, whatever recorder the application installed picks logship's counters up.
//! The export walks the serialised fields of [`Stats`], so a counter added to `Stats` is
//! exported without anyone remembering to (the names and units are in docs/metrics.md,
//! and a test fails when one is missing there). Must never: export a text field (the
//! last error may quote an intake's answer), or allocate on a log call (it runs on the
//! observer thread, or where the user calls `Logship::export_metrics`).

use crate::observe::stats::{Health, Stats};

/// The prefix of every metric name.
pub const PREFIX: &str = "logship_";

/// Fields that are levels right now (gauges) rather than totals since start (counters).
pub const GAUGES: &[&str] = &[
    "spill_pending",
    "spill_bytes",
    "queue_depth",
    "batches_in_flight",
    "concurrency_limit",
    "concurrency_peak",
    "spill_in_flight_copies",
    "events_awaiting_ack",
];

/// Text fields that are never exported as text: `spill_unavailable` becomes a 0/1 gauge,
/// `last_error` is left out (it may quote an intake's answer, and it is not a number).
pub const LEFT_OUT: &[&str] = &["last_error"];

/// The number `logship_health` takes for each state.
pub fn health_code(h: Health) -> f64 {
    match h {
        Health::Healthy => 0.0,
        Health::Degraded => 1.0,
        Health::Failing => 2.0,
        Health::BudgetWarning => 3.0,
        Health::Stalled => 4.0,
    }
}

/// Records `stats` in the current recorder: counters as absolute totals, gauges as values.
pub fn export(stats: &Stats) {
    let Ok(serde_json::Value::Object(fields)) = serde_json::to_value(stats) else {
        return;
    };
    for (field, value) in fields {
        if LEFT_OUT.contains(&field.as_str()) {
            continue;
        }
        let name = format!("{PREFIX}{field}");
        let unit = if field.contains("bytes") {
            metrics::Unit::Bytes
        } else {
            metrics::Unit::Count
        };
        match value {
            serde_json::Value::Number(n) => {
                let n = n.as_u64().unwrap_or(0);
                if GAUGES.contains(&field.as_str()) {
                    metrics::describe_gauge!(name.clone(), unit, "logship stats() field");
                    metrics::gauge!(name).set(n as f64);
                } else {
                    metrics::describe_counter!(name.clone(), unit, "logship stats() field");
                    metrics::counter!(name).absolute(n);
                }
            }
            serde_json::Value::Bool(b) => metrics::gauge!(name).set(if b { 1.0 } else { 0.0 }),
            serde_json::Value::Null => metrics::gauge!(name).set(0.0),
            serde_json::Value::String(_) if field == "health" => {
                metrics::gauge!(name).set(health_code(stats.health))
            }
            // `spill_unavailable` with a reason.
            serde_json::Value::String(_) => metrics::gauge!(name).set(1.0),
            // A count per rule (`redactions`): one counter, labelled `rule`.
            serde_json::Value::Object(per_rule) => {
                for (rule, n) in per_rule {
                    if let Some(n) = n.as_u64() {
                        metrics::describe_counter!(name.clone(), unit, "logship stats() field");
                        metrics::counter!(name.clone(), "rule" => rule).absolute(n);
                    }
                }
            }
            _ => {}
        }
    }
}
