//! The lab's results: the JSON shape, the table on stdout and the Markdown report.
//!
//! Why it exists: one set of structs feeds all three outputs, so the table, `--json` and
//! the report can never disagree.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Duration;

use serde::Serialize;

use super::load::LoadResult;
use logship_cli::units;

/// Request latency, milliseconds.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Latency {
    /// Mean.
    pub mean: f64,
    /// 90th percentile.
    pub p90: f64,
    /// 99th percentile.
    pub p99: f64,
}

/// Ingest lag (arrival at the intake minus the event's timestamp), milliseconds.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Lag {
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Largest.
    pub max: f64,
}

/// One second of the ingest-lag timeline.
#[derive(Clone, Debug, Serialize)]
pub struct LagPoint {
    /// Seconds since the mode's first run started (by arrival time).
    pub t_s: u64,
    /// Events that arrived in this second.
    pub events: u64,
    /// Their mean lag, milliseconds.
    pub mean_ms: f64,
    /// Their largest lag, milliseconds.
    pub max_ms: f64,
}

/// One load run of a mode.
#[derive(Clone, Debug, Serialize)]
pub struct RunReport {
    /// `first`, `churn` or `long`.
    pub name: String,
    /// Requested length, seconds.
    pub duration_s: f64,
    /// Requests answered.
    pub requests: u64,
    /// Requests that failed.
    pub errors: u64,
    /// Requests unanswered when the run ended (built-in generator).
    pub unfinished: u64,
    /// Answered requests per second.
    pub requests_per_sec: f64,
    /// Request latency.
    pub latency_ms: Latency,
    /// Events that reached the intake during this run.
    pub events_delivered: u64,
}

impl RunReport {
    /// A run's figures from its load result and the events delivered meanwhile.
    pub fn new(name: &str, length: Duration, r: &LoadResult, delivered: u64) -> RunReport {
        RunReport {
            name: name.to_owned(),
            duration_s: length.as_secs_f64(),
            requests: r.requests,
            errors: r.errors,
            unfinished: r.unfinished,
            requests_per_sec: r.requests_per_sec(),
            latency_ms: Latency {
                mean: r.mean_ms,
                p90: r.p90_ms,
                p99: r.p99_ms,
            },
            events_delivered: delivered,
        }
    }
}

/// Everything measured for one mode.
#[derive(Clone, Debug, Serialize)]
pub struct ModeReport {
    /// Answered requests per second over all runs.
    pub requests_per_sec: f64,
    /// Request latency over all runs.
    pub latency_ms: Latency,
    /// Events that reached the intake while the load was running.
    pub events_delivered: u64,
    /// Events that reached the intake in all (including the drain).
    pub events_delivered_total: u64,
    /// Log calls the service made.
    pub events_logged: u64,
    /// Events the logger dropped or failed to deliver.
    pub events_lost: u64,
    /// Ingest lag over every delivered event.
    pub ingest_lag_ms: Lag,
    /// Seconds the logger kept delivering after the load stopped (the cap if it had not
    /// finished, see `drain_complete`).
    pub drain_after_load_s: f64,
    /// Whether the drain finished within the cap.
    pub drain_complete: bool,
    /// Peak resident memory of the lab service process, bytes.
    pub peak_rss_bytes: u64,
    /// Requests answered over all runs.
    pub requests: u64,
    /// Requests that failed over all runs.
    pub errors: u64,
    /// Requests unanswered when their run ended, over all runs.
    pub unfinished: u64,
    /// HTTP requests the intake received.
    pub intake_requests: u64,
    /// The runs, in order.
    pub runs: Vec<RunReport>,
    /// Ingest lag per second.
    pub lag_timeline: Vec<LagPoint>,
}

/// How the lab was set up, as recorded in the report.
#[derive(Clone, Debug, Serialize)]
pub struct Setup {
    /// Log lines per request.
    pub lines_per_request: u64,
    /// Stock ring slots.
    pub ring_slots: usize,
    /// Concurrent load connections.
    pub connections: usize,
    /// Intake latency, milliseconds.
    pub intake_latency_ms: u64,
    /// Run lengths, seconds: first, churn, long.
    pub runs_s: Vec<f64>,
    /// `builtin` or `oha`.
    pub load_generator: String,
    /// logship's default linger, milliseconds.
    pub linger_ms: u64,
}

