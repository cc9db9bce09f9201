//! The spill side of `crate::fuzzing` (see there): the segment reader, the frame encoder,
//! the ACK file parser and a whole open-and-replay of a directory, for the fuzz targets.
//!
//! NOT API: compiled only with the `fuzzing` feature. Must never: hold logic of its own
//! beyond exposing the spill's private code paths as they are.

use std::io;
use std::path::Path;

use super::{progress, segment, Spill, SpillConfig};
use crate::capture::record::Record;

/// The spill segment file header's magic (`b"LGSHSPIL"`, then the format version as a
/// little-endian `u32`).
pub const SEGMENT_FILE_MAGIC: &[u8; 8] = segment::FILE_MAGIC;
/// The segment format version this build writes.
pub const SEGMENT_VERSION: u32 = segment::VERSION;
/// The oldest segment format version this build still reads.
pub const SEGMENT_OLDEST_VERSION: u32 = segment::OLDEST_VERSION;
/// Bytes of the segment file header.
pub const SEGMENT_HEADER_LEN: u64 = segment::HEADER_LEN;
/// The magic that starts every frame, as a little-endian `u32`.
pub const FRAME_MAGIC: u32 = segment::FRAME_MAGIC;
/// Bytes before a frame's payload (magic, length, CRC32).
pub const FRAME_HEADER_LEN: u64 = segment::FRAME_HEADER_LEN;

/// What the segment reader returned next.
#[derive(Debug)]
pub enum SegmentItem {
    /// An intact frame at `start..end`.
    Record {
        /// The decoded record.
        record: Record,
        /// Offset of the frame's magic.
        start: u64,
        /// Offset just past the frame.
        end: u64,
    },
    /// Bytes `start..end` holding no intact frame.
    Corrupt {
        /// First damaged byte.
        start: u64,
        /// Offset of the next intact frame, or the file length.
        end: u64,
    },
}

/// The segment file at `path` read with the library's `FrameReader`: whether the header
/// was accepted (`Err` names why not), the file length it saw, and every item in order.
pub fn read_segment(path: &Path) -> io::Result<(Result<(), String>, u64, Vec<SegmentItem>)> {
    let mut reader = segment::FrameReader::open(path)?;
    let header = reader.check_header()?.map_err(|e| e.to_string());
    let mut items = Vec::new();
    while let Some(item) = reader.next_item()? {
        items.push(match item {
            segment::Item::Record { record, start, end } => {
                SegmentItem::Record { record, start, end }
            }
            segment::Item::Corrupt { start, end } => SegmentItem::Corrupt { start, end },
        });
    }
    Ok((header, reader.len(), items))
}

/// Appends one frame holding `record` (the writer's own encoding); false when too large.
pub fn encode_frame(record: &Record, out: &mut Vec<u8>) -> bool {
    segment::encode_frame(record, out)
}

/// `Record::from_bytes`: the record a frame payload holds, or `None`.
pub fn record_from_bytes(bytes: &[u8]) -> Option<Record> {
    Record::from_bytes(bytes)
}

/// The ACK file parser: `(segment id, frames, offset)` per accepted line.
pub fn parse_ack(bytes: &[u8]) -> Vec<(u64, u64, u64)> {
    progress::parse(bytes)
        .into_iter()
        .map(|(id, e)| (id, e.frames, e.offset))
        .collect()
}

/// One segment as `Spill::open` picked it up, and what replay then handed out of it.
#[derive(Debug)]
pub struct ReplayedSegment {
    /// Segment id.
    pub id: u64,
    /// File length when opened.
    pub bytes: u64,
    /// The acknowledged offset `Spill::open` took from the ACK file.
    pub acked_offset: u64,
    /// The acknowledged frame count it took.
    pub acked_frames: u64,
}

/// Opens the spill directory `dir` (segments and ACK file as left by an earlier run),
/// then replays it to the end, acknowledging every batch: the segments as opened, and
/// the records handed out, in order. Segment files are removed by the acknowledgements.
pub fn replay_dir(dir: &Path) -> Result<(Vec<ReplayedSegment>, Vec<Record>), String> {
    let mut spill = Spill::open(SpillConfig::new(dir)).map_err(|e| e.to_string())?;
    let opened = spill
        .store
        .sealed
        .iter()
        .map(|s| ReplayedSegment {
            id: s.id,
            bytes: s.bytes,
            acked_offset: s.acked_offset,
            acked_frames: s.acked,
        })
        .collect();
    let mut out = Vec::new();
    // Each batch holds at least one record, so this ends; the bound only guards a bug.
    for _ in 0..1_000_000 {
        match spill.next_batch(7, 64 * 1024).map_err(|e| e.to_string())? {
            Some(batch) => {
                out.extend(batch.records.iter().cloned());
                spill.ack(batch).map_err(|e| e.to_string())?;
            }
            None => break,
        }
    }
    if !spill.is_empty() {
        return Err(format!("replay left records behind: {:?}", spill.stats()));
    }
    Ok((opened, out))
}
