//! Backpressure, concurrency, retries and shutdown, against a real intake whose faults
//! are driven through its control interface (never by timing luck).

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use logship::{Logship, Offered, Rejected};
use logship_intake::Fault;

#[test]
fn a_full_queue_drops_and_counts_without_blocking_the_caller() {
    let intake = intake();
    intake.pause();
    let (logship, _guard) = builder(&intake)
        .queue_capacity(10)
        .max_in_flight(1)
        .max_batch_records(5)
        .build()
        .unwrap();
    let n = 1000;
    let mut refused = 0;
    for i in 0..n {
        if logship.push(numbered(i)) == Err(Rejected::QueueFull) {
            refused += 1;
        }
    }
    // Every call returned while the intake was still holding the first request.
    assert!(intake.wait_for_requests(1, WAIT));
    assert_eq!(
        intake.stats().events,
        0,
        "nothing can have been answered yet"
    );
    let stats = logship.stats();
    assert!(refused > 900, "only {refused} refused");
    assert_eq!(stats.dropped_queue_full, refused);
    assert_eq!(stats.enqueued + stats.dropped_queue_full, n as u64);
    intake.resume();
    logship.flush(WAIT).unwrap();
    assert_eq!(intake.stats().events, stats.enqueued);
    assert_eq!(logship.stats().events_delivered, stats.enqueued);
}

#[test]
fn the_byte_budget_bounds_memory_and_counts_drops() {
    let intake = intake();
    intake.pause();
    let (logship, _guard) = builder(&intake)
        .queue_capacity(100_000)
        .queue_max_bytes(256 * 1024)
        .max_in_flight(1)
        .build()
        .unwrap();
    let big = "b".repeat(10_000);
    let n = 200;
    for _ in 0..n {
        let _ = logship.push(rec(&big));
    }
    let stats = logship.stats();
    // ~10 KB each against a 256 KiB budget: at most 26 fit.
    assert!(stats.enqueued <= 26, "{stats:?}");
    assert_eq!(stats.enqueued + stats.dropped_queue_full, n);
    intake.resume();
    logship.flush(WAIT).unwrap();
    assert_eq!(intake.stats().events, stats.enqueued);
}

#[test]
fn block_policy_waits_for_room_instead_of_dropping() {
    let intake = intake();
    let (logship, guard) = builder(&intake)
        .queue_capacity(4)
        .max_batch_records(2)
        .overflow(logship::Overflow::Block(Duration::from_secs(30)))
        .build()
        .unwrap();
    for i in 0..500 {
        logship.push(numbered(i)).unwrap();
    }
    drop(guard);
    assert_eq!(logship.stats().dropped_queue_full, 0);
    assert_eq!(received_seqs(&intake), (0..500).collect::<Vec<_>>());
}

#[test]
fn push_with_overrides_the_pipelines_policy_for_one_call() {
    let intake = intake();
    intake.pause();
    let (logship, _guard) = builder(&intake)
        .queue_capacity(4)
        .max_in_flight(1)
        .max_batch_records(2)
        .overflow(logship::Overflow::Block(Duration::from_secs(60)))
        .build()
        .unwrap();
    // Fill the queue behind the held request, without waiting.
    let mut admitted = 0;
    while logship
        .push_with(numbered(admitted), logship::Overflow::DropNewest)
        .is_ok()
    {
        admitted += 1;
        assert!(admitted < 100, "a queue of 4 took {admitted}");
    }
    // The pipeline blocks, but this call refused at once: the intake still holds the
    // first request, so nothing can have made room.
    assert!(intake.wait_for_requests(1, WAIT));
    assert_eq!(logship.stats().dropped_queue_full, 1);
    // A call that may wait gets in once the intake answers.
    let waiter = {
        let logship = logship.clone();
        std::thread::spawn(move || {
            logship.push_with(
                numbered(admitted),
                logship::Overflow::Block(Duration::from_secs(30)),
            )
        })
    };
    intake.resume();
    assert_eq!(waiter.join().unwrap(), Ok(()));
    logship.flush(WAIT).unwrap();
    assert_eq!(
        received_seqs(&intake),
        (0..=admitted as u64).collect::<Vec<_>>()
    );
}

