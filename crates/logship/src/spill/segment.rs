//! The on-disk segment format: file header, frames, a writer and a resynchronising reader.
//!
//! Why it exists: spilled records must survive a crash and come back byte-for-byte, and a
//! damaged file (torn write, disk error, someone editing it) must cost only the damaged
//! records, never the rest of the file. Every frame therefore carries its own magic, length
//! and CRC32, so a reader that meets garbage can skip forward to the next intact frame.
//!
//! Layout of `<20-digit id>.seg`:
//!
//! ```text
//! header: b"LGSHSPIL" ‖ version u32 LE (= 2)                    12 bytes
//! frame:  FRAME_MAGIC u32 LE ‖ len u32 LE ‖ crc u32 LE ‖ payload  12 + len bytes
//!         crc = CRC32 (IEEE, crc32fast) over (len bytes ‖ payload)
//!         payload = Record::to_bytes
//! ```
//!
//! Versions: 2 (this release) added each record's event id to the payload (a flag bit
//! in its level byte says it is there, see `Record::to_bytes`); 1 has no ids. Both are
//! read: a version-1 file an older logship left is replayed, its records without an id.
//! An older logship refuses a version-2 file (quarantined whole, kept, counted) rather
//! than misread its records.
//!
//! Must never: panic on any bytes, hold more than one frame (plus a fixed read window) in
//! memory, or return a record that does not pass both the CRC and `Record::from_bytes`.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use crate::capture::record::Record;

/// First eight bytes of every segment file.
pub(crate) const FILE_MAGIC: &[u8; 8] = b"LGSHSPIL";
/// Format version written after [`FILE_MAGIC`].
pub(crate) const VERSION: u32 = 2;
/// Oldest format version still read (records without event ids).
pub(crate) const OLDEST_VERSION: u32 = 1;
/// Bytes of the file header.
pub(crate) const HEADER_LEN: u64 = 12;
/// Marks the start of every frame (bytes `4C 53 46 52`, "LSFR", on disk).
pub(crate) const FRAME_MAGIC: u32 = 0x5246_534C;
/// Bytes before a frame's payload: magic, length, CRC.
pub(crate) const FRAME_HEADER_LEN: u64 = 12;
/// Suffix of live segment files.
pub(crate) const SEGMENT_SUFFIX: &str = ".seg";
/// Suffix appended to a segment whose header is damaged.
pub(crate) const QUARANTINE_SUFFIX: &str = ".bad";

/// How much the reader fetches from disk at a time.
const WINDOW: usize = 64 * 1024;

/// The file name of segment `id`: 20 zero-padded digits, so names sort like ids.
pub(crate) fn file_name(id: u64) -> String {
    format!("{id:020}{SEGMENT_SUFFIX}")
}

/// The id in a segment file name, or `None` for any other file.
pub(crate) fn parse_file_name(name: &str) -> Option<u64> {
    let digits = name.strip_suffix(SEGMENT_SUFFIX)?;
    if digits.len() != 20 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The id in a quarantined segment's file name (`<20 digits>.seg.bad`), or `None`.
pub(crate) fn parse_quarantined_name(name: &str) -> Option<u64> {
    name.strip_suffix(QUARANTINE_SUFFIX)
        .and_then(parse_file_name)
}

/// The segment files of one directory, each list oldest first.
#[derive(Debug, Default)]
pub(crate) struct Listing {
    /// Live segments (`*.seg`): replayed, or dead letters in `dead/`.
    pub(crate) live: Vec<(u64, PathBuf)>,
    /// Quarantined segments (`*.seg.bad`): header damaged, never replayed.
    pub(crate) quarantined: Vec<(u64, PathBuf)>,
}

/// Lists live and quarantined segment files of `dir` in one pass. Other files and
/// anything that is not a regular file are ignored.
pub(crate) fn list_all(dir: &Path) -> io::Result<Listing> {
    let mut out = Listing::default();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let (id, into) = if let Some(id) = parse_file_name(name) {
            (id, &mut out.live)
        } else if let Some(id) = parse_quarantined_name(name) {
            (id, &mut out.quarantined)
        } else {
            continue;
        };
        if entry.file_type()?.is_file() {
            into.push((id, entry.path()));
        }
    }
    out.live.sort_unstable_by_key(|(id, _)| *id);
    out.quarantined.sort_unstable_by_key(|(id, _)| *id);
    Ok(out)
}

