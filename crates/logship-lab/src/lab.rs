//! One mode of the lab, end to end: intake, service process, the three runs, the drain.
//!
//! Why it exists: both modes must be measured the same way. For a mode this starts a fresh
//! local intake with the configured latency (its observer turns each arriving event's
//! `t_us` into an ingest-lag sample), starts the lab service in a child process, runs the
//! load three times back to back without restarting anything (first, churn, long), then
//! measures how long the logger keeps delivering after the load stopped, and collects the
//! service's peak RSS.

use std::io::{BufRead, BufReader};
use std::net::{Ipv4Addr, SocketAddr};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use logship_intake::{Intake, IntakeConfig};

use super::load::{self, LoadResult};
use super::report::{LagPoint, Latency, ModeReport, RunReport};
use super::service::{ServiceStats, STATS_PATH};
use crate::mode::Mode;
use logship_cli::exit::Failure;
use logship_cli::histogram::Histogram;

/// Most seconds of lag timeline kept (memory bound).
const MAX_TIMELINE_S: usize = 7200;
/// How often the drain check asks the service for its queue depth.
const DRAIN_POLL: Duration = Duration::from_millis(20);
/// Path the stock appender and logship post to on the intake (generic protocol).
const INTAKE_PATH: &str = "/lab/logs";

/// How a lab run is set up.
#[derive(Clone, Debug)]
pub struct LabConfig {
    /// Log lines per request.
    pub lines: u64,
    /// Stock ring slots.
    pub ring: usize,
    /// Concurrent load connections.
    pub connections: usize,
    /// The runs, by name and length.
    pub runs: Vec<(&'static str, Duration)>,
    /// Latency the intake adds to every answer.
    pub intake_delay: Duration,
    /// Longest wait for the logger to drain after the load.
    pub drain_cap: Duration,
    /// Use `oha` instead of the built-in generator.
    pub oha: bool,
    /// Requests/s limit of the built-in generator (`None`: as fast as answered).
    pub rate: Option<f64>,
}

/// Ingest-lag samples: a histogram and a per-second timeline.
pub(super) struct LagRecorder {
    /// When the timeline's second 0 began.
    pub(super) start: SystemTime,
    /// Every sample, microseconds.
    pub(super) all: Histogram,
    /// Per second since `start`: (events, sum of lag µs, max lag µs).
    timeline: Vec<(u64, u64, u64)>,
}

/// A fresh local intake answering after `delay`, counting only (bounded memory), and its
/// ingest-lag recorder.
pub(super) fn start_intake(delay: Duration) -> Result<(Intake, Arc<Mutex<LagRecorder>>), Failure> {
    // Count-only: the intake stands in for the vendor's, which runs on other machines;
    // its strict checks (a JSON parse of every event) took more of the two cores than
    // logship did. The probe hands each event's log time to the lag recorder.
    let intake = Intake::start(IntakeConfig {
        delay,
        keep_events: false,
        count_only: true,
        count_only_probe: Some("t_us".to_owned()),
        ..IntakeConfig::default()
    })
    .map_err(|e| Failure::runtime(format!("cannot start the local intake: {e}")))?;
    let lag = observe_lag(&intake);
    Ok((intake, lag))
}

/// Makes `intake` record the ingest lag of every arriving event that carries its log time
/// (see [`event_time_us`]).
fn observe_lag(intake: &Intake) -> Arc<Mutex<LagRecorder>> {
    let lag = Arc::new(Mutex::new(LagRecorder {
        start: SystemTime::now(),
        all: Histogram::new(),
        timeline: Vec::new(),
    }));
    let recorder = Arc::clone(&lag);
    intake.set_observer(Box::new(move |event, arrival| {
        if let Some(t_us) = event_time_us(event) {
            recorder
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .record(t_us, arrival);
        }
    }));
    lag
}

/// When an event was logged, microseconds since the epoch: its `t_us` field, a number
/// (the Rust lab service) or a numeric string (a Log4j2 context map entry, as logship
/// ships it or under `contextMap` as Log4j2's own `JsonLayout` posts it).
pub(super) fn event_time_us(event: &serde_json::Value) -> Option<u64> {
    let t = event
        .get("t_us")
        .or_else(|| event.get("contextMap").and_then(|m| m.get("t_us")))?;
    t.as_u64()
        .or_else(|| t.as_str().and_then(|s| s.parse().ok()))
}

impl LagRecorder {
    /// The recorder out of its shared cell (a copy if the intake still holds it).
    pub(super) fn take(shared: Arc<Mutex<LagRecorder>>) -> LagRecorder {
        match Arc::try_unwrap(shared) {
            Ok(m) => m.into_inner().unwrap_or_else(PoisonError::into_inner),
            Err(shared) => {
                let g = shared.lock().unwrap_or_else(PoisonError::into_inner);
                LagRecorder {
                    start: g.start,
                    all: g.all.clone(),
                    timeline: g.timeline.clone(),
                }
            }
        }
    }

