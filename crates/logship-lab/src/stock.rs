//! The stock model: Log4j2's async logger in front of its HttpAppender.
//!
//! Why it exists: it is the baseline the lab compares logship against. Like the stock
//! setup it has a bounded ring (256 slots by default in the lab, so it fills within a short
//! run), one background thread, and one blocking HTTP POST per event (a JSON body, on a
//! keep-alive connection); producers block while the ring is full, which is where the
//! application's requests start waiting on the log intake.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use super::ring::Ring;

/// How long one POST may take before it is counted as failed.
const POST_TIMEOUT: Duration = Duration::from_secs(30);

/// A running stock appender: the ring and its single sender thread.
#[derive(Debug)]
pub struct Stock {
    ring: Arc<Ring<Vec<u8>>>,
    counters: Arc<Counters>,
}

/// What the sender thread did.
#[derive(Debug, Default)]
struct Counters {
    failed: AtomicU64,
}

impl Stock {
    /// Starts the sender thread posting to `url` from a ring of `capacity` slots.
    pub fn start(url: String, capacity: usize) -> std::io::Result<Stock> {
        let ring = Arc::new(Ring::new(capacity));
        let counters = Arc::new(Counters::default());
        {
            let ring = Arc::clone(&ring);
            let counters = Arc::clone(&counters);
            thread::Builder::new()
                .name("stock-appender".into())
                .spawn(move || send_loop(&url, &ring, &counters))?;
        }
        Ok(Stock { ring, counters })
    }

    /// Queues one JSON event, waiting while the ring is full (the stock queue-full
    /// policy). Returns false only after [`Stock::close`].
    pub fn log(&self, event: Vec<u8>) -> bool {
        self.ring.push(event).is_ok()
    }

    /// Events queued or being posted.
    pub fn depth(&self) -> u64 {
        self.ring.depth() as u64
    }

    /// Events whose POST failed (not retried, as the stock appender does not retry).
    pub fn failed(&self) -> u64 {
        self.counters.failed.load(Relaxed)
    }

    /// Waits up to `timeout` for the ring to drain (as Log4j2 does at shutdown), then
    /// refuses further events; returns whether everything queued was posted. The sender
    /// thread ends once the ring is empty.
    pub fn close(&self, timeout: Duration) -> bool {
        let drained = self.ring.wait_idle(timeout);
        self.ring.close();
        drained
    }
}

/// The single sender thread: one blocking POST per event, in order.
fn send_loop(url: &str, ring: &Ring<Vec<u8>>, counters: &Counters) {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(POST_TIMEOUT))
        .build()
        .into();
    while let Some(event) = ring.pop() {
        let ok = match agent
            .post(url)
            .header("Content-Type", "application/json")
            .send(&event[..])
        {
            Ok(mut response) => {
                // Read the answer so the connection is reused.
                let _ = response.body_mut().read_to_vec();
                response.status().is_success()
            }
            Err(_) => false,
        };
        if !ok {
            counters.failed.fetch_add(1, Relaxed);
        }
        ring.done();
    }
}
