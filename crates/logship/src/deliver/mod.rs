//! Delivery: carrying batches to the intake, and settling what happened to each record.
//!
//! Why it exists: network work must happen off the caller's thread and must not be capped
//! at one batch per round-trip. The sender threads (`thread`) each carry one batch at a
//! time: one attempt (`attempt`: gzip, POST under a permit of the adaptive
//! `concurrency::Limiter`, and whatever the answer calls for, with `backoff` between
//! retries) says what happened to each record (`outcome::Delivery`); `settle` then counts
//! it, spills it or keeps it as a dead letter, exactly once per batch. An intake that
//! confirms storage after it accepted a request holds its batches in `acks` until then.
//! The replayer (`replayer`) is one more sender, fed from the spill; the watch thread
//! (`watch`) writes insurance copies of batches whose request takes long. The HTTP
//! client (`http`), its TLS trust (`tls`), proxy (`proxy`), address resolution
//! (`resolve`) and the network set-up they share (`network`) are here too.
//!
//! Must never: run on a caller's thread, lose a record without counting it, or settle a
//! batch twice.

pub(crate) mod acks;
mod attempt;
pub(crate) mod backoff;
pub(crate) mod concurrency;
mod gzip;
pub(crate) mod http;
pub(crate) mod job;
pub(crate) mod network;
pub(crate) mod outcome;
pub(crate) mod pool;
pub(crate) mod proxy;
pub(crate) mod replayer;
pub(crate) mod resolve;
pub(crate) mod sender;
pub(crate) mod settle;
pub(crate) mod thread;
pub(crate) mod tls;
mod transport;
pub(crate) mod watch;

pub use network::NetworkSummary;