#[test]
fn an_offer_the_full_queue_refuses_is_handed_back_not_lost_and_taken_once_there_is_room() {
    let intake = intake();
    intake.pause();
    let (logship, _guard) = held_queue(builder(&intake)).build().unwrap();
    // Fill the queue behind the held request.
    let (taken, refused) = offer_until_full(&logship);
    assert!(intake.wait_for_requests(1, WAIT));
    let stats = logship.stats();
    assert_eq!(stats.queue_full_returned, 1);
    assert_eq!(
        stats.dropped_queue_full, 0,
        "a record its caller kept counted as dropped"
    );
    assert_eq!(stats.lost(), 0);
    // The caller offers it again, waiting; the intake answers and room comes.
    let waiter = {
        let logship = logship.clone();
        std::thread::spawn(move || logship.offer(refused, Duration::from_secs(30)))
    };
    intake.resume();
    assert_eq!(waiter.join().unwrap(), Ok(()));
    logship.flush(WAIT).unwrap();
    assert_eq!(
        received_seqs(&intake),
        (0..=taken as u64).collect::<Vec<_>>(),
        "every event once"
    );
    let stats = logship.stats();
    assert_eq!((stats.dropped_queue_full, stats.lost()), (0, 0));
    assert_eq!(stats.enqueued, taken as u64 + 1);
}

#[test]
fn an_offer_after_shutdown_is_handed_back_not_counted_as_dropped() {
    let intake = intake();
    let (logship, _guard) = builder(&intake).build().unwrap();
    assert_eq!(logship.offer(numbered(0), Duration::ZERO), Ok(()));
    let report = logship.shutdown(WAIT);
    assert_eq!(report.stats.events_delivered, 1);
    let record = numbered(1);
    match logship.offer(record.clone(), Duration::from_secs(30)) {
        Err(Offered::Closed(back)) => assert_eq!(back, record, "it came back changed"),
        other => panic!("not handed back after shutdown: {other:?}"),
    }
    // The caller keeps it (a next run reads the line again, a client resends): the
    // pipeline counts it apart from its drops, and nothing it counts is lost.
    let stats = logship.stats();
    assert_eq!(stats.closed_returned, 1);
    assert_eq!((stats.dropped_closed, stats.lost()), (0, 0), "{stats:?}");
    // `push` after shutdown still drops, and says so.
    assert!(logship.push(numbered(2)).is_err());
    assert_eq!(logship.stats().dropped_closed, 1);
}

#[test]
fn several_requests_are_in_flight_at_once() {
    let intake = intake();
    intake.set_delay(Duration::from_millis(200));
    intake.pause();
    let (logship, _guard) = builder(&intake)
        .max_in_flight(4)
        .adaptive_concurrency(false)
        .max_batch_records(1)
        .build()
        .unwrap();
    assert_eq!(logship.stats().concurrency_limit, 4);
    for i in 0..12 {
        logship.push(numbered(i)).unwrap();
    }
    // Four requests held by the intake at the same time.
    assert!(intake.wait_for_requests(4, WAIT));
    intake.resume();
    logship.flush(WAIT).unwrap();
    assert_eq!(intake.max_concurrency(), 4, "never more than max_in_flight");
    assert_eq!(received_seqs(&intake), (0..12).collect::<Vec<_>>());
}

#[test]
fn server_errors_are_retried_until_delivered() {
    let intake = intake();
    intake.fail_next(
        2,
        Fault::Status {
            status: 503,
            headers: vec![],
            body: "{\"error\":\"busy\"}".into(),
        },
    );
    let (logship, _guard) = builder(&intake)
        .retry_backoff(Duration::from_millis(1), Duration::from_millis(20))
        .build()
        .unwrap();
    for i in 0..10 {
        logship.push(numbered(i)).unwrap();
    }
    logship.flush(WAIT).unwrap();
    assert_eq!(received_seqs(&intake), (0..10).collect::<Vec<_>>());
    let stats = logship.stats();
    assert_eq!(stats.retries, 2);
    assert_eq!(stats.events_delivered, 10);
    assert_eq!(intake.requests().len(), 3);
}

#[test]
fn a_connection_closed_by_the_intake_is_retried_not_lost() {
    let intake = intake();
    let (logship, _guard) = builder(&intake)
        .retry_backoff(Duration::from_millis(1), Duration::from_millis(20))
        .build()
        .unwrap();
    // Warm the keep-alive pool, then make the intake drop the connection mid-request.
    logship.push(numbered(0)).unwrap();
    logship.flush(WAIT).unwrap();
    intake.fail_next(1, Fault::CloseConnection);
    logship.push(numbered(1)).unwrap();
    logship.flush(WAIT).unwrap();
    assert_eq!(received_seqs(&intake), vec![0, 1]);
    assert_eq!(logship.stats().retries, 1);
}

/// Serves `fault` once, then measures the gap between that request and its retry.
fn retry_gap(fault: Fault, max_backoff: Duration) -> Duration {
    let intake = intake();
    intake.fail_next(1, fault);
    let (logship, _guard) = builder(&intake)
        .retry_backoff(Duration::from_millis(1), max_backoff)
        .build()
        .unwrap();
    logship.push(numbered(0)).unwrap();
    logship.flush(WAIT).unwrap();
    assert_eq!(received_seqs(&intake), vec![0]);
    let requests = intake.requests();
    assert_eq!(requests.len(), 2);
    requests[1].arrival_instant - requests[0].arrival_instant
}