/// The targets and whether they were met.
#[derive(Clone, Debug, Serialize)]
pub struct Targets {
    /// Batch requests/s divided by stock requests/s.
    pub throughput_ratio: f64,
    /// Required ratio.
    pub throughput_ratio_target: f64,
    /// Whether the ratio was reached.
    pub throughput_met: bool,
    /// Batch ingest lag p99, milliseconds.
    pub batch_lag_p99_ms: f64,
    /// `linger_ms` plus 3 round trips to the intake.
    pub batch_lag_p99_bound_ms: f64,
    /// Whether the lag stayed within the bound.
    pub lag_met: bool,
}

/// The whole result, as written by `--json`.
#[derive(Clone, Debug, Serialize)]
pub struct BenchReport {
    /// The setup.
    pub setup: Setup,
    /// Per mode (`stock`, `batch`).
    pub modes: BTreeMap<String, ModeReport>,
    /// The targets, when both modes ran.
    pub targets: Option<Targets>,
}

/// The ratio target of the issue.
pub const RATIO_TARGET: f64 = 50.0;

impl BenchReport {
    /// Assembles the report and evaluates the targets.
    pub fn new(setup: Setup, modes: BTreeMap<String, ModeReport>) -> BenchReport {
        let targets = match (modes.get("stock"), modes.get("batch")) {
            (Some(stock), Some(batch)) => {
                let ratio = if stock.requests_per_sec > 0.0 {
                    batch.requests_per_sec / stock.requests_per_sec
                } else {
                    f64::INFINITY
                };
                let bound = setup.linger_ms as f64 + 3.0 * setup.intake_latency_ms as f64;
                Some(Targets {
                    throughput_ratio: ratio,
                    throughput_ratio_target: RATIO_TARGET,
                    throughput_met: ratio >= RATIO_TARGET,
                    batch_lag_p99_ms: batch.ingest_lag_ms.p99,
                    batch_lag_p99_bound_ms: bound,
                    lag_met: batch.ingest_lag_ms.p99 <= bound,
                })
            }
            _ => None,
        };
        BenchReport {
            setup,
            modes,
            targets,
        }
    }

    /// The modes in display order.
    fn ordered(&self) -> Vec<(&str, &ModeReport)> {
        ["stock", "batch"]
            .into_iter()
            .filter_map(|m| self.modes.get(m).map(|r| (m, r)))
            .collect()
    }

    /// The rows of the results table: a label and one value per mode.
    fn rows(&self) -> Vec<(String, Vec<String>)> {
        let modes = self.ordered();
        let row = |label: &str, f: &dyn Fn(&ModeReport) -> String| {
            (label.to_owned(), modes.iter().map(|(_, m)| f(m)).collect())
        };
        vec![
            row("requests/s", &|m| format!("{:.1}", m.requests_per_sec)),
            row("requests answered / unfinished", &|m| {
                format!("{} / {}", m.requests, m.unfinished)
            }),
            row("latency mean", &|m| ms(m.latency_ms.mean)),
            row("latency p90", &|m| ms(m.latency_ms.p90)),
            row("latency p99", &|m| ms(m.latency_ms.p99)),
            row("events delivered (during load)", &|m| {
                m.events_delivered.to_string()
            }),
            row("events logged / lost", &|m| {
                format!("{} / {}", m.events_logged, m.events_lost)
            }),
            row("ingest lag p50", &|m| ms(m.ingest_lag_ms.p50)),
            row("ingest lag p99", &|m| ms(m.ingest_lag_ms.p99)),
            row("ingest lag max", &|m| ms(m.ingest_lag_ms.max)),
            row("drain after load", &|m| {
                if m.drain_complete {
                    format!("{:.2} s", m.drain_after_load_s)
                } else {
                    format!("> {:.0} s", m.drain_after_load_s)
                }
            }),
            row("service peak RSS", &|m| units::bytes(m.peak_rss_bytes)),
            row("intake requests", &|m| m.intake_requests.to_string()),
        ]
    }

