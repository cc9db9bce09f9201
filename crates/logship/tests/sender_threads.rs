//! Sender threads start as the concurrency limit grows, not all at build time: each keeps
//! its own compressor state and allocator arena, so a pipeline that never needs 16
//! requests in flight must not pay for 16 threads. One test in its own process, because
//! it counts this process's threads by name.

mod common;

use std::time::{Duration, Instant};

use common::*;

/// Live sender threads of this process (`logship-sender-N`, cut to 15 bytes by Linux).
fn sender_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .expect("Linux /proc")
        .filter_map(|t| std::fs::read_to_string(t.ok()?.path().join("comm")).ok())
        .filter(|name| name.starts_with("logship-sender"))
        .count()
}

#[test]
fn sender_threads_start_as_the_limit_grows_and_never_pass_the_ceiling() {
    let intake = intake();
    let (logship, guard) = builder(&intake).max_batch_records(20).build().unwrap();
    // A quiet pipeline: the starting limit of 2 plus one spare.
    for i in 0..10 {
        logship.push(numbered(i)).unwrap();
    }
    logship.flush(WAIT).unwrap();
    assert_eq!(logship.stats().concurrency_limit, 2);
    assert_eq!(sender_threads(), 3, "limit 2 + 1 spare");

    // A slow intake and a backlog: the limit grows, and threads with it.
    intake.set_delay(Duration::from_millis(20));
    let deadline = Instant::now() + WAIT;
    let mut i = 10;
    while logship.stats().concurrency_limit < 8 {
        assert!(Instant::now() < deadline, "{:?}", logship.stats());
        for _ in 0..2_000 {
            let _ = logship.push(numbered(i));
            i += 1;
        }
        std::thread::yield_now();
    }
    let threads = sender_threads();
    assert!(
        threads >= 8,
        "{threads} sender threads for a limit of 8 or more"
    );
    assert!(threads <= 16, "{threads} sender threads: the ceiling is 16");
    drop(guard);
}
