//! Answers that break HTTP itself: the hostile-intake fault modes.
//!
//! Why it exists: a shipper meets intakes, proxies and load balancers that never answer,
//! drip their answer, send endless bodies, garbage, resets, lying framing, redirects or
//! echo what they were sent. [`WireFault`] is one such answer, written straight to the
//! socket after the request was read in full (so the request is still validated and
//! counted, and its events are not recorded). Must never: block past the intake's
//! shutdown, or hold a connection longer than [`MAX_HOLD`].

use std::io::{Read, Write};
use std::net::Shutdown;

use logship_http::tls::Conn;
use std::time::{Duration, Instant};

use logship_http::Request;

/// Longest a fault mode keeps a connection (never answering, dripping, streaming).
pub const MAX_HOLD: Duration = Duration::from_secs(300);

/// Where [`WireFault::Reset`] resets the connection (TCP RST, not a clean close).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResetAt {
    /// Instead of any answer.
    BeforeAnswer,
    /// After the status line, headers and half of a 200 body.
    MidBody,
    /// After a complete `200` answer (the next request on the connection fails).
    AfterAnswer,
}

/// An answer that breaks HTTP framing or expectations (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WireFault {
    /// Read the request, then say nothing until the client gives up.
    NeverAnswer,
    /// Status line and headers with `Content-Length: len`, then one byte of body every
    /// `every`.
    DripBody {
        /// The status to announce.
        status: u16,
        /// The announced body length.
        len: usize,
        /// Time between two bytes.
        every: Duration,
    },
    /// A body of `bytes` bytes (`u64::MAX`: endless), chunked or with a
    /// `Content-Length`, written as fast as the client reads.
    HugeBody {
        /// The status to announce.
        status: u16,
        /// Body size.
        bytes: u64,
        /// Chunked transfer encoding instead of `Content-Length`.
        chunked: bool,
    },
    /// These bytes as they are (a garbage status line, TLS or other non-HTTP bytes),
    /// then close.
    Raw(Vec<u8>),
    /// A TCP reset (see [`ResetAt`]).
    Reset(ResetAt),
    /// `Content-Length: claimed`, then `body` (shorter or longer), then close.
    LyingLength {
        /// The status to announce.
        status: u16,
        /// The announced length.
        claimed: u64,
        /// The body actually sent.
        body: Vec<u8>,
    },
    /// A redirect (301, 302, 307, 308) to `location`.
    Redirect {
        /// The redirect status.
        status: u16,
        /// The `Location` header.
        location: String,
    },
    /// This status, with the request line and every request header (credentials
    /// included) echoed as the plain-text body, as some proxies do.
    EchoHeaders {
        /// The status to answer with.
        status: u16,
    },
}

impl WireFault {
    /// The fault a control request or the CLI names: `mode` plus `param(name)` lookups
    /// (`status`, `bytes`, `ms`, `len`, `location`, `claimed`). Errors say what is wrong.
    pub fn parse(mode: &str, param: &dyn Fn(&str) -> Option<String>) -> Result<WireFault, String> {
        let num = |name: &str, default: u64| -> Result<u64, String> {
            match param(name) {
                None => Ok(default),
                Some(v) => v
                    .parse()
                    .map_err(|_| format!("invalid value {v:?} for {name:?}: expected a number")),
            }
        };
        let status = |default: u16| -> Result<u16, String> {
            let s = num("status", default.into())?;
            u16::try_from(s)
                .ok()
                .filter(|s| (100..=999).contains(s))
                .ok_or_else(|| format!("status {s} out of range 100..=999"))
        };
        Ok(match mode {
            "never-answer" => WireFault::NeverAnswer,
            "drip" => WireFault::DripBody {
                status: status(503)?,
                len: num("len", 1_000_000)? as usize,
                every: Duration::from_millis(num("ms", 500)?),
            },
            "huge" | "huge-chunked" | "endless" | "endless-chunked" => WireFault::HugeBody {
                status: status(503)?,
                bytes: if mode.starts_with("endless") {
                    u64::MAX
                } else {
                    num("bytes", 100 * 1024 * 1024)?
                },
                chunked: mode.ends_with("chunked"),
            },
            "garbage-status" => WireFault::Raw(b"HTTP/1.1 2xx WHAT\r\n\r\n".to_vec()),
            "not-http" => WireFault::Raw(b"\x16\x03\x01\x00\x05hello\x00\xff\r\n\r\n".to_vec()),
            "reset-before" => WireFault::Reset(ResetAt::BeforeAnswer),
            "reset-mid" => WireFault::Reset(ResetAt::MidBody),
            "reset-after" => WireFault::Reset(ResetAt::AfterAnswer),
            "short-length" | "long-length" => WireFault::LyingLength {
                status: status(200)?,
                claimed: num("claimed", if mode == "short-length" { 1_000 } else { 2 })?,
                body: br#"{"accepted":0,"note":"lying length"}"#.to_vec(),
            },
            "redirect" => WireFault::Redirect {
                status: status(307)?,
                location: param("location").unwrap_or_else(|| "http://127.0.0.1:9/".into()),
            },
            "echo-headers" => WireFault::EchoHeaders {
                status: status(401)?,
            },
            other => {
                return Err(format!(
                    "unknown fault mode {other:?}: use never-answer, drip, huge, huge-chunked, \
                     endless, endless-chunked, garbage-status, not-http, reset-before, reset-mid, \
                     reset-after, short-length, long-length, redirect or echo-headers"
                ))
            }
        })
    }

