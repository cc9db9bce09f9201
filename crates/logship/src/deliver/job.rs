//! A batch on its way to the intake, and the registry entry of one a sender carries.
//!
//! Why it exists: a batch's records stay with it until it is settled (for retries, splits
//! and reports), and shutdown must be able to spill a batch whose request never returns;
//! both need the same few facts about it. Must never: hold anything but data.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use crate::capture::record::Record;

/// A batch on its way to a sender: its records (kept for retries, splits and reporting),
/// its encoded body, and its sequence number for flush tracking.
#[derive(Debug)]
pub(crate) struct Job {
    /// The batch's sequence number (see `pipeline::tracker`).
    pub seq: u64,
    /// Shared with the pool's in-flight registry while a sender carries the batch, so
    /// that shutdown can spill a batch whose request never returns.
    pub records: Arc<[Record]>,
    /// The encoded, uncompressed body.
    pub body: Vec<u8>,
    /// Bytes counted against the queue's memory bound for these records; released when
    /// settled.
    pub held_bytes: usize,
}

/// A live batch a sender is carrying: what shutdown needs to spill it if its request is
/// still out at the deadline.
pub(crate) struct InFlight {
    pub seq: u64,
    pub records: Arc<[Record]>,
    pub held_bytes: usize,
    /// When the sender took it.
    pub since: Instant,
    /// Its insurance copy on disk, once written (see `watch`); deleted when it settles.
    pub copy: Option<PathBuf>,
    /// The watch thread has dealt with it (the copy may have failed: reported, not retried).
    pub copied: bool,
}

impl InFlight {
    /// Deletes the insurance copy, if any: call only after the batch's own settlement is
    /// on disk (or counted).
    pub(crate) fn forget_copy(&mut self) {
        if let Some(path) = self.copy.take() {
            let _ = std::fs::remove_file(path);
        }
    }
}
