//! Counting the segments an earlier run left, after start-up and off the spill's lock.
//!
//! Why it exists: `Spill::open` runs on the application's thread (inside `build()`), and
//! reading a large backlog frame by frame there would block start-up for seconds. So open
//! reads only headers, and the replayer counts each segment left behind (records and
//! damaged regions past its acknowledged prefix) before replaying it. Such segments are
//! sealed and never change, so the count reads them with its own [`FrameReader`] while the
//! lock is free for appends, then takes the lock briefly to publish what it found.
//!
//! Must never: hold the spill's lock while reading a file, count a damaged region twice
//! (replay never reads a segment before it is counted, and the count marks the whole file
//! as counted), or publish into a segment evicted or counted meanwhile.

use std::io;
use std::path::PathBuf;

use super::segment::{self, FrameReader, ScanTotals};
use super::{Spill, SpillError};

/// A segment to count: what to read, taken under the lock, run without it.
#[derive(Debug)]
pub(crate) struct CountJob {
    /// The segment.
    pub(super) id: u64,
    path: PathBuf,
    /// Where its unacknowledged part starts.
    pub(super) from: u64,
}

impl CountJob {
    /// Reads the segment from the end of its acknowledged prefix, a frame at a time.
    /// `Ok(None)`: `stop` said to give up. A segment deleted meanwhile (evicted) counts as
    /// empty; publishing then finds it gone and ignores the result.
    pub(crate) fn run(&self, stop: &dyn Fn() -> bool) -> io::Result<Option<ScanTotals>> {
        let mut reader = match FrameReader::open(&self.path) {
            Ok(r) => r,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Ok(Some(ScanTotals::default()))
            }
            Err(e) => return Err(e),
        };
        segment::scan_until(&mut reader, self.from, stop)
    }
}

impl Spill {
    /// The oldest segment not counted yet, if any.
    pub(crate) fn next_count_job(&self) -> Option<CountJob> {
        let seg = self.store.sealed.iter().find(|s| !s.records_known)?;
        Some(CountJob {
            id: seg.id,
            path: self.store.path(seg.id),
            from: seg.next_offset,
        })
    }

    /// Records what counting `job` found. Nothing happens when its segment was evicted or
    /// counted meanwhile. When the count failed, the segment is left to be counted by
    /// replay as it reads it (and the error is returned, to be reported).
    pub(crate) fn publish_count(
        &mut self,
        job: &CountJob,
        totals: io::Result<ScanTotals>,
    ) -> Result<(), SpillError> {
        let Some(i) = self.index_of(job.id) else {
            return Ok(());
        };
        let seg = &mut self.store.sealed[i];
        if seg.records_known || seg.next_offset != job.from {
            return Ok(());
        }
        seg.records_known = true;
        let totals = match totals {
            Ok(t) => t,
            // Replay counts what it reads past `counted_to`, and the records at the end.
            Err(e) => return Err(SpillError::io(&self.dir, "count a segment's records", e)),
        };
        seg.records = seg.next_frame + totals.records;
        seg.counted_to = seg.bytes;
        seg.exhausted = totals.records == 0;
        self.stats.corrupt_records += totals.corrupt;
        self.finish_if_done(i)?;
        Ok(())
    }

    /// Counts one segment on the spot (for tests, which own the spill outright).
    #[cfg(any(test, feature = "fuzzing"))]
    pub(crate) fn count_now(&mut self, job: &CountJob) -> Result<(), SpillError> {
        let totals = job.run(&|| false).map(Option::unwrap_or_default);
        self.publish_count(job, totals)
    }
}
