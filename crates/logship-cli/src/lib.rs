//! NOT API: the few parts of the `logship` command that the benchmark lab
//! (`logship-lab`, in its own package) uses as well, so that neither copies them: how a
//! command fails and its exit codes (`exit`), the latency histogram (`histogram`), the
//! process's resident memory (`memory`) and human-readable units (`units`).
//!
//! Why a library target and not a crate of its own: these four small modules are the
//! command's own; the lab is the only other user, and a doc-hidden library target shares
//! them without a new package. Everything else of the command stays in the binary. May
//! change in any release; nothing outside this workspace should use it.

#![doc(hidden)]

pub mod exit;
pub mod histogram;
pub mod memory;
pub mod units;
