//! A raw HTTP/1.1 client over one `TcpStream`, for the intake's end-to-end test binaries:
//! no HTTP client crate, so a test controls every byte on the wire (framing mistakes
//! included).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use logship_intake::Intake;
use serde_json::Value;

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
        serde_json::from_slice(&self.body).expect("response body is JSON")
    }
}

/// A raw HTTP/1.1 client on one TCP connection.
pub struct Client {
    writer: TcpStream,
    reader: BufReader<TcpStream>,
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
            .set_read_timeout(Some(Duration::from_secs(30)))
            .unwrap();
        let reader = BufReader::new(stream.try_clone().unwrap());
        Client {
            writer: stream,
            reader,
        }
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).expect("write request");
    }

    /// Sends a request with `Content-Length` and the given extra headers.
    pub fn send(&mut self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) {
        self.send_raw(&super::request_bytes(method, path, headers, body));
    }

    pub fn request(
        &mut self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: &[u8],
    ) -> Resp {
        self.send(method, path, headers, body);
        self.read_response().expect("a response, not EOF")
    }

    pub fn post(&mut self, path: &str, content_type: &str, body: &[u8]) -> Resp {
        self.request("POST", path, &[("Content-Type", content_type)], body)
    }

    /// Reads one response; `None` if the server closed the connection first.
    pub fn read_response(&mut self) -> Option<Resp> {
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
        let len: usize = headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
            .map(|(_, v)| v.parse().unwrap())
            .expect("response has Content-Length");
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

pub fn ndjson(events: &[Value]) -> Vec<u8> {
    let mut out = Vec::new();
    for e in events {
        out.extend_from_slice(e.to_string().as_bytes());
        out.push(b'\n');
    }
    out
}
