//! What the stream listeners counted, for the summary line, `--stats-json` and the exit
//! code.
//!
//! Why it exists: every TCP connection and the UDP socket count into one set of counters
//! and the service reads them; kept apart so that no input imports the file that starts
//! it. Must never: count as lost what the pipeline already counts (UDP drops), or as
//! dropped what was retried.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};

/// What the stream listeners did, for the summary line and `--stats-json`.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    /// TCP events received (pushed, or held back by the user's own policy).
    pub tcp_events: AtomicU64,
    /// Syslog events received over TCP.
    pub syslog_tcp_events: AtomicU64,
    /// Syslog datagrams received over UDP (pushed or dropped).
    pub syslog_udp_events: AtomicU64,
    /// Syslog messages that parsed as neither RFC: shipped as text with
    /// `syslog.parse_error`.
    pub parse_errors: AtomicU64,
    /// Events longer than the read cap (`lines::room`), cut while reading.
    pub cut: AtomicU64,
    /// The real size of the largest of them, bytes.
    pub cut_largest: AtomicU64,
    /// Syslog octet counts that were not counts (read as delimited events).
    pub bad_counts: AtomicU64,
    /// Events with invalid UTF-8 (replaced by U+FFFD).
    pub invalid_utf8: AtomicU64,
    /// UDP datagrams the full queue refused: lost (reason "queue full"), already counted
    /// by the pipeline in `dropped_queue_full`.
    pub udp_dropped: AtomicU64,
    /// UDP datagrams the kernel dropped because the socket's receive buffer was full
    /// (its `drops` counter in `/proc/net/udp`): lost, reason "socket buffer full". The
    /// pipeline never saw them, so they are added to its losses.
    pub udp_kernel_dropped: AtomicU64,
    /// TCP offers the full queue handed back after the wait, offered again: not lost, and
    /// not counted as dropped by the pipeline (its `queue_full_returned`).
    pub refusals_retried: AtomicU64,
    /// Events fully received but never handed to the pipeline because the listener
    /// stopped while the queue was full (or, over TCP, came after one the shut-down
    /// pipeline refused, which it counts itself in `dropped_closed`): lost.
    pub not_taken: AtomicU64,
    /// Connections that were in the middle of an event when the listener stopped: that
    /// partial event is not shipped (it was never fully received).
    pub partial_at_stop: AtomicU64,
    /// Connections that arrived while the listener was stopping: closed unread (their
    /// senders saw the connection refused, nothing of theirs was taken).
    pub refused_at_stop: AtomicU64,
    /// Connections still sending at the drain deadline of a stop: closed (what they sent
    /// after it was not read; their senders saw the connection reset).
    pub cut_at_stop: AtomicU64,
    /// Connections accepted and served.
    pub connections: AtomicU64,
    /// Connections over `max_connections`, closed at once.
    pub connections_refused: AtomicU64,
    /// Connections closed after `idle_timeout` of silence.
    pub idle_closed: AtomicU64,
    /// Connections ended by a read error (reset, ...).
    pub read_errors: AtomicU64,
}

/// Reads a counter.
fn get(c: &AtomicU64) -> u64 {
    c.load(Ordering::Acquire)
}

/// Adds one to a counter.
pub(super) fn bump(c: &AtomicU64) {
    c.fetch_add(1, Ordering::Relaxed);
}

impl Counters {
    /// Events received (handed to the pipeline or counted as dropped).
    pub(crate) fn received(&self) -> u64 {
        get(&self.tcp_events) + get(&self.syslog_tcp_events) + get(&self.syslog_udp_events)
    }

    /// Received and never handed to the pipeline (stopped with the queue full, or offered
    /// after it shut down), which the pipeline's `Stats` do not count, and datagrams the
    /// kernel dropped before logship could read them: add it to the pipeline's `lost()`.
    /// UDP queue drops are NOT in it: the pipeline refused them and already counts them in
    /// `dropped_queue_full` (see [`Counters::udp_dropped`] for the summary's reason).
    pub(crate) fn lost(&self) -> u64 {
        get(&self.not_taken) + get(&self.udp_kernel_dropped)
    }

    /// UDP datagrams lost to a full queue (part of the pipeline's `dropped_queue_full`).
    #[cfg(test)]
    pub(crate) fn udp_dropped(&self) -> u64 {
        get(&self.udp_dropped)
    }

    /// TCP offers the full queue handed back and that were offered again (not lost).
    #[cfg(test)]
    pub(crate) fn retried(&self) -> u64 {
        get(&self.refusals_retried)
    }

    /// `"; N tcp events, N syslog/tcp events, ... (..)"` for the summary line, empty when
    /// nothing happened.
    pub(crate) fn describe(&self) -> String {
        let mut out = String::new();
        for (n, what) in [
            (get(&self.tcp_events), "tcp events"),
            (get(&self.syslog_tcp_events), "syslog/tcp events"),
            (get(&self.syslog_udp_events), "syslog/udp events"),
        ] {
            if n > 0 {
                let _ = write!(out, "; {n} {what}");
            }
        }
        let mut notes = Vec::new();
        let cut = format!(
            "cut while reading (the largest {})",
            logship_cli::units::bytes(get(&self.cut_largest))
        );
        for (n, what) in [
            (get(&self.udp_dropped), "udp dropped (queue full)"),
            (
                get(&self.udp_kernel_dropped),
                "udp lost by the kernel (socket receive buffer full: raise --listen-udp-receive-buffer-bytes)",
            ),
            (
                get(&self.not_taken),
                "not taken (stopped with the queue full, or after shutdown)",
            ),
            (get(&self.parse_errors), "not syslog (shipped as text)"),
            (get(&self.cut), cut.as_str()),
            (get(&self.bad_counts), "bad octet counts"),
            (get(&self.invalid_utf8), "invalid UTF-8 replaced"),
            (
                get(&self.connections_refused),
                "connections refused (limit)",
            ),
            (get(&self.idle_closed), "connections closed idle"),
            (get(&self.read_errors), "connections reset"),
            (
                get(&self.partial_at_stop),
                "partial events cut off by the stop",
            ),
            (
                get(&self.refused_at_stop),
                "connections refused while stopping",
            ),
            (
                get(&self.cut_at_stop),
                "connections still sending at the stop's drain deadline, closed",
            ),
        ] {
            if n > 0 {
                notes.push(format!("{n} {what}"));
            }
        }
        if !notes.is_empty() {
            let _ = write!(out, " ({})", notes.join(", "));
        }
        out
    }
}
