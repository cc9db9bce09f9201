//! Kill points for the crash harness: with the `fault-points` feature (off by default,
//! never in the product build), `reached("spill-write")` SIGKILLs the process the Nth time
//! it is reached when `LOGSHIP_FAULT_POINT=spill-write:N` (`:N` left out: the first time),
//! so a test can kill it in the middle of a write deterministically instead of by timing.
//!
//! Why it exists: issue 32 item 13 asks for kills in the middle of a checkpoint write and
//! of a spill write; random timing rarely lands there. Must never: do anything without
//! the feature (an empty inline function then), or be enabled by a build users run.

/// Marks a kill point (see the module doc). Without the feature it does nothing.
#[inline(always)]
pub fn reached(name: &str) {
    #[cfg(feature = "fault-points")]
    armed::reached(name);
    #[cfg(not(feature = "fault-points"))]
    let _ = name;
}

#[cfg(feature = "fault-points")]
mod armed {
    use std::sync::atomic::{AtomicU64, Ordering};

    /// How often the armed point was reached.
    static COUNT: AtomicU64 = AtomicU64::new(0);

    pub(super) fn reached(name: &str) {
        let Ok(spec) = std::env::var("LOGSHIP_FAULT_POINT") else {
            return;
        };
        let (point, nth) = spec.split_once(':').unwrap_or((spec.as_str(), "1"));
        if point != name {
            return;
        }
        let nth: u64 = nth.parse().unwrap_or(1);
        if COUNT.fetch_add(1, Ordering::AcqRel) + 1 != nth {
            return;
        }
        eprintln!("logship: fault point {name} reached ({nth}): SIGKILL");
        // No unsafe code in the crate: `kill` does it; the process dies while waiting.
        let _ = std::process::Command::new("kill")
            .args(["-KILL", &std::process::id().to_string()])
            .status();
        // `kill` failed to run: never go on past the point as if nothing happened.
        std::process::abort();
    }
}
