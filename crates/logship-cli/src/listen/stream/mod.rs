//! The stream inputs of `ship --listen`: `tcp://` (newline or NUL delimited JSON or text
//! lines, as Log4j2's `Socket` appender and logback's send them) and `syslog+tcp://` /
//! `syslog+udp://` (RFC 5424 and RFC 3164).
//!
//! Why it exists: programs that cannot link logship point their stock appender or syslog
//! daemon at it. TCP is read only as fast as the pipeline takes events (a full queue stops
//! the reading, so the sender's own buffer and policy apply: backpressure, not loss); UDP
//! cannot wait, so its refusals are counted.
//!
//! Must never: buffer more than `max_event_bytes` of one event, let one connection or a
//! silent client hold the listener (connection limit, idle timeout), drop a TCP event
//! because the queue stayed full (it retries), or lose one silently (every event is
//! pushed, or counted with its reason).

mod counters;
mod event;
mod framing;
mod limits;
mod syslog;
mod tcp;
#[cfg(test)]
mod tests;
mod udp;
mod udp_drops;

pub(crate) use counters::Counters;
pub(crate) use framing::Framing;
pub(crate) use limits::Limits;
pub(crate) use tcp::serve_tcp;
pub(crate) use udp::serve_udp;
