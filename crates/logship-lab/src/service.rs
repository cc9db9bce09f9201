//! The lab service: a small HTTP/1.1 server on loopback that logs K lines per request and
//! answers "hello".
//!
//! Why it exists: the lab measures what a logging pipeline costs a real request path, so
//! the load must go through a socket, a request handler and the log calls, as in the
//! original experiment. It runs in its own process (`logship-lab` starts it with the
//! hidden `--serve MODE` option) so its peak RSS is its own. It prints `listening PORT` on
//! stdout, serves one thread per keep-alive connection, answers `GET /_lab/stats` with its
//! counters as JSON, and exits when its stdin closes.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{Ipv4Addr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use logship::{Level, Logship, Record};
use serde::{Deserialize, Serialize};

use super::stock::Stock;
use crate::mode::Mode;
use logship_cli::exit::Failure;

/// Path of the counters endpoint.
pub const STATS_PATH: &str = "/_lab/stats";
/// Target (logger name) of every lab event.
const TARGET: &str = "lab.service";
/// Longest request head accepted, bytes.
const MAX_HEAD: usize = 16 * 1024;
/// Largest request body skipped, bytes.
const MAX_BODY: u64 = 1024 * 1024;
/// A connection idle this long is closed.
const IDLE: Duration = Duration::from_secs(120);

/// What the service has done, as served at [`STATS_PATH`].
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ServiceStats {
    /// Requests answered with "hello".
    pub requests: u64,
    /// Log calls made (K per request).
    pub logged: u64,
    /// Events the logger refused or lost (batch: dropped by the queue; stock: failed POSTs).
    pub lost: u64,
    /// Events still queued in the logger.
    pub queued: u64,
    /// Peak resident memory of the service process, bytes (0 where unknown).
    pub peak_rss_bytes: u64,
}

/// The logger behind the service.
enum Logger {
    Stock(Stock),
    Batch(Logship),
}

impl Logger {
    fn log(&self, seq: u64, line: u64, lines: u64) {
        let t_us = unix_micros();
        match self {
            Logger::Stock(stock) => {
                let event = format!(
                    "{{\"timestamp\":\"{}\",\"level\":\"INFO\",\"target\":\"{TARGET}\",\"message\":\"GET / request {seq} line {line} of {lines}: answered hello\",\"t_us\":{t_us},\"seq\":{seq},\"line\":{line}}}",
                    logship::rfc3339_millis(t_us.saturating_mul(1000))
                );
                stock.log(event.into_bytes());
            }
            Logger::Batch(logship) => {
                let mut record = Record::new(Level::Info, TARGET);
                record
                    .set_timestamp_nanos(t_us.saturating_mul(1000))
                    .message_fmt(format_args!(
                        "GET / request {seq} line {line} of {lines}: answered hello"
                    ))
                    .field("t_us", t_us)
                    .field("seq", seq)
                    .field("line", line);
                // A refusal is counted by logship (stats().dropped()).
                let _ = logship.push(record);
            }
        }
    }

    fn lost(&self) -> u64 {
        match self {
            Logger::Stock(stock) => stock.failed(),
            Logger::Batch(logship) => {
                let s = logship.stats();
                s.dropped() + s.events_failed + s.events_abandoned
            }
        }
    }

    fn queued(&self) -> u64 {
        match self {
            Logger::Stock(stock) => stock.depth(),
            Logger::Batch(logship) => logship.stats().pending(),
        }
    }
}

/// State shared by the connection threads.
struct Service {
    logger: Logger,
    lines: u64,
    requests: AtomicU64,
    logged: AtomicU64,
}

impl Service {
    fn stats(&self) -> ServiceStats {
        ServiceStats {
            requests: self.requests.load(Relaxed),
            logged: self.logged.load(Relaxed),
            lost: self.logger.lost(),
            queued: self.logger.queued(),
            peak_rss_bytes: logship_cli::memory::peak_rss_bytes(),
        }
    }
}

/// Runs the service in this process until stdin closes: `logship-lab --serve MODE`.
pub fn serve(mode: Mode, intake_url: &str, lines: u64, ring: usize) -> Result<(), Failure> {
    let mut guard = None;
    let logger = match mode {
        Mode::Stock => Logger::Stock(
            Stock::start(intake_url.to_owned(), ring)
                .map_err(|e| Failure::runtime(format!("cannot start the stock appender: {e}")))?,
        ),
        Mode::Batch => {
            // logship with its defaults, pointed at the lab's intake.
            let (logship, g) = Logship::builder().endpoint(intake_url).build()?;
            guard = Some(g);
            Logger::Batch(logship)
        }
    };
    let service = Arc::new(Service {
        logger,
        lines,
        requests: AtomicU64::new(0),
        logged: AtomicU64::new(0),
    });
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .map_err(|e| Failure::runtime(format!("cannot listen on 127.0.0.1: {e}")))?;
    let port = listener
        .local_addr()
        .map_err(|e| Failure::runtime(format!("cannot read the service address: {e}")))?
        .port();
    {
        let service = Arc::clone(&service);
        thread::Builder::new()
            .name("lab-accept".into())
            .spawn(move || {
                for stream in listener.incoming().flatten() {
                    let service = Arc::clone(&service);
                    let _ = thread::Builder::new()
                        .name("lab-conn".into())
                        .spawn(move || connection(stream, &service));
                }
            })
            .map_err(|e| Failure::runtime(format!("cannot start the service: {e}")))?;
    }
    println!("listening {port}");
    let _ = std::io::stdout().flush();
    // Serve until the parent closes our stdin.
    let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
    match &service.logger {
        Logger::Batch(logship) => {
            let _ = logship.shutdown(Duration::from_secs(5));
        }
        Logger::Stock(stock) => {
            // Like Log4j2's shutdown timeout: what is still queued after it is lost.
            stock.close(Duration::from_secs(5));
        }
    }
    drop(guard);
    Ok(())
}

