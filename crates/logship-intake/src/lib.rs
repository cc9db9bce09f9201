//! A local, hand-written HTTP/1.1 log intake for logship's tests, CLI
//! (`logship intake --port N`), demo and benchmarks.
//!
//! logship batches log events and POSTs them (gzip, `Content-Length`,
//! keep-alive) to a log intake. To test that end to end without a vendor
//! account, [`Intake`] runs a real server on 127.0.0.1 (and only there) that:
//!
//! - records every request and accepted event ([`Intake::requests`],
//!   [`Intake::events`]) and counts traffic ([`Intake::stats`]);
//! - validates strictly and records every protocol mistake as a violation
//!   ([`Intake::violations`]) instead of silently tolerating it;
//! - misbehaves on demand: delay ([`Intake::set_delay`]), hold answers
//!   ([`Intake::pause`]), inject failures ([`Intake::fail_next`]);
//! - exposes the same knobs over HTTP under `/_intake/` for tests that run
//!   logship in a child process (see the `control` module docs).
//!
//! # The generic protocol
//! Any path outside `/_intake/` speaks logship's own format: `POST` with
//! `Content-Length` (a chunked body is a 411 violation), `Content-Encoding`
//! identity or gzip, `Content-Type: application/x-ndjson` (one JSON object per
//! line) or `application/json` (an array of objects, or one object). Success
//! is `200 {"accepted":N}`. Vendor dialects will be added as further
//! protocol modules.
//!
//! ```no_run
//! use logship_intake::{Intake, IntakeConfig};
//! use std::time::Duration;
//!
//! let intake = Intake::start(IntakeConfig::default())?;
//! let endpoint = intake.url("/v1/logs");
//! // ... point logship at `endpoint` and log something ...
//! assert!(intake.wait_for_events(1, Duration::from_secs(5)));
//! assert!(intake.violations().is_empty());
//! # Ok::<(), std::io::Error>(())
//! ```

mod control;
mod faults;
mod http;
mod protocol;
mod server;
mod state;

pub use faults::Fault;
pub use server::{Intake, IntakeConfig, IDLE_TIMEOUT, MAX_BODY_BYTES};
pub use state::{IntakeStats, ObserverFn, ReceivedEvent, RequestRecord};
