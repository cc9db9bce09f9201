//! What every emulated intake shares: the settings, the accepted and rejected outcomes,
//! credential and timestamp checks, body decoding and JSON/NDJSON parsing.
//!
//! Why it exists: the vendor modules use these and the dispatch in `mod.rs` uses the vendor
//! modules, so the shared part lives in a file of its own. Must never accept what the real
//! intake would refuse.

use std::io::Read;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

pub(crate) use super::documents::Documents;
use crate::faults::ItemFaultQueue;
pub(crate) use logship_http::answers::strip_scheme;
use logship_http::{Request, Response};

/// Largest decompressed body accepted, to survive a gzip bomb.
/// Default `max_content_length` in decoded bytes: the Splunk ≤ 6.4 default
/// (docs/wire-formats.md 2.3; 800 MB since 6.5). Configurable through
/// `IntakeConfig::splunk_max_content_length`.
pub(crate) const DEFAULT_MAX_CONTENT_LENGTH: usize = 1_000_000;

pub(crate) const MAX_DECODED_BODY: u64 = 512 * 1024 * 1024;

/// Run-time settings the vendor protocols consult (snapshot per request).
#[derive(Clone, Debug)]
pub(crate) struct Settings {
    /// The credential every vendor must present; `None` = any non-empty one.
    pub api_key: Option<String>,
    /// Splunk HEC `max_content_length` (decoded body bytes; 413 beyond).
    pub splunk_max_content_length: usize,
    /// Pending Elasticsearch `_bulk` item faults (shared by every snapshot).
    pub item_faults: Arc<Mutex<ItemFaultQueue>>,
    /// Whether `_bulk` honours `?filter_path=` (default); off, every answer is the full
    /// one, like behind a proxy that drops the query string.
    pub es_filter_path: bool,
    /// The documents the emulated Elasticsearch holds (shared by every snapshot).
    pub documents: Arc<Documents>,
    /// Splunk indexer acknowledgement: mode, issued ids, query faults (shared by every
    /// snapshot).
    pub splunk_ack: Arc<super::splunk_ack::AckState>,
    /// Count events instead of checking them (see `IntakeConfig::count_only`).
    pub count_only: bool,
    /// With `count_only`: the field probed in each line for the observer (see
    /// `IntakeConfig::count_only_probe`).
    pub count_only_probe: Option<Arc<str>>,
    /// With `count_only`: the id markers looked for in each line (see
    /// `IntakeConfig::count_only_markers`).
    pub count_only_markers: Arc<[Arc<str>]>,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            api_key: None,
            splunk_max_content_length: DEFAULT_MAX_CONTENT_LENGTH,
            item_faults: Arc::default(),
            es_filter_path: true,
            documents: Arc::default(),
            splunk_ack: Arc::default(),
            count_only: false,
            count_only_probe: None,
            count_only_markers: Arc::from(Vec::new()),
        }
    }
}

/// A request that a protocol accepted.
#[derive(Debug)]
pub(crate) struct Accepted {
    /// The events it carried, one JSON object each.
    pub events: Vec<Value>,
    /// Events it carried that are counted but not kept (the count-only mode).
    pub counted: usize,
    /// What the count-only mode's probe found, one `{field: number}` per line that
    /// has it: for the observer only, neither counted nor kept.
    pub probes: Vec<Value>,
    /// Size of the body after `Content-Encoding` decoding.
    pub decoded_bytes: usize,
    /// The success response to send.
    pub response: Response,
    /// Mistakes the real intake tolerates (so the request still succeeds)
    /// but that are recorded as violations all the same, e.g. a Datadog
    /// entry that would be truncated.
    pub violations: Vec<String>,
}

impl Accepted {
    /// An accepted request without tolerated mistakes.
    pub fn new(events: Vec<Value>, decoded_bytes: usize, response: Response) -> Accepted {
        Accepted {
            events,
            counted: 0,
            probes: Vec::new(),
            decoded_bytes,
            response,
            violations: Vec::new(),
        }
    }
}

/// Why a request was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RejectionKind {
    /// The client broke the protocol: recorded as a violation.
    Violation,
    /// The credential was missing or wrong: only counted in
    /// `IntakeStats::auth_failures`, because tests provoke it on purpose.
    AuthFailure,
}

