//! One directory of segments under byte caps: appending, rotating, sealing and evicting.
//!
//! Why it exists: both the replay spill and the dead-letter directory are "an append-only
//! sequence of segment files that must not outgrow a budget". This type owns that logic
//! once: it rotates at `segment_max_bytes`, enforces `max_total_bytes` with the
//! [`SpillFull`] policy, applies the [`SpillFsync`] policy, and keeps per-segment counts in
//! memory so that evicting a segment never requires reading it (except segments from an
//! earlier run not counted yet, which are counted by a streaming scan when evicted).
//!
//! Must never: hold more than one append call's frames in memory, let the live segments
//! exceed `max_total_bytes` (a record that cannot fit even alone is dropped and counted),
//! or delete a segment it did not account for in the returned counts.

use std::collections::{BTreeMap, VecDeque};
use std::io;
use std::path::{Path, PathBuf};

use super::config::{SpillFsync, SpillFull};
use super::error::SpillError;
use super::segment::{self, encode_frame, FrameReader, SegmentWriter, HEADER_LEN};
use crate::capture::record::Record;

/// What one append call did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct AppendOutcome {
    /// Records of this call written to disk.
    pub(crate) written: usize,
    /// Records lost because of this call: refused new ones (`DropNewest`, or a record too
    /// large for the whole cap) plus the unreplayed records of evicted segments.
    pub(crate) dropped_records: u64,
    /// Segments deleted to make room (`DropOldest`).
    pub(crate) dropped_segments: u64,
}

/// Size limits and policies of one store.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Caps {
    pub(crate) segment_max_bytes: u64,
    pub(crate) max_total_bytes: u64,
    pub(crate) full: SpillFull,
    pub(crate) fsync: SpillFsync,
}

/// A sealed segment and its replay progress (dead-letter segments leave the replay fields
/// at their initial values).
#[derive(Debug)]
pub(crate) struct Seg {
    pub(crate) id: u64,
    /// File size, header included.
    pub(crate) bytes: u64,
    /// Intact records in the file (exact once `exhausted`; before that, what was written or
    /// counted; only the acknowledged prefix while `records_known` is false).
    pub(crate) records: u64,
    /// False for segments of an earlier run not counted yet (dead letters are never
    /// counted; replay segments are counted in the background, see `count`).
    pub(crate) records_known: bool,
    /// Leading frames acknowledged (what the ACK file records).
    pub(crate) acked: u64,
    /// Byte offset just past the last of those frames.
    pub(crate) acked_offset: u64,
    /// Frames acknowledged in total, including ranges past the acknowledged prefix.
    pub(crate) settled: u64,
    /// Acknowledged ranges past the prefix: first frame → (frames, end offset).
    pub(crate) done: BTreeMap<u64, (u64, u64)>,
    /// Next frame index to hand out, and where it starts.
    pub(crate) next_frame: u64,
    pub(crate) next_offset: u64,
    /// Frames handed out and neither acknowledged nor refused yet.
    pub(crate) inflight: u64,
    /// The reader reached the end of the file: nothing past `next_frame`.
    pub(crate) exhausted: bool,
    /// Damaged regions starting before this offset were already counted.
    pub(crate) counted_to: u64,
}

impl Seg {
    /// A segment of `records` intact frames, nothing replayed yet.
    pub(crate) fn new(id: u64, bytes: u64, records: u64) -> Seg {
        Seg {
            id,
            bytes,
            records,
            records_known: true,
            acked: 0,
            acked_offset: HEADER_LEN,
            settled: 0,
            done: BTreeMap::new(),
            next_frame: 0,
            next_offset: HEADER_LEN,
            inflight: 0,
            exhausted: false,
            counted_to: 0,
        }
    }

    /// Records not acknowledged yet (in flight or not).
    pub(crate) fn pending(&self) -> u64 {
        self.records.saturating_sub(self.settled)
    }
}

/// A segment removed to make room, and how many of its records were lost with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Evicted {
    pub(crate) id: u64,
    /// Records neither acknowledged nor in flight when it was deleted.
    pub(crate) lost: u64,
    /// Damaged regions found by counting it at eviction (only when it was not counted
    /// before, so they are counted once).
    pub(crate) corrupt: u64,
}