/// Serves one keep-alive connection until the client closes it or sends garbage.
fn connection(stream: TcpStream, service: &Service) {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_read_timeout(Some(IDLE));
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    while let Some(head) = read_head(&mut reader) {
        if head.content_length > MAX_BODY
            || std::io::copy(
                &mut (&mut reader).take(head.content_length),
                &mut std::io::sink(),
            )
            .ok()
                != Some(head.content_length)
        {
            return;
        }
        let (content_type, body) = if head.path == STATS_PATH {
            let json = serde_json::to_string(&service.stats()).unwrap_or_default();
            ("application/json", json)
        } else {
            let seq = service.requests.fetch_add(1, Relaxed);
            for line in 1..=service.lines {
                service.logger.log(seq, line, service.lines);
                service.logged.fetch_add(1, Relaxed);
            }
            ("text/plain", "hello".to_owned())
        };
        let response = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n{}\r\n{body}",
            body.len(),
            if head.close {
                "Connection: close\r\n"
            } else {
                ""
            }
        );
        if writer.write_all(response.as_bytes()).is_err() || head.close {
            return;
        }
    }
}

/// The parts of a request head the service needs.
#[derive(Debug, PartialEq)]
pub struct Head {
    /// Request path (without the query string).
    pub path: String,
    /// Body length to skip.
    pub content_length: u64,
    /// The client asked to close (HTTP/1.0 without keep-alive, or `Connection: close`).
    pub close: bool,
}

/// Reads one request head; `None` at end of stream or on a malformed or oversized head.
pub fn read_head(reader: &mut impl BufRead) -> Option<Head> {
    let mut line = String::new();
    let mut total = 0;
    let mut next = |line: &mut String| -> Option<()> {
        line.clear();
        let n = reader.read_line(line).ok()?;
        total += n;
        (n > 0 && total <= MAX_HEAD).then_some(())
    };
    next(&mut line)?;
    let mut parts = line.split_whitespace();
    let _method = parts.next()?;
    let target = parts.next()?;
    let version = parts.next()?;
    let path = target.split('?').next().unwrap_or(target).to_owned();
    let mut close = version == "HTTP/1.0";
    let mut content_length = 0;
    loop {
        next(&mut line)?;
        let header = line.trim_end();
        if header.is_empty() {
            break;
        }
        let (name, value) = header.split_once(':')?;
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            content_length = value.parse().ok()?;
        } else if name.eq_ignore_ascii_case("connection") {
            close = value.eq_ignore_ascii_case("close")
                || (close && !value.eq_ignore_ascii_case("keep-alive"));
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            return None; // chunked request bodies are not needed by the lab
        }
    }
    Some(Head {
        path,
        content_length,
        close,
    })
}

/// Microseconds since the Unix epoch.
fn unix_micros() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_micros()).unwrap_or(u64::MAX))
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_keep_alive_heads_in_sequence() {
        let input = b"GET /?a=1 HTTP/1.1\r\nHost: x\r\n\r\nPOST /_lab/stats HTTP/1.1\r\ncontent-length: 3\r\nConnection: close\r\n\r\nabc";
        let mut r = BufReader::new(&input[..]);
        let first = read_head(&mut r).expect("first head");
        assert_eq!(
            first,
            Head {
                path: "/".into(),
                content_length: 0,
                close: false
            }
        );
        let second = read_head(&mut r).expect("second head");
        assert_eq!(second.path, STATS_PATH);
        assert_eq!(second.content_length, 3);
        assert!(second.close);
    }

    #[test]
    fn http_1_0_closes_unless_keep_alive_and_garbage_ends_the_connection() {
        let mut r = BufReader::new(&b"GET / HTTP/1.0\r\n\r\n"[..]);
        assert!(read_head(&mut r).expect("head").close);
        let mut r = BufReader::new(&b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"[..]);
        assert!(!read_head(&mut r).expect("head").close);
        let mut r = BufReader::new(&b"GET / HTTP/1.1\r\nContent-Length: x\r\n\r\n"[..]);
        assert_eq!(read_head(&mut r), None);
        let mut r = BufReader::new(&b""[..]);
        assert_eq!(read_head(&mut r), None);
    }
}
