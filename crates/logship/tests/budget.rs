//! Volume budgets (issue 17 part 3), end to end over loopback HTTP to the strict intake:
//! exact accounting when many threads cross a cap at once, DEBUG shed first, the amount
//! spent surviving a restart, a level's own cap, a corrupt state file, a UTC day boundary (the clock is
//! injected, never slept on), and the refund of an offer a full queue hands back.

mod common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use common::{builder, intake, TempDir, WAIT};
use logship::{Health, Level, Offered, Record, Rejected, Stats};
use logship_intake::Intake;

/// 2026-12-01 23:59:00 UTC: one minute before a day boundary, mid-hour never crossed.
const BEFORE_MIDNIGHT: u64 = 1_796_169_540;

/// A clock the test moves.
fn clock(at: u64) -> (Arc<AtomicU64>, logship::BudgetClock) {
    let now = Arc::new(AtomicU64::new(at));
    let read = now.clone();
    (now, Arc::new(move || read.load(Ordering::Relaxed)))
}

fn event(level: Level, seq: u64) -> Record {
    let mut r = Record::new(level, "test");
    r.message("budget test event").field("seq", seq);
    r
}

/// The `logship.notice` values the intake received, in order.
fn notices(intake: &Intake) -> Vec<String> {
    intake
        .events()
        .iter()
        .filter_map(|e| e.value.get("logship.notice")?.as_str().map(String::from))
        .collect()
}

/// The events the intake received that are not logship's own.
fn user_events(intake: &Intake) -> Vec<serde_json::Value> {
    intake
        .events()
        .into_iter()
        .map(|e| e.value)
        .filter(|v| v.get("logship.notice").is_none())
        .collect()
}

/// calls = enqueued - notices + dropped + over budget.
fn assert_accounted(s: &Stats, calls: u64) {
    assert_eq!(
        s.enqueued - s.budget_notices + s.dropped() + s.over_budget(),
        calls,
        "every call is enqueued, dropped or held back by the budget: {s:?}"
    );
}

#[test]
fn a_cap_crossed_by_many_threads_at_once_admits_exactly_the_cap_and_counts_the_rest() {
    let intake = intake();
    let (_, clock) = clock(BEFORE_MIDNIGHT - 1800);
    let (logship, _guard) = builder(&intake)
        .queue_capacity(50_000)
        .budget_day_events(1000)
        .budget_overdraft_percent(0)
        .budget_clock(clock)
        .build()
        .unwrap();
    let threads: Vec<_> = (0..8u64)
        .map(|t| {
            let l = logship.clone();
            std::thread::spawn(move || {
                let mut refused = 0;
                for i in 0..500 {
                    if l.push(event(Level::Error, t * 1000 + i)) == Err(Rejected::OverBudget) {
                        refused += 1;
                    }
                }
                refused
            })
        })
        .collect();
    let refused: u64 = threads.into_iter().map(|t| t.join().unwrap()).sum();
    logship.flush(WAIT).unwrap();
    let s = logship.stats();
    assert_eq!(s.enqueued - s.budget_notices, 1000, "{s:?}");
    assert_eq!(s.budget_dropped, 3000);
    assert_eq!(refused, 3000);
    assert_eq!(s.dropped(), 0);
    assert_accounted(&s, 4000);
    assert_eq!(user_events(&intake).len(), 1000);
    let mut seen = notices(&intake);
    seen.sort(); // concurrent batches may arrive in either order
    assert_eq!(seen, ["budget_exhausted", "budget_warning"]);
    assert_eq!(s.lost(), 0, "held back by the user's budget is not lost");
}

#[test]
fn an_offer_the_full_queue_hands_back_is_refunded_to_the_budget() {
    let intake = intake();
    intake.pause(); // the queue fills behind the held request
    let (_, clock) = clock(BEFORE_MIDNIGHT - 1800);
    let (logship, _guard) = builder(&intake)
        .queue_capacity(1)
        .max_batch_records(1)
        .max_in_flight(1)
        .budget_day_events(10)
        .budget_overdraft_percent(0)
        .budget_clock(clock)
        .build()
        .unwrap();
    // Twenty refusals and the few the pipeline holds: were each refusal charged, the cap
    // of ten would refuse them as over budget instead of handing them back.
    let (mut taken, mut returned) = (0u64, 0u64);
    let mut record = event(Level::Error, 0);
    while returned < 20 {
        match logship.offer(record, Duration::ZERO) {
            Ok(()) => {
                taken += 1;
                record = event(Level::Error, taken);
            }
            Err(Offered::Full(back)) => {
                returned += 1;
                record = back;
            }
            Err(other) => panic!("after {taken} taken, {returned} handed back: {other:?}"),
        }
        assert!(
            taken < 10,
            "a paused pipeline with a queue of one took {taken}"
        );
    }
    intake.resume();
    assert_eq!(logship.offer(record, WAIT), Ok(()));
    logship.flush(WAIT).unwrap();
    let s = logship.stats();
    assert_eq!(s.enqueued - s.budget_notices, taken + 1, "{s:?}");
    assert_eq!((s.queue_full_returned, s.over_budget()), (20, 0), "{s:?}");
    assert_eq!((s.dropped(), s.lost()), (0, 0), "{s:?}");
    assert_eq!(user_events(&intake).len() as u64, taken + 1);
}