/// Segment ids and paths in `dir`, oldest first. Other files are ignored.
pub(crate) fn list(dir: &Path) -> io::Result<Vec<(u64, PathBuf)>> {
    Ok(list_all(dir)?.live)
}

/// Highest id among quarantined segments (`*.seg.bad`) in `dir`, 0 if none, so that new
/// segments never take the name of one (a later quarantine would overwrite it).
pub(crate) fn max_quarantined_id(dir: &Path) -> io::Result<u64> {
    let mut max = 0;
    for entry in std::fs::read_dir(dir)? {
        let name = entry?.file_name();
        let id = name.to_str().and_then(parse_quarantined_name);
        max = max.max(id.unwrap_or(0));
    }
    Ok(max)
}

/// Appends one frame holding `record` to `out`. Returns `false` (and leaves `out` as it
/// was) when the record is too large to frame (payload over 4 GiB).
pub(crate) fn encode_frame(record: &Record, out: &mut Vec<u8>) -> bool {
    let start = out.len();
    out.extend_from_slice(&FRAME_MAGIC.to_le_bytes());
    out.extend_from_slice(&[0; 8]);
    record.to_bytes(out);
    let payload_start = start + FRAME_HEADER_LEN as usize;
    let Ok(len) = u32::try_from(out.len() - payload_start) else {
        out.truncate(start);
        return false;
    };
    let len_bytes = len.to_le_bytes();
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&len_bytes);
    hasher.update(&out[payload_start..]);
    let crc = hasher.finalize();
    out[start + 4..start + 8].copy_from_slice(&len_bytes);
    out[start + 8..start + 12].copy_from_slice(&crc.to_le_bytes());
    true
}

/// The file header bytes.
fn header() -> [u8; HEADER_LEN as usize] {
    let mut h = [0; HEADER_LEN as usize];
    h[..8].copy_from_slice(FILE_MAGIC);
    h[8..].copy_from_slice(&VERSION.to_le_bytes());
    h
}

/// Opens `path` for writing a new file with mode 0600 (fails if it exists).
pub(crate) fn create_private(path: &Path) -> io::Result<File> {
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
}

/// The segment being appended to. Only one exists per directory at a time, and nobody
/// reads it until it is sealed.
#[derive(Debug)]
pub(crate) struct SegmentWriter {
    file: File,
    /// Segment id.
    pub(crate) id: u64,
    /// Bytes in the file, header included.
    pub(crate) bytes: u64,
    /// Frames written.
    pub(crate) frames: u64,
}

impl SegmentWriter {
    /// Creates `<dir>/<id>.seg` (mode 0600) and writes its header. A file that could not
    /// get its header is removed again.
    pub(crate) fn create(dir: &Path, id: u64) -> io::Result<SegmentWriter> {
        let path = dir.join(file_name(id));
        let mut file = create_private(&path)?;
        if let Err(e) = file.write_all(&header()) {
            drop(file);
            let _ = std::fs::remove_file(&path);
            return Err(e);
        }
        Ok(SegmentWriter {
            file,
            id,
            bytes: HEADER_LEN,
            frames: 0,
        })
    }

