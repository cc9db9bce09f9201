//! How many requests may be in flight at once: adaptive (AIMD) or fixed.
//!
//! Why it exists: real intakes are 20 to 200 ms away, so a fixed two requests in flight
//! caps delivery at a few thousand events per second and a busy service falls behind,
//! while a fixed high number hammers an intake that is already answering 429. Like
//! Vector's adaptive request concurrency, the [`Limiter`] hands out one permit per HTTP
//! attempt and adjusts the number of permits from what the answers say ([`Aimd`]): one
//! more after a round of requests whose round-trip times stayed flat while requests were
//! waiting for a permit, half as many at once on back-pressure (429, 5xx, a timeout or a
//! network error), a tenth fewer after a round whose round-trip times rose clearly above
//! the usual. As in TCP, answers to requests sent before a decrease do not decrease the
//! limit again: one storm of 429s halves it once per round trip, not once per answer.
//! Always between 1 and the configured ceiling (`max_in_flight`); with adaptivity off the
//! limit is simply `max_in_flight`.

use std::sync::{Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::support::sync::Signal;

/// The limit a pipeline starts with (capped by the ceiling): the old fixed default, so
/// adaptivity never starts slower than logship did without it.
const INITIAL_LIMIT: usize = 2;

/// Weight of the newest round in the round-trip baseline (Vector's `ewma_alpha`).
const EWMA_ALPHA: f64 = 0.4;

/// A round is "rising" when its mean round-trip time exceeds the baseline by this many
/// mean deviations (Vector's `rtt_deviation_scale`)...
const RISE_DEVIATIONS: f64 = 2.5;

/// ...and by at least this share of the baseline, so that jitter on a sub-millisecond
/// loopback round trip is not mistaken for an overloaded intake.
const RISE_SHARE: f64 = 0.5;

/// A round is "flat" (the limit may grow) when its mean stays within this share of the
/// baseline, or within one mean deviation, whichever is larger.
const FLAT_SHARE: f64 = 0.1;

/// Factor applied to the limit after a round with back-pressure (an explicit "slow down").
const BACKPRESSURE_DECREASE: f64 = 0.5;

/// Factor applied to the limit after a round whose round-trip times rose (a noisier sign).
const RISE_DECREASE: f64 = 0.9;

/// What one finished HTTP attempt tells the controller.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sample {
    /// From just before the request was sent until its answer (or failure).
    pub rtt: Duration,
    /// The intake pushed back: 429, 5xx, a timeout or a network error.
    pub backpressure: bool,
    /// Requests were waiting for a permit while this one was out (there is a backlog).
    pub backlog: bool,
    /// [`Aimd::epoch`] when the request was sent.
    pub epoch: u64,
}

/// The pure AIMD controller: feed it samples, read the limit. No clock, no locks.
#[derive(Debug)]
pub(crate) struct Aimd {
    limit: usize,
    ceiling: usize,
    /// EWMA of the mean round-trip time of past rounds, in seconds.
    baseline: Option<f64>,
    /// EWMA of how far rounds' means were from the baseline, in seconds.
    deviation: f64,
    /// Counts decreases: samples from requests sent before the latest one are ignored.
    epoch: u64,
    round: Round,
}

/// The samples of the current round (as many as the limit was when it began).
#[derive(Debug, Default)]
struct Round {
    samples: usize,
    /// Sum of the round-trip times of answers that were not back-pressure.
    rtt_sum: f64,
    rtt_count: usize,
    backlog: bool,
}

impl Aimd {
    /// A controller starting at `initial` (clamped to `1..=ceiling`).
    pub(crate) fn new(initial: usize, ceiling: usize) -> Aimd {
        let ceiling = ceiling.max(1);
        Aimd {
            limit: initial.clamp(1, ceiling),
            ceiling,
            baseline: None,
            deviation: 0.0,
            epoch: 0,
            round: Round::default(),
        }
    }

    /// The current limit.
    pub(crate) fn limit(&self) -> usize {
        self.limit
    }

    /// The current epoch, to put in the [`Sample`] of a request sent now.
    pub(crate) fn epoch(&self) -> u64 {
        self.epoch
    }

