//! Writing an HTTP/1.1 response: status line, the caller's headers, framing added here.
//!
//! Why it exists apart from the parser: every server of the workspace (the test intake,
//! `logship ship --listen`, the demo's sink) answers through [`write_response`], which
//! owns the framing. Must never: let a caller's header break the framing (its
//! `Content-Length`, `Transfer-Encoding` and `Connection` are dropped, and so is any
//! header holding a line break), or send a body where HTTP forbids one.

use std::io::{self, Write};

/// An HTTP response to be written to the client.
#[derive(Debug, Clone)]
pub struct Response {
    /// Status code.
    pub status: u16,
    /// Extra header fields (framing headers are added by [`write_response`]).
    pub headers: Vec<(String, String)>,
    /// Response body.
    pub body: Vec<u8>,
}

impl Response {
    /// A response with a JSON body.
    pub fn json(status: u16, value: &serde_json::Value) -> Response {
        Response {
            status,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: value.to_string().into_bytes(),
        }
    }

    /// A response without body (e.g. `204 No Content`).
    pub fn empty(status: u16) -> Response {
        Response {
            status,
            headers: Vec::new(),
            body: Vec::new(),
        }
    }

    /// A JSON error response of the shape `{"error": message}`.
    pub fn error(status: u16, message: &str) -> Response {
        Response::json(status, &serde_json::json!({ "error": message }))
    }
}

/// Canonical reason phrase for the status codes the intake emits.
fn reason(status: u16) -> &'static str {
    match status {
        100 => "Continue",
        200 => "OK",
        201 => "Created",
        202 => "Accepted",
        204 => "No Content",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        404 => "Not Found",
        405 => "Method Not Allowed",
        408 => "Request Timeout",
        411 => "Length Required",
        406 => "Not Acceptable",
        413 => "Content Too Large",
        415 => "Unsupported Media Type",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        _ => "Status",
    }
}

/// Writes `resp` with a `Content-Length` (and `Connection: close` when
/// `close` is set) as a single buffer, then flushes. A 204 or 304 response
/// is written without `Content-Length` and without body, as HTTP requires.
///
/// Caller-supplied `Content-Length`, `Transfer-Encoding` and `Connection`
/// headers are dropped so a fault definition can never break the framing.
pub fn write_response<W: Write>(w: &mut W, resp: &Response, close: bool) -> io::Result<()> {
    let mut out = Vec::with_capacity(128 + resp.body.len());
    out.extend_from_slice(
        format!("HTTP/1.1 {} {}\r\n", resp.status, reason(resp.status)).as_bytes(),
    );
    for (k, v) in &resp.headers {
        let framing = ["content-length", "transfer-encoding", "connection"]
            .iter()
            .any(|f| k.eq_ignore_ascii_case(f));
        if framing || k.contains(['\r', '\n']) || v.contains(['\r', '\n']) {
            continue;
        }
        out.extend_from_slice(format!("{k}: {v}\r\n").as_bytes());
    }
    // RFC 9110 8.6: no Content-Length (and no body) on 1xx, 204 and 304.
    let bodyless = resp.status < 200 || resp.status == 204 || resp.status == 304;
    if !bodyless {
        out.extend_from_slice(format!("Content-Length: {}\r\n", resp.body.len()).as_bytes());
    }
    if close {
        out.extend_from_slice(b"Connection: close\r\n");
    }
    out.extend_from_slice(b"\r\n");
    if !bodyless {
        out.extend_from_slice(&resp.body);
    }
    w.write_all(&out)?;
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn response_framing_cannot_be_overridden() {
        let mut out = Vec::new();
        let resp = Response {
            status: 503,
            headers: vec![
                ("Retry-After".into(), "3".into()),
                ("Content-Length".into(), "999".into()),
                ("X-Evil".into(), "a\r\nb".into()),
            ],
            body: b"hi".to_vec(),
        };
        write_response(&mut out, &resp, true).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 3\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi"
        );
    }
}
