//! Thin wrappers over crate-private parsers, for the fuzz targets in `fuzz/` and their
//! stable corpus replay (`crates/logship-cli/tests/fuzz_corpus.rs`).
//!
//! NOT API: compiled only with the `fuzzing` cargo feature (off by default), hidden from
//! the docs, and free to change in any release. Each wrapper calls the library's own code
//! path (no copy of it), so what the targets check is what ships.
//!
//! Must never: be needed by anything but the fuzz targets and their replay test, or hold
//! logic of its own beyond turning private types into plain public ones.

use std::time::{Duration, SystemTime};

use crate::config::{Config, Vendor};
use crate::deliver::backoff::{parse_retry_after, Backoff};
use crate::error::ConfigError;
pub use crate::spill::fuzzing::*;
use crate::support::secret::Secret;
use crate::vendors::answer::Outcome;
use crate::vendors::codec::Codec;

/// `parse_retry_after` (delta-seconds or an HTTP-date relative to `now`), then the delay
/// the sender sleeps before retry number `retry` under `backoff` (initial, max).
pub fn retry_after(
    value: &str,
    now: SystemTime,
    initial: Duration,
    max: Duration,
    retry: u32,
) -> (Option<Duration>, Duration) {
    let parsed = parse_retry_after(value, now);
    let backoff = Backoff { initial, max };
    (parsed, backoff.delay(retry, parsed))
}

/// What an answer means for the batch sent: the library's private outcome, spelled out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// Accepted.
    Delivered,
    /// Transient: retry after a backoff.
    Retry,
    /// Never accepted as sent.
    Permanent,
    /// Too large: split.
    TooLarge,
    /// Some accepted, some not, do not resend.
    Partial,
    /// Accepted but this many events rejected, do not resend.
    PartialRejected(usize),
    /// The event at this index is invalid; resend the others.
    RejectEvent(usize),
    /// Answered per event: read with [`Intake::items`].
    Items,
}

impl From<Outcome> for Answer {
    fn from(o: Outcome) -> Answer {
        match o {
            Outcome::Delivered => Answer::Delivered,
            Outcome::Retry => Answer::Retry,
            Outcome::Permanent => Answer::Permanent,
            Outcome::TooLarge => Answer::TooLarge,
            Outcome::Partial => Answer::Partial,
            Outcome::PartialRejected(n) => Answer::PartialRejected(n),
            Outcome::RejectEvent(i) => Answer::RejectEvent(i),
            Outcome::Items => Answer::Items,
        }
    }
}

/// Per-event results of an [`Answer::Items`] answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Items {
    /// Indexes to resend.
    pub retry: Vec<usize>,
    /// Indexes rejected for good.
    pub rejected: Vec<usize>,
    /// Events the intake already held (a 409 for a document id it stores already).
    pub already_delivered: usize,
    /// First retryable failure, for the report.
    pub retry_error: Option<String>,
    /// First permanent failure, for the report.
    pub rejected_error: Option<String>,
    /// Status of the first permanent failure.
    pub rejected_status: Option<u16>,
}

/// One configured intake protocol's answer parsing (the codec a pipeline would build).
#[derive(Debug)]
pub struct Intake(Codec);

impl Intake {
    /// The codec for `vendor` (in its JSON encoding when `json` and it has one beside a
    /// binary one) with a loopback endpoint and a placeholder key.
    pub fn new(vendor: Vendor, json: bool) -> Result<Intake, ConfigError> {
        let mut config = Config {
            vendor,
            endpoint: Some("http://127.0.0.1:9/".to_owned()),
            api_key: Some(Secret::new("fuzz-key")),
            ..Config::default()
        };
        crate::vendors::prefer_json(&mut config, json);
        Codec::new(&config).map(Intake)
    }

    /// What the answer `status`, `body` means (`Codec::classify`).
    pub fn classify(&self, status: u16, body: &[u8]) -> Answer {
        self.0.classify(status, body).into()
    }

    /// The per-event reading of an answer for `sent` events (`Codec::items`).
    pub fn items(&self, body: &str, sent: usize) -> Option<Items> {
        self.0.items(body, sent).map(|r| Items {
            retry: r.retry,
            rejected: r.rejected,
            already_delivered: r.already_delivered,
            retry_error: r.retry_error,
            rejected_error: r.rejected_error,
            rejected_status: r.rejected_status,
        })
    }

    /// Most answer bytes the sender reads for this intake.
    pub fn max_response_bytes(&self) -> u64 {
        self.0.max_response_bytes()
    }
}