    /// Starts over: forgets every sample, and the timeline's second 0 is now.
    pub(super) fn restart(&mut self) {
        self.start = SystemTime::now();
        self.all = Histogram::new();
        self.timeline.clear();
    }

    /// The timeline's seconds that had events.
    pub(super) fn timeline_points(&self) -> Vec<LagPoint> {
        self.timeline
            .iter()
            .enumerate()
            .filter(|(_, s)| s.0 > 0)
            .map(|(t, &(n, sum, max))| LagPoint {
                t_s: t as u64,
                events: n,
                mean_ms: sum as f64 / n as f64 / 1000.0,
                max_ms: max as f64 / 1000.0,
            })
            .collect()
    }

    fn record(&mut self, sent_us: u64, arrival: SystemTime) {
        let arrival_us = unix_micros(arrival);
        let lag = arrival_us.saturating_sub(sent_us);
        self.all.record(lag);
        let second = arrival
            .duration_since(self.start)
            .map_or(0, |d| d.as_secs() as usize);
        if second < MAX_TIMELINE_S {
            if self.timeline.len() <= second {
                self.timeline.resize(second + 1, (0, 0, 0));
            }
            let slot = &mut self.timeline[second];
            slot.0 += 1;
            slot.1 = slot.1.saturating_add(lag);
            slot.2 = slot.2.max(lag);
        }
    }
}

/// The child process running a lab service; killed if still running when dropped.
pub(super) struct ServiceProcess {
    child: Child,
    /// Where it serves.
    pub(super) addr: SocketAddr,
}

impl ServiceProcess {
    fn start(mode: Mode, intake_url: &str, cfg: &LabConfig) -> Result<ServiceProcess, Failure> {
        let exe = std::env::current_exe()
            .map_err(|e| Failure::runtime(format!("cannot find the lab's executable: {e}")))?;
        let mut cmd = Command::new(exe);
        cmd.args(["--serve", mode.name(), "--intake-url", intake_url])
            .args(["--lines", &cfg.lines.to_string()])
            .args(["--ring", &cfg.ring.to_string()]);
        ServiceProcess::spawn(cmd)
    }

    /// Starts `cmd`, a service that prints `listening PORT` on stdout once bound, serves
    /// [`STATS_PATH`] and stops when its stdin closes.
    pub(super) fn spawn(mut cmd: Command) -> Result<ServiceProcess, Failure> {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| Failure::runtime(format!("cannot start the lab service: {e}")))?;
        let port = child.stdout.take().and_then(|out| {
            let mut line = String::new();
            BufReader::new(out).read_line(&mut line).ok()?;
            line.trim().strip_prefix("listening ")?.parse::<u16>().ok()
        });
        let mut process = ServiceProcess {
            child,
            addr: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
        };
        match port {
            Some(port) => {
                process.addr.set_port(port);
                Ok(process)
            }
            None => Err(Failure::runtime(
                "the lab service did not start (see its error above)",
            )),
        }
    }

    /// Its counters, from [`STATS_PATH`].
    pub(super) fn stats(&self) -> Result<ServiceStats, Failure> {
        load::get(self.addr, STATS_PATH)
            .and_then(|body| serde_json::from_str(&body).ok())
            .ok_or_else(|| Failure::runtime("the lab service did not answer its stats request"))
    }

    /// Closes the service's stdin and waits for it to exit.
    fn stop(mut self) {
        drop(self.child.stdin.take());
        let _ = self.child.wait();
    }

    /// Closes the service's stdin and waits at most `grace` for it to exit, then kills
    /// it; whether it exited by itself.
    pub(super) fn stop_within(mut self, grace: Duration) -> bool {
        drop(self.child.stdin.take());
        let deadline = Instant::now() + grace;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            std::thread::sleep(DRAIN_POLL);
        }
        false
    }
}