/// A directory of segments: sealed ones oldest first, then at most one being written.
#[derive(Debug)]
pub(crate) struct SegmentStore {
    pub(crate) dir: PathBuf,
    pub(crate) caps: Caps,
    pub(crate) sealed: VecDeque<Seg>,
    pub(crate) active: Option<SegmentWriter>,
    pub(crate) next_id: u64,
    /// Bytes of all live segments, the active one included.
    pub(crate) total_bytes: u64,
}

impl SegmentStore {
    /// A store over `dir` holding `sealed` (oldest first); new segments get ids from
    /// `next_id` on.
    pub(crate) fn new(dir: PathBuf, caps: Caps, sealed: VecDeque<Seg>, next_id: u64) -> Self {
        let total_bytes = sealed.iter().map(|s| s.bytes).sum();
        SegmentStore {
            dir,
            caps,
            sealed,
            active: None,
            next_id,
            total_bytes,
        }
    }

    /// Path of segment `id`.
    pub(crate) fn path(&self, id: u64) -> PathBuf {
        self.dir.join(segment::file_name(id))
    }

    fn err(&self, action: &'static str, e: io::Error) -> SpillError {
        SpillError::io(&self.dir, action, e)
    }

    /// Appends `records`, rotating and evicting as the caps require. Counts go to `out`
    /// and evicted segments to `evicted` even when an error stops the call part-way.
    pub(crate) fn append(
        &mut self,
        records: &[Record],
        out: &mut AppendOutcome,
        evicted: &mut Vec<Evicted>,
    ) -> Result<(), SpillError> {
        let mut frame = Vec::new();
        let mut pending = Vec::new();
        let mut pending_n = 0u64;
        let mut refused = false;
        let mut wrote = false;
        for record in records {
            if refused {
                out.dropped_records += 1;
                continue;
            }
            frame.clear();
            if !encode_frame(record, &mut frame) {
                out.dropped_records += 1;
                continue;
            }
            let flen = frame.len() as u64;
            if HEADER_LEN + flen > self.caps.max_total_bytes {
                // Could never fit, even in an otherwise empty directory.
                out.dropped_records += 1;
                continue;
            }
            if let Some(a) = &self.active {
                let size = a.bytes + pending.len() as u64;
                if a.frames + pending_n > 0 && size + flen > self.caps.segment_max_bytes {
                    wrote |= self.flush(&mut pending, &mut pending_n, out)?;
                    self.seal_active()?;
                }
            }
            loop {
                let need = flen + if self.active.is_none() { HEADER_LEN } else { 0 };
                if self.total_bytes + pending.len() as u64 + need <= self.caps.max_total_bytes {
                    break;
                }
                match self.caps.full {
                    SpillFull::DropNewest => {
                        refused = true;
                        break;
                    }
                    SpillFull::DropOldest => {
                        if self.sealed.is_empty() {
                            // Only the segment being written is left: it is the oldest.
                            wrote |= self.flush(&mut pending, &mut pending_n, out)?;
                            self.seal_active()?;
                        }
                        let Some(e) = self.evict_oldest()? else {
                            refused = true;
                            break;
                        };
                        out.dropped_segments += 1;
                        out.dropped_records += e.lost;
                        evicted.push(e);
                    }
                }
            }
            if refused {
                out.dropped_records += 1;
                continue;
            }
            if self.active.is_none() {
                let id = self.next_id;
                let w = SegmentWriter::create(&self.dir, id)
                    .map_err(|e| self.err("create a segment file", e))?;
                self.next_id = id.saturating_add(1);
                self.total_bytes += w.bytes;
                self.active = Some(w);
            }
            pending.extend_from_slice(&frame);
            pending_n += 1;
        }
        wrote |= self.flush(&mut pending, &mut pending_n, out)?;
        if wrote && self.caps.fsync == SpillFsync::Always {
            if let Some(a) = &self.active {
                a.sync().map_err(|e| self.err("sync a segment file", e))?;
            }
        }
        Ok(())
    }

