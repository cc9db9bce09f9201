//! The Java lab's results: the JSON shape, the table, the Markdown report, the charts and
//! the targets.
//!
//! Why it exists: one set of structs feeds every output, so they can never disagree, and
//! the targets are computed from the same figures the table shows.

use std::fmt::Write as _;
use std::time::Duration;

use serde::Serialize;

use super::configuration::Configuration;
use crate::lab::LagRecorder;
use crate::load::LoadResult;
use crate::report::{ms, Lag, LagPoint};
use crate::svg::{self, Series};
use logship_cli::units;

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
    /// How many times each configuration ran (`--java-rounds`).
    pub rounds: usize,
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
    /// Bytes the discarding sink read ((g)).
    pub discarded_bytes: u64,
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
    /// `a` to `g`.
    pub key: char,
    /// Short name.
    pub name: String,
    /// What it is.
    pub what: String,
    /// Answered requests per second in the measured run (of the median round, which
    /// every other figure here is from).
    pub requests_per_sec: f64,
    /// Requests per second of every round, in the order they ran.
    pub rounds_requests_per_sec: Vec<f64>,
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
            rounds_requests_per_sec: vec![r.requests_per_sec()],
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
    /// The value in every round (the value above is their median; for lag, their worst).
    pub rounds: Vec<f64>,
}

/// A ratio that is no target but tells what a target's figure means.
#[derive(Clone, Debug, Serialize)]
pub struct Calibration {
    /// What is compared, e.g. `(c) / (g) requests/s`.
    pub what: String,
    /// What it tells.
    pub meaning: String,
    /// The median over the rounds.
    pub value: f64,
    /// The value in every round.
    pub rounds: Vec<f64>,
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
    /// Ratios against the calibration (g), when it ran.
    pub calibration: Vec<Calibration>,
}

/// Throughput ratios the issue asks for: (numerator, denominator, floor).
const RATIOS: [(char, char, f64); 7] = [
    ('c', 'a', 1000.0),
    ('d', 'a', 1000.0),
    ('d', 'e', 0.85),
    ('c', 'f', 0.75),
    ('b', 'a', 15.0),
    // Issue 31 item 10b: the in-process appender.
    ('h', 'a', 2500.0),
    ('h', 'e', 0.95),
];
/// Ratios against the calibration: (numerator, denominator, what it tells).
const CALIBRATION: [(char, char, &str); 2] = [
    (
        'c',
        'g',
        "logship's TCP listener against a reader that discards: 1.00 would be a receiver that costs the service nothing",
    ),
    (
        'g',
        'f',
        "the most (c) / (f) can be on this machine: what the Socket appender costs Log4j2 itself, whoever reads the socket",
    ),
];
/// The ingest-lag ceiling of (c) and (d), milliseconds.
const LAG_P99_CEILING_MS: f64 = 2000.0;

/// The median of `values` (the lower middle of an even count); none if empty.
fn median(values: &[f64]) -> Option<f64> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    v.get(v.len().saturating_sub(1) / 2).copied()
}

/// `n / d`, infinite when `d` is zero.
fn ratio(n: f64, d: f64) -> f64 {
    if d > 0.0 {
        n / d
    } else {
        f64::INFINITY
    }
}