impl Drop for ServiceProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Waits at most `cap` for the service's logger to be drained; whether it was.
/// Requests abandoned at the load's deadline may still be logging (blocked on a full
/// ring), so the logger is drained when its queue is empty and the intake has every event
/// it was given (minus those it lost).
pub(super) fn drain(
    service: &ServiceProcess,
    intake: &Intake,
    cap: Duration,
) -> Result<bool, Failure> {
    let deadline = Instant::now() + cap;
    loop {
        let s = service.stats()?;
        let expected = usize::try_from(s.logged.saturating_sub(s.lost)).unwrap_or(usize::MAX);
        let left = deadline.saturating_duration_since(Instant::now());
        if s.queued == 0 && intake.stats().events >= expected as u64 {
            return Ok(true);
        }
        if left.is_zero() {
            return Ok(false);
        }
        // Wake early when the intake's count moves; otherwise re-check after a poll.
        if intake.wait_for_events(expected, DRAIN_POLL.min(left)) {
            std::thread::sleep(DRAIN_POLL.min(left));
        }
    }
}

/// Runs one mode and reports it.
pub fn run_mode(mode: Mode, cfg: &LabConfig) -> Result<ModeReport, Failure> {
    let (intake, lag) = start_intake(cfg.intake_delay)?;
    let service = ServiceProcess::start(mode, &intake.url(INTAKE_PATH), cfg)?;
    lag.lock().unwrap_or_else(PoisonError::into_inner).start = SystemTime::now();

    let mut runs = Vec::with_capacity(cfg.runs.len());
    let mut results = Vec::with_capacity(cfg.runs.len());
    for (name, length) in &cfg.runs {
        eprintln!(
            "logship-lab: {} mode, {name} run, {} s, {} connections",
            mode.name(),
            length.as_secs_f64(),
            cfg.connections
        );
        let before = intake.stats().events;
        let result = if cfg.oha {
            load::oha(service.addr, cfg.connections, *length).map_err(Failure::runtime)?
        } else {
            load::builtin(service.addr, cfg.connections, *length, cfg.rate)
        };
        let delivered = intake.stats().events.saturating_sub(before);
        runs.push(RunReport::new(name, *length, &result, delivered));
        results.push(result);
    }

    // The drain: how long the logger keeps delivering once the load has stopped.
    let stopped = Instant::now();
    let drained = drain(&service, &intake, cfg.drain_cap)?;
    let drain = stopped.elapsed().min(cfg.drain_cap);
    eprintln!(
        "logship-lab: {} mode drained {} after the load",
        mode.name(),
        if drained {
            format!("in {:.2} s", drain.as_secs_f64())
        } else {
            format!("not within {} s", cfg.drain_cap.as_secs_f64())
        }
    );
    let end = service.stats()?;
    service.stop();
    let intake_stats = intake.stats();
    drop(intake);

    let lag = LagRecorder::take(lag);
    Ok(ModeReport {
        requests_per_sec: throughput(&results),
        latency_ms: combined_latency(&results),
        events_delivered: runs.iter().map(|r| r.events_delivered).sum(),
        events_delivered_total: intake_stats.events,
        events_logged: end.logged,
        events_lost: end.lost,
        ingest_lag_ms: super::report::Lag {
            p50: lag.all.quantile(0.5) as f64 / 1000.0,
            p99: lag.all.quantile(0.99) as f64 / 1000.0,
            max: lag.all.max() as f64 / 1000.0,
        },
        drain_after_load_s: drain.as_secs_f64(),
        drain_complete: drained,
        peak_rss_bytes: end.peak_rss_bytes,
        requests: results.iter().map(|r| r.requests).sum(),
        errors: results.iter().map(|r| r.errors).sum(),
        unfinished: results.iter().map(|r| r.unfinished).sum(),
        intake_requests: intake_stats.requests,
        runs,
        lag_timeline: lag.timeline_points(),
    })
}

/// Answered requests per second over all runs.
fn throughput(results: &[LoadResult]) -> f64 {
    let requests: u64 = results.iter().map(|r| r.requests).sum();
    let secs: f64 = results.iter().map(|r| r.elapsed.as_secs_f64()).sum();
    if secs > 0.0 {
        requests as f64 / secs
    } else {
        0.0
    }
}

