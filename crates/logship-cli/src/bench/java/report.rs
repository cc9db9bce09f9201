//! The Java lab's results: the JSON shape, the table, the Markdown report, the charts and
//! the targets.
//!
//! Why it exists: one set of structs feeds every output, so they can never disagree, and
//! the targets are computed from the same figures the table shows.

use std::fmt::Write as _;
use std::time::Duration;

use serde::Serialize;

use super::Configuration;
use crate::bench::lab::LagRecorder;
use crate::bench::load::LoadResult;
use crate::bench::report::{ms, Lag, LagPoint};
use crate::bench::svg::{self, Series};
use crate::units;

/// How the Java lab was set up.
#[derive(Clone, Debug, Serialize)]
pub struct JavaSetup {
    /// Concurrent closed-loop keep-alive connections.
    pub connections: usize,
    /// Unreported warm-up load, seconds.
    pub warmup_s: f64,
    /// Measured run, seconds.
    pub run_s: f64,
    /// The intake's latency, milliseconds.
    pub intake_latency_ms: u64,
    /// Slots of Log4j2's async logger ring.
    pub ring_slots: usize,
    /// Handler threads of the service.
    pub java_threads: usize,
    /// `java -version`.
    pub java: String,
    /// `wrk` or `builtin`.
    pub load_generator: String,
}

/// Request latency of the measured run, milliseconds.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RequestLatency {
    /// Median.
    pub p50: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Mean.
    pub mean: f64,
}

/// Event counts of a configuration.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Counts {
    /// Log calls the service made (3 per request, warm-up included).
    pub logged: u64,
    /// Events that reached the intake during the measured run.
    pub delivered_during_load: u64,
    /// Events that reached the intake in all (warm-up and drain included).
    pub delivered: u64,
    /// HTTP requests the intake received.
    pub intake_requests: u64,
    /// Bytes of the log file ((d), (e)).
    pub file_bytes: u64,
}

/// How the logship sidecar (or the Java service) ended.
#[derive(Clone, Debug, Default, Serialize)]
pub struct SidecarOutcome {
    /// The sidecar's peak resident memory, bytes.
    pub peak_rss_bytes: Option<u64>,
    /// The sidecar's exit code after SIGTERM (`None`: no sidecar, or killed).
    pub exit_code: Option<i32>,
    /// The sidecar's summary line.
    pub summary: Option<String>,
    /// Whether the Java service stopped by itself when asked (else it was killed).
    pub service_exited: bool,
}

/// Everything measured for one configuration.
#[derive(Clone, Debug, Serialize)]
pub struct ConfigReport {
    /// `a` to `f`.
    pub key: char,
    /// Short name.
    pub name: String,
    /// What it is.
    pub what: String,
    /// Answered requests per second in the measured run.
    pub requests_per_sec: f64,
    /// Requests answered in the measured run.
    pub requests: u64,
    /// Requests unanswered when the run ended.
    pub unfinished: u64,
    /// Requests that failed.
    pub errors: u64,
    /// Request latency (with wrk: of answered requests only).
    pub latency_ms: RequestLatency,
    /// Event counts.
    pub events: Counts,
    /// Ingest lag of the events that arrived from the measured run on (none: nothing ships).
    pub ingest_lag_ms: Option<Lag>,
    /// Ingest lag per second.
    pub lag_timeline: Vec<LagPoint>,
    /// Seconds the intake kept receiving after the load stopped (the cap if it had not
    /// received every event by then), and whether it had; none when nothing ships.
    pub drain_after_load_s: Option<f64>,
    /// Whether the drain finished within the cap.
    pub drain_complete: bool,
    /// The Java service's peak resident memory, bytes.
    pub service_peak_rss_bytes: u64,
    /// The sidecar.
    pub sidecar: SidecarOutcome,
}

impl ConfigReport {
    /// A configuration's report from its measurements.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        c: &Configuration,
        r: &LoadResult,
        events: Counts,
        lag: Option<&LagRecorder>,
        drain: Option<(Duration, bool)>,
        service_peak_rss_bytes: u64,
        sidecar: SidecarOutcome,
    ) -> ConfigReport {
        ConfigReport {
            key: c.key,
            name: c.name.to_owned(),
            what: c.what.to_owned(),
            requests_per_sec: r.requests_per_sec(),
            requests: r.requests,
            unfinished: r.unfinished,
            errors: r.errors,
            latency_ms: RequestLatency {
                p50: r.p50_ms,
                p99: r.p99_ms,
                mean: r.mean_ms,
            },
            events,
            ingest_lag_ms: lag.filter(|l| l.all.count() > 0).map(|l| Lag {
                p50: l.all.quantile(0.5) as f64 / 1000.0,
                p99: l.all.quantile(0.99) as f64 / 1000.0,
                max: l.all.max() as f64 / 1000.0,
            }),
            lag_timeline: lag.map(LagRecorder::timeline_points).unwrap_or_default(),
            drain_after_load_s: drain.map(|(d, _)| d.as_secs_f64()),
            drain_complete: drain.is_some_and(|(_, done)| done),
            service_peak_rss_bytes,
            sidecar,
        }
    }
}

