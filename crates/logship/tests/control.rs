//! Control at the source (issue #17 parts 1, 2, 5) end to end, over real HTTP to the
//! strict intake: burst limits per call site with summary events whose counts add up
//! exactly, errors not limited unless asked, exact accounting under a storm from many
//! threads (calls = enqueued + dropped + suppressed), trace-consistent sampling across
//! threads, and drop notices: one per drop episode, never looping, never lost.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use common::*;
use logship::{Level, Offered, Record, Rejected, Stats};
use logship_intake::Intake;
use serde_json::Value;
use tracing_subscriber::layer::SubscriberExt;

/// The received events whose `logship.notice` is `kind`.
fn notices(intake: &Intake, kind: &str) -> Vec<Value> {
    intake
        .events()
        .into_iter()
        .map(|e| e.value)
        .filter(|v| v["logship.notice"] == kind)
        .collect()
}

/// Sum of `logship.suppressed` of the burst summaries, per site.
fn suppressed_by_site(intake: &Intake) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    for s in notices(intake, "burst_summary") {
        let site = s["logship.site"].as_str().expect("a site").to_owned();
        *out.entry(site).or_default() += s["logship.suppressed"].as_u64().expect("a count");
        assert_eq!(s["level"], "WARN", "{s}");
        assert_eq!(s["target"], "logship", "{s}");
        assert!(
            s["logship.first"].as_str() <= s["logship.last"].as_str(),
            "{s}"
        );
    }
    out
}

fn assert_accounted(stats: &Stats, calls: u64) {
    assert_eq!(
        stats.enqueued + stats.dropped() + stats.suppressed(),
        calls,
        "calls = enqueued + dropped + suppressed: {stats:?}"
    );
    assert_eq!(stats.lost(), stats.dropped(), "{stats:?}");
    assert_eq!(
        stats.events_delivered,
        stats.enqueued + stats.notices,
        "every accepted event and every notice delivered: {stats:?}"
    );
}

#[test]
fn a_burst_of_100000_from_one_call_site_arrives_as_its_first_events_plus_summaries_that_add_up() {
    let intake = intake();
    let (layer, guard) = builder(&intake)
        .burst_limit(Level::Info, 100, 100)
        .queue_capacity(200_000)
        .build_layer()
        .unwrap();
    let logship = layer.logship().clone();
    let subscriber = tracing_subscriber::registry().with(layer);
    tracing::subscriber::with_default(subscriber, || {
        for i in 0..100_000u64 {
            tracing::info!(seq = i, "storm");
        }
        // A second call site is limited on its own: its burst passes whole.
        for i in 0..100u64 {
            tracing::info!(seq = 1_000_000 + i, "other site");
        }
        // Errors are not limited unless asked for.
        for i in 0..1000u64 {
            tracing::error!(seq = 2_000_000 + i, "failure");
        }
    });
    drop(guard);
    let stats = logship.stats();
    assert_accounted(&stats, 101_100);
    let seqs = received_seqs(&intake);
    let storm: Vec<u64> = seqs.iter().copied().filter(|s| *s < 1_000_000).collect();
    // The first events of the burst ship (100 at once, plus what the rate gave back
    // meanwhile), in order: the ones shipped are the earliest ones.
    assert!(
        storm.len() >= 100 && storm.len() < 100_000,
        "{}",
        storm.len()
    );
    assert_eq!(storm[..100], (0..100).collect::<Vec<_>>()[..]);
    let other = seqs
        .iter()
        .filter(|s| (1_000_000..2_000_000).contains(*s))
        .count();
    assert_eq!(other, 100, "the second site's burst is its own");
    let errors = seqs.iter().filter(|s| **s >= 2_000_000).count();
    assert_eq!(errors, 1000, "errors are not limited");
    let by_site = suppressed_by_site(&intake);
    assert_eq!(
        by_site.len(),
        1,
        "only the storm's site suppressed: {by_site:?}"
    );
    let (site, count) = by_site.iter().next().unwrap();
    assert!(site.contains("tests/control.rs:"), "{site}");
    assert_eq!(
        *count,
        100_000 - storm.len() as u64,
        "summaries add up exactly"
    );
    assert_eq!(*count, stats.burst_suppressed);
    let summaries = notices(&intake, "burst_summary");
    assert_eq!(stats.notices as usize, summaries.len());
    let message = summaries[0]["message"].as_str().unwrap();
    assert!(
        message.contains("similar events suppressed in") && message.contains("(INFO)"),
        "{message}"
    );
}

