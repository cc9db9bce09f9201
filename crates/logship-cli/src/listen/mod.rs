//! `logship ship --listen`: receive what existing appenders, agents and SDKs send.
//!
//! Placeholder of the vendor branch (l19-vendor): the http engineer's `listen/mod.rs`
//! (listeners, dispatch, service loop) replaces this file at merge.

pub(crate) mod http;
