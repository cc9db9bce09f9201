//! Handing spilled records back out, and recording what the intake accepted.
//!
//! Why it exists: the replayer needs batches of the oldest records while the worker keeps
//! appending, several batches may be in flight at once, and each ends in an
//! acknowledgement (delivered: never hand out again, even after a restart) or a refusal
//! (hand out again later). Progress is persisted as an acknowledged prefix per segment,
//! so acknowledgements that arrive out of order are held in memory until the gap closes.
//!
//! Must never: hand out a record twice while it is in flight, read the segment being
//! written, lose a refused batch, or delete a segment before the ACK file that says it is
//! finished has been synced.

use super::count::CountJob;
use super::segment::{FrameReader, Item};
use super::{Spill, SpillError};
use crate::capture::record::Record;

/// Records handed out for delivery, from one segment. Give it back with `Spill::ack` or
/// `Spill::nack`; it cannot be cloned, so it cannot be settled twice.
#[derive(Debug)]
pub struct ReplayBatch {
    /// The records, oldest first.
    pub(crate) records: Vec<Record>,
    /// Segment they come from.
    pub(crate) segment: u64,
    /// Index of the first record's frame among the segment's intact frames.
    pub(crate) first_frame: u64,
    /// Byte offset just past each record's frame.
    pub(crate) ends: Vec<u64>,
}

impl ReplayBatch {
    /// The records, oldest first.
    pub fn records(&self) -> &[Record] {
        &self.records
    }

    /// Number of records.
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Always false for a batch handed out by `next_batch` (the spill tests check it).
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    fn end(&self) -> u64 {
        self.ends.last().copied().unwrap_or(0)
    }

    /// Splits off what does not fit the limits (at least one record is kept).
    fn split(mut self, max_records: usize, max_bytes: usize) -> (ReplayBatch, Option<ReplayBatch>) {
        let keep = fit(&self.records, max_records, max_bytes);
        if keep >= self.records.len() {
            return (self, None);
        }
        let rest = ReplayBatch {
            records: self.records.split_off(keep),
            segment: self.segment,
            first_frame: self.first_frame + keep as u64,
            ends: self.ends.split_off(keep),
        };
        (self, Some(rest))
    }
}

/// How many leading records fit `max_records` and `max_bytes` (`Record::size`), at least 1.
fn fit(records: &[Record], max_records: usize, max_bytes: usize) -> usize {
    let mut bytes = 0usize;
    let mut n = 0;
    for r in records.iter().take(max_records.max(1)) {
        bytes = bytes.saturating_add(r.size());
        if n > 0 && bytes > max_bytes {
            break;
        }
        n += 1;
    }
    n
}

/// What replay needs next.
#[derive(Debug)]
pub(crate) enum Step {
    /// A batch to deliver, or `None`: nothing to hand out right now.
    Batch(Option<ReplayBatch>),
    /// The next segment to read was left by an earlier run and is not counted yet: count
    /// it (see `count`), then ask again.
    Count(CountJob),
}

impl Spill {
    /// The oldest records not yet handed out, like [`Spill::next_step`], counting on the
    /// spot any segment that has to be counted first (for tests, which own the spill).
    #[cfg(any(test, feature = "fuzzing"))]
    pub(crate) fn next_batch(
        &mut self,
        max_records: usize,
        max_bytes: usize,
    ) -> Result<Option<ReplayBatch>, SpillError> {
        loop {
            match self.next_step(max_records, max_bytes)? {
                Step::Batch(batch) => return Ok(batch),
                Step::Count(job) => self.count_now(&job)?,
            }
        }
    }