#[test]
fn retry_after_is_honoured() {
    let gap = retry_gap(Fault::retry_after(429, 2), Duration::from_secs(10));
    assert!(
        gap >= Duration::from_secs(2),
        "retried after {gap:?}, before Retry-After: 2"
    );
}

#[test]
fn a_retry_after_above_the_ceiling_is_capped() {
    // An hour: a sender honouring it blindly would still be waiting when flush gives up.
    let gap = retry_gap(Fault::retry_after(503, 3600), Duration::from_millis(300));
    assert!(
        gap >= Duration::from_millis(300),
        "the capped delay is still waited: {gap:?}"
    );
}

#[test]
fn permanent_errors_are_not_retried_and_are_reported() {
    let intake = intake();
    intake.fail_next(
        1000,
        Fault::Status {
            status: 401,
            headers: vec![],
            body: "{\"error\":\"bad key\"}".into(),
        },
    );
    let reported = Arc::new(AtomicUsize::new(0));
    let seen = reported.clone();
    let (logship, _guard) = builder(&intake)
        .max_batch_records(10)
        .header("Authorization", "Bearer sk-secret-123")
        .on_error(move |e| {
            assert_eq!(e.status, Some(401));
            assert!(e.permanent);
            assert!(!e.message.contains("sk-secret-123"));
            seen.fetch_add(1, Ordering::SeqCst);
        })
        .build()
        .unwrap();
    for i in 0..30 {
        logship.push(numbered(i)).unwrap();
    }
    logship.flush(WAIT).unwrap();
    let stats = logship.stats();
    assert_eq!(intake.requests().len(), 3, "exactly one attempt per batch");
    assert_eq!(stats.retries, 0);
    assert_eq!(stats.events_failed, 30);
    assert_eq!(reported.load(Ordering::SeqCst), 3);
    let last = stats.last_error.unwrap();
    assert!(last.contains("401") && last.contains("bad key"), "{last}");
    assert!(!format!("{logship:?}").contains("sk-secret-123"));
}

#[test]
fn too_large_batches_are_split_and_delivered() {
    let intake = intake();
    intake.fail_next(
        1,
        Fault::Status {
            status: 413,
            headers: vec![],
            body: String::new(),
        },
    );
    let (logship, _guard) = builder(&intake).max_batch_records(8).build().unwrap();
    for i in 0..8 {
        logship.push(numbered(i)).unwrap();
    }
    logship.flush(WAIT).unwrap();
    assert_eq!(received_seqs(&intake), (0..8).collect::<Vec<_>>());
    let sizes = intake.events_per_request();
    assert_eq!(sizes[1..], [4, 4]);
    assert_eq!(logship.stats().splits, 1);
}

#[test]
fn dropping_the_guard_delivers_everything_queued() {
    let intake = intake();
    let (logship, guard) = builder(&intake)
        .linger(Duration::from_secs(600))
        .max_batch_records(1000)
        .build()
        .unwrap();
    for i in 0..250 {
        logship.push(numbered(i)).unwrap();
    }
    assert_eq!(intake.stats().events, 0, "held back by count and linger");
    drop(guard);
    // The guard returned only after delivery: no waiting needed here.
    assert_eq!(received_seqs(&intake), (0..250).collect::<Vec<_>>());
    assert_eq!(logship.push(numbered(999)), Err(Rejected::Closed));
    assert_eq!(logship.stats().dropped_closed, 1);
}

#[test]
fn shutdown_with_the_intake_down_returns_within_the_timeout_and_reports_the_loss() {
    let timeout = Duration::from_millis(800);
    let (logship, _guard) = Logship::builder()
        .endpoint(dead_endpoint())
        .report_to_stderr(false)
        .spill(false)
        .max_retries(100)
        .retry_backoff(Duration::from_millis(50), Duration::from_millis(200))
        .build()
        .unwrap();
    for i in 0..50 {
        logship.push(numbered(i)).unwrap();
    }
    let started = Instant::now();
    let report = logship.shutdown(timeout);
    let took = started.elapsed();
    assert!(
        took < timeout + Duration::from_secs(2),
        "shutdown took {took:?}"
    );
    assert!(!report.complete);
    assert_eq!(report.stats.events_delivered, 0);
    assert_eq!(
        report.stats.events_abandoned + report.stats.events_failed + report.stats.pending(),
        50
    );
    assert!(report.stats.last_error.unwrap().contains("failed"));
    // A second call returns the same report at once.
    assert_eq!(logship.shutdown(timeout).stats.enqueued, 50);
}
