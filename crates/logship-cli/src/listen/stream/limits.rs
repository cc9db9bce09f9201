//! The bounds of a stream listener (the `[listen]` keys and the pipeline's
//! `max_event_bytes`), as the TCP and UDP inputs apply them.
//!
//! Why it exists: both inputs and the listener set-up name them; kept apart so that
//! neither input imports the file that starts it.

use std::time::Duration;

/// The bounds of a stream listener.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    /// Longest event kept (the pipeline's `max_event_bytes`): longer ones are cut, counted.
    pub max_event_bytes: usize,
    /// Most connections served at once: more are accepted and closed at once, counted.
    pub max_connections: usize,
    /// A connection silent this long is closed (counted).
    pub idle_timeout: Duration,
    /// The UDP socket's receive buffer to ask for (0: the system's default).
    pub udp_receive_buffer: usize,
}