/// Latency over all runs: exact from the merged histograms when every run has one (the
/// built-in generator); otherwise the request-weighted mean and the worst run's p90/p99.
fn combined_latency(results: &[LoadResult]) -> Latency {
    // Each run's mean covers its answered and unfinished requests.
    let weight = |r: &LoadResult| (r.requests + r.unfinished) as f64;
    let total: f64 = results.iter().map(weight).sum();
    let mean = if total == 0.0 {
        0.0
    } else {
        results.iter().map(|r| r.mean_ms * weight(r)).sum::<f64>() / total
    };
    if results.iter().all(|r| r.latency_us.is_some()) {
        let mut all = Histogram::new();
        for h in results.iter().filter_map(|r| r.latency_us.as_ref()) {
            all.merge(h);
        }
        Latency {
            mean,
            p90: all.quantile(0.90) as f64 / 1000.0,
            p99: all.quantile(0.99) as f64 / 1000.0,
        }
    } else {
        Latency {
            mean,
            p90: results.iter().map(|r| r.p90_ms).fold(0.0, f64::max),
            p99: results.iter().map(|r| r.p99_ms).fold(0.0, f64::max),
        }
    }
}

/// Microseconds since the Unix epoch (0 before it).
fn unix_micros(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::UNIX_EPOCH;

    fn result(
        requests: u64,
        secs: u64,
        samples: Option<&[u64]>,
        mean: f64,
        p90: f64,
        p99: f64,
    ) -> LoadResult {
        LoadResult {
            requests,
            elapsed: Duration::from_secs(secs),
            latency_us: samples.map(|s| {
                let mut h = Histogram::new();
                for &v in s {
                    h.record(v);
                }
                h
            }),
            mean_ms: mean,
            p90_ms: p90,
            p99_ms: p99,
            ..LoadResult::default()
        }
    }

    #[test]
    fn throughput_is_requests_over_total_run_time() {
        let runs = [
            result(100, 1, None, 0.0, 0.0, 0.0),
            result(300, 3, None, 0.0, 0.0, 0.0),
        ];
        assert!((throughput(&runs) - 100.0).abs() < 1e-9);
        assert_eq!(throughput(&[]), 0.0);
    }

    #[test]
    fn latency_percentiles_come_from_the_merged_histograms() {
        // 90 fast requests in one run, 10 slow in the other: p90 is fast, p99 slow.
        let fast: Vec<u64> = vec![1000; 90];
        let slow: Vec<u64> = vec![2_000_000; 10];
        let runs = [
            result(90, 1, Some(&fast), 1.0, 1.0, 1.0),
            result(10, 1, Some(&slow), 2000.0, 2000.0, 2000.0),
        ];
        let l = combined_latency(&runs);
        assert!((l.mean - 200.9).abs() < 1e-9, "{l:?}");
        assert!((l.p90 - 1.0).abs() < 0.05, "{l:?}");
        assert!((l.p99 - 2000.0).abs() / 2000.0 < 0.04, "{l:?}");
    }

    #[test]
    fn without_histograms_latency_is_weighted_mean_and_worst_percentiles() {
        let runs = [
            result(30, 1, None, 2.0, 3.0, 4.0),
            result(10, 1, None, 6.0, 9.0, 8.0),
        ];
        let l = combined_latency(&runs);
        assert!((l.mean - 3.0).abs() < 1e-9);
        assert_eq!((l.p90, l.p99), (9.0, 8.0));
    }

    #[test]
    fn the_log_time_is_read_from_t_us_as_number_string_or_log4j2_context_map() {
        use serde_json::json;
        assert_eq!(event_time_us(&json!({"t_us": 17})), Some(17));
        assert_eq!(event_time_us(&json!({"t_us": "18"})), Some(18));
        assert_eq!(
            event_time_us(&json!({"contextMap": {"t_us": "19"}})),
            Some(19)
        );
        assert_eq!(event_time_us(&json!({"t_us": "soon"})), None);
        assert_eq!(event_time_us(&json!({"message": "x"})), None);
    }

    #[test]
    fn lag_is_arrival_minus_timestamp_bucketed_per_second() {
        let start = UNIX_EPOCH + Duration::from_secs(1000);
        let mut r = LagRecorder {
            start,
            all: Histogram::new(),
            timeline: Vec::new(),
        };
        let sent = super::unix_micros(start);
        r.record(sent, start + Duration::from_millis(20));
        r.record(sent, start + Duration::from_millis(2500));
        r.record(sent + 10_000_000, start); // clock skew: counted as zero lag
        assert_eq!(r.all.count(), 3);
        assert_eq!(r.all.max(), 2_500_000);
        assert_eq!(r.timeline.len(), 3);
        assert_eq!(r.timeline[0], (2, 20_000, 20_000));
        assert_eq!(r.timeline[2], (1, 2_500_000, 2_500_000));
    }
}