/// One of the targets and whether it was met.
#[derive(Clone, Debug, Serialize)]
pub struct Target {
    /// What is compared, e.g. `(c) / (a) requests/s`.
    pub what: String,
    /// The measured value.
    pub value: f64,
    /// The floor (or, for lag, the ceiling).
    pub target: f64,
    /// Whether it was met.
    pub met: bool,
}

/// The whole result, as written by `--json`.
#[derive(Clone, Debug, Serialize)]
pub struct JavaReport {
    /// The setup.
    pub setup: JavaSetup,
    /// Per configuration, in the order.
    pub configurations: Vec<ConfigReport>,
    /// The targets among the configurations that ran.
    pub targets: Vec<Target>,
}

/// Throughput ratios the issue asks for: (numerator, denominator, floor).
const RATIOS: [(char, char, f64); 5] = [
    ('c', 'a', 1000.0),
    ('d', 'a', 1000.0),
    ('d', 'e', 0.85),
    ('c', 'f', 0.75),
    ('b', 'a', 15.0),
];
/// The ingest-lag ceiling of (c) and (d), milliseconds.
const LAG_P99_CEILING_MS: f64 = 2000.0;

impl JavaReport {
    /// Assembles the report and evaluates the targets.
    pub fn new(setup: JavaSetup, configurations: Vec<ConfigReport>) -> JavaReport {
        let get = |k: char| configurations.iter().find(|c| c.key == k);
        let mut targets = Vec::new();
        for (num, den, floor) in RATIOS {
            if let (Some(n), Some(d)) = (get(num), get(den)) {
                let value = if d.requests_per_sec > 0.0 {
                    n.requests_per_sec / d.requests_per_sec
                } else {
                    f64::INFINITY
                };
                targets.push(Target {
                    what: format!("({num}) / ({den}) requests/s"),
                    value,
                    target: floor,
                    met: value >= floor,
                });
            }
        }
        for k in ['c', 'd'] {
            if let Some(c) = get(k) {
                let p99 = c.ingest_lag_ms.as_ref().map_or(f64::INFINITY, |l| l.p99);
                targets.push(Target {
                    what: format!("({k}) ingest lag p99, ms"),
                    value: p99,
                    target: LAG_P99_CEILING_MS,
                    met: p99 < LAG_P99_CEILING_MS && c.drain_complete,
                });
            }
        }
        JavaReport {
            setup,
            configurations,
            targets,
        }
    }