    /// Appends already-encoded frames. On failure the file is cut back to its previous
    /// length when possible, so a failed write leaves no torn frame behind; `Err(true)`
    /// says the cut failed and the file may end in a torn frame.
    pub(crate) fn write(&mut self, frames: &[u8], count: u64) -> Result<(), (io::Error, bool)> {
        if frames.is_empty() {
            return Ok(());
        }
        // With the test-only `fault-points` feature, in two parts so the crash harness can
        // kill between them (a torn frame on disk); otherwise in one (the second is empty).
        let half = if cfg!(feature = "fault-points") {
            frames.len() / 2
        } else {
            frames.len()
        };
        let written = self.file.write_all(&frames[..half]).and_then(|()| {
            crate::support::fault_point::reached("spill-write");
            self.file.write_all(&frames[half..])
        });
        match written {
            Ok(()) => {
                self.bytes += frames.len() as u64;
                self.frames += count;
                Ok(())
            }
            Err(e) => {
                let torn = self.file.set_len(self.bytes).is_err();
                Err((e, torn))
            }
        }
    }

    /// Flushes written data to the device (`fdatasync`).
    pub(crate) fn sync(&self) -> io::Result<()> {
        self.file.sync_data()
    }
}

/// What the reader found next.
#[derive(Debug)]
pub(crate) enum Item {
    /// An intact frame spanning `start..end`.
    Record {
        record: Record,
        start: u64,
        end: u64,
    },
    /// Bytes `start..end` that hold no intact frame (one damaged region, or a torn tail).
    Corrupt { start: u64, end: u64 },
}

/// Why a segment's header was rejected.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BadHeader {
    /// Shorter than a header.
    Truncated,
    /// Not a logship segment.
    Magic,
    /// A format version this build does not read.
    Version(u32),
}

impl std::fmt::Display for BadHeader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BadHeader::Truncated => f.write_str("file shorter than the segment header"),
            BadHeader::Magic => f.write_str("not a logship segment (wrong magic)"),
            BadHeader::Version(v) => write!(f, "unsupported segment version {v}"),
        }
    }
}

/// Reads a sealed segment frame by frame, skipping damage.
///
/// The file length is taken once when opened; sealed segments never change. Memory use is
/// one read window plus the largest intact frame read.
pub(crate) struct FrameReader {
    file: File,
    len: u64,
    pos: u64,
    /// Read window: bytes of the file starting at `win_start`.
    win: Vec<u8>,
    win_start: u64,
    /// A frame already validated while resynchronising, returned by the next call.
    pending: Option<(Record, u64, u64)>,
}

impl FrameReader {
    /// Opens `path` positioned after the header (the header is not checked: see
    /// [`FrameReader::check_header`]).
    pub(crate) fn open(path: &Path) -> io::Result<FrameReader> {
        let file = File::open(path)?;
        let len = file.metadata()?.len();
        Ok(FrameReader {
            file,
            len,
            pos: HEADER_LEN.min(len),
            win: Vec::new(),
            win_start: 0,
            pending: None,
        })
    }

    /// Offset of the next frame to read.
    pub(crate) fn pos(&self) -> u64 {
        self.pos
    }

    /// Bytes in the file when it was opened.
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// Checks the file header.
    pub(crate) fn check_header(&mut self) -> io::Result<Result<(), BadHeader>> {
        if self.len < HEADER_LEN {
            return Ok(Err(BadHeader::Truncated));
        }
        let h = match self.get(0, HEADER_LEN as usize) {
            Ok(h) => h,
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => {
                return Ok(Err(BadHeader::Truncated))
            }
            Err(e) => return Err(e),
        };
        if &h[..8] != FILE_MAGIC {
            return Ok(Err(BadHeader::Magic));
        }
        let version = u32::from_le_bytes([h[8], h[9], h[10], h[11]]);
        if !(OLDEST_VERSION..=VERSION).contains(&version) {
            return Ok(Err(BadHeader::Version(version)));
        }
        Ok(Ok(()))
    }

    /// Moves to byte `offset` (clamped to the header and the file end). The offset should
    /// be a frame boundary; if it is not, the reader resynchronises from there.
    pub(crate) fn seek(&mut self, offset: u64) {
        self.pos = offset.clamp(HEADER_LEN.min(self.len), self.len);
        self.pending = None;
    }

