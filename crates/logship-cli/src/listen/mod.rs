//! `logship ship --listen URL`: receive what existing appenders, agents and SDKs send
//! (HTTP bodies and vendor push APIs, TCP lines, syslog over TCP and UDP) and ship it
//! through the same pipeline as `--follow`, in the same process.
//!
//! Why it exists: a program that does not link logship adopts it by configuration alone
//! (point Log4j2's `Http` appender, a syslog daemon or an OTLP exporter at a local
//! listener); logship batches, compresses, retries, spills and ships for it.
//!
//! This file parses the URLs ([`Spec`]), binds every listener before the pipeline starts
//! (a bad URL or a port in use is a usage error naming it, exit 2), starts each input's
//! thread, prints `logship: listening on <scheme>://<ip>:<port>` once bound (tests read
//! the port from it), and stops and joins them at shutdown.
//!
//! Must never: bind anything but what the user named, start when a listener cannot
//! bind, or let a stopped listener keep a thread (every input returns soon after `stop`).

pub(crate) mod http;
mod stop;
pub(crate) mod stream;

use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener, UdpSocket};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use logship_cli::exit::Failure;

/// What a listener receives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Scheme {
    /// `http://`: generic bodies and the vendor push APIs.
    Http,
    /// `tcp://`: newline- or NUL-delimited JSON or text.
    Tcp,
    /// `syslog+tcp://`.
    SyslogTcp,
    /// `syslog+udp://`.
    SyslogUdp,
}

impl Scheme {
    /// The scheme as written in URLs.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Scheme::Http => "http",
            Scheme::Tcp => "tcp",
            Scheme::SyslogTcp => "syslog+tcp",
            Scheme::SyslogUdp => "syslog+udp",
        }
    }
}

/// One `--listen URL`, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Spec {
    /// What it receives.
    pub scheme: Scheme,
    /// Where it listens (port 0: a free port).
    pub addr: SocketAddr,
}

const SCHEMES: &str = "http://, tcp://, syslog+tcp:// or syslog+udp://";

/// How to write a listen URL (the fix of most problems with one).
const HOW: &str = "write it as http://127.0.0.1:8080 (or tcp://, syslog+tcp://, syslog+udp://)";

/// What is wrong with a listen URL, and how to write it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct BadUrl {
    /// What is wrong (`has no port`).
    pub problem: String,
    /// How to write it.
    pub fix: String,
}

impl std::fmt::Display for BadUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.problem, self.fix)
    }
}

impl Spec {
    /// Parses `SCHEME://HOST:PORT` (HOST an IP address or `localhost`; an `http` URL may
    /// end with `/`). The error says what is wrong and how to write it (without the
    /// option's name: the caller says where the value came from).
    pub(crate) fn parse(url: &str) -> Result<Spec, BadUrl> {
        let bad = |problem: String, fix: &str| BadUrl {
            problem,
            fix: fix.to_owned(),
        };
        let Some((scheme, rest)) = url.split_once("://") else {
            return Err(bad("has no scheme".into(), HOW));
        };
        let scheme = match scheme.to_ascii_lowercase().as_str() {
            "http" => Scheme::Http,
            "tcp" => Scheme::Tcp,
            "syslog+tcp" => Scheme::SyslogTcp,
            "syslog+udp" => Scheme::SyslogUdp,
            other => {
                let hint =
                    match logship::did_you_mean(other, ["http", "tcp", "syslog+tcp", "syslog+udp"])
                    {
                        Some(s) => format!("did you mean {s}://?"),
                        None => format!("use {SCHEMES}"),
                    };
                return Err(bad(
                    format!("unknown scheme {other:?}"),
                    &format!("{hint}; https is not served: terminate TLS in front of logship"),
                ));
            }
        };
        let authority = match (scheme, rest.split_once('/')) {
            (_, None) => rest,
            (Scheme::Http, Some((a, ""))) => a,
            (_, Some(_)) => {
                return Err(bad(
                    "a listener URL has no path (every path is served)".into(),
                    HOW,
                ))
            }
        };
        let Some((host, port)) = authority.rsplit_once(':') else {
            return Err(bad(
                "has no port".into(),
                &format!("{HOW}; port 0 picks a free one"),
            ));
        };
        let port: u16 = port.parse().map_err(|_| {
            bad(
                format!("port {port:?} is not a number from 0 to 65535"),
                HOW,
            )
        })?;
        let host = host.trim_start_matches('[').trim_end_matches(']');
        let ip: IpAddr = if host.eq_ignore_ascii_case("localhost") {
            IpAddr::V4(Ipv4Addr::LOCALHOST)
        } else if host.is_empty() {
            return Err(bad(
                "has no host".into(),
                "write 127.0.0.1 to listen on loopback only, 0.0.0.0 for every interface",
            ));
        } else {
            host.parse().map_err(|_| {
                bad(
                    format!("host {host:?} is not an IP address"),
                    "write 127.0.0.1, 0.0.0.0 or ::1; names are not resolved",
                )
            })?
        };
        Ok(Spec {
            scheme,
            addr: SocketAddr::new(ip, port),
        })
    }
}

