//! The stall alarm: nothing delivered for a while although events keep arriving.
//!
//! Why it exists: the worst failure of a shipper is the quiet one ("shipping silently
//! stopped", as a peer's users reported it): an intake that accepts connections and never answers
//! leaves health `healthy` (no request has failed yet) while the queue fills. The watch is
//! pure (the time and the counters are arguments) so its rules are tested without
//! waiting; the observer thread feeds it. Must never: fire twice for one stall, or fire
//! while nothing arrives (an idle program is not stalled).

use std::sync::Arc;
use std::time::{Duration, Instant};

/// What the `on_stall` callback is told: a stall began, or delivery resumed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct StallAlarm {
    /// True when the stall began; false when delivery resumed.
    pub stalled: bool,
    /// How long nothing had been delivered.
    pub quiet_for: Duration,
    /// Events waiting to be delivered (queued or in flight) when the stall began; 0 when
    /// it ended.
    pub waiting: u64,
}

/// The `on_stall` callback: called once when a stall begins and once when it ends, on a
/// logship thread (what it logs is not shipped).
pub type StallCallback = Arc<dyn Fn(&StallAlarm) + Send + Sync>;

/// The watch over delivered and arrived counts.
#[derive(Debug)]
pub(crate) struct StallWatch {
    after: Duration,
    delivered: u64,
    since: Instant,
    stalled: bool,
}

impl StallWatch {
    pub(crate) fn new(after: Duration, now: Instant) -> StallWatch {
        StallWatch {
            after,
            delivered: 0,
            since: now,
            stalled: false,
        }
    }

    /// Feeds the counts at `now` (`delivered`: events delivered or replayed so far;
    /// `waiting`: events accepted and not settled yet, so events did arrive that nothing
    /// delivered); a change of state, if any.
    pub(crate) fn check(
        &mut self,
        now: Instant,
        delivered: u64,
        waiting: u64,
    ) -> Option<StallAlarm> {
        let quiet_for = now.saturating_duration_since(self.since);
        if delivered != self.delivered {
            self.delivered = delivered;
            self.since = now;
            if self.stalled {
                self.stalled = false;
                return Some(StallAlarm {
                    stalled: false,
                    quiet_for,
                    waiting: 0,
                });
            }
            return None;
        }
        if !self.stalled && waiting > 0 && quiet_for >= self.after {
            self.stalled = true;
            return Some(StallAlarm {
                stalled: true,
                quiet_for,
                waiting,
            });
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const AFTER: Duration = Duration::from_secs(5);

    #[test]
    fn fires_once_when_events_arrive_and_nothing_is_delivered_then_clears_once() {
        let t0 = Instant::now();
        let mut w = StallWatch::new(AFTER, t0);
        assert_eq!(w.check(t0 + Duration::from_secs(1), 0, 10), None);
        let alarm = w.check(t0 + AFTER, 0, 20).expect("a stall");
        assert!(alarm.stalled);
        assert_eq!(alarm.waiting, 20);
        assert_eq!(w.check(t0 + AFTER * 2, 0, 30), None, "fires once");
        let cleared = w.check(t0 + AFTER * 3, 5, 25).expect("cleared");
        assert!(!cleared.stalled);
        assert_eq!(w.check(t0 + AFTER * 3, 5, 25), None);
    }

    #[test]
    fn an_idle_pipeline_is_not_stalled() {
        let t0 = Instant::now();
        let mut w = StallWatch::new(AFTER, t0);
        assert_eq!(w.check(t0, 10, 0), None);
        assert_eq!(w.check(t0 + AFTER * 10, 10, 0), None);
    }

    #[test]
    fn steady_delivery_never_stalls() {
        let t0 = Instant::now();
        let mut w = StallWatch::new(AFTER, t0);
        for i in 1..100u64 {
            assert_eq!(w.check(t0 + AFTER / 2 * i as u32, i, 5), None);
        }
    }
}
