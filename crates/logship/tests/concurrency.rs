//! Adaptive request concurrency against a real intake on loopback: the number of requests
//! in flight grows through a slow intake while batches wait, backs off under a 429 storm,
//! never passes `max_in_flight`, and stays fixed when adaptivity is off.

mod common;

use std::time::Duration;

use common::*;
use logship::Logship;
use logship_intake::Fault;

/// How long a slow intake takes to answer: long enough that two requests in flight cannot
/// keep up with the pushes below, so batches wait for a permit.
const RTT: Duration = Duration::from_millis(20);

/// Pushes `n` events (the queue holds them all).
fn push(logship: &Logship, n: usize) {
    for i in 0..n {
        logship.push(numbered(i)).unwrap();
    }
}

#[test]
fn the_limit_grows_through_a_slow_intake_while_batches_wait() {
    let intake = intake();
    intake.set_delay(RTT);
    let (logship, _guard) = builder(&intake)
        .max_batch_records(20)
        .queue_capacity(100_000)
        .build()
        .unwrap();
    assert_eq!(logship.stats().concurrency_limit, 2, "starts at 2");
    push(&logship, 20_000);
    assert!(
        wait_for_stats(&logship, WAIT, |s| s.concurrency_limit > 4),
        "limit did not grow: {:?}",
        logship.stats()
    );
    logship.flush(WAIT).unwrap();
    let stats = logship.stats();
    assert_eq!(stats.events_delivered, 20_000);
    assert!(stats.concurrency_peak > 4);
    assert!(
        intake.max_concurrency() > 2,
        "the intake saw more than the starting limit at once"
    );
    assert!(intake.max_concurrency() <= 16, "default ceiling");
}

#[test]
fn a_429_storm_makes_the_limit_back_off_instead_of_pushing_harder() {
    let intake = intake();
    intake.set_delay(RTT);
    let (logship, _guard) = builder(&intake)
        .max_batch_records(20)
        .queue_capacity(100_000)
        .max_retries(0)
        .shutdown_timeout(Duration::from_millis(500))
        .build()
        .unwrap();
    // Grow the limit, then let the backlog drain: without one the limit cannot grow, so
    // what it is now is what the storm starts from.
    push(&logship, 10_000);
    assert!(wait_for_stats(&logship, WAIT, |s| s.concurrency_limit >= 4));
    logship.flush(WAIT).unwrap();
    let before = logship.stats().concurrency_limit;
    assert!(before >= 4, "{before}");

    intake.reset();
    intake.fail_next(100_000, Fault::retry_after(429, 0));
    push(&logship, 10_000);
    assert!(
        wait_for_stats(&logship, WAIT, |s| s.concurrency_limit == 1),
        "limit did not back off to 1: {:?}",
        logship.stats()
    );
    assert!(intake.wait_for_requests(20, WAIT));
    let seen = intake.stats();
    assert_eq!(seen.events, 0, "every request so far was a 429");
    assert!(
        intake.max_concurrency() <= before as usize,
        "the storm saw {} requests at once, more than the {before} before it",
        intake.max_concurrency()
    );
    let stats = logship.stats();
    assert!(stats.failed_requests >= 20, "{stats:?}");
}

#[test]
fn the_limit_never_passes_max_in_flight() {
    let intake = intake();
    intake.set_delay(RTT);
    let (logship, _guard) = builder(&intake)
        .max_in_flight(3)
        .max_batch_records(10)
        .queue_capacity(100_000)
        .build()
        .unwrap();
    push(&logship, 2_000);
    assert!(wait_for_stats(&logship, WAIT, |s| s.concurrency_peak == 3));
    logship.flush(WAIT).unwrap();
    let stats = logship.stats();
    assert_eq!(stats.events_delivered, 2_000);
    assert_eq!(stats.concurrency_peak, 3);
    assert!(stats.concurrency_limit <= 3);
    assert!(
        intake.max_concurrency() <= 3,
        "intake saw {}",
        intake.max_concurrency()
    );
}

#[test]
fn with_adaptivity_off_the_limit_is_max_in_flight_whatever_the_intake_says() {
    let intake = intake();
    intake.set_delay(RTT);
    intake.fail_next(20, Fault::retry_after(429, 0));
    let (logship, _guard) = builder(&intake)
        .max_in_flight(3)
        .adaptive_concurrency(false)
        .max_batch_records(10)
        .queue_capacity(100_000)
        .max_retries(100)
        .retry_backoff(Duration::from_millis(1), Duration::from_millis(5))
        .build()
        .unwrap();
    assert_eq!(logship.stats().concurrency_limit, 3);
    push(&logship, 1_000);
    logship.flush(WAIT).unwrap();
    let stats = logship.stats();
    assert_eq!(stats.events_delivered, 1_000);
    assert!(
        stats.failed_requests >= 20,
        "the storm was served: {stats:?}"
    );
    assert_eq!(stats.concurrency_limit, 3);
    assert_eq!(stats.concurrency_peak, 3);
    assert_eq!(intake.max_concurrency(), 3, "fixed at max_in_flight");
}
