//! The HTTP server's options: when a request is answered, and the limits of a request
//! and a connection (the `[listen]` keys, resolved and checked by `crate::settings`).
//!
//! Why it exists: the server, its connection threads and the settings all name these;
//! keeping them apart from the server means none of those imports another to get them.

use std::sync::Arc;
use std::time::Duration;

use super::gate::DecodeGate;
use super::token::Token;

/// When an HTTP request is answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ack {
    /// Once its events are in logship's queue (the default: fast; a crash of logship can
    /// lose what is queued and not yet spilled).
    Queued,
    /// Once its events are delivered or durably spilled (`flush`); 503 with
    /// `Retry-After` when that takes longer than `listen.ack_timeout_ms`.
    Delivered,
}

/// The HTTP server's options.
#[derive(Clone, Debug)]
pub(crate) struct Options {
    /// The token clients must send, if any.
    pub token: Option<Token>,
    /// When a request is answered.
    pub ack: Ack,
    /// With `Ack::Delivered`: longest wait before 503.
    pub ack_timeout: Duration,
    /// Largest body, compressed and decompressed.
    pub max_body: usize,
    /// Most connections at once.
    pub max_connections: usize,
    /// Longest wait for a request's head once its first byte arrived.
    pub header_timeout: Duration,
    /// Longest wait for a request's body once its head arrived.
    pub body_timeout: Duration,
    /// A keep-alive connection idle this long is closed.
    pub idle_timeout: Duration,
    /// Most events one request may hold: the queue's capacity (`queue_capacity`). A
    /// request over it could never be admitted whole (it would be answered 503 and sent
    /// again forever), so it is answered 413; decoding stops there.
    pub max_events: usize,
    /// Most bytes of events one request may hold: the queue's byte bound
    /// (`queue_max_bytes`). A request over it could never be admitted whole either; worse,
    /// pushing it marked the queue full with nothing queued to clear the mark. It is
    /// answered 413 before any of it is queued.
    pub max_bytes: usize,
    /// How many bodies are decoded at once (one per core), shared by every HTTP listener.
    pub decoding: Arc<DecodeGate>,
}
