//! Helpers shared by the intake's raw-HTTP test binaries (each uses only part of them).
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use logship_intake::{Intake, IntakeConfig};
use serde_json::Value;

/// What the intake answered to one request.
pub struct Answer {
    pub status: u16,
    /// The `Content-Type` header ("" when absent).
    pub content_type: String,
    pub body: Vec<u8>,
}

/// The bytes of a request with `Content-Length`, `headers` and `body` (the headers may
/// include `Connection: close`).
pub fn request_bytes(method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Vec<u8> {
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {}\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    let mut raw = head.into_bytes();
    raw.extend_from_slice(body);
    raw
}

/// Sends one POST on a fresh connection (`Connection: close`) with `Content-Length` and
/// `headers`, and reads the whole answer.
pub fn post_once(intake: &Intake, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Answer {
    let mut stream = TcpStream::connect(intake.addr()).expect("connect");
    // Only a safety net so a broken server fails the test instead of hanging it.
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .expect("set read timeout");
    let mut all = vec![("Connection", "close")];
    all.extend_from_slice(headers);
    stream
        .write_all(&request_bytes("POST", path, &all, body))
        .expect("write");
    let mut response = Vec::new();
    stream.read_to_end(&mut response).expect("read");
    let split = response
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .expect("end of the answer's head");
    let head = String::from_utf8_lossy(&response[..split]).into_owned();
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status");
    let content_type = head
        .lines()
        .find_map(|l| {
            let (k, v) = l.split_once(':')?;
            k.eq_ignore_ascii_case("content-type")
                .then(|| v.trim().to_owned())
        })
        .unwrap_or_default();
    Answer {
        status,
        content_type,
        body: response[split + 4..].to_vec(),
    }
}

// ------------------------------------------- vendor emulations (Datadog, Splunk HEC,
// New Relic, Dynatrace) and their shared routing: one keep-alive client, refusal checks

pub const DD: &str = "/api/v2/logs";
pub const HEC: &str = "/services/collector/event";
pub const NR: &str = "/log/v1";
pub const DT: &str = "/api/v2/logs/ingest";

pub fn start() -> Intake {
    Intake::start(IntakeConfig::default()).expect("start intake")
}

pub fn start_with_key(key: &str) -> Intake {
    Intake::start(IntakeConfig {
        api_key: Some(key.to_string()),
        ..IntakeConfig::default()
    })
    .expect("start intake")
}

/// A parsed HTTP response.
#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "body {:?} is not JSON: {e}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }
}

/// A raw HTTP/1.1 client on one keep-alive connection.
pub struct Client {
    pub writer: TcpStream,
    pub reader: BufReader<TcpStream>,
}

impl Client {
    pub fn connect(intake: &Intake) -> Client {
        Client::connect_to(intake.addr())
    }

    /// Connects to `addr` (for client threads, which cannot borrow the intake).
    pub fn connect_to(addr: SocketAddr) -> Client {
        let stream = TcpStream::connect(addr).expect("connect");
        // Only a safety net so a broken server fails the test instead of hanging it.
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        let reader = BufReader::new(stream.try_clone().unwrap());
        Client {
            writer: stream,
            reader,
        }
    }

    /// Sends a request with `Content-Length` and the given headers, and
    /// reads the response.
    pub fn request(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Resp {
        self.send(method, path, headers, body);
        self.read_response()
    }

    /// Writes `bytes` as they are (framing mistakes included).
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).expect("write request");
    }

    /// Sends a request with `Content-Length` and the given headers, without reading.
    pub fn send(&mut self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) {
        self.send_raw(&request_bytes(method, path, headers, body));
    }

    pub fn post(&mut self, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Resp {
        self.request("POST", path, headers, body)
    }

    /// A POST whose only header is its `Content-Type`.
    pub fn post_typed(&mut self, path: &str, content_type: &str, body: &[u8]) -> Resp {
        self.post(path, &[("Content-Type", content_type)], body)
    }

    /// Reads one response (a 204 has no `Content-Length` and no body).
    pub fn read_response(&mut self) -> Resp {
        self.try_read_response().expect("a response, not EOF")
    }

    /// Reads one response; `None` if the server closed the connection first.
    pub fn try_read_response(&mut self) -> Option<Resp> {
        let mut line = String::new();
        match self.reader.read_line(&mut line) {
            Ok(0) | Err(_) => return None,
            Ok(_) => {}
        }
        let mut parts = line.trim_end().splitn(3, ' ');
        assert_eq!(parts.next(), Some("HTTP/1.1"), "status line {line:?}");
        let status: u16 = parts.next().unwrap().parse().unwrap();
        let mut headers = Vec::new();
        loop {
            let mut h = String::new();
            self.reader.read_line(&mut h).expect("header line");
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            let (k, v) = h.split_once(':').expect("header has ':'");
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
        let len = headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
            .map(|(_, v)| v.parse::<usize>().unwrap());
        let len = match (status, len) {
            (204, None) => 0,
            (204, Some(_)) => panic!("a 204 response must not carry Content-Length"),
            (_, len) => len.expect("response has Content-Length"),
        };
        let mut body = vec![0; len];
        self.reader.read_exact(&mut body).expect("response body");
        Some(Resp {
            status,
            headers,
            body,
        })
    }

    /// True when the server closed the connection (EOF or reset) without sending anything.
    pub fn is_closed_by_server(&mut self) -> bool {
        let mut buf = [0u8; 1];
        matches!(self.reader.read(&mut buf), Ok(0) | Err(_))
    }
}

/// The events as an NDJSON body.
pub fn ndjson(events: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for e in events {
        out.extend_from_slice(e.to_string().as_bytes());
        out.push(b'\n');
    }
    out
}

pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

pub fn bytes(v: &Value) -> Vec<u8> {
    v.to_string().into_bytes()
}

/// A refusal case: request headers, body, expected status, violation text.
pub type Case = (
    Vec<(&'static str, &'static str)>,
    Vec<u8>,
    u16,
    &'static str,
);

/// Sends a request that must be refused with `status` and exactly one new
/// violation containing `needle`, accepting no event. Returns the response.
pub fn expect_violation(
    intake: &Intake,
    client: &mut Client,
    (path, headers, body): (&str, &[(&str, &str)], &[u8]),
    status: u16,
    needle: &str,
) -> Resp {
    let before = intake.violations().len();
    let events_before = intake.stats().events;
    let resp = client.post(path, headers, body);
    let context = format!(
        "case {needle:?}: answered {} {}",
        resp.status,
        String::from_utf8_lossy(&resp.body)
    );
    assert_eq!(resp.status, status, "{context}");
    let violations = intake.violations();
    assert_eq!(violations.len(), before + 1, "{context}; {violations:?}");
    assert!(
        violations[before].contains(needle),
        "{context}; violation {:?}",
        violations[before]
    );
    assert_eq!(intake.stats().events, events_before, "{context}");
    resp
}

/// Sends a request that must be refused for its credential: `status`, no
/// violation, one more auth failure, no event. Returns the response.
pub fn expect_auth_failure(
    intake: &Intake,
    client: &mut Client,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    status: u16,
) -> Resp {
    let before = intake.stats();
    let resp = client.post(path, headers, body);
    let after = intake.stats();
    assert_eq!(resp.status, status, "{headers:?}: {:?}", resp.json());
    assert_eq!(after.auth_failures, before.auth_failures + 1, "{headers:?}");
    assert_eq!(after.violations, before.violations, "{headers:?}");
    assert_eq!(after.events, before.events, "{headers:?}");
    assert_eq!(after.rejected_requests, before.rejected_requests + 1);
    resp
}
