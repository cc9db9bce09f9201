//! Opening a pipeline's spill at start-up without ever stopping the program.
//!
//! Why it exists: logging must never keep a service from starting because of the state of
//! the machine. A spill directory can be held by another instance of the same service on
//! the same host, or sit on a read-only or full filesystem. The default directory is
//! therefore one of several slots (`<service>`, `<service>.2` .. `<service>.8`): each
//! instance takes the first free one, and an instance that restarts after a crash takes
//! over whatever slot is free and replays what it holds. When no directory can be used
//! the pipeline runs without spill (the reason is returned for the caller to say once and
//! to show in `stats()`), unless the user asked for a strict start-up with
//! `spill_required`. It never deletes or moves anything.

use std::path::PathBuf;
use std::sync::Arc;

use super::handle::SpillHandle;
use super::{handover, SpillConfig, SpillError};

/// How many default directories instances of one service on one host may use at once.
pub(crate) const DEFAULT_DIR_SLOTS: usize = 8;

/// The spill a pipeline starts with.
pub(crate) struct Started {
    /// The open spill, when one could be used.
    pub handle: Option<Arc<SpillHandle>>,
    /// Why the pipeline runs without spill (spill was wanted but no directory could be used).
    pub unavailable: Option<SpillError>,
}

/// Slot `n` (1-based) of the default directory `dir`: `dir` itself, then `dir.2`, `dir.3`...
fn slot(dir: &std::path::Path, n: usize) -> PathBuf {
    if n == 1 {
        return dir.to_path_buf();
    }
    let mut name = dir.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{n}"));
    dir.with_file_name(name)
}

/// Opens the spill described by `config`. `default_dir`: the directory was not chosen by the
/// user, so another slot may be taken when it is held. `share`: hand-over between pipelines
/// of this process (see `handover`). `required`: fail instead of starting without spill.
pub(crate) fn open(
    config: SpillConfig,
    default_dir: bool,
    share: bool,
    required: bool,
) -> Result<Started, SpillError> {
    let slots = if default_dir { DEFAULT_DIR_SLOTS } else { 1 };
    let mut refused = None;
    for n in 1..=slots {
        let attempt = SpillConfig {
            dir: slot(&config.dir, n),
            ..config.clone()
        };
        match handover::open(attempt, share) {
            Ok(handle) => {
                return Ok(Started {
                    handle: Some(handle),
                    unavailable: None,
                })
            }
            // Held by another instance: the next slot may be free.
            Err(e @ SpillError::Locked { .. }) => refused = Some(e),
            // The filesystem refused: the other slots sit beside it, so stop here.
            Err(e) => {
                refused = Some(e);
                break;
            }
        }
    }
    match refused {
        Some(e) if required => Err(e),
        unavailable => Ok(Started {
            handle: None,
            unavailable,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spill::testutil::TempDir;

    fn config(dir: PathBuf) -> SpillConfig {
        SpillConfig::new(dir)
    }

    #[test]
    fn slots_are_named_after_the_default_directory() {
        let dir = PathBuf::from("/x/cache/logship/orders");
        assert_eq!(slot(&dir, 1), dir);
        assert_eq!(slot(&dir, 2), PathBuf::from("/x/cache/logship/orders.2"));
        assert_eq!(slot(&dir, 8), PathBuf::from("/x/cache/logship/orders.8"));
    }

    #[test]
    fn instances_of_one_service_take_the_next_free_default_slot() {
        let tmp = TempDir::new("slots");
        let dir = tmp.path().join("svc");
        let first = open(config(dir.clone()), true, false, false).unwrap();
        let second = open(config(dir.clone()), true, false, false).unwrap();
        let (Some(a), Some(b)) = (&first.handle, &second.handle) else {
            panic!("both instances get a spill");
        };
        assert!(!Arc::ptr_eq(a, b));
        assert!(dir.exists() && slot(&dir, 2).exists());
    }

    #[test]
    fn a_held_explicit_directory_starts_without_spill_unless_required() {
        let tmp = TempDir::new("held");
        let dir = tmp.path().join("mine");
        let _owner = open(config(dir.clone()), false, false, false).unwrap();
        let degraded = open(config(dir.clone()), false, false, false).unwrap();
        assert!(degraded.handle.is_none());
        assert!(matches!(
            degraded.unavailable,
            Some(SpillError::Locked { .. })
        ));
        let strict = open(config(dir), false, false, true);
        assert!(matches!(strict, Err(SpillError::Locked { .. })));
    }

    #[test]
    fn every_slot_held_starts_without_spill() {
        let tmp = TempDir::new("all-held");
        let dir = tmp.path().join("svc");
        let owners: Vec<Started> = (0..DEFAULT_DIR_SLOTS)
            .map(|_| open(config(dir.clone()), true, false, false).unwrap())
            .collect();
        assert!(owners.iter().all(|o| o.handle.is_some()));
        let late = open(config(dir), true, false, false).unwrap();
        assert!(late.handle.is_none() && late.unavailable.is_some());
    }

    #[test]
    fn an_unwritable_directory_starts_without_spill() {
        let tmp = TempDir::new("unwritable");
        // A regular file where the directory should be: no user, root included, can
        // create a directory there.
        let blocker = tmp.path().join("file");
        std::fs::write(&blocker, b"not a directory").unwrap();
        let started = open(config(blocker.join("svc")), true, false, false).unwrap();
        assert!(started.handle.is_none());
        assert!(matches!(started.unavailable, Some(SpillError::Io { .. })));
    }
}
