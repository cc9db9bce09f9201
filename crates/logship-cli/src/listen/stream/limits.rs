//! The bounds of a stream listener (the `[listen]` keys and the pipeline's
//! `max_event_bytes`), as the TCP and UDP inputs apply them.
//!
//! Why it exists: both inputs and the listener set-up name them; kept apart so that
//! neither input imports the file that starts it.

use std::time::Duration;

/// The bounds of a stream listener.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    /// Bytes of one unfinished event a connection holds on its own (the pipeline's
    /// `max_event_bytes`).
    pub max_event_bytes: usize,
    /// Longest event read whole (`lines::room::read_cap`; past `max_event_bytes` with
    /// room from the process's pool), parsed, then truncated by the pipeline keeping its
    /// structure; longer ones are cut while reading, counted.
    pub read_cap: usize,
    /// Most connections served at once: more are accepted and closed at once, counted.
    pub max_connections: usize,
    /// A connection silent this long is closed (counted).
    pub idle_timeout: Duration,
    /// The UDP socket's receive buffer to ask for (0: the system's default).
    pub udp_receive_buffer: usize,
}