    /// The oldest records not yet handed out, from sealed segments only, within
    /// `max_records` and `max_bytes` (by `Record::size`; at least one record). A batch
    /// never spans two segments. Refused batches come first. When no sealed segment has
    /// anything left to hand out, the segment being written is sealed and read. A segment
    /// not counted yet is never read: its count is asked for instead.
    pub(crate) fn next_step(
        &mut self,
        max_records: usize,
        max_bytes: usize,
    ) -> Result<Step, SpillError> {
        if !self.retry.is_empty() {
            let batch = self.retry.remove(0);
            let (batch, rest) = batch.split(max_records, max_bytes);
            if let Some(rest) = rest {
                self.retry.insert(0, rest);
            }
            if let Some(seg) = self.store.sealed.iter_mut().find(|s| s.id == batch.segment) {
                seg.inflight += batch.len() as u64;
            }
            return Ok(Step::Batch(Some(batch)));
        }
        for pass in 0..2 {
            let mut i = 0;
            while i < self.store.sealed.len() {
                if !self.store.sealed[i].records_known {
                    if let Some(job) = self.next_count_job() {
                        return Ok(Step::Count(job));
                    }
                }
                if !self.store.sealed[i].exhausted {
                    if let Some(batch) = self.read_batch(i, max_records, max_bytes)? {
                        return Ok(Step::Batch(Some(batch)));
                    }
                }
                // A finished segment that cannot be deleted or acknowledged (reported by
                // `ack`) must not stop the others from replaying: its records are known
                // delivered in memory and are never handed out again.
                let id = self.store.sealed[i].id;
                let gone = match self.finish_if_done(i) {
                    Ok(removed) => removed,
                    Err(_) => self.store.sealed.get(i).is_none_or(|s| s.id != id),
                };
                if !gone {
                    i += 1;
                }
            }
            if pass > 0 || self.store.active_records() == 0 {
                break;
            }
            self.store.seal_active()?;
        }
        Ok(Step::Batch(None))
    }

    /// Marks a batch delivered: its frames will not be handed out again, even after a
    /// restart. Persists the ACK file when the acknowledged prefix grows, and deletes the
    /// segment once every frame of it is acknowledged (after the ACK file is synced).
    pub(crate) fn ack(&mut self, batch: ReplayBatch) -> Result<(), SpillError> {
        let n = batch.len() as u64;
        self.stats.acked_records += n;
        let Some(i) = self.index_of(batch.segment) else {
            // Its segment was evicted by the byte budget while the batch was in flight.
            return Ok(());
        };
        let seg = &mut self.store.sealed[i];
        seg.inflight = seg.inflight.saturating_sub(n);
        seg.settled += n;
        if batch.first_frame != seg.acked {
            seg.done.insert(batch.first_frame, (n, batch.end()));
            return Ok(());
        }
        seg.acked += n;
        seg.acked_offset = batch.end();
        while let Some((count, end)) = seg.done.remove(&seg.acked) {
            seg.acked += count;
            seg.acked_offset = end;
        }
        if !self.finish_if_done(i)? {
            self.persist_acks()?;
        }
        Ok(())
    }

    /// Marks a batch not delivered: the same records are handed out again by a later
    /// `next_batch`, before anything newer.
    pub(crate) fn nack(&mut self, batch: ReplayBatch) {
        let n = batch.len() as u64;
        let Some(i) = self.index_of(batch.segment) else {
            // Its segment was evicted while the batch was in flight: the records are gone.
            self.stats.dropped_records += n;
            return;
        };
        let seg = &mut self.store.sealed[i];
        seg.inflight = seg.inflight.saturating_sub(n);
        let key = (batch.segment, batch.first_frame);
        let at = self
            .retry
            .partition_point(|b| (b.segment, b.first_frame) < key);
        self.retry.insert(at, batch);
    }

    pub(super) fn index_of(&self, id: u64) -> Option<usize> {
        self.store.sealed.iter().position(|s| s.id == id)
    }