    /// Makes the next call return this record again (it was read but not consumed).
    pub(crate) fn unread(&mut self, record: Record, start: u64, end: u64) {
        self.pos = start;
        self.pending = Some((record, start, end));
    }

    /// The next intact record or damaged region; `None` at the end of the file.
    pub(crate) fn next_item(&mut self) -> io::Result<Option<Item>> {
        if let Some((record, start, end)) = self.pending.take() {
            if start == self.pos {
                self.pos = end;
                return Ok(Some(Item::Record { record, start, end }));
            }
        }
        if self.pos >= self.len {
            return Ok(None);
        }
        let start = self.pos;
        if let Some((record, end)) = self.try_frame(start)? {
            self.pos = end;
            return Ok(Some(Item::Record { record, start, end }));
        }
        let next = self.resync(start + 1)?;
        self.pos = next;
        Ok(Some(Item::Corrupt { start, end: next }))
    }

    /// Offset of the next intact frame at or after `from`, or the file length. The frame
    /// found is kept in `pending`.
    fn resync(&mut self, from: u64) -> io::Result<u64> {
        let magic = FRAME_MAGIC.to_le_bytes();
        let mut off = from;
        while off + FRAME_HEADER_LEN <= self.len {
            let n = (self.len - off).min(WINDOW as u64) as usize;
            let hit = {
                let chunk = self.get(off, n)?;
                chunk.windows(4).position(|w| w == magic)
            };
            match hit {
                Some(i) => {
                    let at = off + i as u64;
                    if let Some((record, end)) = self.try_frame(at)? {
                        self.pending = Some((record, at, end));
                        return Ok(at);
                    }
                    off = at + 1;
                }
                // Keep the last three bytes: a magic may straddle two chunks.
                None => off += (n as u64).saturating_sub(3).max(1),
            }
        }
        Ok(self.len)
    }

    /// The intact frame at `at` and the offset after it, or `None` when the bytes there are
    /// not one (wrong magic, length past the end, bad CRC, or not a record).
    fn try_frame(&mut self, at: u64) -> io::Result<Option<(Record, u64)>> {
        let avail = self.len.saturating_sub(at);
        if avail < FRAME_HEADER_LEN {
            return Ok(None);
        }
        let (len, crc) = {
            let h = match self.get(at, FRAME_HEADER_LEN as usize) {
                Ok(h) => h,
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
                Err(e) => return Err(e),
            };
            if h[..4] != FRAME_MAGIC.to_le_bytes() {
                return Ok(None);
            }
            (
                u32::from_le_bytes([h[4], h[5], h[6], h[7]]),
                u32::from_le_bytes([h[8], h[9], h[10], h[11]]),
            )
        };
        if u64::from(len) > avail - FRAME_HEADER_LEN {
            return Ok(None);
        }
        let payload_at = at + FRAME_HEADER_LEN;
        let end = payload_at + u64::from(len);
        // Check the CRC window by window, so a damaged length never makes us hold a
        // large buffer; only an intact frame is then read whole.
        let mut hasher = crc32fast::Hasher::new();
        hasher.update(&len.to_le_bytes());
        let mut off = payload_at;
        while off < end {
            let n = (end - off).min(WINDOW as u64) as usize;
            match self.get(off, n) {
                Ok(bytes) => hasher.update(bytes),
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
                Err(e) => return Err(e),
            }
            off += n as u64;
        }
        if hasher.finalize() != crc {
            return Ok(None);
        }
        let record = match self.get(payload_at, len as usize) {
            Ok(payload) => Record::from_bytes(payload),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(e),
        };
        Ok(record.map(|r| (r, end)))
    }

