//! Lowercase hex digits: trace and span ids, event ids, JSON `\u` escapes.
//!
//! Why it exists: one digit table for every place that writes hex, in a module that
//! depends on nothing else in the crate (records and the JSON writer both use it). It
//! must never allocate: callers write into their own buffers.

const DIGITS: &[u8; 16] = b"0123456789abcdef";

/// The two lowercase hex digits of `b`.
pub(crate) fn pair(b: u8) -> [u8; 2] {
    [DIGITS[usize::from(b >> 4)], DIGITS[usize::from(b & 0xf)]]
}

/// Appends `bytes` as lowercase hex digits (no quotes).
pub(crate) fn append(out: &mut Vec<u8>, bytes: &[u8]) {
    for &b in bytes {
        out.extend_from_slice(&pair(b));
    }
}
