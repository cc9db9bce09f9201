//! Hand-written HTTP/1.1 request reading: the head, then a bounded body.
//!
//! Whoever must observe exactly what a client puts on the wire (headers, framing, body
//! bytes), as the test intake does, parses requests itself instead of using an HTTP
//! server crate that would normalise or hide protocol mistakes. Every parse failure is
//! reported as a [`ReadError::Bad`] carrying the status to answer with, never as a
//! panic: the bytes come from the network and are untrusted.
//!
//! Shared by the test intake, `logship ship --listen http://...` and the demo's sink
//! (one hardened parser, not two): bounded lines, head, header count, chunk sizes and
//! body, `Expect: 100-continue` answered only when a body is due.
//!
//! Strict as RFC 9112 asks of a server, because a lenient parser behind or in front of
//! another one is how requests are smuggled: a request with both `Content-Length` and
//! `Transfer-Encoding`, a `Transfer-Encoding` other than exactly `chunked` (or sent
//! twice), a `Content-Length` that is not plain digits (`+5`), a bare CR, a NUL or other
//! control character in a line, whitespace other than SP and HTAB around a value (VT,
//! FF, NBSP): each is a 400, and the connection is closed after it.
//! Must never: read past `max_body` bytes of a body, allocate by a size the peer
//! claims before the bytes arrive, guess at framing, or panic on any input.

use std::io::{self, BufRead, Read, Write};

/// Longest request line or header line accepted, in bytes.
const MAX_LINE: usize = 16 * 1024;
/// Largest total size of the request head (request line plus headers).
const MAX_HEAD: usize = 64 * 1024;
/// Most header fields accepted in one request.
const MAX_HEADERS: usize = 200;
/// Longest chunk-size line accepted in a chunked body.
const MAX_CHUNK_LINE: usize = 1024;

/// A fully read HTTP request: head plus (de-chunked) body.
#[derive(Debug, Clone)]
pub struct Request {
    /// Request method as sent (case preserved).
    pub method: String,
    /// Request target as sent, path plus optional `?query`.
    pub target: String,
    /// Minor HTTP version: `0` for HTTP/1.0, `1` for HTTP/1.1.
    pub minor_version: u8,
    /// Header fields in wire order, names lowercased, values trimmed.
    pub headers: Vec<(String, String)>,
    /// The body: exactly `Content-Length` bytes, or the de-chunked payload.
    pub body: Vec<u8>,
    /// The parsed `Content-Length`, if one was sent.
    pub content_length: Option<u64>,
    /// True when the body was sent with `Transfer-Encoding: chunked`.
    pub chunked: bool,
}

impl Request {
    /// First value of the header `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }

    /// The target without its query string.
    pub fn path(&self) -> &str {
        match self.target.split_once('?') {
            Some((path, _)) => path,
            None => &self.target,
        }
    }

    /// The raw query string (after `?`), if any.
    pub fn query(&self) -> Option<&str> {
        self.target.split_once('?').map(|(_, q)| q)
    }

    /// Value of the query parameter `name` (no percent-decoding: the control
    /// interface only uses plain numbers).
    pub fn query_param(&self, name: &str) -> Option<&str> {
        self.query()?
            .split('&')
            .map(|pair| pair.split_once('=').unwrap_or((pair, "")))
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v)
    }

    /// Whether the connection must be closed after answering this request
    /// (`Connection: close`, or HTTP/1.0 without `Connection: keep-alive`).
    pub fn wants_close(&self) -> bool {
        let tokens = |v: &str, t: &str| v.split(',').any(|x| x.trim().eq_ignore_ascii_case(t));
        let conn = self.header("connection").unwrap_or("");
        if tokens(conn, "close") {
            return true;
        }
        self.minor_version == 0 && !tokens(conn, "keep-alive")
    }
}

/// Case-insensitive lookup in a lowercased header list.
pub fn find_header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// What the parser managed to learn about a request before it turned out to be
/// malformed, so the violation can still be recorded with some context.
#[derive(Debug, Clone, Default)]
pub struct PartialHead {
    /// Method, if the request line parsed.
    pub method: String,
    /// Target, if the request line parsed.
    pub target: String,
    /// Headers parsed so far.
    pub headers: Vec<(String, String)>,
}

