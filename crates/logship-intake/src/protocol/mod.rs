//! Intake protocols: how a request on a given path is authenticated,
//! decoded and validated, and what a successful answer looks like.
//!
//! Each supported intake dialect (today the [`generic`] one; later Datadog,
//! Splunk HEC, New Relic, Dynatrace, OTLP, Loki, Elasticsearch) is one module
//! with one entry in [`Protocol`]. The server routes a request with
//! [`Protocol::route`] and asks [`Protocol::handle`] for either the accepted
//! events plus the success response, or a [`Rejection`] whose message is
//! recorded as a protocol violation. The shared helpers below (body decoding,
//! NDJSON / JSON parsing) are meant to be reused by those vendor modules.

pub(crate) mod generic;

use std::io::Read;

use serde_json::Value;

use crate::http::{Request, Response};

/// Largest decompressed body accepted, to survive a gzip bomb.
pub(crate) const MAX_DECODED_BODY: u64 = 512 * 1024 * 1024;

/// A request that a protocol accepted.
#[derive(Debug)]
pub(crate) struct Accepted {
    /// The events it carried, one JSON object each.
    pub events: Vec<Value>,
    /// Size of the body after `Content-Encoding` decoding.
    pub decoded_bytes: usize,
    /// The success response to send.
    pub response: Response,
}

/// A request that breaks the protocol: what to answer and why.
#[derive(Debug)]
pub(crate) struct Rejection {
    /// The error response to send.
    pub response: Response,
    /// Violation message recorded for the test to see.
    pub violation: String,
    /// Decoded body size, if decoding got that far.
    pub decoded_bytes: Option<usize>,
}

impl Rejection {
    /// A rejection with a JSON `{"error": message}` body.
    pub fn new(status: u16, message: impl Into<String>) -> Rejection {
        let violation = message.into();
        Rejection {
            response: Response::error(status, &violation),
            violation,
            decoded_bytes: None,
        }
    }

    /// Attaches the decoded body size.
    pub fn with_decoded(mut self, decoded_bytes: usize) -> Rejection {
        self.decoded_bytes = Some(decoded_bytes);
        self
    }
}

/// The intake dialects the server can speak, selected by request path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Protocol {
    /// logship's own format on any path: see [`generic`].
    Generic,
}

impl Protocol {
    /// Chooses the protocol serving `path` (control paths are routed earlier).
    pub fn route(_path: &str) -> Protocol {
        Protocol::Generic
    }

    /// Validates and decodes `req` according to this protocol.
    pub fn handle(self, req: &Request) -> Result<Accepted, Rejection> {
        match self {
            Protocol::Generic => generic::handle(req),
        }
    }
}

/// Requires method `POST` (405 otherwise).
pub(crate) fn require_post(req: &Request) -> Result<(), Rejection> {
    if req.method == "POST" {
        Ok(())
    } else {
        let mut r = Rejection::new(
            405,
            format!("method {} not allowed; logship must POST", req.method),
        );
        r.response.headers.push(("Allow".into(), "POST".into()));
        Err(r)
    }
}

/// Requires a `Content-Length` framed body: chunked transfer coding is 411.
pub(crate) fn require_content_length(req: &Request) -> Result<(), Rejection> {
    if req.chunked {
        return Err(Rejection::new(
            411,
            "chunked body; logship must always send Content-Length",
        ));
    }
    if req.content_length.is_none() {
        return Err(Rejection::new(411, "missing Content-Length"));
    }
    Ok(())
}

/// The media type of `Content-Type`, lowercased, without parameters.
pub(crate) fn media_type(req: &Request) -> Option<String> {
    let ct = req.header("content-type")?;
    let mt = ct
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    (!mt.is_empty()).then_some(mt)
}

/// Undoes `Content-Encoding`: identity or gzip (415 for anything else, 400
/// for a corrupt gzip stream, 413 beyond [`MAX_DECODED_BODY`]).
pub(crate) fn decode_body(req: &Request) -> Result<Vec<u8>, Rejection> {
    let encoding = req
        .header("content-encoding")
        .unwrap_or("identity")
        .trim()
        .to_ascii_lowercase();
    match encoding.as_str() {
        "" | "identity" => Ok(req.body.clone()),
        "gzip" | "x-gzip" => gunzip(&req.body),
        other => Err(Rejection::new(
            415,
            format!("unsupported Content-Encoding {other:?}"),
        )),
    }
}

