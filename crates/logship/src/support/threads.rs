//! logship's own threads: starting them, and knowing when code runs on one.
//!
//! Why it exists: the HTTP client (ureq, rustls) logs through the `log` crate on the
//! threads that send. If those records reached logship's own `log::Log` or tracing layer,
//! every request would produce more events, which produce more requests: a feedback loop.
//! All network and batching work happens on threads logship owns, and every one of them
//! is started by [`spawn`], which marks it before running anything, so a thread-local
//! flag is a complete guard. With the `tracing` feature, each of these threads also runs
//! with a no-op default dispatcher: whatever is emitted there (the HTTP client's debug
//! records bridged by `tracing-log`, an `on_error` callback's own events) never reaches the
//! application's subscriber, so `RUST_LOG=debug` does not flood its console with logship's
//! requests. Nothing here may log.

use std::cell::Cell;

thread_local! {
    static ON_LOGSHIP_THREAD: Cell<bool> = const { Cell::new(false) };
}

/// Starts a named thread that is marked as logship's before `f` runs, so nothing it logs
/// is shipped. The only way the pipeline starts a thread.
pub(crate) fn spawn(name: String, f: impl FnOnce() + Send + 'static) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name(name)
        .spawn(move || {
            ON_LOGSHIP_THREAD.with(|flag| flag.set(true));
            #[cfg(feature = "tracing")]
            tracing_core::dispatcher::with_default(&tracing_core::Dispatch::none(), f);
            #[cfg(not(feature = "tracing"))]
            f();
        })
        .map(drop)
}

/// True on logship's own worker threads: integrations ignore events emitted there.
pub fn is_logship_thread() -> bool {
    ON_LOGSHIP_THREAD.with(Cell::get)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spawned_threads_are_marked_and_others_are_not() {
        assert!(!is_logship_thread());
        let (tx, rx) = std::sync::mpsc::channel();
        spawn("logship-test".into(), move || {
            let _ = tx.send((
                is_logship_thread(),
                std::thread::current().name().map(str::to_owned),
            ));
        })
        .expect("spawn");
        let (marked, name) = rx.recv().expect("the thread reports");
        assert!(marked);
        assert_eq!(name.as_deref(), Some("logship-test"));
    }
}