    /// Takes one sample: back-pressure decreases the limit at once; otherwise, at the end
    /// of a round (as many samples as the limit), the round's round-trip times decide.
    /// Returns the limit after the sample.
    pub(crate) fn record(&mut self, sample: Sample) -> usize {
        if sample.epoch < self.epoch {
            // Sent under a limit that has been decreased since: its answer is old news.
            return self.limit;
        }
        if sample.backpressure {
            // A fast 429 says nothing about how long real work takes: no RTT either.
            self.decrease(BACKPRESSURE_DECREASE);
            return self.limit;
        }
        let round = &mut self.round;
        round.samples += 1;
        round.backlog |= sample.backlog;
        round.rtt_sum += sample.rtt.as_secs_f64();
        round.rtt_count += 1;
        if round.samples >= self.limit {
            self.end_round();
        }
        self.limit
    }

    /// Multiplies the limit by `factor` and starts a new round and epoch.
    fn decrease(&mut self, factor: f64) {
        self.limit = scale(self.limit, factor);
        self.epoch += 1;
        self.round = Round::default();
    }

    fn end_round(&mut self) {
        let round = std::mem::take(&mut self.round);
        let mean = round.rtt_sum / round.rtt_count.max(1) as f64;
        match self.baseline {
            Some(base) => {
                let rising =
                    mean > base + (RISE_DEVIATIONS * self.deviation).max(RISE_SHARE * base);
                let flat = mean <= base + self.deviation.max(FLAT_SHARE * base);
                if rising {
                    self.decrease(RISE_DECREASE);
                } else if flat && round.backlog {
                    self.limit += 1;
                }
            }
            // The first round sets the baseline; nothing says the intake is struggling.
            None if round.backlog => self.limit += 1,
            None => {}
        }
        self.limit = self.limit.clamp(1, self.ceiling);
        match self.baseline {
            None => self.baseline = Some(mean),
            Some(base) => {
                self.deviation += EWMA_ALPHA * ((mean - base).abs() - self.deviation);
                self.baseline = Some(base + EWMA_ALPHA * (mean - base));
            }
        }
    }
}

/// `limit × factor`, rounded down, but always at least one lower while above 1.
fn scale(limit: usize, factor: f64) -> usize {
    let scaled = (limit as f64 * factor).floor() as usize;
    scaled.min(limit.saturating_sub(1)).max(1)
}

/// Permits for HTTP attempts, shared by the live senders and the replayer.
pub(crate) struct Limiter {
    state: Mutex<State>,
    freed: Condvar,
    adaptive: bool,
}

struct State {
    aimd: Aimd,
    in_use: usize,
    waiting: usize,
    peak: usize,
}