/// Why a request could not be read.
#[derive(Debug)]
pub enum ReadError {
    /// The connection failed (reset, timeout, EOF in the middle of a request).
    /// Nothing can be answered; the connection is simply dropped. (The error
    /// is kept for `Debug` output when diagnosing a failing test.)
    #[allow(dead_code)]
    Io(io::Error),
    /// The bytes received are not an acceptable HTTP request. The connection
    /// framing can no longer be trusted: answer `status` and close.
    Bad {
        /// Status code to answer with (400, 411, 413, ...).
        status: u16,
        /// Human-readable reason, recorded as a violation.
        message: String,
        /// Whatever was parsed before the error.
        partial: PartialHead,
    },
}

impl From<io::Error> for ReadError {
    fn from(e: io::Error) -> Self {
        ReadError::Io(e)
    }
}

fn bad(status: u16, message: impl Into<String>, partial: &PartialHead) -> ReadError {
    ReadError::Bad {
        status,
        message: message.into(),
        partial: partial.clone(),
    }
}

/// Reads one line terminated by `\n` (an optional preceding `\r` is removed).
/// `Ok(None)` means clean EOF before any byte; a line longer than `limit` is
/// reported as `Err(Ok(()))` so the caller can turn it into a 400/431.
fn read_line<R: BufRead>(r: &mut R, limit: usize) -> io::Result<Result<Option<Vec<u8>>, ()>> {
    let mut buf = Vec::new();
    let n = r
        .by_ref()
        .take(limit as u64 + 1)
        .read_until(b'\n', &mut buf)?;
    if n == 0 {
        return Ok(Ok(None));
    }
    if buf.last() != Some(&b'\n') {
        if buf.len() > limit {
            return Ok(Err(()));
        }
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "connection closed in the middle of a line",
        ));
    }
    buf.pop();
    if buf.last() == Some(&b'\r') {
        buf.pop();
    }
    Ok(Ok(Some(buf)))
}

/// Whether `b` may appear in a field value (RFC 9110 §5.5: VCHAR, obs-text, SP, HTAB):
/// no NUL, CR, LF or other control character.
fn is_field_byte(b: u8) -> bool {
    b == b'\t' || (b >= b' ' && b != 0x7f)
}

/// The value without the optional whitespace around it: SP and HTAB only (RFC 9110
/// §5.6.3), never the other characters `str::trim` removes (VT, FF, NBSP...).
fn trim_ows(v: &str) -> &str {
    v.trim_matches(|c| c == ' ' || c == '\t')
}

/// Whether `v` is 1*DIGIT (no sign, no space, not empty).
fn is_digits(v: &str) -> bool {
    !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit())
}

fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Reads the next request from a keep-alive connection.
///
/// Returns `Ok(None)` when the client closed the connection cleanly between
/// requests. `continue_writer` receives the interim `100 Continue` response
/// when the client asked for it with `Expect: 100-continue`. Bodies larger
/// than `max_body` are refused with 413 without being read.
pub fn read_request<R: BufRead, W: Write>(
    r: &mut R,
    continue_writer: &mut W,
    max_body: u64,
) -> Result<Option<Request>, ReadError> {
    let mut partial = PartialHead::default();

    // Request line (tolerating a few stray empty lines, as RFC 9112 allows).
    let mut head_size = 0usize;
    let mut line;
    let mut empty_lines = 0;
    loop {
        line = match read_line(r, MAX_LINE)? {
            Ok(Some(l)) => l,
            Ok(None) => return Ok(None),
            Err(()) => return Err(bad(400, "request line too long", &partial)),
        };
        if !line.is_empty() {
            break;
        }
        empty_lines += 1;
        if empty_lines > 4 {
            return Err(bad(
                400,
                "too many empty lines before request line",
                &partial,
            ));
        }
    }
    head_size += line.len();
    if line.iter().any(|&b| b < b' ' || b == 0x7f) {
        return Err(bad(
            400,
            "control character (a bare CR, a NUL, a tab...) in the request line",
            &partial,
        ));
    }
    let request_line = String::from_utf8_lossy(&line).into_owned();
    let parts: Vec<&str> = request_line.split(' ').collect();
    if parts.len() != 3 {
        return Err(bad(
            400,
            format!("malformed request line {:?}", truncate(&request_line, 200)),
            &partial,
        ));
    }
    let (method, target, version) = (parts[0], parts[1], parts[2]);
    if !is_token(method) {
        return Err(bad(
            400,
            format!("invalid method {:?}", truncate(method, 50)),
            &partial,
        ));
    }
    partial.method = method.to_string();
    if !target.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(bad(
            400,
            "request target holds a byte that is not visible US-ASCII (percent-encode it)",
            &partial,
        ));
    }
    if target.is_empty() || !target.starts_with('/') {
        return Err(bad(
            400,
            format!(
                "request target must be an origin-form path, got {:?}",
                truncate(target, 200)
            ),
            &partial,
        ));
    }
    partial.target = target.to_string();
    let minor_version = match version {
        "HTTP/1.1" => 1,
        "HTTP/1.0" => 0,
        other => {
            return Err(bad(
                400,
                format!("unsupported HTTP version {:?}", truncate(other, 50)),
                &partial,
            ))
        }
    };

    // Header fields.
    loop {
        let line = match read_line(r, MAX_LINE)? {
            Ok(Some(l)) => l,
            Ok(None) => {
                return Err(ReadError::Io(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "connection closed in the middle of the request head",
                )))
            }
            Err(()) => return Err(bad(431, "header line too long", &partial)),
        };
        if line.is_empty() {
            break;
        }
        head_size += line.len();
        if head_size > MAX_HEAD {
            return Err(bad(431, "request head too large", &partial));
        }
        if partial.headers.len() >= MAX_HEADERS {
            return Err(bad(431, "too many header fields", &partial));
        }
        if line[0] == b' ' || line[0] == b'\t' {
            return Err(bad(400, "obsolete header line folding", &partial));
        }
        if !line.iter().copied().all(is_field_byte) {
            return Err(bad(
                400,
                "control character (a bare CR, a NUL...) in a header line",
                &partial,
            ));
        }
        let text = String::from_utf8_lossy(&line);
        let Some((name, value)) = text.split_once(':') else {
            return Err(bad(
                400,
                format!("header line without ':' {:?}", truncate(&text, 200)),
                &partial,
            ));
        };
        if !is_token(name) {
            return Err(bad(
                400,
                format!("invalid header name {:?}", truncate(name, 100)),
                &partial,
            ));
        }
        partial
            .headers
            .push((name.to_ascii_lowercase(), trim_ows(value).to_string()));
    }

    // Body framing.
    let headers = &partial.headers;
    let mut tes = headers.iter().filter(|(k, _)| k == "transfer-encoding");
    let te = tes.next().map(|(_, v)| v.clone());
    if tes.next().is_some() {
        return Err(bad(400, "more than one Transfer-Encoding header", &partial));
    }
    let has_length = headers.iter().any(|(k, _)| k == "content-length");
    if te.is_some() && has_length {
        return Err(bad(
            400,
            "both Transfer-Encoding and Content-Length: send one of them",
            &partial,
        ));
    }
    if te.is_some() && minor_version == 0 {
        return Err(bad(
            400,
            "Transfer-Encoding in an HTTP/1.0 request",
            &partial,
        ));
    }
    let mut content_length = None;
    for (_, v) in headers.iter().filter(|(k, _)| k == "content-length") {
        let Some(n) = is_digits(v).then(|| v.parse::<u64>().ok()).flatten() else {
            return Err(bad(
                400,
                format!("invalid Content-Length {:?}", truncate(v, 50)),
                &partial,
            ));
        };
        if content_length.is_some_and(|prev| prev != n) {
            return Err(bad(400, "conflicting Content-Length headers", &partial));
        }
        content_length = Some(n);
    }
    let expects_continue = minor_version == 1
        && find_header(headers, "expect").is_some_and(|v| v.eq_ignore_ascii_case("100-continue"));

    let mut chunked = false;
    let body = if let Some(te) = te {
        // Only `chunked` is served, and alone: a coding before it (`gzip, chunked`,
        // `identity, chunked`) is one this server cannot undo.
        if !te.eq_ignore_ascii_case("chunked") {
            return Err(bad(
                400,
                format!("unsupported Transfer-Encoding {:?}", truncate(&te, 100)),
                &partial,
            ));
        }
        chunked = true;
        if expects_continue {
            send_continue(continue_writer)?;
        }
        read_chunked(r, max_body, &partial)?
    } else if let Some(n) = content_length {
        if n > max_body {
            return Err(bad(
                413,
                format!("body of {n} bytes exceeds the {max_body} byte limit"),
                &partial,
            ));
        }
        if expects_continue && n > 0 {
            send_continue(continue_writer)?;
        }
        let mut body = Vec::new();
        r.by_ref().take(n).read_to_end(&mut body)?;
        if (body.len() as u64) < n {
            return Err(ReadError::Io(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "connection closed in the middle of the body",
            )));
        }
        body
    } else {
        Vec::new()
    };

    Ok(Some(Request {
        method: partial.method,
        target: partial.target,
        minor_version,
        headers: partial.headers,
        body,
        content_length,
        chunked,
    }))
}

