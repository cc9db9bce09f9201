//! The load: a closed-loop HTTP/1.1 load generator, or `oha` when asked for.
//!
//! Why it exists: the lab needs requests/s and request latency of the lab service under a
//! fixed number of concurrent keep-alive connections, each sending its next request as
//! soon as the previous answer arrives (a closed loop, like `oha -c C -z D`). The built-in
//! generator needs nothing installed; `--oha` runs the real `oha` instead.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::Command;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use logship_cli::histogram::Histogram;

/// Read timeout of a load connection: how often a client waiting for an answer checks
/// whether the run is over.
const POLL: Duration = Duration::from_millis(100);

/// The outcome of one load run.
#[derive(Clone, Debug, Default)]
pub struct LoadResult {
    /// Requests answered.
    pub requests: u64,
    /// Requests that failed (connection errors, malformed answers).
    pub errors: u64,
    /// Requests still unanswered when the run ended (abandoned, not in the latency).
    pub unfinished: u64,
    /// Wall time of the run, from the first request to the last answer.
    pub elapsed: Duration,
    /// Latency of every answered request, and of every unfinished one up to the end of
    /// the run (a lower bound), microseconds (built-in generator only).
    pub latency_us: Option<Histogram>,
    /// Mean latency in milliseconds (unfinished requests included as above).
    pub mean_ms: f64,
    /// Median latency, milliseconds.
    pub p50_ms: f64,
    /// 90th percentile latency, milliseconds.
    pub p90_ms: f64,
    /// 99th percentile latency, milliseconds.
    pub p99_ms: f64,
}

impl LoadResult {
    /// Answered requests per second of wall time.
    pub fn requests_per_sec(&self) -> f64 {
        let secs = self.elapsed.as_secs_f64();
        if secs > 0.0 {
            self.requests as f64 / secs
        } else {
            0.0
        }
    }
}

/// Runs `connections` closed-loop keep-alive connections against `addr` for `duration`.
/// With `rate` (requests/s, all connections together) each connection also waits for its
/// next slot before sending, so the service is not saturated; otherwise every connection
/// sends as fast as it is answered.
pub fn builtin(
    addr: SocketAddr,
    connections: usize,
    duration: Duration,
    rate: Option<f64>,
) -> LoadResult {
    let interval = rate.map(|r| Duration::from_secs_f64(connections as f64 / r));
    let started = Instant::now();
    let deadline = started + duration;
    let (tx, rx) = mpsc::channel();
    let mut handles = Vec::with_capacity(connections);
    for _ in 0..connections {
        let tx = tx.clone();
        if let Ok(h) = thread::Builder::new()
            .name("lab-load".into())
            .spawn(move || {
                let _ = tx.send(client(addr, deadline, interval));
            })
        {
            handles.push(h);
        }
    }
    drop(tx);
    let mut latency = Histogram::new();
    let mut sum_us: u128 = 0;
    let mut errors = 0;
    let mut unfinished = 0;
    for (h, sum, e, u) in rx {
        latency.merge(&h);
        sum_us += sum;
        errors += e;
        unfinished += u;
    }
    for h in handles {
        let _ = h.join();
    }
    let elapsed = started.elapsed();
    let requests = latency.count().saturating_sub(unfinished);
    let mean_ms = if latency.count() == 0 {
        0.0
    } else {
        sum_us as f64 / latency.count() as f64 / 1000.0
    };
    LoadResult {
        requests,
        errors,
        unfinished,
        elapsed,
        mean_ms,
        p50_ms: latency.quantile(0.50) as f64 / 1000.0,
        p90_ms: latency.quantile(0.90) as f64 / 1000.0,
        p99_ms: latency.quantile(0.99) as f64 / 1000.0,
        latency_us: Some(latency),
    }
}

