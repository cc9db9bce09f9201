//! The watch thread: insurance copies of batches whose request is taking long.
//!
//! Why it exists: a request to an intake that accepted the connection and does not answer
//! holds its batch in memory for the whole request timeout (30 s by default); a SIGKILL
//! meanwhile would lose it. This thread (started only with spill on) sleeps until the
//! oldest uncopied batch in flight has been out for `spill_in_flight_after_ms`, then writes
//! its copy to the spill (`spill::in_flight`), so what a crash can cost is bounded by what
//! was queued or sent in the last few seconds. Copies are deleted when their batch settles.
//! It never touches a batch's settlement, never counts anything as spilled, and uses no
//! CPU while nothing is in flight.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::pool::Pool;
use crate::pipeline::shared::Shared;

/// Longest sleep while nothing is due, so the thread notices the end of the pipeline.
const IDLE: Duration = Duration::from_secs(60);

/// Runs until the pipeline has shut down.
pub(crate) fn run(shared: Arc<Shared>, pool: Arc<Pool>, after: Duration) {
    let Some(spill) = shared.spill.clone() else {
        return;
    };
    let mut in_flight = pool.in_flight();
    loop {
        if shared.abort.is_raised()
            || (shared.closed.load(Ordering::Acquire) && in_flight.is_empty())
        {
            return;
        }
        let now = Instant::now();
        let due = in_flight
            .iter()
            .find(|f| !f.copied && now.duration_since(f.since) >= after)
            .map(|f| (f.seq, Arc::clone(&f.records)));
        if let Some((seq, records)) = due {
            drop(in_flight);
            let copy = spill.write_in_flight(&records, &shared.counters, &shared.reporter);
            in_flight = pool.in_flight();
            match in_flight.iter_mut().find(|f| f.seq == seq) {
                Some(entry) => {
                    // A copy that could not be written was reported: not retried in a loop.
                    entry.copied = true;
                    entry.copy = copy;
                }
                None => {
                    // It settled while the copy was written: the copy is not needed.
                    if let Some(path) = copy {
                        let _ = std::fs::remove_file(path);
                    }
                }
            }
            continue;
        }
        let wait = in_flight
            .iter()
            .filter(|f| !f.copied)
            .map(|f| (f.since + after).saturating_duration_since(now))
            .min()
            .unwrap_or(IDLE);
        in_flight = match pool.in_flight_changed.wait_timeout(in_flight, wait) {
            Ok((guard, _)) => guard,
            Err(e) => e.into_inner().0,
        };
    }
}
