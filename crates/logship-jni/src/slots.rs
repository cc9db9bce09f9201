//! The running pipelines, by the number Java holds (its handle).
//!
//! Why it exists: Java keeps a `long` per appender; a raw pointer would need unsafe code
//! and could dangle when a stop races a log call. A slot is set once and never freed, so
//! a handle stays valid for the life of the process: a stopped pipeline refuses events
//! (counted) instead of being freed under a logging thread. Must never: block (the
//! lookup is one atomic load), or reuse a slot.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

use logship::{Guard, Logship};

/// Most pipelines one process starts (each appender start, reconfigurations included).
pub const MAX_PIPELINES: usize = 4096;

/// One started pipeline and its guard (kept, never dropped: `stop` shuts it down).
#[derive(Debug)]
pub struct Slot {
    /// The pipeline.
    pub logship: Logship,
    /// Keeps the pipeline's threads attached to this slot.
    pub guard: Guard,
}

static SLOTS: [OnceLock<Slot>; MAX_PIPELINES] = [const { OnceLock::new() }; MAX_PIPELINES];
static NEXT: AtomicUsize = AtomicUsize::new(0);

/// Stores a started pipeline; its handle (`1..`), or `None` when every slot is taken.
pub fn insert(logship: Logship, guard: Guard) -> Option<i64> {
    let at = NEXT.fetch_add(1, Ordering::Relaxed);
    let slot = SLOTS.get(at)?;
    slot.set(Slot { logship, guard }).ok()?;
    i64::try_from(at + 1).ok()
}

/// The pipeline behind a handle (`None` for 0, a negative or an unknown handle).
pub fn get(handle: i64) -> Option<&'static Logship> {
    let at = usize::try_from(handle).ok()?.checked_sub(1)?;
    SLOTS.get(at)?.get().map(|s| &s.logship)
}
