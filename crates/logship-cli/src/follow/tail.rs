//! One followed file: reading its new lines from where we are, and noticing when it was
//! truncated (copytruncate) or rewritten.
//!
//! Why it exists: the byte-level rules of following one file live here, apart from the
//! decisions about many files (`mod.rs`) and paths (`discover.rs`): read with `pread` from
//! a known offset, split at `\n`, keep an unfinished last line until its newline arrives
//! (or the file is finished with), cut lines longer than the cap, and report each line
//! with the offset just past it, which is what a checkpoint stores.
//!
//! Must never: hold more than `max_line` bytes of one unfinished line, or up to its read
//! cap with room borrowed from the process's pool (`crate::lines::room`), read more than
//! the budget it is given at a time, block on anything but a regular read, or panic on
//! any content.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::time::Instant;

use super::identity::{FileId, Fingerprint, FP_LEN};
use crate::lines::room::{LineBuf, Room};

/// Bytes asked from the kernel per read.
const CHUNK: usize = 64 * 1024;

/// One line read from a file.
pub struct Line<'a> {
    /// The line without its newline, at most the read cap's bytes.
    pub bytes: &'a [u8],
    /// Its real length (newline excluded): more than `bytes.len()` when it was cut.
    pub real_len: usize,
    /// The offset just past its newline: reading resumes there.
    pub end: u64,
}

/// A followed file.
pub struct Tail {
    /// The path it was last seen at.
    pub path: PathBuf,
    /// Its identity.
    pub id: FileId,
    /// Open handle; `None` while parked (too many files open) or after it was finished.
    pub file: Option<File>,
    /// Fingerprint of its first bytes (grows up to `FP_LEN` as the file does).
    pub fp: Fingerprint,
    /// Next byte to read.
    pub read_pos: u64,
    /// Offset where the unfinished line in `partial` begins.
    line_start: u64,
    /// The unfinished last line (at most `max_line` bytes kept, up to the cap with
    /// room from the pool).
    partial: LineBuf,
    /// Its real length so far.
    partial_len: usize,
    /// When its path stopped naming it (renamed away, deleted, replaced): it is read to
    /// its end, then closed.
    pub gone_since: Option<Instant>,
    /// Set when it is a copy of another followed file (same first bytes, another inode:
    /// copytruncate's copy). A copy is not read until the original is truncated; then it
    /// is read from where the original was.
    pub shadow_of: Option<FileId>,
    /// The last read found no new byte.
    pub at_eof: bool,
    /// When it was opened (files take turns when too many match).
    pub opened_at: Instant,
    /// Scratch buffer for reads.
    buf: Vec<u8>,
}

/// What [`Tail::check`] found.
#[derive(Debug, PartialEq, Eq)]
pub enum Change {
    /// Nothing to do.
    None,
    /// The file is shorter than what was read, or its first bytes changed: it was
    /// truncated (or rewritten in place); reading restarts at 0.
    Truncated {
        /// The line-boundary offset reached before.
        before: u64,
        /// The fingerprint it had before (its copy, if any, has it).
        old: Fingerprint,
    },
}

impl Tail {
    /// A file opened at `path`, to be read from `offset`.
    pub fn new(path: PathBuf, id: FileId, file: File, offset: u64) -> Tail {
        let fp = Fingerprint::read(&file, FP_LEN);
        Tail {
            path,
            id,
            file: Some(file),
            fp,
            read_pos: offset,
            line_start: offset,
            partial: LineBuf::new(Room::shared()),
            partial_len: 0,
            gone_since: None,
            shadow_of: None,
            at_eof: false,
            opened_at: Instant::now(),
            buf: Vec::new(),
        }
    }

    /// The offset of the first byte not yet handed out as part of a whole line.
    pub fn line_start(&self) -> u64 {
        self.line_start
    }

    /// Moves reading to `offset` (a line boundary), dropping any unfinished line.
    pub fn seek(&mut self, offset: u64) {
        self.read_pos = offset;
        self.line_start = offset;
        self.partial.clear();
        self.partial_len = 0;
        self.at_eof = false;
    }

    /// Checks whether the open file was truncated or rewritten since it was read, and
    /// extends the fingerprint while the file is shorter than `FP_LEN`.
    pub fn check(&mut self) -> Change {
        let Some(file) = &self.file else {
            return Change::None;
        };
        let Ok(meta) = file.metadata() else {
            return Change::None;
        };
        let rewritten = self.fp.len > 0 && !self.fp.matches(file);
        let truncated = meta.len() < self.read_pos || rewritten;
        let grown = self.fp.len < FP_LEN && meta.len() > self.fp.len as u64;
        let old = self.fp;
        if truncated || grown {
            self.fp = Fingerprint::read(file, FP_LEN);
        }
        if truncated {
            let before = self.line_start;
            self.seek(0);
            return Change::Truncated { before, old };
        }
        Change::None
    }

