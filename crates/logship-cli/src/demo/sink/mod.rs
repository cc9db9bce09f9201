//! The demo's local intake: an in-process HTTP/1.1 sink on 127.0.0.1 that takes what
//! logship delivers for one vendor, counts its events and answers as the vendor does.
//!
//! Why it exists: `logship demo` needs no network and no account, and the product binary
//! must not carry the strict test intake (`logship-intake`, a test tool). So the demo has
//! this small sink of its own: it reads each request with `logship-http`'s parser, undoes
//! its `Content-Encoding`, reads its events ([`receive`]), hands their probes (log time,
//! request id) to the demo's observer with the arrival time, counts them, and answers the
//! vendor's success shape. It plays dead on demand (`--outage-after`) and serves HTTPS
//! with a throwaway CA (`--tls`).
//!
//! Must never: listen beyond 127.0.0.1; grow without bound (at most
//! [`MAX_CONNECTIONS`] connections, bodies bounded, nothing kept but a counter); wait
//! forever (every socket read and write has a timeout); or outlive its handle (dropping
//! it closes every connection and joins every thread).

mod receive;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::io::BufReader;
use std::net::{Ipv4Addr, Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant, SystemTime};

use logship::Vendor;
use logship_http::tls::{self, Conn, TlsServer};
use logship_http::{decoded_body, read_request, write_response, ReadError, Response};

pub use receive::Probe;

/// Most connections served at once; more are closed at once (logship opens a few).
pub const MAX_CONNECTIONS: usize = 256;
/// Largest request body, on the wire and decoded (every vendor's limit is below it).
const MAX_BODY_BYTES: usize = 64 * 1024 * 1024;
/// A connection idle (or stalled mid-request) this long is closed.
const IDLE_TIMEOUT: Duration = Duration::from_secs(30);
/// Longest time a TLS handshake may take.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// Called with the probes of each request's events and the time the request arrived.
pub type Observer = Box<dyn Fn(&[Probe], SystemTime) + Send + Sync>;

/// A running sink. Dropping it stops it: the listener closes, open connections are shut
/// down and every thread is joined.
pub struct Sink {
    shared: Arc<Shared>,
    addr: SocketAddr,
    tls: bool,
    accept: Option<JoinHandle<()>>,
}

/// What the accept loop and the connection threads share.
struct Shared {
    vendor: Vendor,
    observer: Observer,
    /// Events counted so far, and a signal when the count grows.
    events: Mutex<u64>,
    counted: Condvar,
    down: AtomicBool,
    stop: AtomicBool,
    /// Open connections (a clone of each socket), so that stopping can unblock them.
    open: Mutex<HashMap<u64, TcpStream>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Sink {
    /// Listens on a free port of 127.0.0.1 for `vendor`'s requests, over TLS when `tls`
    /// is given; `observer` sees every event's probes.
    pub fn start(
        vendor: Vendor,
        tls: Option<TlsServer>,
        observer: Observer,
    ) -> std::io::Result<Sink> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
        let addr = listener.local_addr()?;
        let shared = Arc::new(Shared {
            vendor,
            observer,
            events: Mutex::new(0),
            counted: Condvar::new(),
            down: AtomicBool::new(false),
            stop: AtomicBool::new(false),
            open: Mutex::new(HashMap::new()),
        });
        let is_tls = tls.is_some();
        let accept = {
            let shared = Arc::clone(&shared);
            thread::Builder::new()
                .name("logship-demo-sink".into())
                .spawn(move || accept_loop(&listener, &shared, tls.as_ref()))?
        };
        Ok(Sink {
            shared,
            addr,
            tls: is_tls,
            accept: Some(accept),
        })
    }

    /// `http://127.0.0.1:PORT` (`https://` with TLS) followed by `path`.
    pub fn url(&self, path: &str) -> String {
        let scheme = if self.tls { "https" } else { "http" };
        format!("{scheme}://{}{path}", self.addr)
    }

    /// The port it listens on.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Whether it serves HTTPS.
    pub fn is_tls(&self) -> bool {
        self.tls
    }

    /// Plays dead (`true`) or comes back (`false`): while down, a new connection is closed
    /// before a byte is read, and a request on a connection opened before is dropped
    /// unanswered (so a pooled keep-alive connection cannot be used either).
    pub fn set_down(&self, down: bool) {
        self.shared.down.store(down, Ordering::Release);
    }

    /// Events counted so far (a request delivered twice counts twice).
    pub fn events(&self) -> u64 {
        *lock(&self.shared.events)
    }

    /// Waits until at least `n` events were counted, at most `within`; whether they were.
    pub fn wait_for_events(&self, n: u64, within: Duration) -> bool {
        let deadline = Instant::now() + within;
        let mut events = lock(&self.shared.events);
        while *events < n {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                return false;
            };
            events = self
                .shared
                .counted
                .wait_timeout(events, left)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        true
    }
}

