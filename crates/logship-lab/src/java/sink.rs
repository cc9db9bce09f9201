//! The discarding TCP sink of the Java lab's configuration (g): the stock `Socket`
//! appender writes into it, and it reads and throws everything away.
//!
//! Why it exists: the `Socket` appender's own cost (Log4j2 laying out and writing every
//! event) is paid by the service whoever reads the socket. Against a reader that does
//! nothing, the service serves the most any TCP receiver can let it serve on this
//! machine: the ceiling of (c), which tells how much of the gap between (c) and (f) is
//! logship's and how much is Log4j2's.
//!
//! What it must never do: parse or keep anything (it must cost as little as a reader
//! can), listen beyond 127.0.0.1, or outlive its handle (dropping it stops the accept loop
//! and every reader ends when the service closes its connection).

use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::{self, JoinHandle};

use logship_cli::exit::Failure;

/// Bytes each read asks for.
const READ_BUFFER: usize = 256 * 1024;

/// A running sink: its port, and the bytes it has read.
pub struct DiscardSink {
    /// The port it listens on, on 127.0.0.1.
    pub port: u16,
    read: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl DiscardSink {
    /// Listens on an ephemeral port of 127.0.0.1 and starts accepting.
    pub fn start() -> Result<DiscardSink, Failure> {
        let listener = TcpListener::bind("127.0.0.1:0")
            .map_err(|e| Failure::runtime(format!("cannot start the discarding sink: {e}")))?;
        let port = listener
            .local_addr()
            .map_err(|e| Failure::runtime(format!("discarding sink: {e}")))?
            .port();
        let read = Arc::new(AtomicU64::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (r, s) = (Arc::clone(&read), Arc::clone(&stop));
        let accept = thread::Builder::new()
            .name("lab-sink".into())
            .spawn(move || accept_loop(&listener, &r, &s))
            .map_err(|e| Failure::runtime(format!("cannot start the discarding sink: {e}")))?;
        Ok(DiscardSink {
            port,
            read,
            stop,
            accept: Some(accept),
        })
    }

    /// Bytes read so far, from every connection.
    pub fn bytes_read(&self) -> u64 {
        self.read.load(Ordering::Relaxed)
    }
}

impl Drop for DiscardSink {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        // Wakes the blocking accept; it sees the flag and returns.
        let _ = TcpStream::connect(("127.0.0.1", self.port));
        if let Some(a) = self.accept.take() {
            let _ = a.join();
        }
    }
}

/// Accepts until told to stop; one detached reader per connection (it ends at EOF).
fn accept_loop(listener: &TcpListener, read: &Arc<AtomicU64>, stop: &AtomicBool) {
    for conn in listener.incoming() {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let Ok(mut conn) = conn else { continue };
        let read = Arc::clone(read);
        let _ = thread::Builder::new()
            .name("lab-sink-read".into())
            .spawn(move || {
                let mut buf = vec![0u8; READ_BUFFER];
                while let Ok(n) = conn.read(&mut buf) {
                    if n == 0 {
                        return;
                    }
                    read.fetch_add(n as u64, Ordering::Relaxed);
                }
            });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn counts_what_it_is_sent_and_stops_when_dropped() {
        let sink = DiscardSink::start().expect("sink");
        let mut c = TcpStream::connect(("127.0.0.1", sink.port)).expect("connect");
        c.write_all(&[b'x'; 100_000]).expect("write");
        drop(c);
        // The reader counts asynchronously: wait for the condition, not for a time.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while sink.bytes_read() < 100_000 && std::time::Instant::now() < deadline {
            thread::yield_now();
        }
        assert_eq!(sink.bytes_read(), 100_000);
        let port = sink.port;
        drop(sink);
        assert!(
            TcpStream::connect(("127.0.0.1", port)).is_err(),
            "the listener is closed once the sink is dropped"
        );
    }
}