/// Decompresses exactly one gzip member that must span the whole body.
fn gunzip(body: &[u8]) -> Result<Vec<u8>, Rejection> {
    let mut decoder = flate2::bufread::GzDecoder::new(body);
    let mut out = Vec::new();
    if let Err(e) = decoder
        .by_ref()
        .take(MAX_DECODED_BODY + 1)
        .read_to_end(&mut out)
    {
        return Err(Rejection::new(400, format!("invalid gzip body: {e}")));
    }
    if out.len() as u64 > MAX_DECODED_BODY {
        return Err(Rejection::new(
            413,
            format!("gzip body inflates beyond {MAX_DECODED_BODY} bytes"),
        ));
    }
    let rest = decoder.into_inner();
    if !rest.is_empty() {
        return Err(Rejection::new(
            400,
            format!(
                "{} bytes of trailing data after the gzip stream",
                rest.len()
            ),
        )
        .with_decoded(out.len()));
    }
    Ok(out)
}

/// Parses newline-delimited JSON: every non-blank line must be one object.
pub(crate) fn parse_ndjson(body: &[u8]) -> Result<Vec<Value>, Rejection> {
    let mut events = Vec::new();
    for (i, line) in body.split(|&b| b == b'\n').enumerate() {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Value>(line) {
            Ok(v @ Value::Object(_)) => events.push(v),
            Ok(other) => {
                return Err(Rejection::new(
                    400,
                    format!("NDJSON line {} is a {}, not an object", i + 1, kind(&other)),
                ))
            }
            Err(e) => {
                return Err(Rejection::new(
                    400,
                    format!("NDJSON line {} is not valid JSON: {e}", i + 1),
                ))
            }
        }
    }
    Ok(events)
}

/// Parses a JSON body that is an array of objects or a single object.
pub(crate) fn parse_json_events(body: &[u8]) -> Result<Vec<Value>, Rejection> {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Array(items)) => {
            if let Some((i, bad)) = items.iter().enumerate().find(|(_, v)| !v.is_object()) {
                return Err(Rejection::new(
                    400,
                    format!("JSON array element {i} is a {}, not an object", kind(bad)),
                ));
            }
            Ok(items)
        }
        Ok(v @ Value::Object(_)) => Ok(vec![v]),
        Ok(other) => Err(Rejection::new(
            400,
            format!(
                "JSON body is a {}, not an object or array of objects",
                kind(&other)
            ),
        )),
        Err(e) => Err(Rejection::new(400, format!("body is not valid JSON: {e}"))),
    }
}

/// Human name of a JSON value's type, for violation messages.
fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    }

    #[test]
    fn gunzip_round_trips_and_rejects_garbage() {
        assert_eq!(gunzip(&gzip(b"hello")).unwrap(), b"hello");
        assert_eq!(gunzip(b"not gzip").unwrap_err().response.status, 400);
        assert_eq!(gunzip(b"").unwrap_err().response.status, 400);
        let mut truncated = gzip(b"hello world");
        truncated.truncate(truncated.len() - 3);
        assert_eq!(gunzip(&truncated).unwrap_err().response.status, 400);
        let mut trailing = gzip(b"hello");
        trailing.extend_from_slice(b"junk");
        let err = gunzip(&trailing).unwrap_err();
        assert!(err.violation.contains("trailing"), "{}", err.violation);
    }

    #[test]
    fn ndjson_skips_blank_lines_and_reports_line_numbers() {
        let events = parse_ndjson(b"{\"a\":1}\r\n\n  \n{\"b\":2}").unwrap();
        assert_eq!(events.len(), 2);
        let err = parse_ndjson(b"{\"a\":1}\n[1]\n").unwrap_err();
        assert!(err.violation.contains("line 2"), "{}", err.violation);
        assert!(parse_ndjson(b"{\"a\":").is_err());
    }

    #[test]
    fn json_accepts_object_or_array_of_objects() {
        assert_eq!(parse_json_events(b"{\"a\":1}").unwrap().len(), 1);
        assert_eq!(parse_json_events(b"[{},{}]").unwrap().len(), 2);
        assert_eq!(parse_json_events(b"[]").unwrap().len(), 0);
        assert!(parse_json_events(b"[{}, 3]")
            .unwrap_err()
            .violation
            .contains("element 1"));
        assert!(parse_json_events(b"\"x\"").is_err());
        assert!(parse_json_events(b"").is_err());
    }
}
