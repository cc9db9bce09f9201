//! Cutting text to a byte length without splitting a character.
//!
//! Why it exists: every limit logship keeps (an event's size, a vendor's line or label
//! length) is in bytes, and a cut inside a UTF-8 sequence would make invalid text. Must
//! never: return more than `max` bytes, or panic.

/// Longest prefix of `s` of at most `max` bytes that ends on a character boundary.
pub(crate) fn cut(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}
