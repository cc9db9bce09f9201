//! Compressing a body as a gzip member, reusing each sender thread's deflate state.
//!
//! Why it exists: compression is most of a sender's work; a fresh compressor per request
//! spent 11 % of the pipeline's instructions clearing its tables. Must never: reuse a
//! state that failed, or run on a caller's thread.

use std::io::Write;

use flate2::write::GzEncoder;
use flate2::Compression;

/// gzip-compresses a body (on the sender's thread, so compression scales with senders).
///
/// Each thread keeps its deflate state and resets it per body: a fresh compressor per
/// request spent 11 % of the pipeline's instructions clearing its tables (callgrind over
/// `logship ship`, docs/performance.md). The stream is a plain gzip member (RFC 1952: a
/// 10-byte header, raw deflate, CRC-32 and length).
pub(crate) fn gzip(body: &[u8], level: u32) -> Vec<u8> {
    thread_local! {
        static DEFLATE: std::cell::RefCell<Option<(u32, flate2::Compress)>> =
            const { std::cell::RefCell::new(None) };
    }
    let mut out = Vec::with_capacity(body.len() / 4 + 64);
    out.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
    let deflated = DEFLATE.with(|cell| {
        let mut slot = cell.borrow_mut();
        let compress = match &mut *slot {
            Some((l, c)) if *l == level => c,
            _ => {
                &mut slot
                    .insert((level, flate2::Compress::new(Compression::new(level), false)))
                    .1
            }
        };
        compress.reset();
        let ok = deflate_all(compress, body, &mut out);
        if !ok {
            *slot = None; // never reuse a state that failed
        }
        ok
    });
    if !deflated {
        return gzip_fresh(body, level);
    }
    let mut crc = flate2::Crc::new();
    crc.update(body);
    out.extend_from_slice(&crc.sum().to_le_bytes());
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out
}

/// Deflates all of `input` onto `out`, finishing the stream; false on a compressor error.
fn deflate_all(compress: &mut flate2::Compress, input: &[u8], out: &mut Vec<u8>) -> bool {
    let start = compress.total_in();
    loop {
        let done = (compress.total_in() - start) as usize;
        if out.capacity() - out.len() < 64 {
            out.reserve(out.capacity().max(4096));
        }
        match compress.compress_vec(&input[done..], out, flate2::FlushCompress::Finish) {
            Ok(flate2::Status::StreamEnd) => return true,
            Ok(_) => {}
            Err(_) => return false,
        }
    }
}

/// The plain way (a fresh encoder), kept for the case the reused state failed.
fn gzip_fresh(body: &[u8], level: u32) -> Vec<u8> {
    let mut enc = GzEncoder::new(
        Vec::with_capacity(body.len() / 4 + 64),
        Compression::new(level),
    );
    // Writing to a Vec cannot fail.
    let _ = enc.write_all(body);
    enc.finish().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use std::io::Read;

    #[test]
    fn reused_deflate_state_gives_valid_gzip_members_for_every_body() {
        let bodies: Vec<Vec<u8>> = vec![
            Vec::new(),
            b"{\"a\":1}\n".to_vec(),
            (0..200_000u32).flat_map(|i| i.to_le_bytes()).collect(),
            "x".repeat(1 << 20).into_bytes(),
        ];
        for level in [1, 3, 9] {
            for body in &bodies {
                let wire = super::gzip(body, level);
                let mut back = Vec::new();
                flate2::read::GzDecoder::new(&wire[..])
                    .read_to_end(&mut back)
                    .expect("a valid gzip member");
                assert_eq!(&back, body, "level {level}, {} bytes", body.len());
            }
        }
    }
}