    /// Exactly `n` bytes at `off` (`UnexpectedEof` past the end of the file).
    fn get(&mut self, off: u64, n: usize) -> io::Result<&[u8]> {
        let in_window =
            off >= self.win_start && off + n as u64 <= self.win_start + self.win.len() as u64;
        if !in_window {
            if off.saturating_add(n as u64) > self.len {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            let want = (n.max(WINDOW) as u64).min(self.len - off) as usize;
            if self.win.capacity() > 4 * WINDOW && want <= WINDOW {
                self.win = Vec::new();
            }
            self.win.clear();
            self.win.resize(want, 0);
            self.win_start = off;
            let mut filled = 0;
            while filled < want {
                match self
                    .file
                    .read_at(&mut self.win[filled..], off + filled as u64)
                {
                    Ok(0) => break,
                    Ok(k) => filled += k,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        self.win.clear();
                        return Err(e);
                    }
                }
            }
            self.win.truncate(filled);
            if filled < n {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
        }
        let s = (off - self.win_start) as usize;
        Ok(&self.win[s..s + n])
    }
}

/// Totals of one scan over a segment.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ScanTotals {
    /// Intact records.
    pub(crate) records: u64,
    /// Damaged regions (a torn tail counts as one).
    pub(crate) corrupt: u64,
    /// Oldest record timestamp.
    pub(crate) oldest_ts: Option<u64>,
    /// Newest record timestamp.
    pub(crate) newest_ts: Option<u64>,
}

/// Counts the records and damaged regions from `offset` to the end, one frame in memory
/// at a time.
pub(crate) fn scan(reader: &mut FrameReader, offset: u64) -> io::Result<ScanTotals> {
    Ok(scan_until(reader, offset, &|| false)?.unwrap_or_default())
}

