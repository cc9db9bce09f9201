//! The building blocks of [`super::keys::all`]' rows: value kinds shared by several keys,
//! the names of enum choices, and the getters' formatting helpers.
//!
//! Why it exists: the table itself is one row per key and nothing else, so that it stays
//! readable (and under the architecture test's 800 lines) as keys are added. Nothing here
//! may hold a fact about one key only: that belongs in its row.

use std::time::Duration;

use super::key::Kind;
use super::value::quote;
use crate::spill::{SpillFsync, SpillFull};

pub(crate) const MS: &str = " milliseconds";
pub(crate) const BYTES: &str = " bytes";

pub(crate) const fn int(min: u64, max: u64, unit: &'static str) -> Kind {
    Kind::Int { min, max, unit }
}

pub(crate) const TAGS: Kind = Kind::List {
    item: "key:value",
    fix: "write tags = [\"env:prod\", \"team:payments\"]",
};

pub(crate) const SPILL_FULL_NAMES: &[&str] = &["drop_oldest", "drop_newest"];
pub(crate) const SPILL_FULL: [SpillFull; 2] = [SpillFull::DropOldest, SpillFull::DropNewest];
pub(crate) const SPILL_FSYNC_NAMES: &[&str] = &["on_segment_close", "always", "never"];
pub(crate) const SPILL_FSYNC: [SpillFsync; 3] = [
    SpillFsync::OnSegmentClose,
    SpillFsync::Always,
    SpillFsync::Never,
];

pub(crate) fn text(s: &Option<String>) -> Option<String> {
    s.as_deref().map(quote)
}

pub(crate) fn millis(d: Duration) -> Option<String> {
    Some(d.as_millis().to_string())
}

pub(crate) fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

pub(crate) fn path(p: &Option<std::path::PathBuf>) -> Option<String> {
    p.as_ref().map(|p| quote(&p.display().to_string()))
}

pub(crate) fn redacted<T>(v: &Option<T>) -> Option<String> {
    v.as_ref().map(|_| quote("[redacted]"))
}

pub(crate) fn choice<T: PartialEq>(names: &[&str], values: &[T], v: &T) -> Option<String> {
    values.iter().position(|x| x == v).map(|i| quote(names[i]))
}
