//! `logship ship --listen`: receive events over the network.
//!
//! Placeholder on the stream branch: the http engineer's `listen/mod.rs` (URL parsing,
//! binding, dispatch to `http` and `stream`) replaces this file at merge.

// Nothing calls the stream inputs on this branch yet (the http branch wires them).
#[allow(dead_code, unused_imports)]
pub(crate) mod stream;
