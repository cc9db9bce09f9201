//! What the follower counted, and how the summary line says it.
//!
//! Why it exists: the follower and its emitter count into one set of counters, and the
//! service's summary reads them; kept apart so that none of them imports another's file
//! for them. Must never: call a line lost that the next run reads again.

use std::sync::atomic::{AtomicU64, Ordering};

use super::checkpointer::Ending;

/// Counters of the follower (the pipeline's own are in `Logship::stats`).
#[derive(Default, Debug)]
pub struct Counters {
    /// Lines handed to the pipeline.
    pub lines: AtomicU64,
    /// Bytes of those lines (newlines included).
    pub bytes: AtomicU64,
    /// Files opened (first time or again).
    pub files_opened: AtomicU64,
    /// Files whose path stopped naming them (rotated away, deleted, replaced).
    pub rotations: AtomicU64,
    /// Files found truncated or rewritten in place (read again from 0).
    pub truncations: AtomicU64,
    /// Lines cut while reading (over the read cap, or the pool had no room for them).
    pub cut_lines: AtomicU64,
    /// The real size of the largest of them, bytes.
    pub cut_largest: AtomicU64,
    /// Lines that were not a JSON object (`Json` format).
    pub parse_errors: AtomicU64,
    /// Offers the full queue handed back, made again (not lost; the pipeline counts them
    /// in `queue_full_returned`, not as dropped).
    pub refusals_retried: AtomicU64,
    /// Lines not handed over because the follower stopped while the queue was full, or
    /// the pipeline had shut down: they are not covered by the checkpoint, so the next run
    /// reads them again (not lost).
    pub not_taken: AtomicU64,
    /// Events joined from more than one line.
    pub multiline_events: AtomicU64,
    /// Multi-line events ended by their line or byte limit (the rest is the next event).
    pub multiline_split: AtomicU64,
    /// Read or open errors (the file is tried again at the next scan).
    pub io_errors: AtomicU64,
    /// Files that left the patterns while parked (closed to make room for others), so
    /// their rest could not be read.
    pub lost_parked: AtomicU64,
    /// Files matched at the last scan but not opened because `max_open` files are open
    /// (they are opened as others are finished with).
    pub waiting_files: AtomicU64,
    /// Rescans asked for (SIGHUP).
    pub rescans: AtomicU64,
}

impl Counters {
    /// Counts a line cut while reading, of `real_len` bytes.
    pub fn cut(&self, real_len: usize) {
        self.cut_lines.fetch_add(1, Ordering::Relaxed);
        self.cut_largest
            .fetch_max(real_len as u64, Ordering::Relaxed);
    }
}

/// The follow part of the summary line ("; N file opens (...)..."); `checkpoint` is the
/// checkpoint file and how its final write ended.
pub fn describe(counters: &Counters, checkpoint: Option<(&std::path::Path, Ending)>) -> String {
    let load = |c: &AtomicU64| c.load(Ordering::Acquire);
    let mut line = format!(
        "; {} file opens ({} rotated away, {} truncated, {} read errors)",
        load(&counters.files_opened),
        load(&counters.rotations),
        load(&counters.truncations),
        load(&counters.io_errors),
    );
    let rescans = load(&counters.rescans);
    if rescans > 0 {
        line.push_str(&format!(
            "; {rescans} SIGHUP rescan{}",
            if rescans == 1 { "" } else { "s" }
        ));
    }
    let joined = load(&counters.multiline_events);
    if joined > 0 {
        line.push_str(&format!(
            "; {joined} multi-line events ({} split at --multiline-max-lines or max_event_bytes)",
            load(&counters.multiline_split)
        ));
    }
    let retried = load(&counters.refusals_retried);
    if retried > 0 {
        line.push_str(&format!(
            "; {retried} pushes waited out a full queue and were retried (not lost)"
        ));
    }
    let not_taken = load(&counters.not_taken);
    if not_taken > 0 {
        line.push_str(&format!(
            "; {not_taken} line{} refused as shutdown began {} read again by the next run (not lost: the checkpoint is before {})",
            if not_taken == 1 { "" } else { "s" },
            if not_taken == 1 { "is" } else { "are" },
            if not_taken == 1 { "it" } else { "them" },
        ));
    }
    match checkpoint {
        Some((path, Ending::Written)) => {
            line.push_str(&format!("; checkpoint written to {}", path.display()))
        }
        Some((_, Ending::Held(unkept))) => line.push_str(&format!(
            "; checkpoint held before {unkept} event{} neither delivered nor spilled (the next run reads them again)",
            if unkept == 1 { "" } else { "s" }
        )),
        Some((_, Ending::Left)) => line.push_str(
            "; checkpoint not written, left at the last settled position (the next run reads the rest again)",
        ),
        None => {}
    }
    line
}
