//! The budget's rules, with the clock as an argument.

use super::*;

/// 2026-12-01 23:59:00 UTC.
const BEFORE_MIDNIGHT: u64 = 1_796_169_540;

fn events(limit: u64, overdraft: u64) -> BudgetConfig {
    BudgetConfig {
        day_events: Some(limit),
        overdraft_percent: overdraft,
        sample_percent: 10,
        ..BudgetConfig::default()
    }
}

fn run(state: &mut State, now: u64, level: Level, n: u64) -> [u64; 4] {
    let mut out = [0; 4];
    for _ in 0..n {
        let v = state.admit(now, level, 100, &mut None);
        out[v as usize] += 1;
    }
    out
}

#[test]
fn admits_exactly_the_cap_then_drops_everything_without_overdraft() {
    let mut s = State::new(events(1000, 0), Spent::default(), BEFORE_MIDNIGHT);
    assert_eq!(
        run(&mut s, BEFORE_MIDNIGHT, Level::Error, 1500),
        [1000, 0, 0, 500]
    );
}

#[test]
fn past_the_cap_debug_goes_first_then_info_is_sampled_then_all_dropped() {
    let mut s = State::new(events(1000, 20), Spent::default(), BEFORE_MIDNIGHT);
    assert_eq!(
        run(&mut s, BEFORE_MIDNIGHT, Level::Info, 1000),
        [1000, 0, 0, 0]
    );
    // 100 % to 110 %: DEBUG dropped, INFO still admitted.
    assert_eq!(
        run(&mut s, BEFORE_MIDNIGHT, Level::Debug, 50),
        [0, 50, 0, 0]
    );
    assert_eq!(
        run(&mut s, BEFORE_MIDNIGHT, Level::Info, 100),
        [100, 0, 0, 0]
    );
    // 110 % to 120 %: INFO sampled at 10 %, ERROR kept.
    assert_eq!(
        run(&mut s, BEFORE_MIDNIGHT, Level::Info, 100),
        [10, 0, 90, 0]
    );
    assert_eq!(
        run(&mut s, BEFORE_MIDNIGHT, Level::Error, 90),
        [90, 0, 0, 0]
    );
    // 120 %: everything dropped, errors too.
    assert_eq!(run(&mut s, BEFORE_MIDNIGHT, Level::Error, 5), [0, 0, 0, 5]);
}

#[test]
fn warns_once_at_80_percent_and_once_at_100_percent_per_window() {
    let mut s = State::new(events(10, 0), Spent::default(), BEFORE_MIDNIGHT);
    let mut seen = Vec::new();
    for _ in 0..20 {
        let mut crossed = None;
        s.admit(BEFORE_MIDNIGHT, Level::Info, 1, &mut crossed);
        seen.extend(crossed.map(|c| (c.at, c.spent)));
    }
    assert_eq!(seen, [(WARN_AT, 8), (FULL, 10)]);
}

#[test]
fn a_new_utc_day_starts_with_nothing_spent() {
    let mut s = State::new(events(10, 0), Spent::default(), BEFORE_MIDNIGHT);
    assert_eq!(
        run(&mut s, BEFORE_MIDNIGHT + 59, Level::Info, 12),
        [10, 0, 0, 2]
    );
    // 00:00:00 UTC the next day.
    let mut crossed = None;
    assert_eq!(
        s.admit(BEFORE_MIDNIGHT + 60, Level::Info, 1, &mut crossed),
        Verdict::Admit
    );
    assert_eq!(s.spent().day_events, 1);
    assert_eq!(s.spent().day, (BEFORE_MIDNIGHT + 60) / DAY);
}

#[test]
fn an_hourly_cap_resets_at_the_hour_but_the_daily_one_does_not() {
    let config = BudgetConfig {
        hour_events: Some(5),
        day_events: Some(8),
        overdraft_percent: 0,
        ..BudgetConfig::default()
    };
    let ten = 1_796_119_200; // 2026-12-01 10:00:00 UTC
    let mut s = State::new(config, Spent::default(), ten);
    assert_eq!(run(&mut s, ten + 10, Level::Info, 7), [5, 0, 0, 2]);
    assert_eq!(run(&mut s, ten + HOUR, Level::Info, 7), [3, 0, 0, 4]);
}

