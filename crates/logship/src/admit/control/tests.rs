//! Unit tests of the caller-side decisions: buckets, the bounded table, sampling.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use super::hash::mix;
use super::*;
use crate::config::ControlConfig;

fn control(limits: &[&str], rates: &[&str], sites: usize) -> Control {
    let config = ControlConfig {
        burst_limits: limits.iter().map(|s| s.to_string()).collect(),
        sample_rates: rates.iter().map(|s| s.to_string()).collect(),
        burst_sites: sites,
        ..ControlConfig::default()
    };
    config.validate().expect("valid");
    Control::new(&config)
}

fn site(n: usize) -> Site<'static> {
    Site::from_address(0x1000 + n * 64, "app", Some("src/main.rs"), Some(n as u32))
}

#[test]
fn the_first_events_of_a_burst_ship_and_the_rest_are_counted_per_site() {
    let c = control(&["info=1/5"], &[], 1024);
    let counters = Counters::default();
    let kept = (0..100)
        .filter(|_| c.admit(Level::Info, || site(1), &counters))
        .count();
    // A rate of 1/s: within the few milliseconds the loop takes, only the burst passes.
    assert_eq!(kept, 5);
    assert_eq!(counters.burst_suppressed.load(Relaxed), 95);
    // Another call site has its own bucket.
    let other = (0..10)
        .filter(|_| c.admit(Level::Info, || site(2), &counters))
        .count();
    assert_eq!(other, 5);
    let table = c.burst().expect("a table");
    let summaries = table.collect(c.now(), u64::MAX, u64::MAX, true);
    let mut counts: Vec<(u64, String)> = summaries
        .iter()
        .map(|s| (s.count, s.site.clone()))
        .collect();
    counts.sort();
    assert_eq!(
        counts,
        [
            (5, "app (src/main.rs:2)".to_string()),
            (95, "app (src/main.rs:1)".to_string())
        ]
    );
    assert!(summaries
        .iter()
        .all(|s| s.level == Level::Info && s.first <= s.last));
    assert_eq!(table.unsummarised(), 0, "counts are taken, not copied");
}

#[test]
fn errors_and_levels_without_a_limit_are_not_limited() {
    let c = control(&["info=1/1"], &[], 1024);
    let counters = Counters::default();
    for level in [Level::Error, Level::Warn, Level::Debug] {
        assert!((0..1000).all(|_| c.admit(level, || site(1), &counters)));
    }
    assert_eq!(counters.burst_suppressed.load(Relaxed), 0);
    // ... unless asked for.
    let c = control(&["error=1/2"], &[], 1024);
    assert_eq!(
        (0..10)
            .filter(|_| c.admit(Level::Error, || site(1), &counters))
            .count(),
        2
    );
}

#[test]
fn tokens_come_back_at_the_rate() {
    let c = control(&["warn=1000/1"], &[], 1024);
    let counters = Counters::default();
    assert!(c.admit(Level::Warn, || site(1), &counters));
    let start = std::time::Instant::now();
    // The next token comes after 1 ms; wait for it by condition, not by a sleep.
    while !c.admit(Level::Warn, || site(1), &counters) {
        assert!(start.elapsed() < std::time::Duration::from_secs(5));
    }
    assert!(start.elapsed() >= std::time::Duration::from_micros(900));
}

#[test]
fn call_sites_beyond_the_table_share_one_bucket_and_are_all_counted() {
    let c = control(&["info=1/1"], &[], 16);
    let counters = Counters::default();
    let mut kept = 0;
    for n in 0..10_000 {
        for _ in 0..3 {
            kept += u64::from(c.admit(Level::Info, || site(n), &counters));
        }
    }
    let suppressed = counters.burst_suppressed.load(Relaxed);
    assert_eq!(kept + suppressed, 30_000, "every call is kept or counted");
    assert!(counters.burst_sites_full.load(Relaxed) > 0);
    let table = c.burst().unwrap();
    let summaries = table.collect(c.now(), 0, 0, true);
    assert!(
        summaries.len() <= 17,
        "bounded: {} summaries",
        summaries.len()
    );
    assert_eq!(summaries.iter().map(|s| s.count).sum::<u64>(), suppressed);
    assert!(summaries.iter().any(|s| s.site == burst::OVERFLOW_NAME));
}

#[test]
fn a_storm_from_many_threads_is_counted_exactly() {
    let c = Arc::new(control(&["info=100/50"], &[], 1024));
    let counters = Arc::new(Counters::default());
    let threads: Vec<_> = (0..8)
        .map(|_| {
            let (c, counters) = (c.clone(), counters.clone());
            std::thread::spawn(move || {
                (0..50_000)
                    .filter(|i| c.admit(Level::Info, || site(i % 4), &counters))
                    .count() as u64
            })
        })
        .collect();
    let kept: u64 = threads.into_iter().map(|t| t.join().unwrap()).sum();
    let suppressed = counters.burst_suppressed.load(Relaxed);
    assert_eq!(kept + suppressed, 400_000);
    let summaries = c.burst().unwrap().collect(c.now(), 0, 0, true);
    assert_eq!(summaries.iter().map(|s| s.count).sum::<u64>(), suppressed);
    assert_eq!(summaries.len(), 4);
}

