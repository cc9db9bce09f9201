//! The HTTP listener's connection slots: who holds one, what it is doing, and which one
//! gives its slot up when a new client arrives and every slot is taken.
//!
//! Why it exists: a thread per connection under a connection limit let 256 connections
//! that send nothing (or drip a byte at a time) hold every slot for their whole timeout,
//! and every new client was refused for 60 s. A connection waiting for a request (idle
//! between requests, or not yet sent its head) is doing no work for anyone: when the
//! slots are full, the one that has waited longest is closed to make room, as nginx
//! reuses idle keep-alive connections. A connection reading a body or being answered is
//! never reclaimed.
//!
//! Must never: reclaim a connection whose request is past its head, block the accept
//! loop on a connection, or count a slot twice.

use std::net::{Shutdown, TcpStream};
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// Waiting for a request (its first byte, or the next one on a keep-alive connection).
const WAITING: u8 = 0;
/// Reading a head that has begun.
const HEAD: u8 = 1;
/// Reading a body, or handling and answering a request: never reclaimed.
const BUSY: u8 = 2;

/// What a slot's connection is doing, and since when; shared by its thread and the
/// accept loop.
struct State {
    phase: AtomicU8,
    /// Nanoseconds after the slots' epoch at which the phase began.
    since: AtomicU64,
}

struct Entry {
    id: u64,
    state: Arc<State>,
    /// A handle to shut the connection down when it is reclaimed.
    stream: TcpStream,
}

/// Every connection slot of one listener.
pub(crate) struct Slots {
    max: usize,
    epoch: Instant,
    open: Mutex<(u64, Vec<Entry>)>,
    closed: Condvar,
}

/// One held slot; given back when dropped.
pub(crate) struct Slot {
    slots: Arc<Slots>,
    id: u64,
    state: Arc<State>,
}

impl Slots {
    /// At most `max` connections at once.
    pub(crate) fn new(max: usize) -> Arc<Slots> {
        Arc::new(Slots {
            max: max.max(1),
            epoch: Instant::now(),
            open: Mutex::new((0, Vec::new())),
            closed: Condvar::new(),
        })
    }

    fn now(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    /// A slot for `stream`: a free one, or one taken from the connection that has waited
    /// longest for a request (which is shut down; `reclaimed` tells the caller to count
    /// it). `None` when every connection is busy with a request (the caller answers 503).
    pub(crate) fn take(self: &Arc<Slots>, stream: &TcpStream) -> Option<(Slot, bool)> {
        let handle = stream.try_clone().ok()?;
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        let mut reclaimed = false;
        if open.1.len() >= self.max {
            // Waiting connections first, then heads in progress; the oldest of them.
            let victim = open
                .1
                .iter()
                .enumerate()
                .filter(|(_, e)| e.state.phase.load(Ordering::Acquire) != BUSY)
                .min_by_key(|(_, e)| {
                    (
                        e.state.phase.load(Ordering::Acquire),
                        e.state.since.load(Ordering::Acquire),
                    )
                })
                .map(|(i, _)| i)?;
            let entry = open.1.swap_remove(victim);
            let _ = entry.stream.shutdown(Shutdown::Both);
            reclaimed = true;
        }
        open.0 += 1;
        let id = open.0;
        let state = Arc::new(State {
            phase: AtomicU8::new(WAITING),
            since: AtomicU64::new(self.now()),
        });
        open.1.push(Entry {
            id,
            state: Arc::clone(&state),
            stream: handle,
        });
        let slot = Slot {
            slots: Arc::clone(self),
            id,
            state,
        };
        Some((slot, reclaimed))
    }

    /// Waits until every slot is given back (true), or `deadline` (false).
    pub(crate) fn wait_closed(&self, deadline: Instant) -> bool {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        while !open.1.is_empty() {
            let Some(left) = deadline.checked_duration_since(Instant::now()) else {
                return false;
            };
            open = self
                .closed
                .wait_timeout(open, left.min(Duration::from_millis(100)))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        true
    }

    /// Connections open now.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.open.lock().unwrap_or_else(|e| e.into_inner()).1.len()
    }
}

impl Slot {
    fn set(&self, phase: u8) {
        if self.state.phase.swap(phase, Ordering::AcqRel) != phase {
            self.state.since.store(self.slots.now(), Ordering::Release);
        }
    }

    /// Waiting for a request: reclaimable, longest waiting first.
    pub(crate) fn waiting(&self) {
        self.set(WAITING);
    }

    /// A head has begun: reclaimable after every waiting connection.
    pub(crate) fn head(&self) {
        self.set(HEAD);
    }

    /// Reading a body or handling a request: never reclaimed.
    pub(crate) fn busy(&self) {
        self.set(BUSY);
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.slots.open.lock().unwrap_or_else(|e| e.into_inner());
        // A reclaimed slot was removed already.
        if let Some(i) = open.1.iter().position(|e| e.id == self.id) {
            open.1.swap_remove(i);
        }
        drop(open);
        self.slots.closed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;
    use std::net::TcpListener;

    fn pair(listener: &TcpListener) -> (TcpStream, TcpStream) {
        let client = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let (server, _) = listener.accept().unwrap();
        (client, server)
    }

    #[test]
    fn a_full_house_reclaims_the_longest_waiting_connection_never_a_busy_one() {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let slots = Slots::new(2);
        let (_c1, s1) = pair(&listener);
        let (slot1, r) = slots.take(&s1).expect("free");
        assert!(!r);
        slot1.busy();
        let (mut c2, s2) = pair(&listener);
        let (slot2, _) = slots.take(&s2).expect("free");
        slot2.waiting();
        // Full: the waiting one makes room, and its socket is shut down.
        let (_c3, s3) = pair(&listener);
        let (slot3, reclaimed) = slots.take(&s3).expect("reclaimed");
        assert!(reclaimed);
        assert_eq!(slots.len(), 2);
        let mut buf = [0u8; 1];
        assert_eq!(c2.read(&mut buf).unwrap_or(0), 0, "closed");
        drop(slot2); // its thread ends: nothing counted twice
        assert_eq!(slots.len(), 2);
        // Both busy: nothing to reclaim.
        slot3.busy();
        let (_c4, s4) = pair(&listener);
        assert!(slots.take(&s4).is_none());
        drop(slot1);
        assert!(slots.take(&s4).is_some());
    }
}
