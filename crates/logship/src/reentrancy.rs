//! Marks logship's own threads, so nothing they log is shipped.
//!
//! Why it exists: the HTTP client (ureq, rustls) logs through the `log` crate on the
//! threads that send. If those records reached logship's own `log::Log` or tracing layer,
//! every request would produce more events, which produce more requests: a feedback loop.
//! All network and batching work happens on threads logship owns, so a thread-local flag
//! set at their start is a complete guard.

use std::cell::Cell;

thread_local! {
    static ON_LOGSHIP_THREAD: Cell<bool> = const { Cell::new(false) };
}

/// Marks the current thread as one of logship's workers. Called first thing on every
/// thread the pipeline spawns.
pub(crate) fn mark_current_thread() {
    ON_LOGSHIP_THREAD.with(|f| f.set(true));
}

/// True on logship's own worker threads: integrations ignore events emitted there.
pub fn is_logship_thread() -> bool {
    ON_LOGSHIP_THREAD.with(Cell::get)
}
