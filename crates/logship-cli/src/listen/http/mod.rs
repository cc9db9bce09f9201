//! The HTTP input of `--listen http://HOST:PORT`: generic bodies (NDJSON, a JSON array,
//! one JSON object such as Log4j2's `JsonLayout`, plain text lines) on every path the
//! vendor APIs do not own, and the vendor push APIs on theirs (`vendor/`).
//!
//! Why it exists: Log4j2's stock `Http` appender and every agent or SDK that POSTs logs
//! can point at a logship on the same host instead of at a vendor 20 ms away.
//!
//! Must never: answer 2xx for an event that is not in the queue (or, with
//! `--listen-ack delivered`, delivered or spilled), hold a thread for a slow client
//! past its timeouts, read a body past its limit, or print the token.

mod ack;
mod counters;
mod gate;
mod generic;
mod options;
mod server;
mod slots;
mod token;
pub(crate) mod vendor;

pub(crate) use counters::Counters;
pub(crate) use gate::DecodeGate;
pub(crate) use options::{Ack, Options};
pub(crate) use server::serve;
pub(crate) use token::Token;