/// One connection's loop: returns its latencies, their sum (µs), its error count and
/// whether it ended with a request unanswered (0 or 1).
/// A request still unanswered at the deadline is abandoned (its connection closed), as
/// `oha -z` does, so a run lasts its duration even when the service is stuck.
fn client(
    addr: SocketAddr,
    deadline: Instant,
    interval: Option<Duration>,
) -> (Histogram, u128, u64, u64) {
    let mut due = Instant::now();
    let mut latency = Histogram::new();
    let mut sum = 0u128;
    let mut errors = 0;
    let mut unfinished = 0;
    let mut conn: Option<(TcpStream, BufReader<TcpStream>)> = None;
    while Instant::now() < deadline {
        if conn.is_none() {
            conn = connect(addr);
            if conn.is_none() {
                errors += 1;
                // The service refuses connections: stop rather than spin.
                break;
            }
        }
        let Some((writer, reader)) = conn.as_mut() else {
            break;
        };
        if let Some(interval) = interval {
            // Pacing, not synchronisation: wait for this connection's next slot.
            let now = Instant::now();
            if due > now {
                if due >= deadline {
                    break;
                }
                thread::sleep(due - now);
            }
            due = due.max(now) + interval;
        }
        let sent = Instant::now();
        if writer
            .write_all(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: logship-bench\r\n\r\n")
            .is_err()
        {
            errors += 1;
            conn = None;
            continue;
        }
        match await_answer(reader, deadline) {
            Answer::Ready => {}
            Answer::Abandoned => {
                // Counted in the latency with the time it had waited (a lower bound), so
                // requests stuck behind a full ring are not left out of the percentiles.
                let us = u64::try_from(sent.elapsed().as_micros()).unwrap_or(u64::MAX);
                latency.record(us);
                sum += u128::from(us);
                unfinished = 1;
                break;
            }
            Answer::Closed => {
                errors += 1;
                conn = None;
                continue;
            }
        }
        if read_response(reader).is_some() {
            let us = u64::try_from(sent.elapsed().as_micros()).unwrap_or(u64::MAX);
            latency.record(us);
            sum += u128::from(us);
        } else {
            errors += 1;
            conn = None;
        }
    }
    (latency, sum, errors, unfinished)
}

/// Whether an answer started arriving before the deadline.
enum Answer {
    Ready,
    Abandoned,
    Closed,
}

/// Waits (in short read timeouts) until the first byte of an answer is buffered.
fn await_answer(reader: &mut BufReader<TcpStream>, deadline: Instant) -> Answer {
    loop {
        match reader.fill_buf() {
            Ok([]) => return Answer::Closed,
            Ok(_) => return Answer::Ready,
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                ) =>
            {
                if Instant::now() >= deadline {
                    return Answer::Abandoned;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return Answer::Closed,
        }
    }
}

fn connect(addr: SocketAddr) -> Option<(TcpStream, BufReader<TcpStream>)> {
    let stream = TcpStream::connect_timeout(&addr, Duration::from_secs(5)).ok()?;
    let _ = stream.set_nodelay(true);
    stream.set_read_timeout(Some(POLL)).ok()?;
    let reader = BufReader::new(stream.try_clone().ok()?);
    Some((stream, reader))
}

/// Reads one response; returns its status, or `None` when it is malformed or cut short.
pub fn read_response(reader: &mut impl BufRead) -> Option<u16> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let status = line.split_whitespace().nth(1)?.parse().ok()?;
    let mut length = 0u64;
    loop {
        line.clear();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().ok()?;
            }
        }
    }
    let copied = std::io::copy(&mut reader.take(length), &mut std::io::sink()).ok()?;
    (copied == length).then_some(status)
}

/// One `GET path` on a fresh connection; the body of a 200 answer.
pub fn get(addr: SocketAddr, path: &str) -> Option<String> {
    let (mut writer, mut reader) = connect(addr)?;
    writer
        .set_read_timeout(Some(Duration::from_secs(10)))
        .ok()?;
    writer
        .write_all(
            format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        )
        .ok()?;
    let mut line = String::new();
    reader.read_line(&mut line).ok()?;
    if line.split_whitespace().nth(1) != Some("200") {
        return None;
    }
    loop {
        line.clear();
        if reader.read_line(&mut line).ok()? == 0 || line.trim_end().is_empty() {
            break;
        }
    }
    let mut body = String::new();
    reader.read_to_string(&mut body).ok()?;
    Some(body)
}