impl JavaReport {
    /// Assembles the report from every round (each a list of configurations, in key
    /// order): per configuration its median round by requests/s, per ratio the median of
    /// its per-round values (each round's configurations ran next to each other, so a
    /// ratio within a round is the fairest one), per lag target the worst round.
    pub fn from_rounds(setup: JavaSetup, rounds: Vec<Vec<ConfigReport>>) -> JavaReport {
        let keys: Vec<char> = rounds
            .first()
            .map(|r| r.iter().map(|c| c.key).collect())
            .unwrap_or_default();
        // Configuration `k` in every round that ran it, in round order.
        let runs_of = |k: char| -> Vec<&ConfigReport> {
            rounds
                .iter()
                .filter_map(|r| r.iter().find(|c| c.key == k))
                .collect()
        };
        let in_round = |round: &[ConfigReport], k: char| -> Option<f64> {
            round
                .iter()
                .find(|c| c.key == k)
                .map(|c| c.requests_per_sec)
        };
        let per_round = |num: char, den: char| -> Vec<f64> {
            rounds
                .iter()
                .filter_map(|r| Some(ratio(in_round(r, num)?, in_round(r, den)?)))
                .collect()
        };
        let mut targets = Vec::new();
        for (num, den, floor) in RATIOS {
            let values = per_round(num, den);
            if let Some(value) = median(&values) {
                targets.push(Target {
                    what: format!("({num}) / ({den}) requests/s"),
                    value,
                    target: floor,
                    met: value >= floor,
                    rounds: values,
                });
            }
        }
        for k in ['c', 'd'] {
            let runs = runs_of(k);
            if runs.is_empty() {
                continue;
            }
            let values: Vec<f64> = runs
                .iter()
                .map(|c| c.ingest_lag_ms.as_ref().map_or(f64::INFINITY, |l| l.p99))
                .collect();
            let worst = values.iter().copied().fold(0.0, f64::max);
            targets.push(Target {
                what: format!("({k}) ingest lag p99, ms"),
                value: worst,
                target: LAG_P99_CEILING_MS,
                met: worst < LAG_P99_CEILING_MS && runs.iter().all(|c| c.drain_complete),
                rounds: values,
            });
        }
        let calibration = CALIBRATION
            .iter()
            .filter_map(|&(num, den, meaning)| {
                let values = per_round(num, den);
                Some(Calibration {
                    what: format!("({num}) / ({den}) requests/s"),
                    meaning: meaning.to_owned(),
                    value: median(&values)?,
                    rounds: values,
                })
            })
            .collect();
        let configurations = keys
            .iter()
            .filter_map(|&k| {
                let runs = runs_of(k);
                let all: Vec<f64> = runs.iter().map(|c| c.requests_per_sec).collect();
                let mid = median(&all)?;
                let mut chosen = (*runs.iter().find(|c| c.requests_per_sec == mid)?).clone();
                chosen.rounds_requests_per_sec = all;
                Some(chosen)
            })
            .collect();
        JavaReport {
            setup,
            configurations,
            targets,
            calibration,
        }
    }

