//! Where and how much to spill: the directory, the segment size, the cap, what happens
//! when it is reached, and when data is synced ([`SpillConfig`]).
//!
//! Why it exists: these are public settings of the spill (the builder and the config
//! file fill them); they hold no logic. Must never: allow a cap the spill cannot keep.

use std::path::PathBuf;

/// What to do when an append would push the spill past `max_total_bytes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SpillFull {
    /// Delete the oldest segment (its unreplayed records are counted as dropped). Keeps the
    /// most recent logs, which are usually the ones wanted after an outage.
    #[default]
    DropOldest,
    /// Refuse the new records (counted as dropped) and keep what is on disk.
    DropNewest,
}

/// When spilled data is forced to the device.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SpillFsync {
    /// When a segment is sealed (rotation, `seal`, shutdown): a crash can lose the segment
    /// being written, but costs one sync per segment.
    #[default]
    OnSegmentClose,
    /// After every append call: survives power loss, at one sync per call.
    Always,
    /// Never for segments (the OS writes them back eventually). The ACK file is always
    /// synced, because deleting segments depends on it.
    Never,
}

/// Where and how much to spill.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct SpillConfig {
    /// The spill directory, created (0700) if missing. One process at a time.
    pub dir: PathBuf,
    /// Size at which the segment being written is sealed and a new one started (default
    /// 16 MiB). Keep it well below `max_total_bytes`: eviction works a segment at a time.
    pub segment_max_bytes: u64,
    /// Cap on all live segments (default 1 GiB). Dead letters get a separate cap of an
    /// eighth of this.
    pub max_total_bytes: u64,
    /// What happens when the cap is reached.
    pub full: SpillFull,
    /// When data is synced to the device.
    pub fsync: SpillFsync,
}

impl SpillConfig {
    /// Default segment size: 16 MiB.
    pub const DEFAULT_SEGMENT_MAX_BYTES: u64 = 16 * 1024 * 1024;
    /// Default cap: 1 GiB.
    pub const DEFAULT_MAX_TOTAL_BYTES: u64 = 1024 * 1024 * 1024;

    /// A configuration for `dir` with the defaults.
    pub fn new(dir: impl Into<PathBuf>) -> SpillConfig {
        SpillConfig {
            dir: dir.into(),
            segment_max_bytes: Self::DEFAULT_SEGMENT_MAX_BYTES,
            max_total_bytes: Self::DEFAULT_MAX_TOTAL_BYTES,
            full: SpillFull::default(),
            fsync: SpillFsync::default(),
        }
    }
}