    /// The rows of the table: a label and one value per configuration.
    fn rows(&self) -> Vec<(&'static str, Vec<String>)> {
        let row = |label: &'static str, f: &dyn Fn(&ConfigReport) -> String| {
            (label, self.configurations.iter().map(f).collect())
        };
        let none = || "-".to_owned();
        vec![
            row("requests/s", &|c| format!("{:.1}", c.requests_per_sec)),
            row("latency p50", &|c| ms(c.latency_ms.p50)),
            row("latency p99", &|c| ms(c.latency_ms.p99)),
            row("events logged", &|c| c.events.logged.to_string()),
            row("events delivered", &|c| {
                if c.drain_after_load_s.is_some() {
                    c.events.delivered.to_string()
                } else {
                    none()
                }
            }),
            row("ingest lag p50", &|c| {
                c.ingest_lag_ms.as_ref().map_or_else(none, |l| ms(l.p50))
            }),
            row("ingest lag p99", &|c| {
                c.ingest_lag_ms.as_ref().map_or_else(none, |l| ms(l.p99))
            }),
            row(
                "intake receives after load",
                &|c| match c.drain_after_load_s {
                    Some(d) if c.drain_complete => format!("{d:.2} s"),
                    Some(d) => format!("> {d:.0} s"),
                    None => none(),
                },
            ),
            row("service peak RSS", &|c| {
                units::bytes(c.service_peak_rss_bytes)
            }),
            row("logship peak RSS", &|c| {
                c.sidecar.peak_rss_bytes.map_or_else(none, units::bytes)
            }),
        ]
    }

    /// The table printed on stdout.
    pub fn table(&self) -> String {
        let s = &self.setup;
        let mut out = format!(
            "logship bench --java: {} connections ({}), {} s warm-up + {} s measured, intake latency {} ms, ring {} slots, {}\n",
            s.connections, s.load_generator, s.warmup_s, s.run_s, s.intake_latency_ms, s.ring_slots, s.java
        );
        let _ = writeln!(
            out,
            "  {:<28}{}",
            "",
            self.configurations
                .iter()
                .map(|c| format!("{:>24}", c.name))
                .collect::<String>()
        );
        for (label, values) in self.rows() {
            let _ = writeln!(
                out,
                "  {label:<28}{}",
                values
                    .iter()
                    .map(|v| format!("{v:>24}"))
                    .collect::<String>()
            );
        }
        out += &self.targets_text("  ");
        out
    }

    fn targets_text(&self, bullet: &str) -> String {
        let mut out = String::from("targets:\n");
        for t in &self.targets {
            let _ = writeln!(
                out,
                "{bullet}{} = {} (target {} {}): {}",
                t.what,
                if t.value.is_finite() {
                    format!("{:.2}", t.value)
                } else {
                    "none".to_owned()
                },
                if t.what.contains("lag") { "<" } else { ">=" },
                t.target,
                if t.met { "met" } else { "NOT met" }
            );
        }
        out
    }

    /// The Markdown report (`--out DIR/report.md`).
    pub fn markdown(&self, command: &str) -> String {
        let s = &self.setup;
        let mut out = String::from(
            "# logship bench --java: a real Log4j2 service, six ways to ship its logs\n\n",
        );
        let _ = writeln!(out, "Command: `{command}`\n");
        let _ = writeln!(
            out,
            "Setup: `lab/java/LabService.java` (the JDK's HTTP server, {} handler threads) logs 3 lines of about 150 bytes \
             per request through Log4j2 2.19's async loggers (Debian's liblog4j2-java, ring of {} slots, {}); \
             {} closed-loop keep-alive connections ({} load generator); {} s of unreported warm-up, then {} s measured; every configuration \
             has a fresh local intake that answers after {} ms; logship with its defaults. All on one 2-core machine: \
             the service, the load generator, logship and the intake share it.\n",
            s.java_threads, s.ring_slots, s.java, s.connections, s.load_generator, s.warmup_s, s.run_s, s.intake_latency_ms
        );
        for c in &self.configurations {
            let _ = writeln!(out, "- {}: {}", c.name, c.what);
        }
        out += "\n| |";
        for c in &self.configurations {
            let _ = write!(out, " {} |", c.name);
        }
        let _ = writeln!(out, "\n|---|{}", "---:|".repeat(self.configurations.len()));
        for (label, values) in self.rows() {
            let _ = writeln!(out, "| {label} | {} |", values.join(" | "));
        }
        out += "\nlogship's own summaries:\n\n";
        for c in &self.configurations {
            if let Some(summary) = &c.sidecar.summary {
                let _ = writeln!(
                    out,
                    "- {}: exit {}, `{}`",
                    c.name,
                    c.sidecar
                        .exit_code
                        .map_or("killed".to_owned(), |e| e.to_string()),
                    summary
                );
            }
        }
        out += "\n";
        out += &self.targets_text("- ");
        out += "\n![Requests per second](java-throughput.svg)\n\n![Ingest lag](java-lag.svg)\n";
        out
    }

    /// Requests/s per configuration, bars on a log axis.
    pub fn throughput_chart(&self) -> String {
        let names: Vec<&str> = self
            .configurations
            .iter()
            .map(|c| c.name.as_str())
            .collect();
        svg::bars(
            "Java service requests/s (log axis)",
            "requests/s",
            &names,
            &[Series {
                name: "requests/s".into(),
                values: self
                    .configurations
                    .iter()
                    .map(|c| c.requests_per_sec)
                    .collect(),
            }],
            true,
        )
    }

    /// Ingest lag p50 and p99 of the configurations that ship, bars on a log axis.
    pub fn lag_chart(&self) -> String {
        let shipped: Vec<&ConfigReport> = self
            .configurations
            .iter()
            .filter(|c| c.ingest_lag_ms.is_some())
            .collect();
        let names: Vec<&str> = shipped.iter().map(|c| c.name.as_str()).collect();
        let pick = |f: fn(&Lag) -> f64| -> Vec<f64> {
            shipped
                .iter()
                .map(|c| c.ingest_lag_ms.as_ref().map_or(0.0, f))
                .collect()
        };
        svg::bars(
            "Ingest lag, event time to the intake (log axis)",
            "milliseconds",
            &names,
            &[
                Series {
                    name: "p50".into(),
                    values: pick(|l| l.p50),
                },
                Series {
                    name: "p99".into(),
                    values: pick(|l| l.p99),
                },
            ],
            true,
        )
    }
}