    /// Writes the buffered frames to the active segment. Returns whether anything was
    /// written.
    fn flush(
        &mut self,
        pending: &mut Vec<u8>,
        pending_n: &mut u64,
        out: &mut AppendOutcome,
    ) -> Result<bool, SpillError> {
        if pending.is_empty() {
            return Ok(false);
        }
        let Some(active) = self.active.as_mut() else {
            return Ok(false);
        };
        let before = active.bytes;
        let result = active.write(pending, *pending_n);
        let n = *pending_n;
        let len = pending.len() as u64;
        pending.clear();
        *pending_n = 0;
        match result {
            Ok(()) => {
                self.total_bytes += len;
                out.written += n as usize;
                Ok(true)
            }
            Err((e, torn)) => {
                if torn {
                    // The file may end in part of a frame: stop appending to it. Its real
                    // size is unknown, so count the whole attempt against the budget.
                    if let Some(a) = self.active.as_mut() {
                        a.bytes = before + len;
                    }
                    self.total_bytes += len;
                    let _ = self.seal_active();
                }
                Err(self.err("write a segment file", e))
            }
        }
    }

    /// Seals the segment being written (if any) so that it becomes replayable; syncs it
    /// unless the policy is `Never`. A segment with no frames is removed instead.
    pub(crate) fn seal_active(&mut self) -> Result<(), SpillError> {
        let Some(w) = self.active.take() else {
            return Ok(());
        };
        if w.frames == 0 {
            self.total_bytes -= w.bytes;
            let path = self.path(w.id);
            drop(w);
            return std::fs::remove_file(path).map_err(|e| self.err("remove an empty segment", e));
        }
        let synced = match self.caps.fsync {
            SpillFsync::Never => Ok(()),
            _ => w
                .sync()
                .and_then(|()| crate::support::durable::sync_dir(&self.dir)),
        };
        self.sealed.push_back(Seg::new(w.id, w.bytes, w.frames));
        synced.map_err(|e| self.err("sync a segment file", e))
    }

    /// Deletes the oldest segment (sealing the active one first if it is the only one).
    /// `None` when there is nothing to delete.
    pub(crate) fn evict_oldest(&mut self) -> Result<Option<Evicted>, SpillError> {
        if self.sealed.is_empty() {
            self.seal_active()?;
        }
        let Some(seg) = self.sealed.pop_front() else {
            return Ok(None);
        };
        let path = self.path(seg.id);
        let (lost, corrupt) = if seg.records_known {
            (seg.records.saturating_sub(seg.settled + seg.inflight), 0)
        } else {
            // Nothing of it was handed out yet: what is past the acknowledged prefix is lost.
            let t = count_records(&path, seg.next_offset).unwrap_or_default();
            (t.records, t.corrupt)
        };
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => {
                self.sealed.push_front(seg);
                return Err(self.err("delete the oldest segment", e));
            }
        }
        self.total_bytes = self.total_bytes.saturating_sub(seg.bytes);
        Ok(Some(Evicted {
            id: seg.id,
            lost,
            corrupt,
        }))
    }

    /// Deletes sealed segment number `index` (its fate must already be durable).
    pub(crate) fn remove_sealed(&mut self, index: usize) -> Result<(), SpillError> {
        let Some(seg) = self.sealed.get(index) else {
            return Ok(());
        };
        match std::fs::remove_file(self.path(seg.id)) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(self.err("delete a replayed segment", e)),
        }
        if let Some(seg) = self.sealed.remove(index) {
            self.total_bytes = self.total_bytes.saturating_sub(seg.bytes);
        }
        Ok(())
    }

    /// Records written to the active segment.
    pub(crate) fn active_records(&self) -> u64 {
        self.active.as_ref().map_or(0, |a| a.frames)
    }

    /// Live segments, the active one included.
    pub(crate) fn segments(&self) -> usize {
        self.sealed.len() + usize::from(self.active.is_some())
    }
}

/// Intact records and damaged regions of a segment file from byte `from` on, by a
/// streaming scan (nothing if its header is damaged).
fn count_records(path: &Path, from: u64) -> io::Result<segment::ScanTotals> {
    let mut reader = FrameReader::open(path)?;
    if reader.check_header()?.is_err() {
        return Ok(segment::ScanTotals::default());
    }
    segment::scan(&mut reader, from)
}