    /// The table printed on stdout.
    pub fn table(&self) -> String {
        let s = &self.setup;
        let mut out = format!(
            "logship-lab: {} lines/request, {} connections, intake latency {} ms, runs {} s ({} load)\n",
            s.lines_per_request,
            s.connections,
            s.intake_latency_ms,
            runs_label(&s.runs_s),
            s.load_generator
        );
        let _ = writeln!(
            out,
            "  {:<32}{}",
            "",
            self.ordered()
                .iter()
                .map(|(m, _)| format!("{m:>20}"))
                .collect::<String>()
        );
        for (label, values) in self.rows() {
            let _ = writeln!(
                out,
                "  {label:<32}{}",
                values
                    .iter()
                    .map(|v| format!("{v:>20}"))
                    .collect::<String>()
            );
        }
        if let Some(t) = &self.targets {
            out += &targets_text(t);
        }
        out
    }

    /// The Markdown report written to `--out DIR/report.md`.
    pub fn markdown(&self, command: &str) -> String {
        let s = &self.setup;
        let mut out = String::from("# logship-lab: stock versus batch\n\n");
        let _ = writeln!(out, "Command: `{command}`\n");
        let _ = writeln!(
            out,
            "Setup: the lab service logs {} lines per request; {} closed-loop keep-alive connections ({} load generator; \
             a request still unanswered when its run ends counts in the latency with the time it had waited); \
             the local intake answers after {} ms; runs of {} s (first, churn without restart, long); \
             stock ring of {} slots; logship with its defaults (linger {} ms).\n",
            s.lines_per_request,
            s.connections,
            s.load_generator,
            s.intake_latency_ms,
            runs_label(&s.runs_s),
            s.ring_slots,
            s.linger_ms
        );
        let modes = self.ordered();
        let _ = writeln!(
            out,
            "| | {} |",
            modes
                .iter()
                .map(|(m, _)| *m)
                .collect::<Vec<_>>()
                .join(" | ")
        );
        let _ = writeln!(out, "|---|{}", "---:|".repeat(modes.len()));
        for (label, values) in self.rows() {
            let _ = writeln!(out, "| {label} | {} |", values.join(" | "));
        }
        out += "\nPer run:\n\n| mode | run | requests/s | latency mean | p90 | p99 | events delivered |\n|---|---|---:|---:|---:|---:|---:|\n";
        for (name, m) in &modes {
            for r in &m.runs {
                let _ = writeln!(
                    out,
                    "| {name} | {} ({} s) | {:.1} | {} | {} | {} | {} |",
                    r.name,
                    r.duration_s,
                    r.requests_per_sec,
                    ms(r.latency_ms.mean),
                    ms(r.latency_ms.p90),
                    ms(r.latency_ms.p99),
                    r.events_delivered
                );
            }
        }
        if let Some(t) = &self.targets {
            out += "\n";
            out += &targets_text(t).replace("\n  ", "\n- ");
        }
        out += "\n![Throughput](throughput.svg)\n\n![Latency](latency.svg)\n\n![Ingest lag over time](lag.svg)\n";
        out
    }
}

fn runs_label(runs: &[f64]) -> String {
    runs.iter()
        .map(|r| format!("{r}"))
        .collect::<Vec<_>>()
        .join(" + ")
}

fn targets_text(t: &Targets) -> String {
    format!(
        "targets:\n  batch/stock requests/s = {:.1}x (target >= {:.0}x): {}\n  batch ingest lag p99 = {} (bound linger + 3 RTT = {}): {}\n",
        t.throughput_ratio,
        t.throughput_ratio_target,
        if t.throughput_met { "met" } else { "NOT met" },
        ms(t.batch_lag_p99_ms),
        ms(t.batch_lag_p99_bound_ms),
        if t.lag_met { "met" } else { "NOT met" }
    )
}

/// Milliseconds for display: three significant digits, seconds above 10 s.
pub fn ms(v: f64) -> String {
    if v >= 10_000.0 {
        format!("{:.1} s", v / 1000.0)
    } else if v >= 100.0 {
        format!("{v:.0} ms")
    } else if v >= 10.0 {
        format!("{v:.1} ms")
    } else {
        format!("{v:.2} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milliseconds_are_shown_with_sensible_precision() {
        assert_eq!(ms(0.123), "0.12 ms");
        assert_eq!(ms(12.34), "12.3 ms");
        assert_eq!(ms(1234.0), "1234 ms");
        assert_eq!(ms(12_345.0), "12.3 s");
    }
}
