//! The `log` facade from plain threads and tokio tasks, and the feedback-loop guard: the HTTP client's
//! own `log` output (ureq, rustls) happens on logship's threads and is never shipped.
//! One test per binary, since the global logger can be set only once per process.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use common::*;
use logship::LogshipLogger;

/// Forwards to logship's logger, counting records from the HTTP stack on the way, so the
/// test can prove those records existed and were not shipped.
struct Counting {
    inner: LogshipLogger,
    http_stack_records: Arc<AtomicUsize>,
}

impl log::Log for Counting {
    fn enabled(&self, _: &log::Metadata<'_>) -> bool {
        true
    }
    fn log(&self, record: &log::Record<'_>) {
        if record.target().starts_with("ureq") || record.target().starts_with("rustls") {
            self.http_stack_records.fetch_add(1, Ordering::SeqCst);
        }
        log::Log::log(&self.inner, record);
    }
    fn flush(&self) {}
}

#[test]
fn log_records_from_threads_arrive_with_key_values_and_the_http_stack_is_not_shipped() {
    let intake = intake();
    let (logger, guard) = builder(&intake).build_logger().unwrap();
    let http_stack_records = Arc::new(AtomicUsize::new(0));
    log::set_boxed_logger(Box::new(Counting {
        inner: logger,
        http_stack_records: http_stack_records.clone(),
    }))
    .unwrap();
    log::set_max_level(log::LevelFilter::Trace);

    let threads: Vec<_> = (0..4u64)
        .map(|t| {
            std::thread::spawn(move || {
                for i in 0..100u64 {
                    let seq = t * 1000 + i;
                    log::info!(seq, user = "ann", ok = true; "request {} done", i);
                }
                log::warn!(target: "app::warn", seq = t * 1000 + 999; "last from {t}");
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    // And from tasks on a tokio runtime: logship needs no runtime and disturbs none.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    runtime.block_on(async {
        let tasks: Vec<_> = (0..5u64)
            .map(|t| {
                tokio::spawn(async move {
                    for i in 0..10u64 {
                        log::info!(seq = 9000 + t * 10 + i; "from task {t}");
                        tokio::task::yield_now().await;
                    }
                })
            })
            .collect();
        for task in tasks {
            task.await.unwrap();
        }
    });
    drop(runtime);
    drop(guard);

    let events: Vec<_> = intake.events().into_iter().map(|e| e.value).collect();
    assert_eq!(
        events.len(),
        454,
        "exactly the application's events, nothing else"
    );
    let from_tasks = events
        .iter()
        .filter(|e| e["seq"].as_u64().is_some_and(|s| s >= 9000))
        .count();
    assert_eq!(
        from_tasks, 50,
        "every event logged from tokio tasks arrived"
    );
    assert!(
        http_stack_records.load(Ordering::SeqCst) > 0,
        "ureq logged nothing, so this test proves nothing"
    );
    for e in &events {
        let target = e["target"].as_str().unwrap();
        assert!(
            !target.starts_with("ureq") && !target.starts_with("rustls"),
            "{target}"
        );
    }
    let info = events.iter().find(|e| e["seq"] == 1005).unwrap();
    assert_eq!(info["message"], "request 5 done");
    assert_eq!(info["user"], "ann");
    assert_eq!(info["ok"], true);
    assert_eq!(info["level"], "INFO");
    let warn = events.iter().find(|e| e["seq"] == 2999).unwrap();
    assert_eq!(warn["level"], "WARN");
    assert_eq!(warn["target"], "app::warn");
}
