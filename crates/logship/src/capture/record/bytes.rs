//! The primitives of a record's buffer: length-prefixed strings, written whole or in two
//! steps (for text formatted straight into the buffer).
//!
//! Why it exists: the entry encoding and the error capture both write strings this way;
//! one place keeps the length prefix right. Must never: write a length that does not
//! match the bytes that follow.

use std::fmt;

use super::cut::cut;

/// Formats straight into a record's buffer.
pub(super) struct ByteWriter<'a>(pub(super) &'a mut Vec<u8>);

impl fmt::Write for ByteWriter<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}

/// Appends `s` with its length prefix (cut at 4 GiB).
pub(super) fn put_str(out: &mut Vec<u8>, s: &str) {
    // Strings over 4 GiB cannot occur in a log event that fits in memory; cap anyway.
    let s = cut(s, u32::MAX as usize);
    out.extend_from_slice(&(s.len() as u32).to_le_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// Reserves a string's length prefix; [`end_str`] fills it in.
pub(super) fn begin_str(out: &mut Vec<u8>) -> usize {
    let at = out.len();
    out.extend_from_slice(&[0; 4]);
    at
}

/// Fills in the length prefix [`begin_str`] reserved at `at`.
pub(super) fn end_str(out: &mut [u8], at: usize) {
    let len = (out.len() - at - 4) as u32;
    out[at..at + 4].copy_from_slice(&len.to_le_bytes());
}