#[test]
fn past_the_cap_debug_goes_first_then_info_is_sampled_then_everything_is_dropped() {
    let intake = intake();
    let (_, clock) = clock(BEFORE_MIDNIGHT - 1800);
    let (logship, _guard) = builder(&intake)
        .budget_hour_events(100)
        .budget_overdraft_percent(20)
        .budget_sample_percent(10)
        .budget_clock(clock)
        .build()
        .unwrap();
    let mut seq = 0;
    let mut push = |level, n| {
        for _ in 0..n {
            seq += 1;
            let _ = logship.push(event(level, seq));
        }
    };
    push(Level::Info, 100); // the cap
    push(Level::Debug, 30); // dropped first
    push(Level::Info, 10); // still shipped: 110 %
    push(Level::Info, 50); // sampled: 5 kept
    push(Level::Error, 5); // errors kept while sampling: 120 %
    push(Level::Error, 3); // everything dropped
    push(Level::Trace, 2);
    logship.flush(WAIT).unwrap();
    let s = logship.stats();
    assert_eq!(s.budget_dropped_level, 30, "{s:?}");
    assert_eq!(s.budget_sampled_out, 45);
    assert_eq!(s.budget_dropped, 5);
    assert_accounted(&s, 200);
    let shipped = user_events(&intake);
    assert_eq!(shipped.len(), 120);
    assert!(
        shipped
            .iter()
            .all(|e| e["level"] != "DEBUG" && e["level"] != "TRACE"),
        "no DEBUG or TRACE past the cap"
    );
    assert_eq!(logship.stats().health, Health::BudgetWarning);
}

#[test]
fn the_warning_at_80_percent_changes_health_and_arrives_once_as_an_event() {
    let intake = intake();
    let (_, clock) = clock(BEFORE_MIDNIGHT - 1800);
    let (logship, _guard) = builder(&intake)
        .budget_day_bytes(100_000)
        .budget_clock(clock)
        .build()
        .unwrap();
    let size = event(Level::Info, 0).size() as u64;
    let mut n = 0;
    while (n + 1) * size * 10 < 100_000 * 8 {
        logship.push(event(Level::Info, n)).unwrap();
        n += 1;
    }
    assert_eq!(logship.stats().health, Health::Healthy, "under 80 %");
    logship.push(event(Level::Info, n)).unwrap();
    logship.push(event(Level::Info, n + 1)).unwrap();
    assert_eq!(logship.stats().health, Health::BudgetWarning);
    logship.flush(WAIT).unwrap();
    assert_eq!(notices(&intake), ["budget_warning"]);
    let warning = intake
        .events()
        .into_iter()
        .find(|e| e.value.get("logship.notice").is_some())
        .unwrap()
        .value;
    assert_eq!(warning["level"], "WARN");
    assert_eq!(warning["logship.budget"], "budget_day_bytes");
    assert_eq!(warning["logship.limit"], 100_000);
    assert_eq!(logship.stats().budget_notices, 1);
}

#[test]
fn a_restart_mid_hour_keeps_what_was_spent_next_to_the_spill() {
    let intake = intake();
    let dir = TempDir::new("budget-restart");
    let (_, clock) = clock(BEFORE_MIDNIGHT - 1800);
    let start = || {
        builder(&intake)
            .spill(true)
            .spill_dir(dir.path())
            .budget_hour_events(10)
            .budget_overdraft_percent(0)
            .budget_clock(clock.clone())
            .build()
            .unwrap()
    };
    let (first, guard) = start();
    for i in 0..6 {
        first.push(event(Level::Info, i)).unwrap();
    }
    drop(guard);
    assert!(dir.path().join("budget.json").exists());
    let (second, guard) = start();
    let refused = (6..12)
        .filter(|i| second.push(event(Level::Info, *i)).is_err())
        .count();
    assert_eq!(refused, 2, "10 per hour across both runs");
    assert_eq!(second.stats().budget_dropped, 2);
    drop(guard);
    assert_eq!(user_events(&intake).len(), 10);
}

