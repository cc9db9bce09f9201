//! The running pipelines, by the number Java holds (its handle).
//!
//! Why it exists: Java keeps a `long` per appender; a raw pointer would need unsafe code
//! and could dangle when a stop races a log call. A slot is set once and never freed, so
//! a handle stays valid for the life of the process: a stopped pipeline refuses events
//! (counted) instead of being freed under a logging thread. Must never: block (the
//! lookup is one atomic load), or reuse a slot.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use jni::objects::GlobalRef;
use logship::{Guard, Logship};

use crate::handover::HandOver;

/// Most pipelines one process starts (each appender start, reconfigurations included).
pub const MAX_PIPELINES: usize = 4096;

/// One started pipeline and its guard (kept, never dropped: `stop` shuts it down).
#[derive(Debug)]
pub struct Slot {
    /// The pipeline.
    pub logship: Logship,
    /// Keeps the pipeline's threads attached to this slot.
    pub guard: Guard,
    /// The hand-over ring's record area for this pipeline (bytes).
    pub ring_capacity: usize,
    /// How long a producer waits for room in a full ring (`block_timeout_ms`; zero:
    /// it does not wait).
    pub block: Duration,
    /// The ring's consumer, once Java attached a ring.
    pub handover: OnceLock<Arc<HandOver>>,
    /// The Java buffer the ring lives in, held while the consumer may read it (released
    /// by the stop, once the consumer has finished).
    pub ring_buffer: Mutex<Option<GlobalRef>>,
}

static SLOTS: [OnceLock<Slot>; MAX_PIPELINES] = [const { OnceLock::new() }; MAX_PIPELINES];
static NEXT: AtomicUsize = AtomicUsize::new(0);

/// Stores a started pipeline; its handle (`1..`), or `None` when every slot is taken.
pub fn insert(slot: Slot) -> Option<i64> {
    let at = NEXT.fetch_add(1, Ordering::Relaxed);
    SLOTS.get(at)?.set(slot).ok()?;
    i64::try_from(at + 1).ok()
}

/// The pipeline behind a handle (`None` for 0, a negative or an unknown handle).
pub fn get(handle: i64) -> Option<&'static Logship> {
    slot(handle).map(|s| &s.logship)
}

/// The whole slot behind a handle.
pub fn slot(handle: i64) -> Option<&'static Slot> {
    let at = usize::try_from(handle).ok()?.checked_sub(1)?;
    SLOTS.get(at)?.get()
}
