//! What happens on the caller's thread: the owned [`Record`](record::Record) of one event,
//! the adapters from logging facades (`tracing`, `log`, log4rs, the OpenTelemetry
//! context) that build it, and the panic hook that flushes before a crash.
//!
//! Why it exists: the log call is the one place where logship runs on the application's
//! time. Everything here turns an event into a record and hands it on (to admission and
//! the queue, through [`crate::Logship`]), and ignores events emitted on logship's own
//! threads, so the HTTP stack's logs can never feed back into the pipeline.
//!
//! Must never: perform I/O, wait on the network, or hold a lock across anything slow.

#[cfg(feature = "log")]
pub(crate) mod log;
#[cfg(feature = "log4rs")]
pub mod log4rs;
#[cfg(feature = "opentelemetry")]
pub(crate) mod otel_context;
pub(crate) mod panic_hook;
pub(crate) mod record;
#[cfg(feature = "tracing")]
pub(crate) mod tracing;
