//! A request body as the sender meant it: `Content-Encoding` gzip, deflate or identity
//! undone, within a size limit.
//!
//! Why it exists: `logship ship --listen http://` and the demo's sink both take
//! compressed bodies from clients and must not let a small body inflate without bound.
//! Must never: inflate past `limit` bytes (a gzip bomb is a 413), or panic on any bytes
//! (corrupt input is a 400).

use std::borrow::Cow;
use std::io::Read;

use crate::request::{find_header, Request};

/// Why a body could not be decoded: the status to answer with, and what was wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BodyError {
    /// 400 (corrupt), 413 (inflates past the limit) or 415 (an unknown encoding).
    pub status: u16,
    /// What was wrong, for the answer's body.
    pub message: String,
}

impl std::fmt::Display for BodyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for BodyError {}

/// The body decoded (`Content-Encoding` gzip, deflate or identity), within `limit`.
pub fn decoded_body(req: &Request, limit: usize) -> Result<Cow<'_, [u8]>, BodyError> {
    let encoding = find_header(&req.headers, "content-encoding")
        .unwrap_or("identity")
        .trim()
        .to_ascii_lowercase();
    let error = |status, message| BodyError { status, message };
    let inflate = |mut r: Box<dyn Read + '_>, what: &str| -> Result<Cow<'_, [u8]>, BodyError> {
        let mut out = Vec::new();
        r.by_ref()
            .take(limit as u64 + 1)
            .read_to_end(&mut out)
            .map_err(|e| error(400, format!("invalid {what} body: {e}")))?;
        if out.len() > limit {
            return Err(error(
                413,
                format!("{what} body inflates beyond the {limit} byte limit"),
            ));
        }
        Ok(Cow::Owned(out))
    };
    match encoding.as_str() {
        "" | "identity" => Ok(Cow::Borrowed(&req.body)),
        "gzip" | "x-gzip" => inflate(
            Box::new(flate2::read::MultiGzDecoder::new(&req.body[..])),
            "gzip",
        ),
        "deflate" => {
            // RFC 9110's deflate is zlib; some clients send raw deflate. A zlib stream
            // starts with a header naming method 8 whose two bytes are a multiple of 31.
            let zlib = matches!(req.body.as_slice(), [cmf, flg, ..]
                if cmf & 0x0f == 8 && (u16::from(*cmf) << 8 | u16::from(*flg)) % 31 == 0);
            if zlib {
                inflate(
                    Box::new(flate2::read::ZlibDecoder::new(&req.body[..])),
                    "deflate",
                )
            } else {
                inflate(
                    Box::new(flate2::read::DeflateDecoder::new(&req.body[..])),
                    "deflate",
                )
            }
        }
        other => Err(error(
            415,
            format!("Content-Encoding {other:?} is not supported (send gzip, deflate or identity)"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn request(encoding: Option<&str>, body: Vec<u8>) -> Request {
        Request {
            method: "POST".into(),
            target: "/".into(),
            minor_version: 1,
            headers: encoding
                .map(|e| vec![("content-encoding".to_owned(), e.to_owned())])
                .unwrap_or_default(),
            content_length: Some(body.len() as u64),
            body,
            chunked: false,
        }
    }

    fn gzip(data: &[u8], level: flate2::Compression) -> Vec<u8> {
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), level);
        encoder.write_all(data).expect("compress");
        encoder.finish().expect("gzip")
    }

    #[test]
    fn undoes_gzip_zlib_and_raw_deflate() {
        let data = b"{\"a\":1}\n".repeat(100);
        let level = flate2::Compression::default();
        let mut zlib = flate2::write::ZlibEncoder::new(Vec::new(), level);
        zlib.write_all(&data).expect("compress");
        let mut raw = flate2::write::DeflateEncoder::new(Vec::new(), level);
        raw.write_all(&data).expect("compress");
        for (encoding, body) in [
            ("gzip", gzip(&data, level)),
            ("deflate", zlib.finish().expect("zlib")),
            ("deflate", raw.finish().expect("deflate")),
        ] {
            let req = request(Some(encoding), body);
            assert_eq!(decoded_body(&req, 10_000).expect(encoding), &data[..]);
        }
        let plain = request(None, data.clone());
        assert!(matches!(decoded_body(&plain, 10), Ok(Cow::Borrowed(_))));
    }

    #[test]
    fn refuses_a_bomb_corrupt_bytes_and_unknown_encodings() {
        let bomb = gzip(&[0; 100_000], flate2::Compression::best());
        let bomb = request(Some("gzip"), bomb);
        assert_eq!(decoded_body(&bomb, 1000).map_err(|e| e.status), Err(413));
        let corrupt = request(Some("gzip"), b"not gzip".to_vec());
        assert_eq!(decoded_body(&corrupt, 1000).map_err(|e| e.status), Err(400));
        let br = request(Some("br"), b"x".to_vec());
        assert_eq!(decoded_body(&br, 1000).map_err(|e| e.status), Err(415));
    }
}
