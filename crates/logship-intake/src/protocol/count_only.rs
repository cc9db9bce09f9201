//! The count-only mode: accept and count, check nothing.
//!
//! Why it exists: the strict protocols parse every event into JSON and check it, which
//! costs two to three times the CPU of the shipper they test (docs/performance.md). A
//! throughput figure taken against them measures the intake. Peers publish theirs
//! against discarding sinks; this is ours, so the two can be compared. It still reads
//! and decodes the whole body (gzip or deflate, with the usual size limit) and counts
//! its non-blank lines, so the benchmark can tell when every event has arrived. It must
//! never be used where a test relies on the checks: it accepts anything.

use serde_json::json;

use super::{decode_body, require_post, Accepted, Rejection};
use crate::http::{Request, Response};

/// Accepts any `POST` whose body decodes, as `200 {"accepted":N}` with N its non-blank
/// lines (one event per line: NDJSON, or any line-based body).
pub(crate) fn handle(req: &Request) -> Result<Accepted, Rejection> {
    require_post(req)?;
    let body = decode_body(req)?;
    let events = count_lines(&body);
    let mut accepted = Accepted::new(
        Vec::new(),
        body.len(),
        Response::json(200, &json!({ "accepted": events })),
    );
    accepted.counted = events;
    Ok(accepted)
}

/// Lines holding anything but spaces, tabs and carriage returns.
fn count_lines(body: &[u8]) -> usize {
    let blank = |line: &[u8]| line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r'));
    let mut count = 0;
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', body).chain(std::iter::once(body.len())) {
        // An event line starts with its first character: `blank` stops there.
        if !blank(&body[start..end]) {
            count += 1;
        }
        start = end + 1;
    }
    count
}

#[cfg(test)]
mod tests {
    use super::count_lines;

    #[test]
    fn counts_non_blank_lines_with_or_without_a_final_newline() {
        assert_eq!(count_lines(b""), 0);
        assert_eq!(count_lines(b"{}\n{}\n"), 2);
        assert_eq!(count_lines(b"{}\n\n \r\n{}"), 2);
        assert_eq!(count_lines(b"\n\n"), 0);
    }
}
