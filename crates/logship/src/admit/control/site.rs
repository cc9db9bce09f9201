//! Where an event was logged, as the burst table keys it: a call site's identity and the
//! names the summary event shows.
//!
//! Why it exists: each integration knows its call sites differently (tracing by the
//! address of its callsite metadata, `log` by target, file and line, a pushed record by
//! its target); the burst table wants one 64-bit key. Must never: allocate.

use super::hash::{hash_bytes, mix};

/// Where an event was logged, as the burst table keys it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Site<'a> {
    /// The identity of the call site (see the constructors).
    pub key: u64,
    /// Module path or logger name, for the summary event.
    pub target: &'a str,
    /// Source file, for the summary event.
    pub file: Option<&'a str>,
    /// Source line, for the summary event.
    pub line: Option<u32>,
}

impl<'a> Site<'a> {
    /// A call site with a static identity (tracing's callsite metadata address).
    #[inline]
    pub(crate) fn from_address(
        address: usize,
        target: &'a str,
        file: Option<&'a str>,
        line: Option<u32>,
    ) -> Site<'a> {
        Site {
            key: mix(address as u64),
            target,
            file,
            line,
        }
    }

    /// A call site known by its text: `log`'s target + file + line, and for records handed
    /// to `Logship::push` directly (the CLI sidecar), the record's target (logger name).
    #[inline]
    pub(crate) fn from_text(target: &'a str, file: Option<&'a str>, line: Option<u32>) -> Site<'a> {
        let mut h = hash_bytes(0x9e37_79b9_7f4a_7c15, target.as_bytes());
        if let Some(file) = file {
            h = hash_bytes(h ^ 0xff, file.as_bytes());
        }
        h ^= u64::from(line.unwrap_or(0)).wrapping_mul(0xff51_afd7_ed55_8ccd);
        Site {
            key: mix(h),
            target,
            file,
            line,
        }
    }
}
