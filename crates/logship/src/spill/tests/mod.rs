//! Behaviour of `Spill` as the worker and replayer will use it, one file per promise
//! (the layout of Vector's disk-buffer tests): `basic`, `acknowledgements`,
//! `initialization`, `size_limits`, `corruption`, `dead_letters`, `inspection`,
//! `in_flight`. This file holds the helpers they share.
//!
//! Why it exists: at-least-once replay across restarts, damage and byte caps is easy to
//! get subtly wrong; these tests pin it down on real files. Must never: sleep, or assert on
//! timing.

use super::segment::{self, encode_frame, FRAME_HEADER_LEN, HEADER_LEN};
use super::testutil::TempDir;
use super::*;
use crate::capture::record::Level;
use std::collections::HashSet;
use std::os::unix::fs::PermissionsExt;

mod acknowledgements;
mod basic;
mod corruption;
mod dead_letters;
mod in_flight;
mod initialization;
mod inspection;
mod size_limits;

fn rec(i: u64) -> Record {
    let mut r = Record::new(Level::Info, "spill::test");
    r.set_id(Some(crate::capture::record::EventId::from_parts(7, i)))
        .set_timestamp_nanos(1_000_000 + i)
        .message(&format!("record {i:06}"))
        .field("i", i);
    r
}

fn recs(range: std::ops::Range<u64>) -> Vec<Record> {
    range.map(rec).collect()
}

/// Bytes of one frame of `rec(i)` (the same for every i below 10^6).
fn frame_len() -> u64 {
    let mut buf = Vec::new();
    assert!(encode_frame(&rec(0), &mut buf));
    buf.len() as u64
}

fn cfg(dir: &Path) -> SpillConfig {
    SpillConfig::new(dir)
}

/// Replays and acknowledges everything, returning the records in the order handed out.
fn drain(spill: &mut Spill, max_records: usize) -> Vec<Record> {
    let mut out = Vec::new();
    while let Some(batch) = spill.next_batch(max_records, usize::MAX).unwrap() {
        assert!(!batch.is_empty());
        assert!(batch.len() <= max_records.max(1));
        out.extend(batch.records().iter().cloned());
        spill.ack(batch).unwrap();
    }
    out
}

/// Counts the segments an earlier run left, as the replayer does after start-up.
fn count_backlog(spill: &mut Spill) {
    while let Some(job) = spill.next_count_job() {
        spill.count_now(&job).unwrap();
    }
}

fn segment_files(dir: &Path) -> Vec<PathBuf> {
    segment::list(dir)
        .unwrap()
        .into_iter()
        .map(|(_, p)| p)
        .collect()
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}
