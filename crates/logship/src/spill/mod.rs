//! Disk spill: records the intake could not take yet, kept on disk until replayed.
//!
//! Why it exists: when the intake is down or slow, the in-memory queue fills and records
//! would be dropped. Instead the worker appends them to rotating segment files under a
//! byte cap, and a replayer ships them later, at-least-once, even across a crash or a
//! restart. Records that the intake rejects for good go to `dead/` so they can be looked
//! at instead of vanishing.
//!
//! Layout of a spill directory (created 0700, files 0600):
//!
//! ```text
//! <dir>/LOCK                        exclusive lock of the owning `Spill`
//! <dir>/ACK                         replay progress (see `progress`)
//! <dir>/<20-digit id>.seg           segments, oldest id first (see `segment`)
//! <dir>/<20-digit id>.seg.bad       quarantined segments whose header was damaged
//! <dir>/dead/<20-digit id>.seg      dead letters, same format
//! <dir>/inflight/<20-digit id>.seg  insurance copies of batches in flight (see `in_flight`)
//! ```
//!
//! Must never: panic on any bytes found on disk; refuse to open because of damaged data
//! (damage is skipped, counted in `corrupt_records`, and quarantined when it is a header);
//! delete a segment before its acknowledgement is durable; or hold a whole segment in
//! memory.

mod config;
mod count;
mod error;
#[cfg(feature = "fuzzing")]
pub(crate) mod fuzzing;
pub(crate) mod handle;
pub(crate) mod handover;
mod in_flight;
mod inspect;
mod lock;
pub(crate) mod progress;
mod reader;
mod segment;
pub(crate) mod startup;
mod stats;
mod store;
#[cfg(test)]
mod tests;
#[cfg(test)]
pub(crate) mod testutil;

use std::collections::VecDeque;
use std::io;
use std::path::{Path, PathBuf};

pub use config::{SpillConfig, SpillFsync, SpillFull};
pub use error::SpillError;
pub use inspect::{inspect, remove_all, SegmentInfo};
pub use reader::ReplayBatch;
pub use stats::SpillStats;

use crate::capture::record::Record;
use lock::DirLock;
use segment::{FrameReader, HEADER_LEN, QUARANTINE_SUFFIX};
use store::{AppendOutcome, Caps, Evicted, Seg, SegmentStore};

/// Name of the dead-letter subdirectory.
pub(crate) const DEAD_DIR: &str = "dead";

/// The owner of a spill directory: appends, replay, acknowledgements, dead letters.
///
/// Holds the directory's lock for its whole life; dropping it seals the segment being
/// written (so that a new `Spill` on the same directory replays it) and releases the lock.
pub(crate) struct Spill {
    dir: PathBuf,
    store: SegmentStore,
    dead: SegmentStore,
    /// Refused batches waiting to be handed out again, by (segment, first frame).
    retry: Vec<ReplayBatch>,
    /// Reader of the segment being replayed.
    cursor: Option<(u64, FrameReader)>,
    stats: SpillStats,
    /// The id the next insurance copy gets (see `in_flight`).
    in_flight_next: u64,
    /// Whether insurance copies are synced (`spill_fsync` is not `never`).
    in_flight_sync: bool,
    /// Declared last: released only after everything above is closed.
    _lock: DirLock,
}

