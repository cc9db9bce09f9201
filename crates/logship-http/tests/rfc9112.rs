//! The request parser against the framing tricks that smuggle requests (issue 32, item
//! 3): each is refused with 400, so the server closes the connection and no trailing
//! byte is read as a second request. Then a differential test: thousands of mutated
//! requests, each of which the parser accepts must also parse with httparse (a strict,
//! widely deployed HTTP/1.1 parser) to the same method, target and headers.

use std::io::BufReader;

use logship_http::{read_request, ReadError, Request};

fn parse(raw: &[u8]) -> Result<Option<Request>, ReadError> {
    read_request(&mut BufReader::new(raw), &mut Vec::new(), 1 << 20)
}

fn status(raw: &[u8]) -> Option<u16> {
    match parse(raw) {
        Err(ReadError::Bad { status, .. }) => Some(status),
        _ => None,
    }
}

#[test]
fn framing_tricks_are_each_a_400() {
    let cases: &[(&str, &[u8])] = &[
        (
            "CL and TE",
            b"POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\n\r\n",
        ),
        (
            "TE and CL",
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n0\r\n\r\n",
        ),
        ("CL +5", b"POST / HTTP/1.1\r\nContent-Length: +5\r\n\r\nhello"),
        ("CL VT", b"POST / HTTP/1.1\r\nContent-Length: \x0b5\r\n\r\nhello"),
        ("CL FF", b"POST / HTTP/1.1\r\nContent-Length: 5\x0c\r\n\r\nhello"),
        (
            "CL NBSP",
            b"POST / HTTP/1.1\r\nContent-Length: \xc2\xa05\r\n\r\nhello",
        ),
        ("CL raw A0", b"POST / HTTP/1.1\r\nContent-Length: \xa05\r\n\r\nhello"),
        ("CL list", b"POST / HTTP/1.1\r\nContent-Length: 5, 5\r\n\r\nhello"),
        ("CL hex", b"POST / HTTP/1.1\r\nContent-Length: 0x5\r\n\r\nhello"),
        ("bare CR in a header", b"GET / HTTP/1.1\r\nA: b\rX-Injected: 1\r\n\r\n"),
        ("bare CR in the name", b"GET / HTTP/1.1\r\nA\r: b\r\n\r\n"),
        ("NUL in a value", b"GET / HTTP/1.1\r\nA: b\x00c\r\n\r\n"),
        ("DEL in a value", b"GET / HTTP/1.1\r\nA: b\x7f\r\n\r\n"),
        ("bare CR in the request line", b"GET /a\rb HTTP/1.1\r\n\r\n"),
        ("tab in the request line", b"GET\t/ HTTP/1.1\r\n\r\n"),
        (
            "TE identity, chunked",
            b"POST / HTTP/1.1\r\nTransfer-Encoding: identity, chunked\r\n\r\n0\r\n\r\n",
        ),
        (
            "TE gzip, chunked",
            b"POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
        ),
        (
            "TE chunked, chunked",
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n",
        ),
        (
            "two TE headers",
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: gzip\r\n\r\n0\r\n\r\n",
        ),
        (
            "two TE headers, chunked last",
            b"POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        ),
        (
            "TE in HTTP/1.0",
            b"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        ),
        ("TE VT", b"POST / HTTP/1.1\r\nTransfer-Encoding: \x0bchunked\r\n\r\n0\r\n\r\n"),
        (
            "chunk size +5",
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n+5\r\nhello\r\n0\r\n\r\n",
        ),
        (
            "chunk size with a leading space",
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n 5\r\nhello\r\n0\r\n\r\n",
        ),
        (
            "chunk size 0x5",
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n",
        ),
        (
            "NUL in a trailer",
            b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nT: a\x00\r\n\r\n",
        ),
    ];
    for (what, raw) in cases {
        assert_eq!(status(raw), Some(400), "{what}: {:?}", parse(raw));
    }
}

#[test]
fn what_rfc_9112_allows_still_parses() {
    let ok: &[&[u8]] = &[
        b"POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello",
        b"POST / HTTP/1.1\r\nContent-Length:5\r\n\r\nhello",
        b"POST / HTTP/1.1\r\nContent-Length: \t5 \t\r\n\r\nhello",
        b"POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello",
        b"POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n5 ;ext=1\r\nhello\r\n0\r\n\r\n",
        b"POST / HTTP/1.1\nContent-Length: 5\n\nhello",
        b"GET / HTTP/1.1\r\nUser-Agent: caf\xc3\xa9 \x80\r\n\r\n",
    ];
    for raw in ok {
        let req = parse(raw)
            .unwrap_or_else(|e| panic!("{:?}: {e:?}", String::from_utf8_lossy(raw)))
            .expect("a request");
        assert!(req.body.is_empty() || req.body == b"hello");
    }
}

/// A small xorshift, so the test is the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Bytes that make framing decisions.
const INTERESTING: &[&[u8]] = &[
    b"\r",
    b"\n",
    b"\r\n",
    b"\0",
    b" ",
    b"\t",
    b"\x0b",
    b"\x0c",
    b"\xa0",
    b"\xc2\xa0",
    b"+",
    b"-",
    b":",
    b",",
    b";",
    b"0",
    b"5",
    b"f",
    b"chunked",
    b"Content-Length: 3\r\n",
    b"Transfer-Encoding: chunked\r\n",
    b"\x7f",
    b"\xff",
];

#[test]
fn whatever_we_accept_httparse_accepts_with_the_same_head() {
    let seeds: &[&[u8]] = &[
        b"POST /logs?x=1 HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nX-A: b c\r\n\r\nhello",
        b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        b"GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut accepted = 0;
    for round in 0..20_000 {
        let mut raw = seeds[round % seeds.len()].to_vec();
        for _ in 0..1 + rng.below(3) {
            let at = rng.below(raw.len() + 1);
            match rng.below(3) {
                0 => {
                    let ins = INTERESTING[rng.below(INTERESTING.len())];
                    raw.splice(at..at, ins.iter().copied());
                }
                1 if at < raw.len() => {
                    raw.remove(at);
                }
                _ if at < raw.len() => raw[at] = rng.next() as u8,
                _ => {}
            }
        }
        let Ok(Some(ours)) = parse(&raw) else {
            continue;
        };
        accepted += 1;
        let mut headers = [httparse::EMPTY_HEADER; 64];
        let mut theirs = httparse::Request::new(&mut headers);
        let status = theirs.parse(&raw);
        let ctx = || String::from_utf8_lossy(&raw).into_owned();
        assert!(
            matches!(status, Ok(httparse::Status::Complete(_))),
            "we accepted what httparse refuses ({status:?}): {:?}",
            ctx()
        );
        assert_eq!(theirs.method, Some(ours.method.as_str()), "{:?}", ctx());
        assert_eq!(theirs.path, Some(ours.target.as_str()), "{:?}", ctx());
        let their_headers: Vec<(String, Vec<u8>)> = theirs
            .headers
            .iter()
            .map(|h| (h.name.to_ascii_lowercase(), h.value.to_vec()))
            .collect();
        assert_eq!(their_headers.len(), ours.headers.len(), "{:?}", ctx());
        for ((tn, tv), (on, ov)) in their_headers.iter().zip(&ours.headers) {
            assert_eq!(tn, on, "{:?}", ctx());
            if let Ok(tv) = std::str::from_utf8(tv) {
                assert_eq!(tv, ov, "{:?}", ctx());
            }
        }
    }
    assert!(
        accepted > 1000,
        "the mutations must also make requests we accept"
    );
}