/// A refused request: what to answer and why.
#[derive(Debug)]
pub(crate) struct Rejection {
    /// The error response to send.
    pub response: Response,
    /// Violation message recorded for the test to see (for an auth failure,
    /// only a description).
    pub violation: String,
    /// Whether this is a protocol violation or an authentication failure.
    pub kind: RejectionKind,
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
            kind: RejectionKind::Violation,
            decoded_bytes: None,
        }
    }

    /// A protocol violation answered with a vendor-specific response.
    pub fn violation(response: Response, message: impl Into<String>) -> Rejection {
        Rejection {
            response,
            violation: message.into(),
            kind: RejectionKind::Violation,
            decoded_bytes: None,
        }
    }

    /// An authentication failure answered with a vendor-specific response.
    pub fn auth(response: Response, message: impl Into<String>) -> Rejection {
        Rejection {
            response,
            violation: message.into(),
            kind: RejectionKind::AuthFailure,
            decoded_bytes: None,
        }
    }

    /// Attaches the decoded body size.
    pub fn with_decoded(mut self, decoded_bytes: usize) -> Rejection {
        self.decoded_bytes = Some(decoded_bytes);
        self
    }

    /// Keeps status, message and kind but answers with the body `vendor`
    /// builds from them, so shared helpers speak each vendor's error shape.
    pub fn reshape(mut self, vendor: impl FnOnce(u16, &str) -> Response) -> Rejection {
        let mut response = vendor(self.response.status, &self.violation);
        // Keep helper-added headers such as `Allow` on a 405.
        for (k, v) in self.response.headers {
            if !k.eq_ignore_ascii_case("content-type") {
                response.headers.push((k, v));
            }
        }
        self.response = response;
        self
    }
}

/// Result of comparing a presented credential with the configured one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Credential {
    /// None presented (or an empty one).
    Missing,
    /// Presented but not equal to the configured key.
    Wrong,
    /// Acceptable.
    Valid,
}

/// Checks `given` against `settings.api_key`: equal to it when one is
/// configured, otherwise merely present and non-empty.
pub(crate) fn check_credential(settings: &Settings, given: Option<&str>) -> Credential {
    match given.map(str::trim) {
        None | Some("") => Credential::Missing,
        Some(k) => match &settings.api_key {
            Some(expected) if expected != k => Credential::Wrong,
            _ => Credential::Valid,
        },
    }
}

/// Milliseconds since the Unix epoch, now.
pub(crate) fn now_epoch_ms() -> i64 {
    let ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    i64::try_from(ms).unwrap_or(i64::MAX)
}

/// Epoch values below this (1973-03-03 as milliseconds, year 5138 as
/// seconds) are taken to be seconds where milliseconds are expected.
pub(crate) const SECONDS_LOOKING_BELOW: i64 = 100_000_000_000;

/// Checks that `v` is an integer of epoch **milliseconds**; `Err` names the
/// problem (a seconds-looking value gets its own message).
pub(crate) fn check_epoch_ms(v: &Value) -> Result<i64, String> {
    let Some(n) = v.as_i64() else {
        return Err(match v {
            Value::Number(_) => format!("{v} is not an integer of epoch milliseconds"),
            other => format!(
                "is a {}, expected an integer of epoch milliseconds",
                kind(other)
            ),
        });
    };
    if (0..SECONDS_LOOKING_BELOW).contains(&n) {
        return Err(format!(
            "{n} looks like epoch seconds; epoch milliseconds expected"
        ));
    }
    if n < 0 {
        return Err(format!("{n} is negative"));
    }
    Ok(n)
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
    decode_body_with(req, false, MAX_DECODED_BODY)
}

