//! Delivering what is queued when the program panics.
//!
//! Why it exists: a panic is often the last thing a program does (`panic = "abort"`, a
//! panic in a thread followed by `process::exit`, a supervisor that restarts on the first
//! error), and the events logged just before it are the ones an operator needs. A process
//! wide hook, installed once when the first pipeline with `flush_on_panic` starts, flushes
//! every live pipeline (each bounded by its own short timeout) and then runs the hook that
//! was installed before it, so the program's own panic reporting is unchanged.
//!
//! Must never: run on logship's own threads (a panic there must not wait on itself), wait
//! on a lock another thread may hold while panicking, or keep a pipeline alive.

use std::sync::{Arc, Mutex, Once};

/// Flushes one pipeline; false once that pipeline is gone (so it is forgotten).
pub(crate) type Flush = Arc<dyn Fn() -> bool + Send + Sync>;

/// The live pipelines' flushes.
static LIVE: Mutex<Vec<Flush>> = Mutex::new(Vec::new());
static INSTALL: Once = Once::new();

/// Registers a pipeline's flush, installing the hook on first use.
pub(crate) fn register(flush: Flush) {
    if std::thread::panicking() {
        // Setting a hook while panicking is not allowed; this pipeline goes without.
        return;
    }
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !crate::support::threads::is_logship_thread() {
                flush_all();
            }
            previous(info);
        }));
    });
    let mut live = LIVE.lock().unwrap_or_else(|e| e.into_inner());
    live.push(flush);
}

/// Runs every registered flush; forgets pipelines that are gone.
fn flush_all() {
    // A thread that panics while registering holds the lock: skip rather than wait.
    let flushes: Vec<Flush> = match LIVE.try_lock() {
        Ok(live) => live.clone(),
        Err(_) => return,
    };
    let alive: Vec<bool> = flushes.iter().map(|flush| flush()).collect();
    if let Ok(mut live) = LIVE.try_lock() {
        let mut i = 0;
        live.retain(|_| {
            let keep = alive.get(i).copied().unwrap_or(true);
            i += 1;
            keep
        });
    }
}