#[test]
fn sampling_keeps_about_the_fraction_and_counts_the_rest() {
    let c = control(&[], &["debug=10%"], 1024);
    let counters = Counters::default();
    let config = ControlConfig {
        sample_rates: vec!["debug=10%".into()],
        sample_by_trace: false,
        ..ControlConfig::default()
    };
    let random = Control::new(&config);
    let kept = (0..100_000)
        .filter(|_| random.admit(Level::Debug, || site(1), &counters))
        .count();
    assert!((9_000..11_000).contains(&kept), "{kept}");
    assert_eq!(counters.sampled_out.load(Relaxed), 100_000 - kept as u64);
    // Other levels are not sampled; with trace sampling, the early check keeps all.
    assert!((0..1000).all(|_| random.admit(Level::Info, || site(1), &counters)));
    assert!((0..1000).all(|_| c.admit(Level::Debug, || site(1), &counters)));
}

#[test]
fn trace_sampling_keeps_or_drops_a_whole_trace() {
    let c = control(&[], &["debug=50%", "info=50%"], 1024);
    let counters = Counters::default();
    let mut kept_traces = 0;
    for t in 0..2000u64 {
        let id = format!("{:032x}", mix(t) as u128 * 7919);
        let decisions: Vec<bool> = (0..6)
            .map(|i| {
                let level = if i % 2 == 0 {
                    Level::Debug
                } else {
                    Level::Info
                };
                let mut r = Record::new(level, "app");
                r.message("m").field("trace_id", id.as_str());
                c.admit_built(&r, &counters)
            })
            .collect();
        let levels_agree = decisions.iter().all(|d| *d == decisions[0]);
        assert!(levels_agree, "trace {id}: {decisions:?}");
        kept_traces += usize::from(decisions[0]);
    }
    assert!((800..1200).contains(&kept_traces), "{kept_traces}");
    let dropped = counters.sampled_out.load(Relaxed);
    assert_eq!(dropped, (2000 - kept_traces as u64) * 6);
}

#[test]
fn bad_items_name_the_key_and_the_fix() {
    for (limits, rates, key) in [
        (vec!["loud=1/1"], vec![], "burst_limits"),
        (vec!["info=0/1"], vec![], "burst_limits"),
        (vec!["info=fast"], vec![], "burst_limits"),
        (vec![], vec!["debug=10"], "sample_rates"),
        (vec![], vec!["debug=150%"], "sample_rates"),
    ] {
        let config = ControlConfig {
            burst_limits: limits.iter().map(|s: &&str| s.to_string()).collect(),
            sample_rates: rates.iter().map(|s: &&str| s.to_string()).collect(),
            ..ControlConfig::default()
        };
        let e = config.validate().expect_err("invalid").to_string();
        assert!(e.contains(key) && e.contains("write"), "{e}");
    }
    let ok = ControlConfig {
        burst_limits: vec!["WARN=100/1000".into(), "error=5".into()],
        sample_rates: vec!["trace=0.5%".into()],
        ..ControlConfig::default()
    };
    assert_eq!(ok.sample_ppm().unwrap()[0], 5_000);
    let limits = ok.limits().unwrap();
    assert_eq!(limits[3].map(|l| (l.rate, l.burst)), Some((100, 1000)));
    assert_eq!(limits[4].map(|l| (l.rate, l.burst)), Some((5, 5)));
}

#[test]
fn notices_wait_for_room_and_add_up_and_the_last_look_builds_them_anyway() {
    let config = ControlConfig {
        burst_limits: vec!["info=1/1".into()],
        drop_notices: true,
        ..ControlConfig::default()
    };
    let c = Control::new(&config);
    let counters = Counters::default();
    let mut ticker = notice::Ticker::new(&c).expect("a ticker");
    for _ in 0..10 {
        c.admit(Level::Info, || site(1), &counters);
    }
    counters.dropped_queue_full.add(5);
    // No room in the byte budget: nothing is built, however often it looks.
    for _ in 0..3 {
        assert!(ticker.tick(&c, &counters, false, false).is_empty());
    }
    counters.dropped_queue_full.add(2);
    // The last look (shutdown) builds them whatever the budget, with every count.
    let events = ticker.tick(&c, &counters, false, true);
    assert_eq!(events.len(), 2, "{events:?}");
    let field = |r: &Record, key: &str| {
        r.entries().find_map(|e| match e {
            Entry::Field(k, Value::U64(n)) if k == key => Some(n),
            _ => None,
        })
    };
    let summary = events
        .iter()
        .find(|r| field(r, "logship.suppressed").is_some())
        .expect("a burst summary");
    assert_eq!(field(summary, "logship.suppressed"), Some(9));
    assert_eq!(summary.target(), notice::TARGET);
    assert_eq!(summary.level(), Level::Warn);
    let dropped = events
        .iter()
        .find(|r| field(r, "logship.dropped").is_some())
        .expect("a drop notice");
    assert_eq!(field(dropped, "logship.dropped"), Some(16));
    assert_eq!(field(dropped, "logship.dropped.queue_full"), Some(7));
    assert_eq!(field(dropped, "logship.dropped.burst_limit"), Some(9));
    // Nothing left: a later look builds nothing (no notice about notices).
    assert!(ticker.tick(&c, &counters, true, true).is_empty());
}