/// Whether an `oha` executable is on the PATH.
pub fn oha_installed() -> bool {
    Command::new("oha")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// Runs `oha --no-tui -j -c C -z Ds http://ADDR/` and reads its JSON summary.
pub fn oha(addr: SocketAddr, connections: usize, duration: Duration) -> Result<LoadResult, String> {
    let started = Instant::now();
    let output = Command::new("oha")
        .args(["--no-tui", "-j", "-c", &connections.to_string()])
        .args(["-z", &format!("{}ms", duration.as_millis())])
        .arg(format!("http://{addr}/"))
        .output()
        .map_err(|e| format!("cannot run oha: {e}"))?;
    let elapsed = started.elapsed();
    if !output.status.success() {
        return Err(format!(
            "oha failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    parse_oha(&output.stdout, elapsed)
}

/// Reads oha's `-j` output (times in seconds).
pub fn parse_oha(json: &[u8], elapsed: Duration) -> Result<LoadResult, String> {
    let v: serde_json::Value =
        serde_json::from_slice(json).map_err(|e| format!("oha printed no JSON summary: {e}"))?;
    let secs = |x: &serde_json::Value| x.as_f64().unwrap_or(0.0);
    let requests: u64 = v["statusCodeDistribution"]
        .as_object()
        .map(|m| m.values().filter_map(serde_json::Value::as_u64).sum())
        .unwrap_or(0);
    let errors = v["errorDistribution"]
        .as_object()
        .map(|m| m.values().filter_map(serde_json::Value::as_u64).sum())
        .unwrap_or(0);
    let rps = secs(&v["summary"]["requestsPerSec"]);
    let elapsed = if rps > 0.0 && requests > 0 {
        Duration::from_secs_f64(requests as f64 / rps)
    } else {
        elapsed
    };
    Ok(LoadResult {
        requests,
        errors,
        unfinished: 0,
        elapsed,
        latency_us: None,
        mean_ms: secs(&v["summary"]["average"]) * 1000.0,
        p50_ms: secs(&v["latencyPercentiles"]["p50"]) * 1000.0,
        p90_ms: secs(&v["latencyPercentiles"]["p90"]) * 1000.0,
        p99_ms: secs(&v["latencyPercentiles"]["p99"]) * 1000.0,
    })
}

/// wrk's Lua hook printing its summary as one JSON line (times in microseconds).
const WRK_SUMMARY_LUA: &str = r#"
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('{"requests":%d,"duration_us":%d,"errors":%d,"timeouts":%d,"status":%d,"mean_us":%.1f,"p50_us":%d,"p90_us":%d,"p99_us":%d}\n',
    summary.requests, summary.duration, e.connect + e.read + e.write, e.timeout, e.status,
    latency.mean, latency:percentile(50), latency:percentile(90), latency:percentile(99)))
end
"#;

/// Whether a `wrk` executable is on the PATH.
pub fn wrk_installed() -> bool {
    Command::new("wrk")
        .arg("--version")
        .output()
        .is_ok_and(|o| !o.stdout.is_empty() || !o.stderr.is_empty())
}

/// Runs `wrk -t T -c C -d D --timeout 60s` against `http://ADDR/` (`T`: the machine's
/// cores, at most C; D rounded up to whole seconds) and reads the summary its Lua `done` hook prints. Requests still
/// unanswered at the end are not in wrk's latency (a limit of wrk, reported as timeouts
/// only when they exceed 60 s).
pub fn wrk(
    addr: SocketAddr,
    connections: usize,
    duration: Duration,
    scratch: &std::path::Path,
) -> Result<LoadResult, String> {
    let script = scratch.join("wrk-summary.lua");
    std::fs::write(&script, WRK_SUMMARY_LUA)
        .map_err(|e| format!("cannot write {}: {e}", script.display()))?;
    let threads = thread::available_parallelism()
        .map_or(2, std::num::NonZeroUsize::get)
        .min(connections);
    let output = Command::new("wrk")
        .args(["-t", &threads.to_string(), "-c", &connections.to_string()])
        // wrk takes whole seconds.
        .args([
            "-d",
            &format!("{}s", duration.as_secs_f64().ceil().max(1.0)),
        ])
        .args(["--timeout", "60s", "-s"])
        .arg(&script)
        .arg(format!("http://{addr}/"))
        .output()
        .map_err(|e| format!("cannot run wrk: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "wrk failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    parse_wrk(&output.stdout)
}

/// Reads the JSON line of [`WRK_SUMMARY_LUA`] from wrk's stdout.
pub fn parse_wrk(stdout: &[u8]) -> Result<LoadResult, String> {
    let text = String::from_utf8_lossy(stdout);
    let line = text
        .lines()
        .rev()
        .find(|l| l.starts_with('{'))
        .ok_or_else(|| format!("wrk printed no summary: {}", text.trim()))?;
    let v: serde_json::Value =
        serde_json::from_str(line).map_err(|e| format!("wrk's summary is not JSON: {e}"))?;
    let n = |k: &str| v[k].as_u64().unwrap_or(0);
    let ms = |k: &str| v[k].as_f64().unwrap_or(0.0) / 1000.0;
    Ok(LoadResult {
        requests: n("requests").saturating_sub(n("status")),
        errors: n("errors") + n("status"),
        unfinished: n("timeouts"),
        elapsed: Duration::from_micros(n("duration_us")),
        latency_us: None,
        mean_ms: ms("mean_us"),
        p50_ms: ms("p50_us"),
        p90_ms: ms("p90_us"),
        p99_ms: ms("p99_us"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_responses_back_to_back() {
        let input = b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloHTTP/1.1 503 Busy\r\ncontent-length: 0\r\n\r\n";
        let mut r = BufReader::new(&input[..]);
        assert_eq!(read_response(&mut r), Some(200));
        assert_eq!(read_response(&mut r), Some(503));
        assert_eq!(read_response(&mut r), None);
        let cut = b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhel";
        assert_eq!(read_response(&mut BufReader::new(&cut[..])), None);
    }

    #[test]
    fn parses_an_oha_summary() {
        let json =
            br#"{"summary":{"successRate":1.0,"total":2.0,"average":0.004,"requestsPerSec":500.0},
            "latencyPercentiles":{"p50":0.003,"p90":0.006,"p99":0.02},
            "statusCodeDistribution":{"200":1000},"errorDistribution":{"aborted":3}}"#;
        let r = parse_oha(json, Duration::from_secs(9)).expect("parses");
        assert_eq!(r.requests, 1000);
        assert_eq!(r.errors, 3);
        assert!((r.requests_per_sec() - 500.0).abs() < 1e-6);
        assert!((r.mean_ms - 4.0).abs() < 1e-9);
        assert!((r.p99_ms - 20.0).abs() < 1e-9);
        assert!(parse_oha(b"not json", Duration::ZERO).is_err());
    }

    #[test]
    fn parses_the_wrk_summary_line_of_its_lua_hook() {
        let out = b"Running 1s test @ http://127.0.0.1:1/\n  2 threads and 50 connections\n{\"requests\":1000,\"duration_us\":2000000,\"errors\":2,\"timeouts\":1,\"status\":10,\"mean_us\":1500.5,\"p50_us\":1200,\"p90_us\":2500,\"p99_us\":9000}\n";
        let r = parse_wrk(out).expect("parses");
        assert_eq!((r.requests, r.errors, r.unfinished), (990, 12, 1));
        assert!((r.requests_per_sec() - 495.0).abs() < 1e-6);
        assert!((r.p50_ms - 1.2).abs() < 1e-9 && (r.p99_ms - 9.0).abs() < 1e-9);
        assert!(parse_wrk(b"Running 1s test\n").is_err());
    }
}
