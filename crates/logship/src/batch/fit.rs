//! Cutting one event until its encoded form fits the intake's per-event limit, as close
//! to the limit as the encoding allows.
//!
//! Why it exists: the limit is on the event as the vendor's encoder writes it, which
//! escaping can make up to six times the record's text (`\u0001`), so the cut is found
//! by measuring encodings, never by a guessed safety margin. Only the message loses bytes
//! while the rest of the event fits (`Record::with_message_cut`); an event whose other
//! fields alone are over is cut as `Record::truncated` cuts. Must never: loop without a
//! bound, or leave in the body anything but the encoding of the record it returns.

use crate::capture::record::Record;
use crate::support::json::escaped_prefix;
use crate::vendors::codec::Codec;

/// Most encodings tried for one event (each step keeps the best one that fitted).
const MAX_TRIES: usize = 8;

/// Encoded bytes under the limit a cut may leave unused before it is tried longer.
const CLOSE_ENOUGH: usize = 16;

/// `record`, encoded at `body[before..]` over `limit` bytes, cut until its encoding
/// fits; the body then ends with the returned record's encoding. When nothing fits
/// (the limit is smaller than the event's fixed parts), the smallest cut is kept.
pub(super) fn fit(
    codec: &Codec,
    body: &mut Vec<u8>,
    before: usize,
    prev: Option<&Record>,
    record: Record,
    limit: usize,
) -> Record {
    let mut encode = |r: &Record, body: &mut Vec<u8>| -> usize {
        body.truncate(before);
        codec.push(body, r, prev);
        body.len() - before
    };
    // What the event costs with no message text at all: the room left is the message's.
    let bare = record.with_message_cut(0);
    let bare_len = encode(&bare, body);
    if bare_len > limit {
        return shrink_whole(record, limit, &mut encode, body);
    }
    let message = record.message_str();
    let mut best = (0usize, bare_len); // (bytes of message kept, encoded length) that fit
    let mut over = message.len(); // shortest cut known not to fit
    let mut keep = escaped_prefix(message, limit - bare_len);
    for _ in 0..MAX_TRIES {
        keep = char_floor(message, keep.min(over.saturating_sub(1)));
        if keep <= best.0 {
            break;
        }
        let len = encode(&record.with_message_cut(keep), body);
        if len <= limit {
            best = (keep, len);
            if limit - len <= CLOSE_ENOUGH {
                break;
            }
            // Each byte of text costs at least one encoded byte: this much more may fit.
            keep = char_floor(message, keep + (limit - len));
        } else {
            over = keep;
            keep = char_floor(message, keep.saturating_sub(len - limit));
        }
    }
    let out = record.with_message_cut(best.0);
    encode(&out, body);
    out
}

/// Cuts the whole event (fields too) by what its encoding is over, until it fits or
/// [`MAX_TRIES`] are spent; the body ends with the returned record's encoding.
fn shrink_whole(
    record: Record,
    limit: usize,
    encode: &mut impl FnMut(&Record, &mut Vec<u8>) -> usize,
    body: &mut Vec<u8>,
) -> Record {
    let mut record = record;
    let mut len = encode(&record, body);
    for _ in 0..MAX_TRIES {
        if len <= limit || record.size() <= 1024 {
            break;
        }
        let allowed = record.size().saturating_sub(len - limit).max(1024);
        record = record.truncated(allowed);
        len = encode(&record, body);
    }
    record
}

/// `at`, moved back to the nearest character boundary of `s` (and to `s.len()` at most).
fn char_floor(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}
