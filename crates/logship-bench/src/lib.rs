//! Micro-benchmarks of logship's log call; this library is intentionally empty.
//!
//! Everything lives in `benches/`:
//!
//! - `benches/log_call.rs` (divan): the cost of one log call (150-byte message) at 1 to
//!   64 threads, for logship and for its peers (tracing-appender's `non_blocking` writer
//!   under tracing-subscriber's JSON formatter, and OpenTelemetry's `BatchLogProcessor`
//!   behind `opentelemetry-appender-tracing`), with throughput, drops and allocations.
//! - `benches/latency.rs` (plain `main`): per-call latency percentiles (p50, p99, p99.9).
//!
//! Run them with `cargo bench -p logship-bench` (both), or one of
//! `cargo bench -p logship-bench --bench log_call` / `--bench latency`.
