//! Reports problems to the operator without going through the logging pipeline.
//!
//! Why it exists: delivery errors must be visible (stderr, `stats().last_error`, an
//! optional callback) but must never be logged through `log` or `tracing`, which could feed
//! them back into logship. Repeats of the same problem are rate-limited so a dead intake
//! does not flood stderr. Every message passes the pipeline's [`Scrubber`] first: no known
//! secret, no raw control character and no unbounded text reaches stderr, the stats or
//! the callback, whatever the intake answered. A stderr nobody reads any more (a closed
//! pipe) is counted in `stats().report_write_errors`, never a panic.

use std::collections::HashMap;
use std::io::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::observe::scrub::Scrubber;
use crate::observe::stats::Counters;

/// A delivery problem, as passed to the error callback.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DeliveryError {
    /// HTTP status, when the intake answered.
    pub status: Option<u16>,
    /// What happened and what to do, without secrets.
    pub message: String,
    /// Events affected.
    pub events: usize,
    /// True when logship gave up on these events (not retried further).
    pub permanent: bool,
}

/// Callback type for delivery errors.
pub type ErrorCallback = Arc<dyn Fn(&DeliveryError) + Send + Sync>;

const REPEAT_INTERVAL: Duration = Duration::from_secs(30);

/// Longest message reported (bytes, before the cut marker).
const MAX_MESSAGE: usize = 2048;

/// Rate-limited stderr reporting plus the optional callback.
pub(crate) struct Reporter {
    to_stderr: bool,
    callback: Option<ErrorCallback>,
    scrubber: Scrubber,
    last_printed: Mutex<HashMap<String, Instant>>,
    /// Lines that could not be written (stderr closed, full, or gone).
    write_failures: AtomicU64,
}

impl Reporter {
    pub(crate) fn new(to_stderr: bool, callback: Option<ErrorCallback>) -> Self {
        Reporter {
            to_stderr,
            callback,
            scrubber: Scrubber::default(),
            last_printed: Mutex::new(HashMap::new()),
            write_failures: AtomicU64::new(0),
        }
    }

    /// This reporter, hiding these secrets in everything it reports.
    pub(crate) fn with_scrubber(mut self, scrubber: Scrubber) -> Self {
        self.scrubber = scrubber;
        self
    }

    /// `text` (from the network) made safe to show: secrets redacted, control characters
    /// escaped, cut to about `max` bytes.
    pub(crate) fn clean(&self, text: &str, max: usize) -> String {
        self.scrubber.clean(text, max)
    }

    /// Records the error in the counters, calls the callback, and prints it unless the
    /// same kind (`key`) was printed in the last 30 s.
    pub(crate) fn error(&self, counters: &Counters, key: &str, mut error: DeliveryError) {
        error.message = self.scrubber.clean(&error.message, MAX_MESSAGE);
        counters.set_last_error(error.message.clone());
        if let Some(cb) = &self.callback {
            cb(&error);
        }
        if self.to_stderr && self.should_print(key) {
            self.write_line(&error.message);
        }
    }

    /// Prints a one-off notice (start-up warnings, the shutdown report).
    pub(crate) fn notice(&self, message: &str) {
        if self.to_stderr {
            self.write_line(&self.scrubber.clean(message, MAX_MESSAGE));
        }
    }

    /// Lines that could not be written to stderr so far.
    pub(crate) fn write_failures(&self) -> u64 {
        self.write_failures.load(Ordering::Relaxed)
    }

    /// Writes `logship: <message>` to stderr in one call. A stderr that is closed, full or
    /// gone is counted, never a panic (`eprintln!` would panic): logship's own reporting
    /// must not take the program down.
    fn write_line(&self, message: &str) {
        let line = format!("logship: {message}\n");
        if std::io::stderr().lock().write_all(line.as_bytes()).is_err() {
            self.write_failures.fetch_add(1, Ordering::Relaxed);
        }
    }

    fn should_print(&self, key: &str) -> bool {
        let Ok(mut map) = self.last_printed.lock() else {
            return true;
        };
        let now = Instant::now();
        match map.get(key) {
            Some(at) if now.duration_since(*at) < REPEAT_INTERVAL => false,
            _ => {
                map.insert(key.to_owned(), now);
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn repeats_are_rate_limited_but_callback_sees_every_error() {
        let seen = Arc::new(AtomicUsize::new(0));
        let seen2 = seen.clone();
        let r = Reporter::new(
            false,
            Some(Arc::new(move |_| {
                seen2.fetch_add(1, Ordering::SeqCst);
            })),
        );
        assert!(r.should_print("401"));
        assert!(!r.should_print("401"));
        assert!(r.should_print("503"));
        let c = Counters::default();
        let e = DeliveryError {
            status: Some(401),
            message: "bad key".into(),
            events: 3,
            permanent: true,
        };
        r.error(&c, "401", e.clone());
        r.error(&c, "401", e);
        assert_eq!(seen.load(Ordering::SeqCst), 2);
        assert_eq!(
            c.snapshot(0, 0, None, crate::observe::health::Health::Healthy)
                .last_error
                .as_deref(),
            Some("bad key")
        );
    }
}
