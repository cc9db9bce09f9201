//! logship inside the JVM: the native half of the Log4j2 plugin and the Logback appender
//! that live in `java/` (one jar, `target/java/logship.jar`, built by `java/build.sh`).
//!
//! Why it exists: services whose platform accepts only a jar (Mule CloudHub, Runtime
//! Fabric, serverless runtimes) cannot run a sidecar; this crate puts the whole pipeline
//! (queue, batches, gzip, retries, spill and replay, every vendor) in the JVM process, off
//! the Java heap. Java writes each event into one buffer ([`wire`]); Rust builds the
//! [`logship::Record`] from it in place.
//!
//! Must never: let a panic unwind into the JVM (every entry point catches it), block a
//! logging thread beyond the pipeline's configured overflow policy, or print a secret.

pub mod config;
pub mod event;
mod exports;
pub mod handover;
pub mod slots;
pub mod stats;
pub mod wire;
