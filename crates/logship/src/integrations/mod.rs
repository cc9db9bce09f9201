//! Adapters from logging facades to the pipeline.
//!
//! Why it exists: applications log through `tracing` or `log`, not through logship's own
//! API. Each adapter turns a facade event into a [`crate::Record`] on the caller's thread
//! (no I/O, no lock held) and ignores events emitted on logship's own threads, so the HTTP
//! stack's logs can never feed back into the pipeline.

#[cfg(feature = "log")]
pub(crate) mod log;
#[cfg(feature = "log4rs")]
pub mod log4rs;
#[cfg(feature = "opentelemetry")]
pub(crate) mod otel_context;
#[cfg(feature = "tracing")]
pub(crate) mod tracing;
