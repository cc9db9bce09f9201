//! Every counter of `stats()` handed to the `metrics` facade (the `metrics` feature).
//!
//! Why it exists: users already run a Prometheus, StatsD or OpenTelemetry exporter; with
//! the facade, whatever recorder the application installed picks logship's counters up.
//! The export visits the fields of [`Stats`] as the one list of counters declares them
//! (`observe::stats`), so a counter added to the list is exported without anyone
//! remembering to (the names and units are in docs/metrics.md, and a test fails when one
//! is missing there). Must never: export a text field (the last error may quote an
//! intake's answer), or allocate on a log call (it runs on the observer thread, or where
//! the user calls `Logship::export_metrics`).

use crate::observe::health::Health;
use crate::observe::stats::{State, Stats, Visit, LEVELS};

/// The prefix of every metric name.
pub const PREFIX: &str = "logship_";

/// Fields that are levels right now (gauges) rather than totals since start (counters).
pub const GAUGES: &[&str] = LEVELS;

/// Text fields that are never exported as text: `spill_unavailable` becomes a 0/1 gauge,
/// `last_error` is left out (it may quote an intake's answer, and it is not a number).
pub const LEFT_OUT: &[&str] = &["last_error"];

/// The number `logship_health` takes for each state.
pub fn health_code(h: Health) -> f64 {
    h.numbers().first().map_or(0.0, |(_, n)| *n)
}

/// Records `stats` in the current recorder: counters as absolute totals, gauges as values.
pub fn export(stats: &Stats) {
    stats.visit(&mut Recorder);
}

/// Hands each field to the `metrics` macros, by kind.
struct Recorder;

fn unit_of(field: &str) -> metrics::Unit {
    if field.contains("bytes") {
        metrics::Unit::Bytes
    } else {
        metrics::Unit::Count
    }
}

impl Visit for Recorder {
    fn total(&mut self, field: &'static str, value: u64) {
        let name = format!("{PREFIX}{field}");
        metrics::describe_counter!(name.clone(), unit_of(field), "logship stats() field");
        metrics::counter!(name).absolute(value);
    }
    fn level(&mut self, field: &'static str, value: u64) {
        let name = format!("{PREFIX}{field}");
        metrics::describe_gauge!(name.clone(), unit_of(field), "logship stats() field");
        metrics::gauge!(name).set(value as f64);
    }
    fn state(&mut self, field: &'static str, value: &dyn State) {
        let name = format!("{PREFIX}{field}");
        for (label, n) in value.numbers() {
            match (label, value.is_total()) {
                // A count per rule (`redactions`): one counter, labelled `rule`.
                (Some(rule), true) => {
                    metrics::describe_counter!(
                        name.clone(),
                        unit_of(field),
                        "logship stats() field"
                    );
                    metrics::counter!(name.clone(), "rule" => rule.to_owned()).absolute(n as u64);
                }
                _ => metrics::gauge!(name.clone()).set(n),
            }
        }
    }
    fn text(&mut self, _field: &'static str, _value: Option<&str>) {}
}
