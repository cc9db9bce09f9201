//! What the follower reads and how: its options, as `crate::settings` resolves them from
//! the `[follow]` keys.
//!
//! Why it exists: the follower, its per-file emitter and the settings all name these;
//! kept apart from the follower so that none of them imports another's file for them.

use std::time::Duration;

use super::multiline::Settings;

/// Bytes read from one file per turn, so that one busy file cannot starve the others.
pub const READ_BUDGET: usize = 256 * 1024;

/// Where to start reading a file seen for the first time at start-up (files that appear
/// later are always read from their beginning; a file with a checkpoint resumes there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartAt {
    /// Read what the file already holds.
    Beginning,
    /// Skip what the file already holds; ship only lines written from now on.
    End,
}

/// How a line of a followed file becomes an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineFormat {
    /// The line is the message.
    Text,
    /// A JSON object per line (see `lines::json_record`).
    Json,
    /// Docker's `json-file` driver (`{"log","stream","time"}`), partial lines joined.
    Docker,
    /// CRI (containerd, CRI-O): `TIMESTAMP STREAM P|F MESSAGE`, partial lines joined.
    Cri,
}

/// What to follow and how.
#[derive(Clone, Debug)]
pub struct Options {
    /// Paths or glob patterns.
    pub patterns: Vec<String>,
    /// Where a file seen at start-up without a checkpoint is read from.
    pub start_at: StartAt,
    /// How often patterns are matched again and idle files looked at.
    pub poll: Duration,
    /// How long a file that was rotated away or deleted is still read after its path
    /// stopped naming it (a writer may finish a line into it first).
    pub rotate_wait: Duration,
    /// Most files open at once.
    pub max_open: usize,
    /// Most bytes read from one file per turn.
    pub read_budget: usize,
    /// Bytes of one unfinished line a file keeps on its own (`max_event_bytes`).
    pub max_line: usize,
    /// Longest line read whole (with room borrowed from the process's pool past
    /// `max_line`), parsed, then truncated by the pipeline keeping its structure;
    /// longer ones are cut while reading and counted.
    pub read_cap: usize,
    /// Line format.
    pub format: LineFormat,
    /// Multi-line grouping, if any.
    pub multiline: Option<Settings>,
}