impl std::fmt::Debug for Spill {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Spill")
            .field("dir", &self.dir)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

impl Spill {
    /// The directory this spill lives in.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Opens (creating if needed) and locks the directory, and picks up segments and
    /// progress left by an earlier run. Segments with a damaged header are quarantined,
    /// never a reason to fail. Only headers are read: the records of existing segments are
    /// counted later, off the caller's thread (see `count`), so a large backlog does not
    /// delay start-up.
    pub(crate) fn open(cfg: SpillConfig) -> Result<Spill, SpillError> {
        let dir = cfg.dir.clone();
        lock::create_dir(&dir)?;
        let lock = DirLock::acquire(&dir)?;
        let dead_dir = dir.join(DEAD_DIR);
        lock::create_dir(&dead_dir)?;
        lock::create_dir(&dir.join(in_flight::IN_FLIGHT_DIR))?;
        let _ = std::fs::remove_file(dir.join(progress::ACK_TMP));
        let acks =
            progress::load(&dir).map_err(|e| SpillError::io(&dir, "read the ACK file", e))?;

        let mut stats = SpillStats::default();
        let quarantined = segment::max_quarantined_id(&dir)
            .map_err(|e| SpillError::io(&dir, "list the directory", e))?;
        let mut max_id = acks
            .keys()
            .next_back()
            .copied()
            .unwrap_or(0)
            .max(quarantined);
        let mut sealed = VecDeque::new();
        let files =
            segment::list(&dir).map_err(|e| SpillError::io(&dir, "list the directory", e))?;
        for (id, path) in files {
            max_id = max_id.max(id);
            let opened = open_existing(&path, acks.get(&id).copied(), id);
            match opened.map_err(|e| SpillError::io(&dir, "read a segment file", e))? {
                Some(seg) => sealed.push_back(seg),
                None => {
                    quarantine(&path);
                    stats.corrupt_records += 1;
                }
            }
        }

        // Insurance copies of batches that were in flight when an earlier run ended (a
        // crash): adopted as ordinary segments, to be replayed.
        let adopted = in_flight::adopt(&dir, max_id.saturating_add(1))
            .map_err(|e| SpillError::io(&dir, "adopt the in-flight copies", e))?;
        for (id, path) in adopted {
            max_id = max_id.max(id);
            match open_existing(&path, None, id)
                .map_err(|e| SpillError::io(&dir, "read a segment file", e))?
            {
                Some(seg) => sealed.push_back(seg),
                None => {
                    quarantine(&path);
                    stats.corrupt_records += 1;
                }
            }
        }

        let mut dead_max = 0;
        let mut dead_sealed = VecDeque::new();
        let dead_files = segment::list(&dead_dir)
            .map_err(|e| SpillError::io(&dir, "list the dead-letter directory", e))?;
        for (id, path) in dead_files {
            dead_max = dead_max.max(id);
            if let Ok(meta) = std::fs::metadata(&path) {
                let mut seg = Seg::new(id, meta.len(), 0);
                seg.records_known = false;
                dead_sealed.push_back(seg);
            }
        }

        let caps = Caps {
            segment_max_bytes: cfg.segment_max_bytes,
            max_total_bytes: cfg.max_total_bytes,
            full: cfg.full,
            fsync: cfg.fsync,
        };
        let dead_budget = cfg.max_total_bytes / 8;
        let dead_caps = Caps {
            segment_max_bytes: cfg.segment_max_bytes.min(dead_budget),
            max_total_bytes: dead_budget,
            ..caps
        };
        let mut spill = Spill {
            store: SegmentStore::new(dir.clone(), caps, sealed, max_id.saturating_add(1)),
            dead: SegmentStore::new(dead_dir, dead_caps, dead_sealed, dead_max.saturating_add(1)),
            dir,
            retry: Vec::new(),
            cursor: None,
            stats,
            in_flight_next: 1,
            in_flight_sync: cfg.fsync != SpillFsync::Never,
            _lock: lock,
        };
        // Segments an earlier run finished (acknowledged up to their end, or empty) but had
        // not deleted yet: the ACK file already records that.
        let mut i = 0;
        while i < spill.store.sealed.len() {
            if !spill.finish_if_done(i)? {
                i += 1;
            }
        }
        Ok(spill)
    }

    /// Appends records to the segment being written, rotating and applying the byte budget.
    /// On `Err`, part of `records` may have been written (see `stats`); the rest were not.
    pub(crate) fn append(&mut self, records: &[Record]) -> Result<AppendOutcome, SpillError> {
        let mut out = AppendOutcome::default();
        let mut evicted = Vec::new();
        let result = self.store.append(records, &mut out, &mut evicted);
        self.stats.written_records += out.written as u64;
        self.stats.dropped_records += out.dropped_records;
        self.stats.dropped_segments += out.dropped_segments;
        self.stats.corrupt_records += evicted.iter().map(|e| e.corrupt).sum::<u64>();
        self.forget_evicted(&evicted);
        result.map(|()| out)
    }