impl Limiter {
    /// An adaptive limiter between 1 and `ceiling`, or a fixed one at `ceiling`.
    pub(crate) fn new(ceiling: usize, adaptive: bool) -> Limiter {
        let initial = if adaptive { INITIAL_LIMIT } else { ceiling };
        let aimd = Aimd::new(initial, ceiling);
        let peak = aimd.limit();
        Limiter {
            state: Mutex::new(State {
                aimd,
                in_use: 0,
                waiting: 0,
                peak,
            }),
            freed: Condvar::new(),
            adaptive,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The current limit.
    pub(crate) fn limit(&self) -> usize {
        self.lock().aimd.limit()
    }

    /// How many sender threads the pipeline should have now: one more than the limit (up
    /// to the ceiling), so that when every permit is in use a spare thread can take the
    /// next batch and wait for a permit, which is the backlog that lets the limit grow.
    pub(crate) fn threads_wanted(&self) -> usize {
        let s = self.lock();
        (s.aimd.limit() + 1).min(s.aimd.ceiling)
    }

    /// The highest limit so far.
    pub(crate) fn peak(&self) -> usize {
        self.lock().peak
    }

    /// Waits for a permit; `None` when `abort` is raised first (call [`Limiter::wake_all`]
    /// after raising it).
    pub(crate) fn acquire(&self, abort: &Signal) -> Option<Permit<'_>> {
        let mut s = self.lock();
        if s.in_use >= s.aimd.limit() {
            s.waiting += 1;
            while s.in_use >= s.aimd.limit() && !abort.is_raised() {
                s = self.freed.wait(s).unwrap_or_else(|e| e.into_inner());
            }
            s.waiting -= 1;
        }
        if abort.is_raised() {
            return None;
        }
        s.in_use += 1;
        Some(Permit {
            limiter: self,
            started: Instant::now(),
            backlog: s.waiting > 0,
            epoch: s.aimd.epoch(),
        })
    }

    /// Wakes every thread waiting for a permit (after shutdown raised its abort signal).
    pub(crate) fn wake_all(&self) {
        let _s = self.lock();
        self.freed.notify_all();
    }

    fn release(&self, sample: Option<Sample>) {
        let mut s = self.lock();
        s.in_use -= 1;
        if let (true, Some(mut sample)) = (self.adaptive, sample) {
            sample.backlog |= s.waiting > 0;
            let limit = s.aimd.record(sample);
            s.peak = s.peak.max(limit);
        }
        drop(s);
        // A grown limit may admit several waiters.
        self.freed.notify_all();
    }
}

/// The right to have one request in flight. Report what happened with
/// [`Permit::finish`]; dropping it unreported returns it without a sample.
pub(crate) struct Permit<'a> {
    limiter: &'a Limiter,
    started: Instant,
    backlog: bool,
    epoch: u64,
}

