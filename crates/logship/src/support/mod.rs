//! Small helpers every room uses: the JSON writer, hex digits, secrets that never print,
//! a one-way signal, logship's own threads, and durable file replacement.
//!
//! Why it exists: these depend on nothing else in the crate, so every room may use them
//! without tying itself to another room. Must never: hold pipeline logic.

pub(crate) mod durable;
pub mod fault_point;
pub(crate) mod hex;
pub(crate) mod http_auth;
pub(crate) mod json;
pub(crate) mod secret;
pub(crate) mod sync;
pub(crate) mod threads;