    /// The rows of the table: a label and one value per configuration.
    fn rows(&self) -> Vec<(&'static str, Vec<String>)> {
        let row = |label: &'static str, f: &dyn Fn(&ConfigReport) -> String| {
            (label, self.configurations.iter().map(f).collect())
        };
        let none = || "-".to_owned();
        let mut rows = vec![row("requests/s", &|c| format!("{:.1}", c.requests_per_sec))];
        if self.setup.rounds > 1 {
            rows.push(row("requests/s, each round", &|c| {
                c.rounds_requests_per_sec
                    .iter()
                    .map(|r| format!("{r:.0}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            }));
        }
        rows.extend([
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
        ]);
        rows
    }

    /// The table printed on stdout.
    pub fn table(&self) -> String {
        let s = &self.setup;
        let mut out = format!(
            "logship-lab --java: {} connections ({}), {} s warm-up + {} s measured, {} round(s), intake latency {} ms, ring {} slots, {}\n",
            s.connections, s.load_generator, s.warmup_s, s.run_s, s.rounds, s.intake_latency_ms, s.ring_slots, s.java
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
        let number = |v: f64| {
            if v.is_finite() {
                format!("{v:.2}")
            } else {
                "none".to_owned()
            }
        };
        let each = |values: &[f64], how: &str| {
            if values.len() > 1 {
                let list: Vec<String> = values.iter().map(|v| number(*v)).collect();
                format!(" ({how} of {})", list.join(", "))
            } else {
                String::new()
            }
        };
        let mut out = String::from("targets:\n");
        for t in &self.targets {
            let lag = t.what.contains("lag");
            let _ = writeln!(
                out,
                "{bullet}{} = {}{} (target {} {}): {}",
                t.what,
                number(t.value),
                each(&t.rounds, if lag { "worst" } else { "median" }),
                if lag { "<" } else { ">=" },
                t.target,
                if t.met { "met" } else { "NOT met" }
            );
        }
        if !self.calibration.is_empty() {
            out += "calibration (no targets):\n";
            for c in &self.calibration {
                let _ = writeln!(
                    out,
                    "{bullet}{} = {}{}: {}",
                    c.what,
                    number(c.value),
                    each(&c.rounds, "median"),
                    c.meaning
                );
            }
        }
        out
    }

    /// The Markdown report (`--out DIR/report.md`).
    pub fn markdown(&self, command: &str) -> String {
        let s = &self.setup;
        let mut out = String::from(
            "# logship-lab --java: a real Log4j2 service, six ways to ship its logs (and a calibration)\n\n",
        );
        let _ = writeln!(out, "Command: `{command}`\n");
        let _ = writeln!(
            out,
            "Setup: `lab/java/LabService.java` (the JDK's HTTP server, {} handler threads) logs 3 lines of about 150 bytes \
             per request through Log4j2 2.19's async loggers (Debian's liblog4j2-java, ring of {} slots, {}); \
             {} closed-loop keep-alive connections ({} load generator); {} s of unreported warm-up, then {} s measured; every configuration \
             has a fresh local intake that answers after {} ms; logship with its defaults. All on one 2-core machine: \
             the service, the load generator, logship and the intake share it. {} round(s): every configuration ran that many times, \
             interleaved; each column is its median round, each ratio the median of its per-round values.\n",
            s.java_threads, s.ring_slots, s.java, s.connections, s.load_generator, s.warmup_s, s.run_s, s.intake_latency_ms, s.rounds
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

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(rounds: usize) -> JavaSetup {
        JavaSetup {
            connections: 1,
            warmup_s: 0.0,
            run_s: 1.0,
            intake_latency_ms: 20,
            ring_slots: 128,
            java_threads: 1,
            java: "test".into(),
            load_generator: "builtin".into(),
            rounds,
        }
    }

    fn config(key: char, rps: f64, lag_p99: f64) -> ConfigReport {
        ConfigReport {
            key,
            name: format!("({key})"),
            what: String::new(),
            requests_per_sec: rps,
            rounds_requests_per_sec: vec![rps],
            requests: 1,
            unfinished: 0,
            errors: 0,
            latency_ms: RequestLatency::default(),
            events: Counts::default(),
            ingest_lag_ms: Some(Lag {
                p50: 1.0,
                p99: lag_p99,
                max: lag_p99,
            }),
            lag_timeline: Vec::new(),
            drain_after_load_s: Some(1.0),
            drain_complete: true,
            service_peak_rss_bytes: 0,
            sidecar: SidecarOutcome::default(),
        }
    }

    fn target<'a>(r: &'a JavaReport, what: &str) -> &'a Target {
        r.targets
            .iter()
            .find(|t| t.what == what)
            .unwrap_or_else(|| panic!("no target {what}: {:?}", r.targets))
    }

    #[test]
    fn ratios_are_paired_within_a_round_and_their_median_is_reported() {
        // The machine is twice as fast in round 2: paired ratios stay 0.8, 0.9, 0.7,
        // whereas a ratio of the medians would mix rounds.
        let rounds = vec![
            vec![config('d', 80.0, 10.0), config('e', 100.0, 0.0)],
            vec![config('d', 180.0, 3000.0), config('e', 200.0, 0.0)],
            vec![config('d', 70.0, 20.0), config('e', 100.0, 0.0)],
        ];
        let r = JavaReport::from_rounds(setup(3), rounds);
        let de = target(&r, "(d) / (e) requests/s");
        assert_eq!(de.rounds, [0.8, 0.9, 0.7]);
        assert!((de.value - 0.8).abs() < 1e-9, "{de:?}");
        assert!(!de.met, "0.80 is below the 0.85 floor");
        // The worst round decides the lag target.
        let lag = target(&r, "(d) ingest lag p99, ms");
        assert_eq!(lag.value, 3000.0);
        assert!(!lag.met);
        // Each column is the configuration's median round, with every round listed.
        let d = &r.configurations[0];
        assert_eq!((d.key, d.requests_per_sec), ('d', 80.0));
        assert_eq!(d.rounds_requests_per_sec, [80.0, 180.0, 70.0]);
        assert!(r.calibration.is_empty(), "no (g), no calibration");
    }

    #[test]
    fn calibration_compares_c_with_the_discarding_sink_and_the_sink_with_logging_off() {
        let rounds = vec![vec![
            config('c', 45.0, 30.0),
            config('f', 100.0, 0.0),
            config('g', 50.0, 0.0),
        ]];
        let r = JavaReport::from_rounds(setup(1), rounds);
        let values: Vec<(&str, f64)> = r
            .calibration
            .iter()
            .map(|c| (c.what.as_str(), c.value))
            .collect();
        assert_eq!(
            values,
            [("(c) / (g) requests/s", 0.9), ("(g) / (f) requests/s", 0.5)]
        );
        let text = r.table();
        assert!(text.contains("calibration (no targets):"), "{text}");
        assert!(text.contains("(c) / (f) requests/s = 0.45"), "{text}");
    }
}