/// What the listeners listen on and their limits: the `[listen]` keys, checked
/// (`crate::settings`).
#[derive(Clone, Debug)]
pub(crate) struct Listen {
    /// Where to listen (empty: not listening).
    pub specs: Vec<Spec>,
    /// Kafka topics to consume (`kafka://` inputs; see `crate::kafka`).
    pub kafka: Vec<crate::kafka::spec::KafkaSpec>,
    /// SASL and TLS of the Kafka inputs (librdkafka's properties; `Debug` hides values).
    pub kafka_security: crate::kafka::security::Security,
    /// Most connections per listener.
    pub max_connections: usize,
    /// Idle connections are closed after this.
    pub idle_timeout: Duration,
    /// The UDP socket's receive buffer to ask for (0: the system's default).
    pub udp_receive_buffer: usize,
    /// The HTTP server's options.
    pub http: http::Options,
}

/// A listener bound, not yet served.
pub(crate) enum Socket {
    /// An HTTP or TCP listener.
    Tcp(TcpListener),
    /// A UDP socket.
    Udp(UdpSocket),
}

/// Every listener, bound before the pipeline starts.
pub(crate) struct Bound {
    sockets: Vec<(Spec, Socket)>,
}

/// Binds every spec; a failure is a usage error naming the URL and the fix.
pub(crate) fn bind(specs: &[Spec]) -> Result<Bound, Failure> {
    let mut sockets = Vec::with_capacity(specs.len());
    for spec in specs {
        let url = format!("{}://{}", spec.scheme.as_str(), spec.addr);
        let failed = |e: std::io::Error| {
            Failure::usage(format!(
                "cannot listen on {url}: {e} (another program may hold the port: pick another, or port 0 for a free one)"
            ))
        };
        let socket = match spec.scheme {
            Scheme::SyslogUdp => Socket::Udp(UdpSocket::bind(spec.addr).map_err(failed)?),
            _ => Socket::Tcp(TcpListener::bind(spec.addr).map_err(failed)?),
        };
        sockets.push((spec.clone(), socket));
    }
    Ok(Bound { sockets })
}

/// The running listeners.
pub(crate) struct Listeners {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
    /// Addresses of the HTTP and TCP listeners, connected to once at stop so that a
    /// blocked `accept` returns.
    wake: Vec<SocketAddr>,
    /// What the HTTP inputs counted.
    pub http: Arc<http::Counters>,
    /// What the stream inputs counted.
    pub stream: Arc<stream::Counters>,
}

/// How long [`Listeners::stop`] waits for the inputs to push what they received.
const STOP_WAIT: Duration = Duration::from_secs(5);

