//! How `ship` stops: SIGTERM and SIGINT end the input, a second one cuts the shutdown
//! short. Shared by every way of shipping (stdin, `--input`, `--follow`, `--listen`).
//!
//! Why it exists: a sidecar is stopped by its service manager; what it does then (read no
//! more, deliver or spill what is in memory within the shutdown timeout, report) must not
//! depend on how it was reading. Must never: take the process down on a signal before the
//! summary, or wait on a reader blocked on its input (it gets [`READER_GRACE`]).

use std::time::Duration;

use logship::Logship;

/// Longest the main thread waits, after a signal, for its reader (stdin, `--input` or the
/// follower) to hand over what it holds and stop; a reader blocked on quiet input is not
/// waited for longer.
pub const READER_GRACE: Duration = Duration::from_millis(500);

/// Longest one offer of an input that keeps what a full queue refuses (a followed file, a
/// TCP connection) waits for room before the input looks at its stop flag again and
/// offers the same event anew: a full queue delays such an input, never loses from it,
/// and a stop is noticed within this (well inside [`READER_GRACE`]) rather than after the
/// pipeline's longest wait of 60 s.
pub const OFFER_WAIT: Duration = Duration::from_millis(250);

/// Calls `signalled` on each SIGTERM or SIGINT; `without` says what a signal would cost
/// if no handler can be installed (printed once).
pub fn on_termination(signalled: impl FnMut() + Send + 'static, without: &str) {
    if let Err(e) = ctrlc::set_handler(signalled) {
        eprintln!("logship: warning: cannot handle SIGTERM/SIGINT ({e}); a signal will stop logship without {without}");
    }
}

/// What a second signal does: shutdown stops waiting, what is left is spilled (or
/// counted).
pub fn stop_now(logship: &Logship) {
    eprintln!("logship: second signal: stopping now");
    logship.cut_short();
}

/// From here on, a signal cuts the shutdown short: a thread waits for `next` (true when a
/// signal arrived) and then stops `logship` at once.
pub fn second_signal_cuts_short(logship: &Logship, next: impl FnOnce() -> bool + Send + 'static) {
    let logship = logship.clone();
    let _ = std::thread::Builder::new()
        .name("logship-signals".into())
        .spawn(move || {
            if next() {
                stop_now(&logship);
            }
        });
}