    /// Reads up to `budget` bytes, calling `emit` with each whole line: up to `max_line`
    /// bytes of it, and up to `cap` when the pool lends the room (a line within one read
    /// is in memory anyway: up to `cap`). Returns the bytes read (0 at end of file).
    pub fn read(
        &mut self,
        budget: usize,
        (max_line, cap): (usize, usize),
        emit: &mut dyn FnMut(Line<'_>),
    ) -> std::io::Result<usize> {
        let Some(file) = &self.file else {
            return Ok(0);
        };
        let mut total = 0;
        self.buf.resize(CHUNK, 0);
        while total < budget {
            let want = CHUNK.min(budget - total);
            let n = match file.read_at(&mut self.buf[..want], self.read_pos) {
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if n == 0 {
                break;
            }
            total += n;
            let chunk_start = self.read_pos;
            self.read_pos += n as u64;
            let mut rest = &self.buf[..n];
            let mut consumed = 0usize;
            while let Some(i) = memchr::memchr(b'\n', rest) {
                let end = chunk_start + (consumed + i + 1) as u64;
                if self.partial_len == 0 {
                    let line = trim_cr(&rest[..i]);
                    let kept = &line[..line.len().min(cap.max(max_line))];
                    emit(Line {
                        bytes: kept,
                        real_len: line.len(),
                        end,
                    });
                } else {
                    self.partial.extend(&rest[..i], max_line, cap);
                    self.partial_len += i;
                    let cr = self.partial.bytes.last() == Some(&b'\r');
                    let real = self.partial_len - usize::from(cr);
                    let line = trim_cr(&self.partial.bytes);
                    emit(Line {
                        bytes: line,
                        real_len: real,
                        end,
                    });
                    self.partial.clear();
                    self.partial_len = 0;
                }
                self.line_start = end;
                consumed += i + 1;
                rest = &rest[i + 1..];
            }
            if !rest.is_empty() {
                self.partial.extend(rest, max_line, cap);
                self.partial_len += rest.len();
            }
        }
        self.at_eof = total < budget;
        Ok(total)
    }

    /// Hands out the unfinished last line as a line of its own (the file is finished with:
    /// it was rotated away or deleted and read to its end).
    pub fn finish(&mut self, emit: &mut dyn FnMut(Line<'_>)) {
        if self.partial_len > 0 {
            let kept = &self.partial.bytes[..];
            emit(Line {
                bytes: kept,
                real_len: self.partial_len,
                end: self.read_pos,
            });
            self.partial.clear();
            self.partial_len = 0;
            self.line_start = self.read_pos;
        }
    }
}

fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn temp(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("logship-tail-{name}-{}", std::process::id()))
    }

    fn open(path: &PathBuf) -> Tail {
        let file = File::open(path).expect("open");
        let id = FileId::of(&file.metadata().expect("stat"));
        Tail::new(path.clone(), id, file, 0)
    }

    fn lines(tail: &mut Tail, budget: usize, cap: usize) -> Vec<(String, usize, u64)> {
        let mut out = Vec::new();
        tail.read(budget, (cap, cap), &mut |l| {
            out.push((
                String::from_utf8_lossy(l.bytes).into_owned(),
                l.real_len,
                l.end,
            ))
        })
        .expect("read");
        out
    }

    #[test]
    fn lines_split_across_reads_and_appends_keep_their_offsets() {
        let path = temp("split");
        std::fs::write(&path, b"one\r\ntw").unwrap();
        let mut tail = open(&path);
        assert_eq!(lines(&mut tail, 1 << 20, 100), [("one".into(), 3, 5)]);
        assert_eq!(tail.line_start(), 5);
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(b"o\nthree-is-long\n").unwrap();
        assert_eq!(
            lines(&mut tail, 1 << 20, 5),
            [("two".into(), 3, 9), ("three".into(), 13, 23)]
        );
        // A small budget reads part of the file at a time, never more.
        f.write_all(b"a\nb\nc\n").unwrap();
        assert_eq!(lines(&mut tail, 3, 100), [("a".into(), 1, 25)]);
        assert!(!tail.at_eof);
        f.write_all(b"tail-without-newline").unwrap();
        let rest = lines(&mut tail, 1 << 20, 100);
        assert_eq!(rest, [("b".into(), 1, 27), ("c".into(), 1, 29)]);
        let mut last = Vec::new();
        tail.finish(&mut |l| last.push((l.bytes.to_vec(), l.end)));
        assert_eq!(last, [(b"tail-without-newline".to_vec(), 49)]);
    }

    #[test]
    fn truncation_and_rewrite_in_place_restart_at_zero() {
        let path = temp("trunc");
        std::fs::write(&path, b"first line of the file\nsecond\n").unwrap();
        let mut tail = open(&path);
        assert_eq!(lines(&mut tail, 1 << 20, 100).len(), 2);
        assert_eq!(tail.check(), Change::None);
        // copytruncate: the file shrinks.
        std::fs::write(&path, b"new\n").unwrap();
        let old = tail.fp;
        assert_eq!(tail.check(), Change::Truncated { before: 30, old });
        assert_eq!(lines(&mut tail, 1 << 20, 100), [("new".into(), 3, 4)]);
        // Truncated and written past the old offset before we looked: the first bytes
        // differ, so it is still seen.
        std::fs::write(&path, b"XYZ and a lot more text than before\n").unwrap();
        let old = tail.fp;
        assert_eq!(tail.check(), Change::Truncated { before: 4, old });
    }
}