    /// Reads the next batch of sealed segment `i`; `None` (and the segment marked
    /// exhausted) when it has nothing left to hand out.
    fn read_batch(
        &mut self,
        i: usize,
        max_records: usize,
        max_bytes: usize,
    ) -> Result<Option<ReplayBatch>, SpillError> {
        let id = self.store.sealed[i].id;
        if self.cursor.as_ref().is_none_or(|(c, _)| *c != id) {
            let path = self.store.path(id);
            let reader = FrameReader::open(&path)
                .map_err(|e| SpillError::io(&self.dir, "open a segment for replay", e))?;
            self.cursor = Some((id, reader));
        }
        let Some((_, reader)) = self.cursor.as_mut() else {
            return Ok(None);
        };
        let seg = &mut self.store.sealed[i];
        if reader.pos() != seg.next_offset {
            reader.seek(seg.next_offset);
        }
        let max_records = max_records.max(1);
        let first_frame = seg.next_frame;
        let mut records = Vec::new();
        let mut ends = Vec::new();
        let mut bytes = 0usize;
        let mut corrupt = 0;
        let read = (|| -> std::io::Result<()> {
            loop {
                let full = records.len() >= max_records;
                match reader.next_item()? {
                    None => {
                        seg.exhausted = true;
                        seg.records = seg.next_frame;
                        return Ok(());
                    }
                    Some(Item::Corrupt { start, end }) => {
                        if start >= seg.counted_to {
                            corrupt += 1;
                        }
                        seg.counted_to = seg.counted_to.max(end);
                        seg.next_offset = end;
                    }
                    Some(Item::Record { record, start, end }) => {
                        let size = record.size();
                        let over = !records.is_empty() && bytes.saturating_add(size) > max_bytes;
                        if full || over {
                            // Keep it for the next batch; looking ahead told us the
                            // segment is not finished.
                            reader.unread(record, start, end);
                            return Ok(());
                        }
                        bytes = bytes.saturating_add(size);
                        records.push(record);
                        ends.push(end);
                        seg.counted_to = seg.counted_to.max(end);
                        seg.next_offset = end;
                        seg.next_frame += 1;
                    }
                }
            }
        })();
        self.stats.corrupt_records += corrupt;
        if let Err(e) = read {
            self.cursor = None;
            // Hand out what was read; the error comes back on the next call.
            if records.is_empty() {
                return Err(SpillError::io(&self.dir, "read a segment for replay", e));
            }
        }
        if records.is_empty() {
            return Ok(None);
        }
        let seg = &mut self.store.sealed[i];
        seg.records = seg.records.max(seg.next_frame);
        seg.inflight += records.len() as u64;
        Ok(Some(ReplayBatch {
            records,
            segment: id,
            first_frame,
            ends,
        }))
    }

    /// Deletes sealed segment `i` if every intact frame in it is acknowledged, after making
    /// that durable in the ACK file. Returns whether it was deleted.
    pub(super) fn finish_if_done(&mut self, i: usize) -> Result<bool, SpillError> {
        let Some(seg) = self.store.sealed.get(i) else {
            return Ok(false);
        };
        let id = seg.id;
        let done = seg.exhausted
            && seg.inflight == 0
            && seg.acked >= seg.records
            && !self.retry.iter().any(|b| b.segment == id);
        if !done {
            return Ok(false);
        }
        // The ACK file should say this segment is finished before it disappears. When it
        // cannot be written (a full disk), the segment is deleted all the same: its being
        // gone is the durable record that all of it was delivered (segment ids are never
        // reused, so a stale entry cannot skip a newer segment's records), and keeping it
        // would send it all again on every later run.
        let persisted = if seg.acked > 0 {
            self.persist_acks()
        } else {
            Ok(())
        };
        if self.cursor.as_ref().is_some_and(|(c, _)| *c == id) {
            self.cursor = None;
        }
        self.store.remove_sealed(i)?;
        persisted.map(|()| true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::record::Level;

    fn batch(n: u64) -> ReplayBatch {
        ReplayBatch {
            records: (0..n)
                .map(|i| {
                    let mut r = Record::new(Level::Info, "t");
                    r.message(&"m".repeat(i as usize));
                    r
                })
                .collect(),
            segment: 1,
            first_frame: 10,
            ends: (0..n).map(|i| 100 + i).collect(),
        }
    }

    #[test]
    fn split_keeps_at_least_one_record_and_frame_numbers() {
        let (a, rest) = batch(5).split(2, usize::MAX);
        let rest = rest.unwrap();
        assert_eq!((a.len(), a.first_frame, a.end()), (2, 10, 101));
        assert_eq!((rest.len(), rest.first_frame, rest.ends[0]), (3, 12, 102));
        let (a, rest) = batch(3).split(10, 1);
        assert_eq!(a.len(), 1);
        assert_eq!(rest.unwrap().len(), 2);
        let (a, rest) = batch(3).split(0, usize::MAX);
        assert_eq!((a.len(), rest.map(|r| r.len())), (1, Some(2)));
        let (a, rest) = batch(3).split(3, usize::MAX);
        assert_eq!((a.len(), rest.is_none()), (3, true));
    }
}
