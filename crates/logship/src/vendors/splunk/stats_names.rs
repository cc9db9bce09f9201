//! The acknowledgement counters of `Stats` under their old, Splunk-only names.
//!
//! Why it exists: indexer acknowledgement was Splunk's alone when `Stats` first counted
//! it (`splunk_ack_polls`, ...); the counters now name the generic concept (`ack_polls`,
//! `ack_poll_failures`, `ack_resends`), which any intake that confirms storage after it
//! accepted a request shares. Code that read the old fields keeps working through these
//! deprecated accessors (the JSON and metric names changed: see the CHANGELOG). Must
//! never: count anything of its own.

use crate::observe::stats::Stats;

impl Stats {
    /// The old name of [`Stats::ack_polls`].
    #[deprecated(since = "0.1.0", note = "renamed: read the field `ack_polls`")]
    pub fn splunk_ack_polls(&self) -> u64 {
        self.ack_polls
    }

    /// The old name of [`Stats::ack_poll_failures`].
    #[deprecated(since = "0.1.0", note = "renamed: read the field `ack_poll_failures`")]
    pub fn splunk_ack_poll_failures(&self) -> u64 {
        self.ack_poll_failures
    }

    /// The old name of [`Stats::ack_resends`].
    #[deprecated(since = "0.1.0", note = "renamed: read the field `ack_resends`")]
    pub fn splunk_ack_resends(&self) -> u64 {
        self.ack_resends
    }
}
