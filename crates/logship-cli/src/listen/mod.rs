//! `logship ship --listen`: receive events over the network.
//!
//! Placeholder on the stream branch: the http engineer's `listen/mod.rs` (URL parsing,
//! binding, dispatch to `http` and `stream`) replaces this file at merge.

pub(crate) mod stream;
