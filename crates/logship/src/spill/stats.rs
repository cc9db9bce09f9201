//! The spill's own counters and gauges ([`SpillStats`]), for `Logship::stats` and the CLI.
//!
//! Why it exists: what waits on disk, how much room it takes and what was lost to its cap
//! are facts of the spill, read from it when a snapshot is taken. Must never: be written
//! by anything but the spill.

/// Counters and gauges of a spill, for `Logship::stats` and the CLI.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct SpillStats {
    /// Live segments, the one being written included.
    pub segments: u64,
    /// Records on disk not acknowledged yet (handed out or not). Just after start it leaves
    /// out segments of an earlier run until the replayer has counted them (in the background).
    pub pending_records: u64,
    /// Bytes of the live segments.
    pub bytes: u64,
    /// Records appended since open.
    pub written_records: u64,
    /// Records acknowledged since open.
    pub acked_records: u64,
    /// Damaged regions found since open (torn tails and quarantined segments count one);
    /// those in segments of an earlier run are added when the replayer counts them.
    pub corrupt_records: u64,
    /// Records lost to the byte budget since open.
    pub dropped_records: u64,
    /// Segments deleted to make room since open.
    pub dropped_segments: u64,
    /// Records written to `dead/` since open.
    pub dead_letter_records: u64,
    /// Dead letters lost to the dead-letter budget since open.
    pub dead_letter_dropped_records: u64,
}