/// Like [`scan`], but gives up (`None`) as soon as `stop` returns true; it is asked before
/// every frame, so it must be cheap.
pub(crate) fn scan_until(
    reader: &mut FrameReader,
    offset: u64,
    stop: &dyn Fn() -> bool,
) -> io::Result<Option<ScanTotals>> {
    reader.seek(offset);
    let mut t = ScanTotals::default();
    while let Some(item) = reader.next_item()? {
        if stop() {
            return Ok(None);
        }
        match item {
            Item::Record { record, .. } => {
                t.records += 1;
                let ts = record.timestamp_nanos();
                t.oldest_ts = Some(t.oldest_ts.map_or(ts, |o| o.min(ts)));
                t.newest_ts = Some(t.newest_ts.map_or(ts, |n| n.max(ts)));
            }
            Item::Corrupt { .. } => t.corrupt += 1,
        }
    }
    Ok(Some(t))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::record::Level;
    use crate::spill::testutil::TempDir;

    fn rec(i: u64) -> Record {
        let mut r = Record::new(Level::Info, "seg::test");
        r.set_id(Some(crate::capture::record::EventId::from_parts(7, i)))
            .set_timestamp_nanos(1_000 + i)
            .message(&format!("record number {i}"))
            .field("i", i);
        r
    }

    fn write_segment(dir: &Path, id: u64, n: u64) -> (PathBuf, Vec<u8>) {
        let mut w = SegmentWriter::create(dir, id).unwrap();
        let mut buf = Vec::new();
        for i in 0..n {
            assert!(encode_frame(&rec(i), &mut buf));
        }
        w.write(&buf, n).unwrap();
        let path = dir.join(file_name(id));
        let bytes = std::fs::read(&path).unwrap();
        (path, bytes)
    }

    fn read_all(path: &Path) -> (Vec<Record>, u64) {
        let mut r = FrameReader::open(path).unwrap();
        let mut out = Vec::new();
        let mut corrupt = 0;
        while let Some(item) = r.next_item().unwrap() {
            match item {
                Item::Record { record, .. } => out.push(record),
                Item::Corrupt { .. } => corrupt += 1,
            }
        }
        (out, corrupt)
    }

    #[test]
    fn names_round_trip_and_sort() {
        assert_eq!(file_name(7), "00000000000000000007.seg");
        assert_eq!(parse_file_name(&file_name(u64::MAX)), Some(u64::MAX));
        assert_eq!(parse_file_name("7.seg"), None);
        assert_eq!(parse_file_name("0000000000000000000x.seg"), None);
        assert_eq!(parse_file_name("00000000000000000007.seg.bad"), None);
    }

    #[test]
    fn frames_round_trip() {
        let dir = TempDir::new("seg-roundtrip");
        let (path, bytes) = write_segment(dir.path(), 1, 50);
        assert_eq!(&bytes[..8], FILE_MAGIC);
        let mut r = FrameReader::open(&path).unwrap();
        assert_eq!(r.check_header().unwrap(), Ok(()));
        let (records, corrupt) = read_all(&path);
        assert_eq!(corrupt, 0);
        assert_eq!(records, (0..50).map(rec).collect::<Vec<_>>());
    }

    #[test]
    fn every_truncation_yields_a_prefix_and_at_most_one_corrupt_region() {
        let dir = TempDir::new("seg-trunc");
        let (path, bytes) = write_segment(dir.path(), 1, 5);
        for cut in HEADER_LEN as usize + 1..bytes.len() {
            std::fs::write(&path, &bytes[..cut]).unwrap();
            let (records, corrupt) = read_all(&path);
            assert_eq!(
                records,
                (0..records.len() as u64).map(rec).collect::<Vec<_>>()
            );
            let frame = (bytes.len() - HEADER_LEN as usize) / 5;
            let at_boundary = (cut - HEADER_LEN as usize).is_multiple_of(frame);
            assert_eq!(
                records.len(),
                (cut - HEADER_LEN as usize) / frame,
                "cut {cut}"
            );
            assert_eq!(corrupt, u64::from(!at_boundary), "cut {cut}");
        }
    }

    #[test]
    fn a_flipped_byte_costs_one_record() {
        let dir = TempDir::new("seg-flip");
        let (path, bytes) = write_segment(dir.path(), 1, 10);
        for at in HEADER_LEN as usize..bytes.len() {
            let mut b = bytes.clone();
            b[at] ^= 0x5a;
            std::fs::write(&path, &b).unwrap();
            let (records, corrupt) = read_all(&path);
            assert_eq!(records.len(), 9, "flip at {at}");
            assert_eq!(corrupt, 1, "flip at {at}");
        }
    }

    #[test]
    fn bad_headers_are_reported() {
        let dir = TempDir::new("seg-header");
        let (path, bytes) = write_segment(dir.path(), 1, 1);
        let check = |b: &[u8]| {
            std::fs::write(&path, b).unwrap();
            FrameReader::open(&path).unwrap().check_header().unwrap()
        };
        assert_eq!(check(&bytes[..5]), Err(BadHeader::Truncated));
        let mut b = bytes.clone();
        b[0] = b'X';
        assert_eq!(check(&b), Err(BadHeader::Magic));
        let mut b = bytes.clone();
        b[8] = 3;
        assert_eq!(check(&b), Err(BadHeader::Version(3)));
        let mut b = bytes.clone();
        b[8] = 1;
        assert_eq!(check(&b), Ok(()), "files an older logship wrote are read");
    }

    #[test]
    fn large_frames_cross_the_read_window() {
        let dir = TempDir::new("seg-large");
        let mut w = SegmentWriter::create(dir.path(), 1).unwrap();
        let big = "x".repeat(3 * WINDOW + 17);
        let mut buf = Vec::new();
        let mut expected = Vec::new();
        for i in 0..3 {
            let mut r = rec(i);
            r.field("big", big.as_str());
            assert!(encode_frame(&r, &mut buf));
            expected.push(r);
        }
        w.write(&buf, 3).unwrap();
        let (records, corrupt) = read_all(&dir.path().join(file_name(1)));
        assert_eq!((records, corrupt), (expected, 0));
    }
}
