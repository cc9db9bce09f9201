//! Helpers shared by the intake's raw-HTTP test binaries (each uses only part of them).
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use logship_intake::Intake;

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