#[test]
fn a_storm_from_many_threads_and_a_full_queue_are_counted_exactly_and_noticed() {
    let intake = intake();
    let (layer, guard) = builder(&intake)
        .burst_limit(Level::Info, 1000, 500)
        .queue_capacity(64)
        .drop_notices(true)
        .build_layer()
        .unwrap();
    let logship = layer.logship().clone();
    let dispatch = tracing::Dispatch::new(tracing_subscriber::registry().with(layer));
    let threads: Vec<_> = (0..8u64)
        .map(|t| {
            let dispatch = dispatch.clone();
            std::thread::spawn(move || {
                tracing::dispatcher::with_default(&dispatch, || {
                    for i in 0..20_000u64 {
                        // Four call sites; warnings are not limited, so they fill the queue.
                        match i % 4 {
                            0 => tracing::info!(seq = t * 100_000 + i, "a"),
                            1 => tracing::info!(seq = t * 100_000 + i, "b"),
                            2 => tracing::info!(seq = t * 100_000 + i, "c"),
                            _ => tracing::warn!(seq = t * 100_000 + i, "d"),
                        }
                    }
                })
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    drop(guard);
    let stats = logship.stats();
    assert_accounted(&stats, 160_000);
    assert!(
        stats.burst_suppressed > 0 && stats.dropped_queue_full > 0,
        "{stats:?}"
    );
    let received = intake.events().len() as u64;
    assert_eq!(received, stats.enqueued + stats.notices);
    let by_site = suppressed_by_site(&intake);
    assert_eq!(by_site.len(), 3, "{by_site:?}");
    assert_eq!(by_site.values().sum::<u64>(), stats.burst_suppressed);
    // The drop notices: their counts add up to every drop and suppression, by reason.
    let dropped = notices(&intake, "dropped");
    assert!(!dropped.is_empty());
    let sum = |key: &str| -> u64 { dropped.iter().filter_map(|n| n[key].as_u64()).sum() };
    assert_eq!(sum("logship.dropped.queue_full"), stats.dropped_queue_full);
    assert_eq!(sum("logship.dropped.burst_limit"), stats.burst_suppressed);
    assert_eq!(
        sum("logship.dropped"),
        stats.dropped_queue_full + stats.burst_suppressed
    );
    assert!(dropped[0]["message"]
        .as_str()
        .unwrap()
        .starts_with("logship dropped "));
}

#[test]
fn a_drop_notice_arrives_once_per_episode_and_never_loops_when_the_queue_is_full() {
    let intake = intake();
    let (logship, guard) = builder(&intake)
        .queue_capacity(16)
        .drop_notices(true)
        .build()
        .unwrap();
    let flood = |from: usize| {
        let mut refused = 0u64;
        for i in from..from + 20_000 {
            if logship.push(numbered(i)) == Err(Rejected::QueueFull) {
                refused += 1;
            }
        }
        refused
    };
    let first = flood(0);
    assert!(first > 0, "the queue was full");
    // The episode ends after a quiet second: its notice arrives, once.
    let arrived = || notices(&intake, "dropped").len();
    let deadline = std::time::Instant::now() + WAIT;
    while arrived() == 0 {
        assert!(std::time::Instant::now() < deadline, "no drop notice");
        std::thread::sleep(Duration::from_millis(20));
    }
    let second = flood(100_000);
    assert!(second > 0);
    drop(guard);
    let stats = logship.stats();
    assert_accounted(&stats, 40_000);
    let dropped = notices(&intake, "dropped");
    assert_eq!(dropped.len(), 2, "one notice per episode: {dropped:?}");
    assert_eq!(stats.notices, 2, "the notices did not feed themselves");
    assert_eq!(
        dropped[0]["logship.dropped.queue_full"].as_u64(),
        Some(first)
    );
    assert_eq!(
        dropped[1]["logship.dropped.queue_full"].as_u64(),
        Some(second)
    );
}

#[test]
fn trace_consistent_sampling_keeps_or_drops_whole_traces_across_threads() {
    let intake = intake();
    let (logship, guard) = builder(&intake)
        .sample_rate(Level::Debug, 30.0)
        .build()
        .unwrap();
    let trace = |n: u64| format!("{:016x}{:016x}", n.wrapping_mul(0x9e37_79b9_7f4a_7c15), n);
    let threads: Vec<_> = (0..4u64)
        .map(|t| {
            let logship = logship.clone();
            std::thread::spawn(move || {
                for n in 0..500u64 {
                    let mut r = Record::new(Level::Debug, "app");
                    r.message("step")
                        .field("trace_id", trace(n).as_str())
                        .field("seq", t * 1000 + n);
                    let _ = logship.push(r);
                }
                // Events without a trace id are sampled at random, and counted.
                for n in 0..500u64 {
                    let mut r = Record::new(Level::Debug, "app");
                    r.message("untraced").field("seq", 10_000 + t * 1000 + n);
                    let _ = logship.push(r);
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    drop(guard);
    let stats = logship.stats();
    assert_accounted(&stats, 4000);
    let mut per_trace: BTreeMap<String, usize> = BTreeMap::new();
    for e in intake.events() {
        if let Some(id) = e.value["trace_id"].as_str() {
            *per_trace.entry(id.to_owned()).or_default() += 1;
        }
    }
    assert!(
        per_trace.values().all(|n| *n == 4),
        "whole traces: {per_trace:?}"
    );
    let kept: BTreeSet<&String> = per_trace.keys().collect();
    assert!(
        (100..200).contains(&kept.len()),
        "about 30% of 500: {}",
        kept.len()
    );
    let untraced = intake.events().len() - 4 * kept.len();
    assert!(
        (400..800).contains(&untraced),
        "about 30% of 2000: {untraced}"
    );
    assert_eq!(stats.sampled_out, 4000 - intake.events().len() as u64);
}

#[test]
fn records_pushed_directly_are_limited_per_target_and_say_so() {
    let intake = intake();
    let (logship, guard) = builder(&intake)
        .burst_limit(Level::Info, 1, 10)
        .build()
        .unwrap();
    let mut results = BTreeMap::new();
    for target in ["sidecar-a", "sidecar-b"] {
        for i in 0..50 {
            let mut r = Record::new(Level::Info, target);
            r.message("line").field("seq", i as u64);
            *results
                .entry((target, logship.push(r).is_ok()))
                .or_insert(0) += 1;
        }
    }
    assert_eq!(results[&("sidecar-a", true)], 10);
    assert_eq!(results[&("sidecar-b", true)], 10);
    drop(guard);
    let by_site = suppressed_by_site(&intake);
    assert_eq!(by_site["sidecar-a"], 40);
    assert_eq!(by_site["sidecar-b"], 40);
    assert_accounted(&logship.stats(), 100);
}

#[test]
fn a_record_offered_again_after_a_full_queue_is_not_charged_to_its_burst_limit_twice() {
    let intake = intake();
    intake.pause();
    // One event a second per call site, twenty at once: enough for the queue (4), the
    // batches in flight, handed over and being filled (2 each) and the one refused.
    let (logship, _guard) = held_queue(builder(&intake).burst_limit(Level::Info, 1, 20))
        .build()
        .unwrap();
    let (taken, mut refused) = offer_until_full(&logship);
    assert!(taken < 12, "a queue of 4 took {taken}");
    // The caller keeps offering it while the queue stays full (the intake holds the
    // batch in flight): a charge per offer would use up the burst within a few tries and
    // the record would come back suppressed, its event gone.
    for _ in 0..100 {
        match logship.offer(refused, Duration::ZERO) {
            Err(Offered::Full(back)) => refused = back,
            other => panic!("offered again while the queue is full: {other:?}"),
        }
    }
    assert_eq!(logship.stats().burst_suppressed, 0);
    intake.resume();
    assert_eq!(logship.offer(refused, WAIT), Ok(()));
    logship.flush(WAIT).unwrap();
    let stats = logship.stats();
    assert_eq!(stats.burst_suppressed, 0, "{stats:?}");
    assert_eq!(stats.queue_full_returned, 101, "{stats:?}");
    assert_eq!(
        received_seqs(&intake),
        (0..=taken as u64).collect::<Vec<u64>>()
    );
}
