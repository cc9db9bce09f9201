//! The tracing layer inside a tokio runtime: no runtime needed by logship, none
//! disturbed, and dropping the guard inside async code neither panics nor hangs.

mod common;

use common::*;
use tracing_subscriber::prelude::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_layer_works_inside_tokio_and_the_guard_drops_safely_there() {
    let intake = intake();
    let (layer, guard) = builder(&intake).build_layer().unwrap();
    tracing_subscriber::registry().with(layer).init();
    let tasks: Vec<_> = (0..8u64)
        .map(|t| {
            tokio::spawn(async move {
                for i in 0..50u64 {
                    tracing::info!(seq = t * 100 + i, "from task");
                    tokio::task::yield_now().await;
                }
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap();
    }
    // Dropped on a runtime worker thread: must deliver and return, not panic.
    drop(guard);
    assert_eq!(received_seqs(&intake).len(), 400);
}
