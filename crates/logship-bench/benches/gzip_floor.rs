//! # The compression floor: gzip alone over the bytes logship sends (plain `main`)
//!
//! What it measures: the CPU that compressing an NDJSON file costs by itself, with the
//! compressor and level logship uses (flate2 over zlib-rs, level `LOGSHIP_BENCH_LEVEL`,
//! 2 by default like `gzip_level`, one gzip stream per body of `LOGSHIP_BENCH_BATCH`
//! lines, 200 by default like `max_batch_records`). Run it
//! under `/usr/bin/time` next to `logship ship --input` of the same events to compare the
//! whole pipeline's CPU per event with compression alone (docs/performance.md).
//!
//! How to run: `LOGSHIP_BENCH_NDJSON=FILE cargo bench -p logship-bench --bench
//! gzip_floor`; with `LOGSHIP_BENCH_READ_ONLY=1` it only reads and splits the file, so
//! that the reading can be subtracted. Without a file (as under `cargo test --benches`)
//! it compresses a small generated body.

use std::io::Write;
use std::time::Instant;

use flate2::write::GzEncoder;
use flate2::Compression;

#[path = "common/bodies.rs"]
mod body_split;

fn main() {
    let batch: usize = std::env::var("LOGSHIP_BENCH_BATCH")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let level: u32 = std::env::var("LOGSHIP_BENCH_LEVEL")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2);
    let read_only = std::env::var_os("LOGSHIP_BENCH_READ_ONLY").is_some();
    let data = match std::env::var_os("LOGSHIP_BENCH_NDJSON") {
        Some(path) => std::fs::read(&path).expect("read LOGSHIP_BENCH_NDJSON"),
        None => "{\"level\":\"INFO\",\"message\":\"hello\"}\n"
            .repeat(1000)
            .into_bytes(),
    };
    let started = Instant::now();
    let (mut bodies, mut events, mut compressed) = (0u64, 0u64, 0u64);
    for (body, lines) in body_split::bodies(&data, batch) {
        bodies += 1;
        events += lines;
        if !read_only {
            let mut gz =
                GzEncoder::new(Vec::with_capacity(body.len() / 4), Compression::new(level));
            gz.write_all(body).expect("compress into memory");
            compressed += gz.finish().expect("finish into memory").len() as u64;
        }
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "gzip_floor: {events} events in {bodies} bodies, {} B raw -> {compressed} B{}, {secs:.3} s wall ({:.0} ns/event)",
        data.len(),
        if read_only { " (read only)" } else { "" },
        secs * 1e9 / events.max(1) as f64
    );
}