impl Listeners {
    /// Serves every bound listener into `logship`, printing one `listening on` line
    /// each. A listener whose input cannot start is a usage error naming it.
    pub(crate) fn start(
        bound: Bound,
        logship: &logship::Logship,
        options: &Listen,
        max_event_bytes: usize,
    ) -> Result<Listeners, Failure> {
        let mut listeners = Listeners {
            stop: Arc::new(AtomicBool::new(false)),
            threads: Vec::new(),
            wake: Vec::new(),
            http: Arc::new(http::Counters::default()),
            stream: Arc::new(stream::Counters::default()),
        };
        let limits = stream::Limits {
            max_event_bytes,
            read_cap: crate::lines::room::read_cap(max_event_bytes),
            max_connections: options.max_connections,
            idle_timeout: options.idle_timeout,
            udp_receive_buffer: options.udp_receive_buffer,
        };
        for (spec, socket) in bound.sockets {
            let local = match &socket {
                Socket::Tcp(l) => l.local_addr(),
                Socket::Udp(u) => u.local_addr(),
            }
            .unwrap_or(spec.addr);
            let url = format!("{}://{local}", spec.scheme.as_str());
            let stop = Arc::clone(&listeners.stop);
            let started = match (spec.scheme, socket) {
                (Scheme::Http, Socket::Tcp(l)) => http::serve(
                    l,
                    logship.clone(),
                    Arc::clone(&listeners.http),
                    stop,
                    options.http.clone(),
                ),
                (Scheme::Tcp, Socket::Tcp(l)) => stream::serve_tcp(
                    l,
                    stream::Framing::Lines,
                    logship.clone(),
                    Arc::clone(&listeners.stream),
                    stop,
                    limits,
                ),
                (Scheme::SyslogTcp, Socket::Tcp(l)) => stream::serve_tcp(
                    l,
                    stream::Framing::Syslog,
                    logship.clone(),
                    Arc::clone(&listeners.stream),
                    stop,
                    limits,
                ),
                (_, Socket::Udp(u)) => stream::serve_udp(
                    u,
                    logship.clone(),
                    Arc::clone(&listeners.stream),
                    stop,
                    limits,
                ),
                (_, Socket::Tcp(_)) => Err(std::io::Error::other("no such input")),
            };
            match started {
                Ok(handle) => listeners.threads.push(handle),
                Err(e) => {
                    listeners.stop();
                    return Err(Failure::usage(format!("cannot serve {url}: {e}")));
                }
            }
            if spec.scheme != Scheme::SyslogUdp {
                listeners.wake.push(wake_addr(local));
            }
            eprintln!("logship: listening on {url}");
        }
        Ok(listeners)
    }

    /// Stops accepting and reading; waits (at most [`STOP_WAIT`]) for every input to push
    /// what it fully received and answer it. Returns whether every input stopped.
    pub(crate) fn stop(&mut self) -> bool {
        self.stop.store(true, Ordering::Release);
        for addr in &self.wake {
            let _ = std::net::TcpStream::connect_timeout(addr, Duration::from_millis(100));
        }
        let deadline = Instant::now() + STOP_WAIT;
        let mut all = true;
        for handle in self.threads.drain(..) {
            while !handle.is_finished() && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
            if handle.is_finished() {
                let _ = handle.join();
            } else {
                all = false;
            }
        }
        all
    }
}

/// The address to connect to to wake a listener bound to `local` (an unspecified
/// address is reached on loopback).
fn wake_addr(local: SocketAddr) -> SocketAddr {
    match local.ip() {
        IpAddr::V4(ip) if ip.is_unspecified() => {
            SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), local.port())
        }
        IpAddr::V6(ip) if ip.is_unspecified() => {
            SocketAddr::new(IpAddr::V6(std::net::Ipv6Addr::LOCALHOST), local.port())
        }
        _ => local,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_of_every_scheme_parse_and_bad_ones_say_how_to_write_them() {
        let s = Spec::parse("http://127.0.0.1:0").unwrap();
        assert_eq!((s.scheme, s.addr.port()), (Scheme::Http, 0));
        assert_eq!(
            Spec::parse("http://127.0.0.1:8080/").unwrap().addr.port(),
            8080
        );
        assert_eq!(
            Spec::parse("tcp://localhost:5170").unwrap().scheme,
            Scheme::Tcp
        );
        assert_eq!(
            Spec::parse("syslog+tcp://0.0.0.0:514").unwrap().scheme,
            Scheme::SyslogTcp
        );
        let u = Spec::parse("SYSLOG+UDP://[::1]:514").unwrap();
        assert_eq!(u.scheme, Scheme::SyslogUdp);
        assert!(u.addr.is_ipv6());
        for (bad, says) in [
            ("127.0.0.1:80", "no scheme"),
            ("htp://127.0.0.1:80", "did you mean http://"),
            ("https://127.0.0.1:80", "terminate TLS"),
            ("http://127.0.0.1", "no port"),
            ("http://127.0.0.1:99999", "0 to 65535"),
            ("http://:80", "no host"),
            ("http://example.com:80", "not an IP address"),
            ("tcp://127.0.0.1:80/x", "no path"),
        ] {
            let e = Spec::parse(bad).unwrap_err().to_string();
            assert!(e.contains(says), "{bad}: {e}");
        }
    }
}
