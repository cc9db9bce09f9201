//! The byte layout one JVM event crosses JNI in, and its parser.
//!
//! Why it exists: handing an event over as a dozen `String` arguments cost a JNI string
//! conversion (modified UTF-8, a malloc and a copy) per field per event, the largest part
//! of the caller's time. Java (`dev.logship.jvm.EventWriter`) instead writes the whole
//! event into one reused per-thread buffer and makes one native call; this parser reads
//! it in place. Must never: read past the given length, trust a count or length without
//! checking it against the bytes left, panic, or allocate from a count the bytes do not
//! back. A buffer that does not parse is refused whole (the caller counts it).
//!
//! Layout (little-endian; `str` is a `u32` byte length then that many UTF-8 bytes):
//!
//! ```text
//! u8 VERSION, u8 level, u8 flags (bit 0: a throwable follows), u8 0
//! i64 nanos since the epoch (0: now)
//! str logger, str thread, str message
//! u32 n, then n (str key, str value) context pairs
//! u32 m, then m str marker names
//! when flags bit 0: str kind, str message, str causes, str trace
//! ```
//!
//! The buffer ends exactly there. Java encodes with `String.getBytes(UTF_8)`, which
//! writes a lone surrogate as `?`; bytes that are not UTF-8 anyway are replaced with
//! U+FFFD here rather than refused (the event is still worth shipping), and the record is
//! marked (`logship.invalid_utf8`, counted in `Stats::invalid_utf8`).

use std::borrow::Cow;

use crate::event::{Event, Text, Thrown};

/// The layout's version, its first byte (Java's `EventWriter.VERSION`).
pub const VERSION: u8 = 1;
/// Flag bit: the four throwable strings follow the markers.
pub const THROWN: u8 = 1;

/// Why a buffer was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Malformed {
    /// The buffer ends inside a field, or a length or count runs past its end.
    #[error("the event buffer ends inside a field; the jar and its native library disagree, reinstall the jar")]
    Truncated,
    /// The first byte is not this library's layout version.
    #[error("the event buffer has layout version {0}, this native library reads {VERSION}; the jar and its native library disagree, reinstall the jar")]
    Version(u8),
    /// Bytes are left after the last field.
    #[error("the event buffer has bytes after its last field; the jar and its native library disagree, reinstall the jar")]
    Trailing,
}

/// A cursor over the buffer; every read checks the bytes left.
struct Cursor<'a> {
    rest: &'a [u8],
    /// Whether a text had bytes that are not UTF-8 replaced.
    replaced: bool,
}

impl<'a> Cursor<'a> {
    fn bytes(&mut self, n: usize) -> Result<&'a [u8], Malformed> {
        if n > self.rest.len() {
            return Err(Malformed::Truncated);
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Ok(head)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], Malformed> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.bytes(N)?);
        Ok(out)
    }

    fn u32(&mut self) -> Result<usize, Malformed> {
        let n = u32::from_le_bytes(self.array()?);
        usize::try_from(n).map_err(|_| Malformed::Truncated)
    }

    fn text(&mut self) -> Result<Text<'a>, Malformed> {
        let n = self.u32()?;
        let raw = self.bytes(n)?;
        Ok(match std::str::from_utf8(raw) {
            Ok(s) => Cow::Borrowed(s),
            Err(_) => {
                self.replaced = true;
                String::from_utf8_lossy(raw)
            }
        })
    }

    /// A count of items each at least `min` bytes long, checked against the bytes left
    /// (so that a huge count cannot make the caller reserve memory the buffer does not back).
    fn count(&mut self, min: usize) -> Result<usize, Malformed> {
        let n = self.u32()?;
        if n.saturating_mul(min) > self.rest.len() {
            return Err(Malformed::Truncated);
        }
        Ok(n)
    }
}

/// The event the buffer holds, its texts borrowed from it.
pub fn parse(buf: &[u8]) -> Result<Event<'_>, Malformed> {
    let mut c = Cursor {
        rest: buf,
        replaced: false,
    };
    let [version, level, flags, _] = c.array::<4>()?;
    if version != VERSION {
        return Err(Malformed::Version(version));
    }
    let nanos = i64::from_le_bytes(c.array()?);
    let logger = c.text()?;
    let thread = c.text()?;
    let message = c.text()?;
    let pairs = c.count(8)?;
    let mut context = Vec::with_capacity(pairs);
    for _ in 0..pairs {
        let key = c.text()?;
        context.push((key, c.text()?));
    }
    let names = c.count(4)?;
    let mut markers = Vec::with_capacity(names);
    for _ in 0..names {
        markers.push(c.text()?);
    }
    let thrown = if flags & THROWN != 0 {
        Some(Thrown {
            kind: c.text()?,
            message: c.text()?,
            causes: c.text()?,
            trace: c.text()?,
        })
    } else {
        None
    };
    if !c.rest.is_empty() {
        return Err(Malformed::Trailing);
    }
    Ok(Event {
        nanos: u64::try_from(nanos).unwrap_or(0),
        level: i32::from(level),
        logger,
        thread,
        message,
        context,
        markers,
        thrown,
        invalid_utf8: c.replaced,
    })
}

#[cfg(test)]
mod tests;