impl Drop for Sink {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::Release);
        // Wake the blocking accept() so that the accept thread sees the flag; if that
        // fails, accept() may never return: detach rather than hang.
        let woke = TcpStream::connect_timeout(&self.addr, Duration::from_secs(2)).is_ok();
        if let (true, Some(handle)) = (woke, self.accept.take()) {
            let _ = handle.join();
        }
    }
}

/// Accepts connections until stopped, then shuts the open ones and joins their threads.
fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>, tls: Option<&TlsServer>) {
    let mut workers: Vec<JoinHandle<()>> = Vec::new();
    let mut next_id = 0u64;
    loop {
        let accepted = listener.accept();
        if shared.stop.load(Ordering::Acquire) {
            break;
        }
        let Ok((stream, _)) = accepted else {
            // Typically out of file descriptors: back off instead of spinning.
            thread::sleep(Duration::from_millis(10));
            continue;
        };
        workers.retain(|h| !h.is_finished());
        if shared.down.load(Ordering::Acquire) || workers.len() >= MAX_CONNECTIONS {
            continue; // closed before a byte is read
        }
        let Ok(registered) = stream.try_clone() else {
            continue;
        };
        next_id += 1;
        let id = next_id;
        lock(&shared.open).insert(id, registered);
        let (mine, tls) = (Arc::clone(shared), tls.cloned());
        let spawned = thread::Builder::new()
            .name("logship-demo-sink-conn".into())
            .spawn(move || {
                connection(&mine, stream, tls.as_ref());
                lock(&mine.open).remove(&id);
            });
        match spawned {
            Ok(handle) => workers.push(handle),
            Err(_) => {
                if let Some(s) = lock(&shared.open).remove(&id) {
                    let _ = s.shutdown(Shutdown::Both);
                }
            }
        }
    }
    let open: Vec<TcpStream> = lock(&shared.open).drain().map(|(_, s)| s).collect();
    for s in open {
        let _ = s.shutdown(Shutdown::Both);
    }
    for handle in workers {
        let _ = handle.join();
    }
}

/// Serves one keep-alive connection (after the TLS handshake, with TLS) until it ends.
fn connection(shared: &Shared, stream: TcpStream, tls: Option<&TlsServer>) {
    let _ = stream.set_nodelay(true);
    let timeout = if tls.is_some() {
        HANDSHAKE_TIMEOUT
    } else {
        IDLE_TIMEOUT
    };
    let _ = stream.set_read_timeout(Some(timeout));
    let _ = stream.set_write_timeout(Some(timeout));
    let stream = match tls {
        None => Conn::Plain(stream),
        Some(server) => match tls::accept(server, stream) {
            Ok(conn) => conn,
            Err(_) => return, // the socket closes; logship reports what it saw
        },
    };
    let _ = stream.set_read_timeout(Some(IDLE_TIMEOUT));
    let _ = stream.with_socket(|s| s.set_write_timeout(Some(IDLE_TIMEOUT)));
    let Ok(read_half) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(read_half);
    let mut writer = stream;
    while !shared.stop.load(Ordering::Acquire) {
        let req = match read_request(&mut reader, &mut writer, MAX_BODY_BYTES as u64) {
            Ok(Some(req)) => req,
            Ok(None) | Err(ReadError::Io(_)) => break,
            Err(ReadError::Bad {
                status, message, ..
            }) => {
                let _ = write_response(&mut writer, &Response::error(status, &message), true);
                break;
            }
        };
        if shared.down.load(Ordering::Acquire) {
            break; // down while this connection was open: dropped unanswered
        }
        let arrival = SystemTime::now();
        let close = req.wants_close();
        let response = shared.answer(&req, arrival);
        if write_response(&mut writer, &response, close).is_err() || close {
            break;
        }
    }
    let _ = writer.shutdown(Shutdown::Both);
}

impl Shared {
    /// Reads one request's events, shows them to the observer, counts them, and returns
    /// the vendor's answer (or a 4xx for a body it cannot read).
    fn answer(&self, req: &logship_http::Request, arrival: SystemTime) -> Response {
        if req.method != "POST" {
            return Response::error(405, "the demo's sink takes POST requests only");
        }
        let body = match decoded_body(req, MAX_BODY_BYTES) {
            Ok(body) => body,
            Err(e) => return Response::error(e.status, &e.message),
        };
        match receive::receive(self.vendor, req, &body) {
            Ok(received) => {
                (self.observer)(&received.probes, arrival);
                *lock(&self.events) += received.probes.len() as u64;
                self.counted.notify_all();
                received.response
            }
            Err(message) => Response::error(400, &message),
        }
    }
}
