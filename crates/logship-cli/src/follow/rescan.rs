//! SIGHUP for `ship --follow`: match the patterns again at once, and go on following.
//!
//! Why it exists: log rotation tools send SIGHUP after they rotate; a follower that
//! stopped on it would lose its place. ctrlc cannot tell SIGHUP from SIGTERM, so SIGHUP is
//! blocked in every thread and taken by a thread of its own with `sigwait`. Must never:
//! stop following (or lose a line) on SIGHUP.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use nix::sys::signal::{SigSet, Signal};

use super::counters::Counters;

/// Blocks SIGHUP in the calling thread, and so in every thread it starts later (they
/// inherit the mask): the termination handler never sees it, [`wait_for_sighup`] takes it.
pub(crate) fn block_sighup() -> nix::Result<SigSet> {
    let mut set = SigSet::empty();
    set.add(Signal::SIGHUP);
    set.thread_block()?;
    Ok(set)
}

/// Starts the thread that turns each SIGHUP into a rescan: the patterns are matched again
/// at once (new files opened, files whose path now names another file or nothing read to
/// their end and closed), and following goes on. It lives until the process exits.
pub(crate) fn wait_for_sighup(set: SigSet, rescan: Arc<AtomicBool>, counters: Arc<Counters>) {
    let started = std::thread::Builder::new()
        .name("logship-follow-sighup".into())
        .spawn(move || {
            while let Ok(Signal::SIGHUP) = set.wait() {
                let n = counters.rescans.fetch_add(1, Ordering::Relaxed) + 1;
                rescan.store(true, Ordering::Release);
                eprintln!("logship: SIGHUP (rescan {n}): matching the patterns again and reopening what changed; following goes on");
            }
        });
    if let Err(e) = started {
        eprintln!("logship: warning: cannot start the SIGHUP thread ({e}); SIGHUP is ignored (the patterns are still matched every --poll-interval-ms)");
    }
}
