//! End to end over real HTTP on loopback: what goes in arrives, once, intact, in the
//! format asked for.

mod common;

use common::*;
use logship::{Level, Record, Vendor};

fn ships_every_event_exactly_once(vendor: Vendor, gzip: bool) {
    let intake = intake();
    let (logship, guard) = builder(&intake)
        .vendor(vendor)
        .gzip(gzip)
        .max_batch_records(37)
        .build()
        .unwrap();
    let n = 1000;
    for i in 0..n {
        let mut r = numbered(i);
        r.field("half", i.is_multiple_of(2))
            .field("ratio", i as f64 / 4.0)
            .field("neg", -(i as i64));
        logship.push(r).unwrap();
    }
    drop(guard);
    assert!(intake.wait_for_events(n, WAIT));
    assert_eq!(received_seqs(&intake), (0..n as u64).collect::<Vec<_>>());
    for e in intake.events() {
        let v = &e.value;
        let i = v["seq"].as_u64().unwrap();
        assert_eq!(v["message"], format!("event {i}"));
        assert_eq!(v["level"], "INFO");
        assert_eq!(v["target"], "test");
        assert_eq!(v["half"], i.is_multiple_of(2));
        assert_eq!(v["ratio"].as_f64().unwrap(), i as f64 / 4.0);
        assert_eq!(v["neg"].as_i64().unwrap(), -(i as i64));
        let ts = v["timestamp"].as_str().unwrap();
        assert_eq!(ts.len(), "2026-11-29T21:55:57.123Z".len(), "{ts}");
        assert!(ts.ends_with('Z'));
    }
    let want_type = match vendor {
        Vendor::JsonArray => "application/json",
        _ => "application/x-ndjson",
    };
    for req in intake.requests() {
        assert_eq!(req.header("content-type"), Some(want_type));
        assert_eq!(req.header("content-encoding"), gzip.then_some("gzip"));
        assert!(req.header("content-length").is_some());
        assert_eq!(req.header("transfer-encoding"), None);
        assert_eq!(req.header("user-agent"), Some(logship::USER_AGENT));
        assert!(req.events <= 37);
    }
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
    let stats = logship.stats();
    assert_eq!(stats.enqueued, n as u64);
    assert_eq!(stats.events_delivered, n as u64);
    assert_eq!(stats.requests, intake.requests().len() as u64);
    if gzip {
        assert!(stats.bytes_compressed < stats.bytes_raw / 2, "{stats:?}");
    } else {
        assert_eq!(stats.bytes_compressed, stats.bytes_raw);
    }
}

#[test]
fn ndjson_gzip_delivers_each_event_once() {
    ships_every_event_exactly_once(Vendor::Ndjson, true);
}

#[test]
fn ndjson_plain_delivers_each_event_once() {
    ships_every_event_exactly_once(Vendor::Ndjson, false);
}

#[test]
fn json_array_gzip_delivers_each_event_once() {
    ships_every_event_exactly_once(Vendor::JsonArray, true);
}

#[test]
fn json_array_plain_delivers_each_event_once() {
    ships_every_event_exactly_once(Vendor::JsonArray, false);
}

#[test]
fn odd_characters_arrive_as_valid_json_with_the_same_text() {
    let nasty = ODD_TEXTS;
    for vendor in [Vendor::Ndjson, Vendor::JsonArray] {
        let intake = intake();
        let (logship, guard) = builder(&intake).vendor(vendor).build().unwrap();
        for (i, text) in nasty.iter().enumerate() {
            let mut r = Record::new(Level::Warn, "odd::target\"x");
            r.message(text)
                .field("seq", i as u64)
                .field(text, *text)
                .span(text)
                .field("k", *text);
            logship.push(r).unwrap();
        }
        drop(guard);
        assert!(intake.wait_for_events(nasty.len(), WAIT));
        assert!(intake.violations().is_empty(), "{:?}", intake.violations());
        for e in intake.events() {
            let i = e.value["seq"].as_u64().unwrap() as usize;
            let text = nasty[i];
            assert_eq!(e.value["message"], text);
            assert_eq!(e.value["target"], "odd::target\"x");
            if !text.is_empty() {
                assert_eq!(e.value[text], text);
            }
            assert_eq!(e.value["spans"][0]["name"], text);
            assert_eq!(e.value["spans"][0]["k"], text);
        }
    }
}

#[test]
fn oversized_events_are_truncated_counted_and_still_delivered() {
    let intake = intake();
    let (logship, guard) = builder(&intake).max_event_bytes(8 * 1024).build().unwrap();
    logship.push(rec(&"x".repeat(100_000))).unwrap();
    logship.push(rec("small")).unwrap();
    drop(guard);
    assert!(intake.wait_for_events(2, WAIT));
    let events = intake.events();
    let big = events
        .iter()
        .find(|e| e.value["message"] != "small")
        .unwrap();
    assert!(big.value["message"].as_str().unwrap().len() < 8 * 1024);
    assert_eq!(big.value["logship.truncated"], true);
    assert_eq!(logship.stats().truncated, 1);
}

/// `flush` settles what was queued before the call even while a producer keeps the queue
/// full (what `logship ship --follow` does while it checkpoints): it used to drain until
/// the queue was empty, which a busy producer never allows, so the flush timed out.
#[test]
fn flush_finishes_while_a_producer_keeps_the_queue_full() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    let intake = intake();
    intake.set_delay(std::time::Duration::from_millis(5));
    let (logship, guard) = builder(&intake)
        .max_batch_records(50)
        .queue_capacity(200)
        .max_in_flight(1)
        .adaptive_concurrency(false)
        .overflow(logship::Overflow::Block(std::time::Duration::from_secs(60)))
        .build()
        .unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let producer = {
        let (logship, stop) = (logship.clone(), Arc::clone(&stop));
        std::thread::spawn(move || {
            let mut i = 0;
            while !stop.load(Ordering::Acquire) {
                let _ = logship.push(numbered(i));
                i += 1;
            }
        })
    };
    // The queue is full and stays full.
    assert!(intake.wait_for_events(500, WAIT));
    for _ in 0..3 {
        // 200 queued and a batch in flight take well under a second at 5 ms a batch.
        logship
            .flush(std::time::Duration::from_secs(20))
            .expect("flush settles what was queued before it");
    }
    stop.store(true, Ordering::Release);
    producer.join().unwrap();
    drop(guard);
}
