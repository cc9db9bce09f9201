//! A one-way flag that sleeping threads can wait on.
//!
//! Why it exists: the senders' backoff sleeps, the replayer's pauses and a sender waiting
//! for a concurrency permit must all end at once when shutdown runs out of time. A
//! [`Signal`] is raised once and never lowered; it must never be held across I/O.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

/// A one-way flag that sleeping threads can wait on (interruptible backoff).
pub(crate) struct Signal {
    set: Mutex<bool>,
    cond: Condvar,
    fast: AtomicBool,
}

impl Signal {
    pub(crate) fn new() -> Signal {
        Signal {
            set: Mutex::new(false),
            cond: Condvar::new(),
            fast: AtomicBool::new(false),
        }
    }

    /// Raises the flag and wakes every sleeper.
    pub(crate) fn raise(&self) {
        self.fast.store(true, Ordering::Release);
        *self.set.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.cond.notify_all();
    }

    /// True once raised.
    pub(crate) fn is_raised(&self) -> bool {
        self.fast.load(Ordering::Acquire)
    }

    /// Sleeps up to `d`; returns early (true) if the flag is raised.
    pub(crate) fn sleep(&self, d: Duration) -> bool {
        let deadline = Instant::now() + d;
        let mut set = self.set.lock().unwrap_or_else(|e| e.into_inner());
        while !*set {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            set = match self.cond.wait_timeout(set, deadline - now) {
                Ok((g, _)) => g,
                Err(e) => e.into_inner().0,
            };
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn signal_wakes_a_sleeper() {
        let s = Arc::new(Signal::new());
        let s2 = s.clone();
        let h = std::thread::spawn(move || s2.sleep(Duration::from_secs(60)));
        s.raise();
        assert!(h.join().unwrap());
        assert!(s.is_raised());
    }
}