#[test]
fn spent_amounts_carry_over_within_a_window_and_not_across_one() {
    let mut s = State::new(events(10, 0), Spent::default(), BEFORE_MIDNIGHT);
    run(&mut s, BEFORE_MIDNIGHT, Level::Info, 6);
    let saved = s.spent();
    let mut again = State::new(events(10, 0), saved, BEFORE_MIDNIGHT + 30);
    assert_eq!(
        run(&mut again, BEFORE_MIDNIGHT + 30, Level::Info, 6),
        [4, 0, 0, 2]
    );
    let next_day = State::new(events(10, 0), saved, BEFORE_MIDNIGHT + 3600);
    assert_eq!(next_day.spent().day_events, 0);
}

#[test]
fn a_restart_does_not_announce_a_threshold_again() {
    let mut s = State::new(events(10, 0), Spent::default(), BEFORE_MIDNIGHT);
    run(&mut s, BEFORE_MIDNIGHT, Level::Info, 9);
    let mut again = State::new(events(10, 0), s.spent(), BEFORE_MIDNIGHT);
    let mut crossed = None;
    again.admit(BEFORE_MIDNIGHT, Level::Info, 1, &mut crossed);
    assert_eq!(crossed.map(|c| c.at), Some(FULL));
}

#[test]
fn a_byte_cap_counts_bytes_and_a_refund_gives_them_back() {
    let config = BudgetConfig {
        hour_bytes: Some(1000),
        overdraft_percent: 0,
        ..BudgetConfig::default()
    };
    let mut s = State::new(config, Spent::default(), BEFORE_MIDNIGHT);
    assert_eq!(run(&mut s, BEFORE_MIDNIGHT, Level::Info, 12), [10, 0, 0, 2]);
    s.refund(Level::Info, 100);
    assert_eq!(s.spent().hour_bytes, 900);
    assert_eq!(run(&mut s, BEFORE_MIDNIGHT, Level::Info, 2), [1, 0, 0, 1]);
}

#[test]
fn a_level_cap_drops_only_its_level_and_resets_with_its_window() {
    let config = BudgetConfig {
        level_hour_bytes: vec!["debug=1024".into()],
        level_day_bytes: vec!["info=2048".into()],
        ..BudgetConfig::default()
    };
    let mut s = State::new(config, Spent::default(), BEFORE_MIDNIGHT);
    // 100-byte events: DEBUG ships until it has spent its 1024 bytes this hour (11
    // events reach 1100), then only DEBUG is dropped; INFO and ERROR go on.
    assert_eq!(
        run(&mut s, BEFORE_MIDNIGHT, Level::Debug, 20),
        [11, 9, 0, 0]
    );
    assert_eq!(
        run(&mut s, BEFORE_MIDNIGHT, Level::Error, 50),
        [50, 0, 0, 0]
    );
    assert_eq!(run(&mut s, BEFORE_MIDNIGHT, Level::Info, 30), [21, 9, 0, 0]);
    // A refused DEBUG event gives its bytes back to its level.
    s.refund(Level::Debug, 200);
    assert_eq!(run(&mut s, BEFORE_MIDNIGHT, Level::Debug, 3), [2, 1, 0, 0]);
    // The spent amounts survive a restart.
    let mut again = State::new(s.config.clone(), s.spent(), BEFORE_MIDNIGHT);
    assert_eq!(
        run(&mut again, BEFORE_MIDNIGHT, Level::Debug, 1),
        [0, 1, 0, 0]
    );
    // A new hour (and day) starts both levels afresh.
    let next = BEFORE_MIDNIGHT + 60;
    assert_eq!(run(&mut again, next, Level::Debug, 1), [1, 0, 0, 0]);
    assert_eq!(run(&mut again, next, Level::Info, 1), [1, 0, 0, 0]);
}

#[test]
fn level_cap_items_are_checked_and_name_the_key() {
    for (items, key) in [
        (vec!["loud=5000"], "budget_level_hour_bytes"),
        (vec!["debug=10"], "budget_level_hour_bytes"),
        (vec!["debug"], "budget_level_hour_bytes"),
    ] {
        let config = BudgetConfig {
            level_hour_bytes: items.iter().map(|s| s.to_string()).collect(),
            ..BudgetConfig::default()
        };
        let err = config.validate().unwrap_err().to_string();
        assert!(err.contains(key), "{err}");
        assert!(err.contains("debug=100000000"), "names the fix: {err}");
    }
    let fine = BudgetConfig {
        level_day_bytes: vec!["WARN = 4096".into()],
        ..BudgetConfig::default()
    };
    assert!(fine.validate().is_ok());
    assert!(fine.is_enabled());
}
