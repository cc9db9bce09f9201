//! # Compressor and level, speed per ratio (plain `main`, counted under callgrind)
//!
//! What it measures: gzip of the bodies logship sends, the way its senders compress them
//! (one deflate state per thread, reset per body, a gzip member per body: the same calls as
//! `deliver/gzip.rs`), with one compressor and level per run, so that
//! `valgrind --tool=callgrind` counts the instructions of exactly that choice. It prints the
//! raw and compressed bytes (the ratio). `docs/bench/compress-levels.sh` runs it over the
//! captured bodies of a real `logship ship` run for every level and both batch sizes
//! (docs/performance.md, "Compressor and level").
//!
//! How to run: `LOGSHIP_BENCH_NDJSON=FILE LOGSHIP_BENCH_BATCH=200 LOGSHIP_BENCH_LEVEL=3
//! LOGSHIP_BENCH_COMPRESSOR=zlib-rs cargo bench -p logship-bench --bench compress_levels`.
//! `LOGSHIP_BENCH_COMPRESSOR=none` only splits the bodies (to subtract), `libdeflate` needs
//! `--features libdeflate` (the C library libdeflate through `libdeflater`, for comparison
//! only: logship does not ship it). Without a file (as under `cargo test --benches`) it
//! compresses a small generated body.

#[path = "common/bodies.rs"]
mod body_split;

/// One compressor at one level: a body in, its compressed length out.
type Squeeze = Box<dyn FnMut(&[u8]) -> usize>;

fn main() {
    let env = |name: &str| std::env::var(name).ok();
    let batch: usize = env("LOGSHIP_BENCH_BATCH")
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let level: u32 = env("LOGSHIP_BENCH_LEVEL")
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    let compressor = env("LOGSHIP_BENCH_COMPRESSOR").unwrap_or_else(|| "zlib-rs".into());
    let data = match std::env::var_os("LOGSHIP_BENCH_NDJSON") {
        Some(path) => std::fs::read(&path).expect("read LOGSHIP_BENCH_NDJSON"),
        None => "{\"level\":\"INFO\",\"message\":\"hello\"}\n"
            .repeat(1000)
            .into_bytes(),
    };
    let mut squeeze: Squeeze = match compressor.as_str() {
        "none" => Box::new(|body: &[u8]| body.len()),
        "zlib-rs" => {
            let mut state = flate2::Compress::new(flate2::Compression::new(level), false);
            Box::new(move |body: &[u8]| zlib_rs_gzip(&mut state, body).len())
        }
        #[cfg(feature = "libdeflate")]
        "libdeflate" => {
            let level = libdeflater::CompressionLvl::new(level as i32).expect("level 0..=12");
            let mut state = libdeflater::Compressor::new(level);
            Box::new(move |body: &[u8]| {
                let mut out = vec![0; state.gzip_compress_bound(body.len())];
                state.gzip_compress(body, &mut out).expect("bound is enough")
            })
        }
        other => panic!("LOGSHIP_BENCH_COMPRESSOR={other}: zlib-rs, none, or libdeflate (with --features libdeflate)"),
    };
    let (mut bodies, mut events, mut compressed) = (0u64, 0u64, 0u64);
    for (body, lines) in body_split::bodies(&data, batch) {
        bodies += 1;
        events += lines;
        compressed += squeeze(body) as u64;
    }
    println!(
        "compress_levels: {compressor} level {level}, {events} events in {bodies} bodies of {batch}, {} B -> {compressed} B (ratio {:.3})",
        data.len(),
        data.len() as f64 / compressed.max(1) as f64
    );
}

/// One gzip member the way the pipeline's senders make it: the thread's state reset, the
/// body deflated to its end, header and CRC-32 trailer around it.
fn zlib_rs_gzip(state: &mut flate2::Compress, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() / 4 + 64);
    out.extend_from_slice(&[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
    state.reset();
    let start = state.total_in();
    loop {
        let done = (state.total_in() - start) as usize;
        if out.capacity() - out.len() < 64 {
            out.reserve(out.capacity().max(4096));
        }
        match state.compress_vec(&body[done..], &mut out, flate2::FlushCompress::Finish) {
            Ok(flate2::Status::StreamEnd) => break,
            Ok(_) => {}
            Err(e) => panic!("deflate: {e}"),
        }
    }
    let mut crc = flate2::Crc::new();
    crc.update(body);
    out.extend_from_slice(&crc.sum().to_le_bytes());
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out
}
