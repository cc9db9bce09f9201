//! The synthetic events of control at the source: burst summaries and drop notices,
//! built on the batcher's thread by a [`Ticker`].
//!
//! Why it exists: a loss only a counter knows about is a loss nobody sees. The ticker
//! looks every [`PERIOD`] at the burst table and at the drop counters; when a burst or a
//! drop episode has ended (quiet for [`QUIET`]), has gone on for the summary interval, or
//! the pipeline shuts down, it builds one event saying how many, why, where and when.
//!
//! What it must never do: send its events through the queue or the caller-side limits
//! (the batcher adds them to the batch directly), count them as drops, or build them while
//! the byte budget has no room (the counts wait, and add up, until it has: a notice can
//! never be dropped, and so never trigger another notice, in a loop). At shutdown they
//! are built whatever the budget, so the last counts are not lost.

use std::time::{Duration, Instant};

use super::burst::Summary;
use super::Control;
use crate::capture::record::{Level, Record};
use crate::observe::stats::Counters;

/// How often the ticker looks.
pub(crate) const PERIOD: Duration = Duration::from_millis(250);

/// A burst or drop episode is over when nothing was held back for this long.
pub(crate) const QUIET: Duration = Duration::from_secs(1);

/// The field every synthetic event carries, naming its kind.
pub(crate) const NOTICE_FIELD: &str = "logship.notice";

/// The target (logger name) of synthetic events.
pub(crate) const TARGET: &str = "logship";

/// Bytes of room the budget must have before notices are built.
pub(crate) const ROOM_NEEDED: usize = 16 * 1024;

/// A reason's words in the message, its field suffix, and its counter.
type Reason = (&'static str, &'static str, fn(&Counters) -> u64);

/// Why events were dropped or held back, and the counter of each: the drop notice's
/// reasons, in the order its message lists them. (Volume budgets add their row here.)
const REASONS: &[Reason] = &[
    ("queue full", "queue_full", |c| c.dropped_queue_full.get()),
    ("burst limit", "burst_limit", |c| load(&c.burst_suppressed)),
    ("sampled out", "sampled_out", |c| load(&c.sampled_out)),
    ("over budget", "over_budget", |c| {
        load(&c.budget_dropped_level) + load(&c.budget_sampled_out) + load(&c.budget_dropped)
    }),
];

fn load(c: &std::sync::atomic::AtomicU64) -> u64 {
    c.load(std::sync::atomic::Ordering::Relaxed)
}

/// A drop episode in progress.
struct Episode {
    counts: Vec<u64>,
    /// Control-clock times of the first and latest change seen.
    first: u64,
    last: u64,
    began: Instant,
    changed: Instant,
}

/// The batcher's view of what was held back, and when it next looks.
pub(crate) struct Ticker {
    due: Instant,
    seen: Vec<u64>,
    episode: Option<Episode>,
}

impl Ticker {
    /// A ticker, when `control` has anything to tell (`None` otherwise: no wake-ups).
    /// Counts from zero: the pipeline's counters start there, and drops may come before
    /// the batcher thread has started.
    pub(crate) fn new(control: &Control) -> Option<Ticker> {
        control.needs_ticker().then(|| Ticker {
            due: Instant::now() + PERIOD,
            seen: vec![0; REASONS.len()],
            episode: None,
        })
    }

    /// When it next wants to look.
    pub(crate) fn due(&self) -> Instant {
        self.due
    }

    /// Looks now: the synthetic events that are due (all of them when `last`, at
    /// shutdown). `room` says whether the byte budget can take them now; without room
    /// nothing is built and the counts wait for the next look.
    pub(crate) fn tick(
        &mut self,
        control: &Control,
        counters: &Counters,
        room: bool,
        last: bool,
    ) -> Vec<Record> {
        let now = Instant::now();
        self.due = now + PERIOD;
        let mono = control.now();
        let mut out = Vec::new();
        if let Some(table) = control.burst() {
            if room || last {
                let interval = control.summary_interval.as_nanos() as u64;
                for s in table.collect(mono, QUIET.as_nanos() as u64, interval, last) {
                    out.push(summary_event(control, &s));
                }
            }
        }
        if control.drop_notices {
            self.watch_drops(counters, now, mono);
            let due = self.episode.as_ref().is_some_and(|e| {
                last || now.duration_since(e.changed) >= QUIET
                    || now.duration_since(e.began) >= control.summary_interval
            });
            if due && (room || last) {
                if let Some(e) = self.episode.take() {
                    out.push(drop_event(control, &e));
                }
            }
        }
        out
    }

    /// Adds what the counters moved by since the last look to the episode.
    fn watch_drops(&mut self, counters: &Counters, now: Instant, mono: u64) {
        let current: Vec<u64> = REASONS.iter().map(|(_, _, get)| get(counters)).collect();
        let delta: Vec<u64> = current
            .iter()
            .zip(&self.seen)
            .map(|(c, s)| c.saturating_sub(*s))
            .collect();
        self.seen = current;
        if delta.iter().all(|d| *d == 0) {
            return;
        }
        let e = self.episode.get_or_insert_with(|| Episode {
            counts: vec![0; REASONS.len()],
            first: mono,
            last: mono,
            began: now,
            changed: now,
        });
        for (c, d) in e.counts.iter_mut().zip(&delta) {
            *c += d;
        }
        e.last = mono;
        e.changed = now;
    }
}

fn summary_event(control: &Control, s: &Summary) -> Record {
    let secs = s.last.saturating_sub(s.first) as f64 / 1e9;
    let (first, last) = (control.wall(s.first), control.wall(s.last));
    let mut r = Record::new(Level::Warn, TARGET);
    r.message_fmt(format_args!(
        "{} similar events suppressed in {secs:.1} s at {} ({})",
        s.count, s.site, s.level
    ))
    .field(NOTICE_FIELD, "burst_summary")
    .field("logship.suppressed", s.count)
    .field("logship.site", s.site.as_str())
    .field("logship.level", s.level.as_str())
    .field("logship.first", rfc3339(first).as_str())
    .field("logship.last", rfc3339(last).as_str());
    r
}

fn drop_event(control: &Control, e: &Episode) -> Record {
    let total: u64 = e.counts.iter().sum();
    let reasons: Vec<String> = REASONS
        .iter()
        .zip(&e.counts)
        .filter(|(_, n)| **n > 0)
        .map(|((name, _, _), n)| format!("{name}: {n}"))
        .collect();
    let (from, to) = (
        rfc3339(control.wall(e.first)),
        rfc3339(control.wall(e.last)),
    );
    let mut r = Record::new(Level::Warn, TARGET);
    r.message_fmt(format_args!(
        "logship dropped {total} events ({}) between {from} and {to}",
        reasons.join(", ")
    ))
    .field(NOTICE_FIELD, "dropped")
    .field("logship.dropped", total);
    for ((_, key, _), n) in REASONS.iter().zip(&e.counts) {
        if *n > 0 {
            r.field(&format!("logship.dropped.{key}"), *n);
        }
    }
    r.field("logship.from", from.as_str())
        .field("logship.to", to.as_str());
    r
}

/// RFC 3339 UTC with milliseconds.
fn rfc3339(unix_nanos: u64) -> String {
    let mut out = Vec::with_capacity(24);
    crate::support::json::rfc3339_millis(&mut out, unix_nanos);
    String::from_utf8(out).unwrap_or_default()
}
