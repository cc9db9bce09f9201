//! Insurance copies of batches whose request is taking long, so a crash does not lose them.
//!
//! Why it exists: a batch whose request hangs (an intake that accepted the connection and
//! does not answer) would otherwise sit only in memory for the whole request timeout, and a
//! SIGKILL or an OOM kill meanwhile loses it. After `spill_in_flight_after_ms` the batch is
//! also written to `<dir>/inflight/<id>.seg` (the segment format, synced unless
//! `spill_fsync = never`). The copy is deleted as soon as the batch settles (delivered,
//! rejected or spilled the usual way), so a live process never replays it and nothing is
//! counted twice. After a crash, the next `Spill::open` adopts every copy it finds as an
//! ordinary segment, and the replayer ships it: at-least-once (a request that succeeded
//! just before the crash is sent again).
//!
//! Must never: count an insurance copy as spilled (the batch is still in flight), or
//! delete a copy before the batch's own settlement is on disk.

use std::io;
use std::path::{Path, PathBuf};

use super::segment::{self, SegmentWriter};
use crate::capture::record::Record;

/// The subdirectory holding insurance copies.
pub(crate) const IN_FLIGHT_DIR: &str = "inflight";

/// Writes `records` as one complete segment `<dir>/inflight/<id>.seg`; `sync` flushes it
/// to the device. A file that could not be written whole is removed again.
pub(crate) fn write(dir: &Path, id: u64, records: &[Record], sync: bool) -> io::Result<PathBuf> {
    let mut frames = Vec::new();
    let mut count = 0;
    for record in records {
        if segment::encode_frame(record, &mut frames) {
            count += 1;
        }
    }
    let mut writer = SegmentWriter::create(&dir.join(IN_FLIGHT_DIR), id)?;
    let path = dir.join(IN_FLIGHT_DIR).join(segment::file_name(id));
    let written = writer
        .write(&frames, count)
        .map_err(|(e, _)| e)
        .and_then(|()| if sync { writer.sync() } else { Ok(()) });
    if let Err(e) = written {
        drop(writer);
        let _ = std::fs::remove_file(&path);
        return Err(e);
    }
    Ok(path)
}

/// Moves every insurance copy an earlier run left into `dir` as segments numbered from
/// `next_id` on (oldest copy first); returns the ids given, in order.
pub(crate) fn adopt(dir: &Path, mut next_id: u64) -> io::Result<Vec<(u64, PathBuf)>> {
    let inflight = dir.join(IN_FLIGHT_DIR);
    let mut adopted = Vec::new();
    for (_, path) in segment::list(&inflight)? {
        let target = dir.join(segment::file_name(next_id));
        std::fs::rename(&path, &target)?;
        adopted.push((next_id, target));
        next_id += 1;
    }
    Ok(adopted)
}
