//! Each flush trigger on its own: record count, body bytes, linger.

mod common;

use std::time::{Duration, SystemTime};

use common::*;

const LONG: Duration = Duration::from_secs(600);

#[test]
fn count_trigger_cuts_batches_of_exactly_max_batch_records() {
    let intake = intake();
    let (logship, _guard) = builder(&intake)
        .linger(LONG)
        .max_batch_records(10)
        .build()
        .unwrap();
    for i in 0..35 {
        logship.push(numbered(i)).unwrap();
    }
    // 30 of them form three full batches and arrive without any flush or linger.
    assert!(intake.wait_for_events(30, WAIT));
    let sizes = intake.events_per_request();
    assert_eq!(sizes, vec![10, 10, 10]);
    logship.flush(WAIT).unwrap();
    let sizes = intake.events_per_request();
    assert_eq!(sizes, vec![10, 10, 10, 5]);
}

#[test]
fn byte_trigger_fills_batches_up_to_max_batch_bytes_and_never_over() {
    let intake = intake();
    let max = 4096;
    let (logship, _guard) = builder(&intake)
        .linger(LONG)
        .gzip(false)
        .max_in_flight(1) // arrival order is batch order
        .max_batch_records(100_000)
        .max_batch_bytes(max)
        .build()
        .unwrap();
    let n = 60;
    for i in 0..n {
        let mut r = numbered(i);
        r.field("pad", "p".repeat(400).as_str());
        logship.push(r).unwrap();
    }
    // Full batches leave without flush; each event is ~480 bytes encoded.
    assert!(intake.wait_for_requests(1, WAIT));
    logship.flush(WAIT).unwrap();
    let requests = intake.requests();
    assert!(requests.len() >= 6, "{} requests", requests.len());
    let (last, full) = requests.split_last().unwrap();
    for r in full {
        assert!(r.decoded_bytes <= max, "{} > {max}", r.decoded_bytes);
        assert!(
            r.decoded_bytes > max - 600,
            "batch of {} bytes was cut early",
            r.decoded_bytes
        );
    }
    assert!(last.decoded_bytes <= max);
    assert_eq!(requests.iter().map(|r| r.events).sum::<usize>(), n);
}

#[test]
fn linger_sends_a_lone_event_after_linger_and_not_before() {
    let intake = intake();
    let linger = Duration::from_millis(400);
    let (logship, _guard) = builder(&intake)
        .linger(linger)
        .max_batch_records(1000)
        .build()
        .unwrap();
    let logged_at = SystemTime::now();
    logship.push(rec("alone")).unwrap();
    assert!(intake.wait_for_events(1, WAIT));
    let arrival = intake.events()[0].arrival;
    let waited = arrival.duration_since(logged_at).unwrap();
    assert!(
        waited >= linger,
        "arrived after {waited:?}, before linger {linger:?}"
    );
    // "About" linger: well under the next order of magnitude even on a loaded machine.
    assert!(waited < linger * 10, "arrived only after {waited:?}");
    assert_eq!(intake.requests().len(), 1);
}

#[test]
fn after_an_idle_spell_the_first_event_still_waits_its_linger() {
    // The batcher waits for records with a timeout; a batch opened by the record that
    // ends a long wait must start when that record arrived, not when the wait began
    // (else it is past its linger at once and leaves alone: one request per event).
    let intake = intake();
    let linger = Duration::from_millis(300);
    let (logship, _guard) = builder(&intake)
        .linger(linger)
        .max_batch_records(1000)
        .build()
        .unwrap();
    // Idle for longer than the linger: this is the condition under test, not a wait for
    // something to happen.
    std::thread::sleep(linger * 3);
    let logged_at = SystemTime::now();
    logship.push(rec("first after idle")).unwrap();
    logship.push(rec("second")).unwrap();
    assert!(intake.wait_for_events(2, WAIT));
    let waited = intake.events()[0]
        .arrival
        .duration_since(logged_at)
        .unwrap();
    assert!(
        waited >= linger,
        "arrived after {waited:?}, before linger {linger:?}"
    );
    assert_eq!(intake.events_per_request(), vec![2]);
}

#[test]
fn an_idle_pipeline_sends_nothing() {
    let intake = intake();
    let (logship, _guard) = builder(&intake).build().unwrap();
    logship.flush(WAIT).unwrap();
    assert_eq!(intake.stats().requests, 0);
    assert_eq!(logship.stats().batches, 0);
}
