//! Error-valued fields: what is kept of a `std::error::Error` and how it is captured.
//!
//! Why it exists: vendors' error tracking needs the type, message and source chain, and
//! capturing them must cost the caller no more than the text they carry. Must never:
//! format more of a `Debug` output than its first word, or follow a source chain forever.

use std::fmt;

use super::bytes::{begin_str, end_str, ByteWriter};

/// An error captured as a field value: its type name where one could be found, its
/// message (`Display`), and the messages of its source chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ErrorValue<'a> {
    /// The error's type name as its `Debug` output starts (`ParseIntError`, `Os`), or
    /// `""` when that output does not start with a type name.
    pub kind: &'a str,
    /// The error's own message.
    pub message: &'a str,
    /// The messages of its sources, outermost first, one per line (`""`: none).
    pub sources: &'a str,
    /// The whole stack trace as the error's own runtime prints it (a JVM exception's
    /// `printStackTrace`: every frame, `Caused by:` and `Suppressed:` sections), or `""`
    /// when there is none (Rust errors: their stack is the chain of sources).
    pub trace: &'a str,
}

impl<'a> ErrorValue<'a> {
    /// The source messages, outermost first.
    pub fn sources(&self) -> impl Iterator<Item = &'a str> {
        self.sources.split('\n').filter(|s| !s.is_empty())
    }
}

/// Most sources of an error that are kept (a longer chain is cut there).
pub(super) const MAX_ERROR_SOURCES: usize = 32;
/// Longest type name read from an error's `Debug` output.
pub(super) const MAX_KIND_BYTES: usize = 128;

/// Appends an error's kind, message and sources, each as a length-prefixed string.
pub(super) fn put_error(out: &mut Vec<u8>, error: &(dyn std::error::Error + 'static)) {
    let at = begin_str(out);
    // `std::io::Error`'s `Debug` starts with its representation (`Os`, `Custom`, `Kind`),
    // not its type: the most common error of all is named by downcasting.
    if error.downcast_ref::<std::io::Error>().is_some() {
        out.extend_from_slice(b"std::io::Error");
        end_str(out, at);
        return put_error_text(out, error);
    }
    let mut writer = KindWriter {
        out,
        len: 0,
        stop: None,
    };
    let _ = fmt::Write::write_fmt(&mut writer, format_args!("{error:?}"));
    // Only an identifier followed by ` {`, `(` or the end is a type name.
    let stop = writer.stop;
    let kind_ok = {
        let kind = &out[at + 4..];
        !kind.is_empty()
            && !kind[0].is_ascii_digit()
            && matches!(stop, None | Some(b' ' | b'(' | b'{'))
    };
    if !kind_ok {
        out.truncate(at + 4);
    }
    end_str(out, at);
    put_error_text(out, error);
}

/// Appends an error's message and its sources' messages, each as a length-prefixed string.
pub(super) fn put_error_text(out: &mut Vec<u8>, error: &(dyn std::error::Error + 'static)) {
    let at = begin_str(out);
    let _ = fmt::Write::write_fmt(&mut ByteWriter(out), format_args!("{error}"));
    end_str(out, at);
    let at = begin_str(out);
    let mut source = error.source();
    let mut n = 0;
    while let Some(s) = source {
        if n == MAX_ERROR_SOURCES {
            break;
        }
        if n > 0 {
            out.push(b'\n');
        }
        let _ = fmt::Write::write_fmt(&mut ByteWriter(out), format_args!("{s}"));
        n += 1;
        source = s.source();
    }
    end_str(out, at);
}

/// Keeps the identifier a `Debug` output starts with, then stops the formatting (so a
/// large `Debug` output costs nothing beyond its first word).
struct KindWriter<'a> {
    out: &'a mut Vec<u8>,
    len: usize,
    /// The byte the identifier ended at (`None`: the output ended).
    stop: Option<u8>,
}

impl fmt::Write for KindWriter<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for b in s.bytes() {
            if (b.is_ascii_alphanumeric() || b == b'_') && self.len < MAX_KIND_BYTES {
                self.out.push(b);
                self.len += 1;
            } else {
                self.stop = Some(b);
                return Err(fmt::Error);
            }
        }
        Ok(())
    }
}
