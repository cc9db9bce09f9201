//! The tracing layer: event fields, span fields, levels, in plain threads.

mod common;

use common::*;
use tracing_subscriber::prelude::*;

#[test]
fn events_carry_their_fields_and_their_spans_fields() {
    let intake = intake();
    let (layer, guard) = builder(&intake).build_layer().unwrap();
    let subscriber = tracing_subscriber::registry().with(layer);
    tracing::subscriber::with_default(subscriber, || {
        let outer = tracing::info_span!("request", method = "POST", id = 7u64);
        let _o = outer.enter();
        let inner = tracing::debug_span!("db", table = "orders", rows = tracing::field::Empty);
        inner.record("rows", 3i64);
        let _i = inner.enter();
        tracing::warn!(order_id = 42u64, ok = true, ratio = 0.5, who = ?"debug", "order {} placed", "A-1");
        tracing::error!(target: "custom::target", big = 1u128 << 100, "no spans? no: two");
    });
    tracing::subscriber::with_default(tracing_subscriber::registry(), || {
        tracing::info!("not shipped: logship is not the subscriber here");
    });
    drop(guard);
    assert!(intake.wait_for_events(2, WAIT));
    let events: Vec<_> = intake.events().into_iter().map(|e| e.value).collect();
    assert_eq!(events.len(), 2);
    let warn = &events[0];
    assert_eq!(warn["level"], "WARN");
    assert_eq!(warn["message"], "order A-1 placed");
    assert_eq!(warn["target"], module_path!());
    assert_eq!(warn["order_id"], 42);
    assert_eq!(warn["ok"], true);
    assert_eq!(warn["ratio"], 0.5);
    assert_eq!(warn["who"], "\"debug\"");
    assert_eq!(
        warn["spans"],
        serde_json::json!([
            {"name": "request", "method": "POST", "id": 7},
            {"name": "db", "table": "orders", "rows": 3}
        ])
    );
    let error = &events[1];
    assert_eq!(error["level"], "ERROR");
    assert_eq!(error["target"], "custom::target");
    assert_eq!(error["big"], (1u128 << 100).to_string());
}

#[test]
fn events_from_many_threads_all_arrive() {
    let intake = intake();
    let (layer, guard) = builder(&intake).build_layer().unwrap();
    let dispatch = tracing::Dispatch::new(tracing_subscriber::registry().with(layer));
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let dispatch = dispatch.clone();
            std::thread::spawn(move || {
                tracing::dispatcher::with_default(&dispatch, || {
                    for i in 0..250u64 {
                        tracing::info!(seq = t * 1000 + i, "from thread {t}");
                    }
                })
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    drop(guard);
    let seqs = received_seqs(&intake);
    let want: Vec<u64> = (0..4u64)
        .flat_map(|t| (0..250).map(move |i| t * 1000 + i))
        .collect();
    let mut want = want;
    want.sort_unstable();
    assert_eq!(seqs, want);
}
