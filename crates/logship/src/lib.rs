//! # logship
//!
//! Ships application logs to log intakes in batches, without ever slowing the application
//! down.
//!
//! A log call captures the event into an owned [`Record`] and hands it to a bounded
//! in-memory queue, then returns: it never waits on the network and never performs I/O.
//! Background threads that logship owns cut batches (by record count, encoded bytes, or
//! the age of the oldest event), compress them, and POST them with several requests in
//! flight, retrying transient failures with jittered backoff. Every event ends in a
//! counted outcome, readable through [`Logship::stats`].
//!
//! ```no_run
//! use tracing_subscriber::prelude::*;
//!
//! let (layer, _guard) = logship::Logship::builder()
//!     .endpoint("http://127.0.0.1:8080/logs")
//!     .build_layer()
//!     .expect("valid logship configuration");
//! tracing_subscriber::registry().with(layer).init();
//! tracing::info!(order_id = 42, "order placed");
//! // `_guard` flushes what is queued when main returns, bounded by a timeout.
//! ```
//!
//! Deployed programs can be configured without code: [`Config::load`] reads a TOML file,
//! [`Config::apply_env`] reads `LOGSHIP_<KEY>` variables (and, for the `otlp` vendor,
//! the OpenTelemetry SDK's `OTEL_EXPORTER_OTLP_*` ones), and [`Layered`] combines
//! defaults < file < environment < explicit builder settings, reporting where each value
//! came from. Unknown keys and bad values fail with the key, the value (secrets hidden),
//! what is allowed and the source.
//!
//! Design choices a user should know:
//! - No async runtime inside: the HTTP client is blocking `ureq` on threads logship owns,
//!   so the same code works in `fn main` and inside tokio, and dropping the guard inside a
//!   runtime is safe.
//! - Events logged on logship's own threads (for example by the HTTP client) are ignored,
//!   so the shipper can never feed on its own logs.
//! - Memory is bounded in events and bytes; what does not fit is dropped and counted.

mod batch;
mod config;
mod error;
mod integrations;
mod json;
mod pipeline;
mod queue;
mod record;
mod reentrancy;
mod replay;
mod report;
mod secret;
mod send;
mod shared;
pub mod spill;
mod stats;
mod vendor;
mod worker;

pub use config::{
    default_spill_dir, example_toml, Config, ElasticsearchOptions, Layered, LokiOptions, Origin,
    OtlpEncoding, OtlpOptions, Overflow, Resolved, SplunkOptions, Vendor,
};
pub use error::{BuildError, ConfigError, FlushTimeout};
#[cfg(feature = "log")]
pub use integrations::log::LogshipLogger;
/// The log4rs appender (`kind: batch_http`) and its registration.
#[cfg(feature = "log4rs")]
pub use integrations::log4rs;
#[cfg(feature = "tracing")]
pub use integrations::tracing::LogshipLayer;
pub use pipeline::{Builder, Guard, Logship, ShutdownReport};
pub use queue::Rejected;
pub use record::{Entries, Entry, Level, Record, Value};
pub use reentrancy::is_logship_thread;
pub use report::DeliveryError;
pub use secret::Secret;
pub use spill::{SpillFsync, SpillFull};
pub use stats::{Health, Stats};

/// The `User-Agent` header logship sends (`logship/<version>`).
pub const USER_AGENT: &str = send::http::USER_AGENT;

/// Formats nanoseconds since the Unix epoch as RFC 3339 UTC with milliseconds
/// (`2026-11-29T21:55:57.123Z`), the timestamp format of generic intakes.
pub fn rfc3339_millis(unix_nanos: u64) -> String {
    let mut out = Vec::with_capacity(24);
    json::rfc3339_millis(&mut out, unix_nanos);
    String::from_utf8(out).unwrap_or_default()
}