    /// Writes an insurance copy of a batch still in flight (see `in_flight`); the caller
    /// deletes the returned file once the batch has settled.
    pub(crate) fn write_in_flight(&mut self, records: &[Record]) -> Result<PathBuf, SpillError> {
        let id = self.in_flight_next;
        self.in_flight_next += 1;
        in_flight::write(&self.dir, id, records, self.in_flight_sync)
            .map_err(|e| SpillError::io(&self.dir, "write an in-flight copy", e))
    }

    /// Seals the segment being written so that replay can read it. No-op when nothing has
    /// been appended since the last seal.
    pub(crate) fn seal(&mut self) -> Result<(), SpillError> {
        self.store.seal_active()
    }

    /// Appends records the intake refused for good to `dead/` (same format, budget of an
    /// eighth of `max_total_bytes`, same full and fsync policies). Never replayed.
    pub(crate) fn dead_letter(&mut self, records: &[Record]) -> Result<(), SpillError> {
        let mut out = AppendOutcome::default();
        let mut evicted = Vec::new();
        let result = self.dead.append(records, &mut out, &mut evicted);
        self.stats.dead_letter_records += out.written as u64;
        self.stats.dead_letter_dropped_records += out.dropped_records;
        result
    }

    /// A snapshot of the counters.
    pub(crate) fn stats(&self) -> SpillStats {
        let mut s = self.stats.clone();
        s.segments = self.store.segments() as u64;
        s.pending_records = self.pending_records();
        s.bytes = self.store.total_bytes;
        s
    }

    /// True when nothing is left to replay or acknowledge (a segment not counted yet is
    /// never empty).
    pub(crate) fn is_empty(&self) -> bool {
        self.pending_records() == 0 && self.store.sealed.iter().all(|s| s.records_known)
    }

    fn pending_records(&self) -> u64 {
        self.store.sealed.iter().map(Seg::pending).sum::<u64>() + self.store.active_records()
    }

    /// Drops replay state of segments the byte budget deleted.
    fn forget_evicted(&mut self, evicted: &[Evicted]) {
        for e in evicted {
            self.retry.retain(|b| b.segment != e.id);
            if self.cursor.as_ref().is_some_and(|(id, _)| *id == e.id) {
                self.cursor = None;
            }
        }
    }

    /// Writes the ACK file from the in-memory progress of every live segment.
    fn persist_acks(&self) -> Result<(), SpillError> {
        let entries = self.store.sealed.iter().filter(|s| s.acked > 0).map(|s| {
            let e = progress::SegmentProgress {
                frames: s.acked,
                offset: s.acked_offset,
            };
            (s.id, e)
        });
        progress::store(&self.dir, entries)
            .map_err(|e| SpillError::io(&self.dir, "write the ACK file", e))
    }
}

impl Drop for Spill {
    fn drop(&mut self) {
        let _ = self.store.seal_active();
        let _ = self.dead.seal_active();
    }
}

/// Picks up an existing segment by reading its header only: `None` when the header is
/// damaged, else the segment with its acknowledged prefix applied. Its records are not
/// counted (`records_known` false, see `count`) unless the acknowledged prefix reaches the
/// end of the file, when it is known to be finished.
fn open_existing(
    path: &Path,
    acked: Option<progress::SegmentProgress>,
    id: u64,
) -> io::Result<Option<Seg>> {
    let mut reader = FrameReader::open(path)?;
    if reader.check_header()?.is_err() {
        return Ok(None);
    }
    let len = reader.len();
    let (frames, offset) = match acked {
        Some(a) if a.offset > HEADER_LEN => (a.frames, a.offset.min(len)),
        _ => (0, HEADER_LEN),
    };
    let finished = offset >= len;
    let mut seg = Seg::new(id, len, frames);
    seg.records_known = finished;
    seg.acked = frames;
    seg.acked_offset = offset;
    seg.settled = frames;
    seg.next_frame = frames;
    seg.next_offset = offset;
    // Damage before the acknowledged prefix's end was counted by an earlier run.
    seg.counted_to = offset;
    seg.exhausted = finished;
    Ok(Some(seg))
}

/// Renames a segment with a damaged header to `*.seg.bad`, out of replay's way. A failed
/// rename leaves it to be found again next time.
fn quarantine(path: &Path) {
    let mut bad = path.as_os_str().to_owned();
    bad.push(QUARANTINE_SUFFIX);
    let _ = std::fs::rename(path, bad);
}