impl Permit<'_> {
    /// Returns the permit with the attempt's outcome (`backpressure`: the intake pushed
    /// back or could not be reached).
    pub(crate) fn finish(self, backpressure: bool) {
        let sample = Sample {
            rtt: self.started.elapsed(),
            backpressure,
            backlog: self.backlog,
            epoch: self.epoch,
        };
        let limiter = self.limiter;
        std::mem::forget(self);
        limiter.release(Some(sample));
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        self.limiter.release(None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    fn ok(rtt: Duration, backlog: bool) -> Sample {
        Sample {
            rtt,
            backpressure: false,
            backlog,
            epoch: 0,
        }
    }

    fn pushed_back() -> Sample {
        Sample {
            rtt: ms(1),
            backpressure: true,
            backlog: true,
            epoch: 0,
        }
    }

    /// Sends `limit` requests at once and feeds their (identical) answers.
    fn round(aimd: &mut Aimd, sample: Sample) -> usize {
        let sent = Sample {
            epoch: aimd.epoch(),
            ..sample
        };
        for _ in 0..aimd.limit() {
            aimd.record(sent);
        }
        aimd.limit()
    }

    #[test]
    fn flat_round_trips_with_a_backlog_grow_the_limit_by_one_per_round() {
        let mut aimd = Aimd::new(2, 16);
        for want in 3..=16 {
            assert_eq!(round(&mut aimd, ok(ms(20), true)), want);
        }
        // Never past the ceiling.
        assert_eq!(round(&mut aimd, ok(ms(20), true)), 16);
    }

    #[test]
    fn without_a_backlog_the_limit_holds() {
        let mut aimd = Aimd::new(2, 16);
        for _ in 0..10 {
            assert_eq!(round(&mut aimd, ok(ms(20), false)), 2);
        }
    }

    #[test]
    fn the_limit_changes_only_at_the_end_of_a_round() {
        let mut aimd = Aimd::new(4, 16);
        for _ in 0..3 {
            assert_eq!(aimd.record(ok(ms(20), true)), 4);
        }
        assert_eq!(aimd.record(ok(ms(20), true)), 5);
    }

    #[test]
    fn backpressure_halves_the_limit_down_to_one() {
        let mut aimd = Aimd::new(2, 16);
        while aimd.limit() < 16 {
            round(&mut aimd, ok(ms(20), true));
        }
        let mut seen = vec![16];
        while aimd.limit() > 1 {
            seen.push(round(&mut aimd, pushed_back()));
        }
        assert_eq!(seen, [16, 8, 4, 2, 1]);
        assert_eq!(round(&mut aimd, pushed_back()), 1, "floor is 1");
    }

    #[test]
    fn one_pushed_back_answer_halves_the_limit_at_once() {
        let mut aimd = Aimd::new(8, 16);
        for _ in 0..3 {
            assert_eq!(aimd.record(ok(ms(20), true)), 8);
        }
        assert_eq!(aimd.record(pushed_back()), 4);
    }

    #[test]
    fn answers_to_requests_sent_before_a_decrease_do_not_decrease_again() {
        let mut aimd = Aimd::new(8, 16);
        let before = Sample {
            epoch: aimd.epoch(),
            ..pushed_back()
        };
        // Eight requests out; all eight come back 429: one halving, not three.
        for _ in 0..8 {
            aimd.record(before);
        }
        assert_eq!(aimd.limit(), 4);
        // A request sent after the decrease that is pushed back again halves again.
        let after = Sample {
            epoch: aimd.epoch(),
            ..pushed_back()
        };
        assert_eq!(aimd.record(after), 2);
        // Old answers do not count towards growth either.
        for _ in 0..10 {
            aimd.record(Sample {
                epoch: before.epoch,
                ..ok(ms(20), true)
            });
        }
        assert_eq!(aimd.limit(), 2);
    }

    #[test]
    fn rising_round_trips_shrink_the_limit_and_jitter_does_not() {
        let mut aimd = Aimd::new(2, 16);
        while aimd.limit() < 10 {
            round(&mut aimd, ok(ms(20), true));
        }
        // 5 % slower: flat enough to keep growing.
        assert_eq!(round(&mut aimd, ok(ms(21), true)), 11);
        // Twice as slow: the intake is struggling.
        assert_eq!(round(&mut aimd, ok(ms(40), true)), 9);
        // Still rising against a baseline that is catching up.
        assert_eq!(round(&mut aimd, ok(ms(80), true)), 8);
        // Back to normal (below the inflated baseline): growing again.
        assert_eq!(round(&mut aimd, ok(ms(20), true)), 9);
    }

    #[test]
    fn between_flat_and_rising_the_limit_holds() {
        let mut aimd = Aimd::new(4, 16);
        round(&mut aimd, ok(ms(20), true)); // baseline 20 ms, limit 5
        assert_eq!(round(&mut aimd, ok(ms(26), true)), 5);
    }

    #[test]
    fn scale_always_moves_down_by_at_least_one_and_never_below_one() {
        assert_eq!(scale(16, 0.5), 8);
        assert_eq!(scale(5, 0.9), 4);
        assert_eq!(scale(2, 0.9), 1);
        assert_eq!(scale(1, 0.5), 1);
    }

    #[test]
    fn initial_limit_is_clamped_to_the_ceiling() {
        assert_eq!(Aimd::new(2, 1).limit(), 1);
        assert_eq!(Aimd::new(0, 16).limit(), 1);
    }

    #[test]
    fn a_fixed_limiter_ignores_samples() {
        let limiter = Limiter::new(3, false);
        let abort = Signal::new();
        for _ in 0..20 {
            limiter.acquire(&abort).unwrap().finish(true);
        }
        assert_eq!(limiter.limit(), 3);
    }

    #[test]
    fn permits_are_capped_at_the_limit_and_abort_wakes_waiters() {
        let limiter = Arc::new(Limiter::new(2, false));
        let abort = Arc::new(Signal::new());
        let a = limiter.acquire(&abort).unwrap();
        let _b = limiter.acquire(&abort).unwrap();
        let (l2, ab2) = (limiter.clone(), abort.clone());
        let waiter = std::thread::spawn(move || l2.acquire(&ab2).map(|p| p.finish(false)));
        // The third caller waits until a permit comes back...
        a.finish(false);
        assert!(waiter.join().unwrap().is_some());
        // ...or until shutdown aborts.
        let _c = limiter.acquire(&abort).unwrap();
        let (l3, ab3) = (limiter.clone(), abort.clone());
        let waiter = std::thread::spawn(move || l3.acquire(&ab3).is_none());
        abort.raise();
        limiter.wake_all();
        assert!(waiter.join().unwrap());
    }
}