fn send_continue<W: Write>(w: &mut W) -> io::Result<()> {
    w.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
    w.flush()
}

/// Decodes a `Transfer-Encoding: chunked` body so the connection framing stays
/// intact even though the request itself will be rejected.
fn read_chunked<R: BufRead>(
    r: &mut R,
    max_body: u64,
    partial: &PartialHead,
) -> Result<Vec<u8>, ReadError> {
    let eof = || {
        ReadError::Io(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            "connection closed in the middle of a chunked body",
        ))
    };
    let mut body = Vec::new();
    loop {
        let line = match read_line(r, MAX_CHUNK_LINE)? {
            Ok(Some(l)) => l,
            Ok(None) => return Err(eof()),
            Err(()) => return Err(bad(400, "chunk size line too long", partial)),
        };
        let text = String::from_utf8_lossy(&line);
        // chunk-size [BWS ";" chunk-ext]: hex digits only, no sign, no leading space.
        let size_text = text
            .split(';')
            .next()
            .unwrap_or("")
            .trim_end_matches([' ', '\t']);
        let hex = !size_text.is_empty() && size_text.bytes().all(|b| b.is_ascii_hexdigit());
        let parsed = hex
            .then(|| u64::from_str_radix(size_text, 16).ok())
            .flatten();
        if !line.iter().copied().all(is_field_byte) {
            return Err(bad(400, "control character in a chunk size line", partial));
        }
        let Some(size) = parsed else {
            return Err(bad(
                400,
                format!("invalid chunk size {:?}", truncate(size_text, 50)),
                partial,
            ));
        };
        if size == 0 {
            // Trailer section, terminated by an empty line.
            let mut trailer_lines = 0;
            loop {
                match read_line(r, MAX_LINE)? {
                    Ok(Some(l)) if l.is_empty() => return Ok(body),
                    Ok(Some(l)) if !l.iter().copied().all(is_field_byte) => {
                        return Err(bad(400, "control character in a trailer line", partial));
                    }
                    Ok(Some(_)) => {
                        trailer_lines += 1;
                        if trailer_lines > MAX_HEADERS {
                            return Err(bad(431, "too many trailer fields", partial));
                        }
                    }
                    Ok(None) => return Err(eof()),
                    Err(()) => return Err(bad(431, "trailer line too long", partial)),
                }
            }
        }
        if (body.len() as u64).saturating_add(size) > max_body {
            return Err(bad(
                413,
                format!("chunked body exceeds the {max_body} byte limit"),
                partial,
            ));
        }
        let before = body.len();
        r.by_ref().take(size).read_to_end(&mut body)?;
        if ((body.len() - before) as u64) < size {
            return Err(eof());
        }
        match read_line(r, 2)? {
            Ok(Some(l)) if l.is_empty() => {}
            Ok(None) => return Err(eof()),
            _ => return Err(bad(400, "chunk data not followed by CRLF", partial)),
        }
    }
}

