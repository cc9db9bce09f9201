//! How many request bodies are decoded into events at once.
//!
//! Why it exists: a body's decoded events (and, while decoding, its JSON tree or its
//! protobuf messages) take many times the body's bytes: 10 MiB of one-character text
//! lines were 5 million events and 838 MiB. Each connection has its own thread, so 256
//! connections decoding at once could take the host's memory. Decoding is CPU work, so
//! more decodes at once than the machine has cores ship nothing faster: the gate lets
//! that many through and holds the others until one is done.
//!
//! Must never: hold a permit while waiting for a client (bodies are read before the gate,
//! answers written after it), or lose one (a permit is given back when its guard drops,
//! even if the decode panics).

use std::sync::{Condvar, Mutex, PoisonError};

/// A counting gate: at most `permits` holders at once.
#[derive(Debug)]
pub(crate) struct DecodeGate {
    permits: usize,
    busy: Mutex<usize>,
    freed: Condvar,
}

/// One permit; given back when dropped.
pub(crate) struct Permit<'a>(&'a DecodeGate);

impl DecodeGate {
    /// A gate of `permits` (at least 1).
    pub(crate) fn new(permits: usize) -> DecodeGate {
        DecodeGate {
            permits: permits.max(1),
            busy: Mutex::new(0),
            freed: Condvar::new(),
        }
    }

    /// A gate with one permit per core this process may use.
    pub(crate) fn per_core() -> DecodeGate {
        DecodeGate::new(std::thread::available_parallelism().map_or(2, usize::from))
    }

    /// Waits for a permit.
    pub(crate) fn enter(&self) -> Permit<'_> {
        let mut busy = self.busy.lock().unwrap_or_else(PoisonError::into_inner);
        while *busy >= self.permits {
            busy = self
                .freed
                .wait(busy)
                .unwrap_or_else(PoisonError::into_inner);
        }
        *busy += 1;
        Permit(self)
    }

    /// How many permits are held now.
    #[cfg(test)]
    fn held(&self) -> usize {
        *self.busy.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        let mut busy = self.0.busy.lock().unwrap_or_else(PoisonError::into_inner);
        *busy = busy.saturating_sub(1);
        drop(busy);
        self.0.freed.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{mpsc, Arc};

    #[test]
    fn at_most_its_permits_hold_it_at_once_and_a_dropped_permit_lets_the_next_in() {
        let gate = Arc::new(DecodeGate::new(2));
        let inside = Arc::new(AtomicUsize::new(0));
        let most = Arc::new(AtomicUsize::new(0));
        let (entered, entries) = mpsc::channel();
        // Holders wait on this lock inside the gate until the test lets them go.
        let release = Arc::new(Mutex::new(()));
        let hold = release.lock().unwrap();
        let workers: Vec<_> = (0..6)
            .map(|_| {
                let (gate, inside, most) = (gate.clone(), inside.clone(), most.clone());
                let (entered, release) = (entered.clone(), release.clone());
                std::thread::spawn(move || {
                    let _permit = gate.enter();
                    let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(now, Ordering::SeqCst);
                    entered.send(()).unwrap();
                    drop(release.lock().unwrap_or_else(PoisonError::into_inner));
                    inside.fetch_sub(1, Ordering::SeqCst);
                })
            })
            .collect();
        // Two get in; the other four wait at the gate while the two are held (a broken
        // gate would let a third in: the check can miss it on a slow machine, never fail
        // a good one).
        entries.recv().unwrap();
        entries.recv().unwrap();
        assert!(entries
            .recv_timeout(std::time::Duration::from_millis(200))
            .is_err());
        assert_eq!(gate.held(), 2);
        drop(hold);
        for w in workers {
            w.join().unwrap();
        }
        assert_eq!(most.load(Ordering::SeqCst), 2);
        assert_eq!(gate.held(), 0, "every permit given back");
    }

    #[test]
    fn a_panicking_holder_gives_its_permit_back() {
        let gate = Arc::new(DecodeGate::new(1));
        let g = gate.clone();
        let _ = std::thread::spawn(move || {
            let _permit = g.enter();
            panic!("decode failed");
        })
        .join();
        assert_eq!(gate.held(), 0);
        drop(gate.enter());
    }
}
