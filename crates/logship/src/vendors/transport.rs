//! The wire of a vendor that is not HTTP: a client of its own, which the senders call
//! instead of POSTing, and the per-event result it gives back.
//!
//! Why it exists: a message broker's producer sends one message per event and answers each
//! with a delivery report; the senders still own retries, backoff, spill and counting,
//! exactly as for HTTP answers. This file says what such an answer is; the registry
//! (`vendors/mod.rs`, [`super::Transport`]) holds the clients, one arm per vendor that has
//! one, each behind its cargo feature, so `deliver/` names no vendor. Unlike the rest of
//! `vendors/`, a transport does I/O: that is all it is for. Must never: count, spill or
//! settle anything (the senders do), or say "delivered" before the intake did.

// Without a transport compiled in (its cargo feature off) only the tests use these.
#![allow(dead_code)]

/// What happened to one event of a send.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    /// The intake acknowledged it.
    Delivered,
    /// Not acknowledged (timed out, no broker, unknown topic, shutdown): send again later.
    Retry,
    /// Refused for good (invalid): dead-lettered.
    Rejected,
    /// Refused as too large: alone if it was sent alone (dead-lettered), else perhaps for
    /// the events sent with it (a broker checks its limit against a whole batch of
    /// messages): sent again alone.
    TooLarge,
}

/// The result of one send: a status per event (events not sent this time say
/// `Delivered` from an earlier send), and the first error text of each kind.
#[derive(Debug)]
pub(crate) struct Sent {
    pub status: Vec<Status>,
    pub retry_error: Option<String>,
    pub rejected_error: Option<String>,
    /// A failure that retrying cannot fix (authentication): no retry, one clear error.
    pub fatal: Option<String>,
    /// The client hit an error it cannot recover from and was replaced by a new one during
    /// this send (its unsettled events say `Retry`).
    pub rebuilt: bool,
}

impl Sent {
    /// `n` events, none sent yet.
    pub(crate) fn new(n: usize) -> Sent {
        Sent {
            status: vec![Status::Delivered; n],
            retry_error: None,
            rejected_error: None,
            fatal: None,
            rebuilt: false,
        }
    }
}