fn truncate(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(raw: &[u8]) -> Result<Option<Request>, ReadError> {
        let mut r = io::BufReader::new(raw);
        read_request(&mut r, &mut Vec::new(), 1024)
    }

    fn bad_status(raw: &[u8]) -> u16 {
        match parse(raw) {
            Err(ReadError::Bad { status, .. }) => status,
            other => panic!("expected a bad request, got {other:?}"),
        }
    }

    #[test]
    fn parses_content_length_request() {
        let req = parse(
            b"POST /a?x=1&y HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nX-Y:  v \r\n\r\nabcextra",
        )
        .unwrap()
        .unwrap();
        assert_eq!(req.method, "POST");
        assert_eq!(req.path(), "/a");
        assert_eq!(req.query_param("x"), Some("1"));
        assert_eq!(req.query_param("y"), Some(""));
        assert_eq!(req.query_param("z"), None);
        assert_eq!(req.header("x-y"), Some("v"));
        assert_eq!(req.header("HOST"), Some("h"));
        assert_eq!(req.body, b"abc");
        assert!(!req.wants_close());
    }

    #[test]
    fn clean_eof_is_none() {
        assert!(parse(b"").unwrap().is_none());
    }

    #[test]
    fn decodes_chunked_body_with_trailers() {
        let req = parse(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nabc\r\n2\r\nde\r\n0\r\nX-T: 1\r\n\r\n")
            .unwrap()
            .unwrap();
        assert!(req.chunked);
        assert_eq!(req.body, b"abcde");
    }

    #[test]
    fn rejects_malformed_input() {
        assert_eq!(bad_status(b"GARBAGE\r\n\r\n"), 400);
        assert_eq!(bad_status(b"GET / HTTP/2.0\r\n\r\n"), 400);
        assert_eq!(bad_status(b"GET http://x/ HTTP/1.1\r\n\r\n"), 400);
        assert_eq!(bad_status(b"GET / HTTP/1.1\r\nNoColon\r\n\r\n"), 400);
        assert_eq!(bad_status(b"GET / HTTP/1.1\r\nBad Name: x\r\n\r\n"), 400);
        assert_eq!(
            bad_status(b"GET / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n"),
            400
        );
        assert_eq!(
            bad_status(b"POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n"),
            400
        );
        assert_eq!(
            bad_status(b"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"),
            400
        );
        assert_eq!(
            bad_status(b"POST / HTTP/1.1\r\nContent-Length: 2000\r\n\r\n"),
            413
        );
        assert_eq!(
            bad_status(b"POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n"),
            400
        );
        assert_eq!(
            bad_status(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
            400
        );
        assert_eq!(
            bad_status(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n800\r\n"),
            413
        );
        let long = format!("GET /{} HTTP/1.1\r\n\r\n", "a".repeat(MAX_LINE + 10));
        assert_eq!(bad_status(long.as_bytes()), 400);
    }

    #[test]
    fn truncated_input_is_io_error() {
        for raw in [
            &b"GET / HTTP/1.1\r\nHost"[..],
            b"POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nabc",
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab",
        ] {
            assert!(matches!(parse(raw), Err(ReadError::Io(_))), "{raw:?}");
        }
    }

    #[test]
    fn sends_100_continue() {
        let mut w = Vec::new();
        let raw = b"POST / HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 1\r\n\r\nx";
        let req = read_request(&mut io::BufReader::new(&raw[..]), &mut w, 1024)
            .unwrap()
            .unwrap();
        assert_eq!(req.body, b"x");
        assert_eq!(w, b"HTTP/1.1 100 Continue\r\n\r\n");
    }

    #[test]
    fn connection_close_semantics() {
        let close = parse(b"GET / HTTP/1.1\r\nConnection: keep-alive, Close\r\n\r\n")
            .unwrap()
            .unwrap();
        assert!(close.wants_close());
        let old = parse(b"GET / HTTP/1.0\r\n\r\n").unwrap().unwrap();
        assert!(old.wants_close());
        let old_ka = parse(b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            .unwrap()
            .unwrap();
        assert!(!old_ka.wants_close());
    }
}