    /// The status recorded for a request that got this fault (`0` = no answer).
    pub(crate) fn status(&self) -> u16 {
        match self {
            WireFault::DripBody { status, .. }
            | WireFault::HugeBody { status, .. }
            | WireFault::LyingLength { status, .. }
            | WireFault::Redirect { status, .. }
            | WireFault::EchoHeaders { status } => *status,
            WireFault::Reset(ResetAt::MidBody | ResetAt::AfterAnswer) => 200,
            WireFault::NeverAnswer | WireFault::Raw(_) | WireFault::Reset(_) => 0,
        }
    }
}

/// Writes `fault` as the answer to `req`; `stop` tells when the intake shuts down. The
/// connection is never reused afterwards.
pub(crate) fn serve(stream: &mut Conn, fault: &WireFault, req: &Request, stop: &dyn Fn() -> bool) {
    let started = Instant::now();
    let held = || stop() || started.elapsed() > MAX_HOLD;
    match fault {
        WireFault::NeverAnswer => {
            // Wait for the client to close (or the intake to stop), reading what it sends.
            let _ = stream.set_read_timeout(Some(Duration::from_millis(100)));
            let mut sink = [0u8; 4096];
            while !held() {
                match stream.read(&mut sink) {
                    Ok(0) => break,
                    Ok(_) => {}
                    Err(e) if is_timeout(&e) => {}
                    Err(_) => break,
                }
            }
        }
        WireFault::DripBody { status, len, every } => {
            let head = format!(
                "HTTP/1.1 {status} Slow\r\nContent-Type: application/json\r\nContent-Length: {len}\r\n\r\n"
            );
            if stream.write_all(head.as_bytes()).is_ok() {
                for _ in 0..*len {
                    if held()
                        || stream
                            .write_all(b" ")
                            .and_then(|()| stream.flush())
                            .is_err()
                    {
                        break;
                    }
                    std::thread::sleep(*every);
                }
            }
        }
        WireFault::HugeBody {
            status,
            bytes,
            chunked,
        } => {
            let framing = if *chunked {
                "Transfer-Encoding: chunked".to_owned()
            } else {
                format!("Content-Length: {bytes}")
            };
            let head =
                format!("HTTP/1.1 {status} Huge\r\nContent-Type: text/plain\r\n{framing}\r\n\r\n");
            let block = vec![b'x'; 64 * 1024];
            let mut left = *bytes;
            let mut ok = stream.write_all(head.as_bytes()).is_ok();
            while ok && left > 0 && !held() {
                let n = left.min(block.len() as u64) as usize;
                ok = if *chunked {
                    let mut piece = format!("{n:x}\r\n").into_bytes();
                    piece.extend_from_slice(&block[..n]);
                    piece.extend_from_slice(b"\r\n");
                    stream.write_all(&piece).is_ok()
                } else {
                    stream.write_all(&block[..n]).is_ok()
                };
                left -= n as u64;
            }
            if ok && *chunked {
                let _ = stream.write_all(b"0\r\n\r\n");
            }
        }
        WireFault::Raw(bytes) => {
            let _ = stream.write_all(bytes);
        }
        WireFault::Reset(at) => {
            let body = br#"{"accepted":0}"#;
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                body.len()
            );
            let _ = match at {
                ResetAt::BeforeAnswer => Ok(()),
                ResetAt::MidBody => stream
                    .write_all(head.as_bytes())
                    .and_then(|()| stream.write_all(&body[..body.len() / 2])),
                ResetAt::AfterAnswer => stream
                    .write_all(head.as_bytes())
                    .and_then(|()| stream.write_all(body)),
            };
            let _ = stream.flush();
            reset(stream);
            return;
        }
        WireFault::LyingLength {
            status,
            claimed,
            body,
        } => {
            let head = format!(
                "HTTP/1.1 {status} OK\r\nContent-Type: application/json\r\nContent-Length: {claimed}\r\n\r\n"
            );
            let _ = stream
                .write_all(head.as_bytes())
                .and_then(|()| stream.write_all(body));
        }
        WireFault::Redirect { status, location } => {
            let location: String = location.chars().filter(|c| !c.is_control()).collect();
            let head = format!(
                "HTTP/1.1 {status} Moved\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
            let _ = stream.write_all(head.as_bytes());
        }
        WireFault::EchoHeaders { status } => {
            let mut body = format!(
                "{} {} HTTP/1.{}\n",
                req.method, req.target, req.minor_version
            );
            for (k, v) in &req.headers {
                body.push_str(&format!("{k}: {v}\n"));
            }
            let head = format!(
                "HTTP/1.1 {status} Echo\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            let _ = stream
                .write_all(head.as_bytes())
                .and_then(|()| stream.write_all(body.as_bytes()));
        }
    }
    let _ = stream.flush();
    let _ = stream.shutdown(Shutdown::Both);
}

fn is_timeout(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
    )
}

/// Closes with a TCP RST (linger 0) rather than a FIN.
fn reset(stream: &Conn) {
    // Closing the last handle (the connection's end) then sends RST instead of FIN.
    stream.with_socket(|s| {
        let _ = socket2::SockRef::from(s).set_linger(Some(Duration::ZERO));
    });
}
