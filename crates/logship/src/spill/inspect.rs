//! Read-only inspection and removal of a spill directory, for `logship spill ls/verify/rm`.
//!
//! Why it exists: an operator must be able to see what is waiting on disk (how many
//! records, how old, how much is damaged) without stopping the application that owns the
//! directory, and to clear it when the logs are not wanted. Inspection takes no lock and
//! writes nothing; removal takes the lock so it can never pull files from under a running
//! `Spill`.
//!
//! Must never: modify anything while inspecting, panic on any file content, or hold more
//! than one frame of a segment in memory.

use std::io;
use std::path::{Path, PathBuf};

use super::lock::DirLock;
use super::progress::{self, ACK_FILE, ACK_TMP};
use super::segment::{self, FrameReader, HEADER_LEN};
use super::{SpillError, DEAD_DIR};

/// What one segment file holds.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct SegmentInfo {
    /// The file.
    pub path: PathBuf,
    /// True for dead letters (`dead/`), which are never replayed.
    pub dead_letter: bool,
    /// True for a quarantined segment (`*.seg.bad`): its header was damaged, so it was
    /// renamed out of replay's way and is never replayed. Only `bytes` is filled in
    /// (`corrupt` is 1); `remove_all` deletes it.
    pub quarantined: bool,
    /// Intact records.
    pub records: u64,
    /// Damaged regions (a torn tail or a damaged header counts as one).
    pub corrupt: u64,
    /// File size.
    pub bytes: u64,
    /// Timestamp of the oldest intact record, in nanoseconds since the Unix epoch.
    pub oldest_ts_nanos: Option<u64>,
    /// Timestamp of the newest intact record.
    pub newest_ts_nanos: Option<u64>,
    /// Leading records already delivered by replay, per the ACK file.
    pub acked: u64,
}

/// Lists every segment of `dir` (replay segments oldest first, then quarantined ones, then
/// dead letters) with its counts, reading each file a frame at a time. Quarantined
/// segments are only sized, not read. Takes no lock and changes nothing, so
/// it works while a logship process is using the directory (a segment being written may
/// then show a torn tail). A missing directory has no segments.
pub fn inspect(dir: &Path) -> Result<Vec<SegmentInfo>, SpillError> {
    let acks = match progress::load(dir) {
        Ok(a) => a,
        Err(e) if e.kind() == io::ErrorKind::NotFound => Default::default(),
        Err(e) => return Err(SpillError::io(dir, "read the ACK file", e)),
    };
    let mut out = Vec::new();
    for (sub, dead_letter) in [(dir.to_path_buf(), false), (dir.join(DEAD_DIR), true)] {
        let files = match segment::list_all(&sub) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(SpillError::io(dir, "list the directory", e)),
        };
        for (id, path) in files.live {
            let mut info = match describe(&path) {
                Ok(info) => info,
                // Removed since it was listed (replayed and deleted meanwhile).
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(SpillError::io(dir, "read a segment file", e)),
            };
            info.dead_letter = dead_letter;
            if !dead_letter {
                info.acked = acks.get(&id).map_or(0, |a| a.frames.min(info.records));
            }
            out.push(info);
        }
        for (_, path) in files.quarantined {
            match std::fs::metadata(&path) {
                Ok(meta) => out.push(SegmentInfo {
                    dead_letter,
                    quarantined: true,
                    corrupt: 1,
                    bytes: meta.len(),
                    ..SegmentInfo::empty(path)
                }),
                // Removed since it was listed (`logship spill rm` meanwhile).
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(SpillError::io(dir, "read a segment file", e)),
            }
        }
    }
    Ok(out)
}

impl SegmentInfo {
    /// A live, empty segment at `path`, to be filled in.
    fn empty(path: PathBuf) -> SegmentInfo {
        SegmentInfo {
            path,
            dead_letter: false,
            quarantined: false,
            records: 0,
            corrupt: 0,
            bytes: 0,
            oldest_ts_nanos: None,
            newest_ts_nanos: None,
            acked: 0,
        }
    }
}

fn describe(path: &Path) -> io::Result<SegmentInfo> {
    let mut reader = FrameReader::open(path)?;
    let mut info = SegmentInfo {
        bytes: reader.len(),
        ..SegmentInfo::empty(path.to_path_buf())
    };
    if reader.check_header()?.is_err() {
        info.corrupt = 1;
        return Ok(info);
    }
    let t = segment::scan(&mut reader, HEADER_LEN)?;
    info.records = t.records;
    info.corrupt = t.corrupt;
    info.oldest_ts_nanos = t.oldest_ts;
    info.newest_ts_nanos = t.newest_ts;
    Ok(info)
}

/// Deletes every segment (replay, quarantined and dead-letter) and the ACK file of `dir`,
/// and returns how many files were removed. Takes the directory's lock first, so it fails
/// with [`SpillError::Locked`] while a logship process is using the directory. The
/// directories and the LOCK file stay. A missing directory has nothing to remove.
pub fn remove_all(dir: &Path) -> Result<u64, SpillError> {
    match std::fs::metadata(dir) {
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(SpillError::io(dir, "read the directory", e)),
    }
    let _lock = DirLock::acquire(dir)?;
    let mut removed = 0;
    for sub in [dir.to_path_buf(), dir.join(DEAD_DIR)] {
        let entries = match std::fs::read_dir(&sub) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(SpillError::io(dir, "list the directory", e)),
        };
        for entry in entries {
            let entry = entry.map_err(|e| SpillError::io(dir, "list the directory", e))?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            let is_segment = segment::parse_file_name(name).is_some()
                || segment::parse_quarantined_name(name).is_some();
            let is_ack = sub == dir && (name == ACK_FILE || name == ACK_TMP);
            if !(is_segment || is_ack) {
                continue;
            }
            // Only files, like `inspect` lists (a directory with a segment's name stays).
            let file_type = entry
                .file_type()
                .map_err(|e| SpillError::io(dir, "list the directory", e))?;
            if !file_type.is_file() {
                continue;
            }
            match std::fs::remove_file(entry.path()) {
                Ok(()) => removed += 1,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(SpillError::io(dir, "remove a spill file", e)),
            }
        }
        crate::support::durable::sync_dir(&sub)
            .map_err(|e| SpillError::io(dir, "sync the directory", e))?;
    }
    Ok(removed)
}