#[test]
fn a_corrupt_state_file_never_blocks_start_up_the_budget_starts_fresh_and_rewrites_it() {
    let intake = intake();
    let dir = TempDir::new("budget-corrupt");
    std::fs::create_dir_all(dir.path()).unwrap();
    let file = dir.path().join("state.json");
    std::fs::write(&file, b"{\"version\":1,\"hour\":\x00garbage").unwrap();
    let (_, clock) = clock(BEFORE_MIDNIGHT - 1800);
    let (logship, guard) = builder(&intake)
        .budget_hour_events(5)
        .budget_overdraft_percent(0)
        .budget_state_file(&file)
        .budget_clock(clock)
        .build()
        .expect("a corrupt state file never fails start-up");
    let admitted = (0..7)
        .filter(|i| logship.push(event(Level::Info, *i)).is_ok())
        .count();
    assert_eq!(
        admitted, 5,
        "nothing was carried over from the corrupt file"
    );
    drop(guard);
    let saved: serde_json::Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(saved["hour_events"], 5);
}

#[test]
fn a_new_utc_day_starts_a_new_budget() {
    let intake = intake();
    let (now, clock) = clock(BEFORE_MIDNIGHT + 59);
    let (logship, _guard) = builder(&intake)
        .budget_day_events(10)
        .budget_overdraft_percent(0)
        .budget_clock(clock)
        .build()
        .unwrap();
    let admitted = |from: u64| {
        (from..from + 12)
            .filter(|i| logship.push(event(Level::Info, *i)).is_ok())
            .count()
    };
    assert_eq!(admitted(0), 10, "23:59:59 UTC");
    now.store(BEFORE_MIDNIGHT + 60, Ordering::Relaxed);
    assert_eq!(admitted(100), 10, "00:00:00 UTC: a new day");
    logship.flush(WAIT).unwrap();
    assert_eq!(user_events(&intake).len(), 20);
    assert_eq!(logship.stats().budget_dropped, 4);
}

#[test]
fn without_a_budget_nothing_changes() {
    let intake = intake();
    let (logship, _guard) = builder(&intake).build().unwrap();
    for i in 0..100 {
        logship.push(event(Level::Debug, i)).unwrap();
    }
    logship.flush(WAIT).unwrap();
    let s = logship.stats();
    assert_eq!((s.over_budget(), s.budget_notices), (0, 0));
    assert_eq!(s.health, Health::Healthy);
    assert_eq!(user_events(&intake).len(), 100);
}

#[test]
fn an_out_of_range_budget_setting_fails_the_build_naming_the_key() {
    let intake = intake();
    let err = builder(&intake)
        .budget_overdraft_percent(500)
        .build()
        .unwrap_err()
        .to_string();
    assert!(err.contains("budget_overdraft_percent"), "{err}");
    let err = builder(&intake)
        .budget_day_events(0)
        .build()
        .unwrap_err()
        .to_string();
    assert!(err.contains("budget_day_events"), "{err}");
}

#[test]
fn a_level_cap_of_its_own_drops_that_level_only_and_survives_a_restart() {
    let intake = intake();
    let spill = TempDir::new("budget-level");
    let (_, clock) = clock(BEFORE_MIDNIGHT - 1800);
    let start = |clock: logship::BudgetClock| {
        builder(&intake)
            .spill(true)
            .spill_dir(spill.path())
            .budget_level_day_bytes(Level::Debug, 4096)
            .budget_clock(clock)
            .build()
            .unwrap()
    };
    let (logship, guard) = start(clock.clone());
    let mut refused_debug = 0;
    for i in 0..200 {
        if logship.push(event(Level::Debug, i)) == Err(Rejected::OverBudget) {
            refused_debug += 1;
        }
        assert_eq!(logship.push(event(Level::Info, 1000 + i)), Ok(()));
    }
    logship.flush(WAIT).unwrap();
    let s = logship.stats();
    assert!(refused_debug > 0 && refused_debug < 200, "{refused_debug}");
    assert_eq!(s.budget_dropped_level, refused_debug);
    assert_eq!(s.budget_dropped + s.budget_sampled_out, 0, "{s:?}");
    assert_accounted(&s, 400);
    let events = user_events(&intake);
    let debug = events.iter().filter(|e| e["level"] == "DEBUG").count() as u64;
    let info = events.iter().filter(|e| e["level"] == "INFO").count();
    assert_eq!(
        (debug, info),
        (200 - refused_debug, 200),
        "INFO is never capped"
    );
    drop(guard);
    drop(logship);
    assert!(spill.path().join("budget.json").exists());

    // Restarted within the same day: DEBUG is still over its own cap.
    let (again, _guard) = start(clock);
    assert_eq!(
        again.push(event(Level::Debug, 9999)),
        Err(Rejected::OverBudget)
    );
    assert_eq!(again.push(event(Level::Info, 9998)), Ok(()));
    assert_eq!(again.stats().budget_dropped_level, 1);
}