/// Like [`decode_body`], also accepting `deflate` (zlib-wrapped, RFC 1950)
/// when `deflate` is set, and refusing (413) a body whose decoded size is
/// over `limit` bytes. Identity bodies over `limit` are refused the same way.
pub(crate) fn decode_body_with(
    req: &Request,
    deflate: bool,
    limit: u64,
) -> Result<Vec<u8>, Rejection> {
    let encoding = req
        .header("content-encoding")
        .unwrap_or("identity")
        .trim()
        .to_ascii_lowercase();
    let body = match encoding.as_str() {
        "" | "identity" => req.body.clone(),
        "gzip" | "x-gzip" => gunzip(&req.body, limit)?,
        "deflate" if deflate => inflate_zlib(&req.body, limit)?,
        other => {
            return Err(Rejection::new(
                415,
                format!("unsupported Content-Encoding {other:?}"),
            ))
        }
    };
    if body.len() as u64 > limit {
        return Err(Rejection::new(
            413,
            format!(
                "decoded body of {} bytes is over the {limit} byte limit",
                body.len()
            ),
        ));
    }
    Ok(body)
}

/// Decompresses one zlib (RFC 1950) stream that must span the whole body.
fn inflate_zlib(body: &[u8], limit: u64) -> Result<Vec<u8>, Rejection> {
    let mut decoder = flate2::bufread::ZlibDecoder::new(body);
    let mut out = Vec::new();
    if let Err(e) = decoder.by_ref().take(limit + 1).read_to_end(&mut out) {
        return Err(Rejection::new(
            400,
            format!("invalid deflate (zlib) body: {e}"),
        ));
    }
    if out.len() as u64 > limit {
        return Err(Rejection::new(
            413,
            format!("deflate body inflates beyond the {limit} byte limit"),
        ));
    }
    if !decoder.into_inner().is_empty() {
        return Err(Rejection::new(
            400,
            "trailing data after the deflate (zlib) stream",
        ));
    }
    Ok(out)
}

/// Decompresses exactly one gzip member that must span the whole body.
pub(crate) fn gunzip(body: &[u8], limit: u64) -> Result<Vec<u8>, Rejection> {
    let mut decoder = flate2::bufread::GzDecoder::new(body);
    let mut out = Vec::new();
    if let Err(e) = decoder.by_ref().take(limit + 1).read_to_end(&mut out) {
        return Err(Rejection::new(400, format!("invalid gzip body: {e}")));
    }
    if out.len() as u64 > limit {
        return Err(Rejection::new(
            413,
            format!("gzip body inflates beyond {limit} bytes"),
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
pub fn kind(v: &Value) -> &'static str {
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
        let gunzip = |b: &[u8]| gunzip(b, MAX_DECODED_BODY);
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
    fn decoding_limits_apply_to_the_decoded_size() {
        assert_eq!(
            gunzip(&gzip(&[b'x'; 100]), 99).unwrap_err().response.status,
            413
        );
        assert_eq!(gunzip(&gzip(&[b'x'; 100]), 100).unwrap().len(), 100);
        let mut enc = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(b"zlib data").unwrap();
        let z = enc.finish().unwrap();
        assert_eq!(inflate_zlib(&z, 100).unwrap(), b"zlib data");
        assert_eq!(inflate_zlib(&z, 3).unwrap_err().response.status, 413);
        assert_eq!(inflate_zlib(b"raw", 100).unwrap_err().response.status, 400);
    }

    #[test]
    fn credentials_and_epoch_checks() {
        let open = Settings::default();
        let keyed = Settings {
            api_key: Some("k".into()),
            ..Settings::default()
        };
        assert_eq!(check_credential(&open, None), Credential::Missing);
        assert_eq!(check_credential(&open, Some(" ")), Credential::Missing);
        assert_eq!(check_credential(&open, Some("x")), Credential::Valid);
        assert_eq!(check_credential(&keyed, Some("x")), Credential::Wrong);
        assert_eq!(check_credential(&keyed, Some("k")), Credential::Valid);
        assert!(check_epoch_ms(&serde_json::json!(1_717_171_717_123_i64)).is_ok());
        assert!(check_epoch_ms(&serde_json::json!(1_717_171_717))
            .unwrap_err()
            .contains("seconds"));
        assert!(check_epoch_ms(&serde_json::json!(1.5e12)).is_err());
        assert!(check_epoch_ms(&serde_json::json!("2024")).is_err());
        assert!(check_epoch_ms(&serde_json::json!(-5)).is_err());
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
