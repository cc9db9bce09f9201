//! The spill directory itself: creating it privately and locking it for one owner.
//!
//! Why it exists: two writers appending to and deleting from the same segments would
//! corrupt each other's replay state, so one `Spill` owns a directory at a time, enforced
//! by an exclusive lock on `<dir>/LOCK` that the OS releases when the file is closed (on
//! drop, or when the process dies). Spilled logs can hold anything an application logs,
//! so the directory is created 0700.
//!
//! Must never: block waiting for the lock (a second owner fails at once with
//! [`SpillError::Locked`]), or loosen the permissions of a directory that already exists.

use std::fs::{DirBuilder, File, OpenOptions, TryLockError};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::Path;

use super::SpillError;

/// File name of the lock file.
pub(crate) const LOCK_FILE: &str = "LOCK";

/// Creates `dir` (and missing parents) with mode 0700 if it does not exist.
pub(crate) fn create_dir(dir: &Path) -> Result<(), SpillError> {
    DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| SpillError::io(dir, "create the directory", e))
}

/// An exclusive lock on a spill directory, held until dropped.
#[derive(Debug)]
pub(crate) struct DirLock {
    _file: File,
}

impl DirLock {
    /// Takes the lock on an existing `dir`, or fails with [`SpillError::Locked`] at once.
    pub(crate) fn acquire(dir: &Path) -> Result<DirLock, SpillError> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(dir.join(LOCK_FILE))
            .map_err(|e| SpillError::io(dir, "open the LOCK file", e))?;
        match file.try_lock() {
            Ok(()) => Ok(DirLock { _file: file }),
            Err(TryLockError::WouldBlock) => Err(SpillError::Locked {
                dir: dir.to_path_buf(),
            }),
            Err(TryLockError::Error(e)) => Err(SpillError::io(dir, "lock the LOCK file", e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spill::testutil::TempDir;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn lock_is_exclusive_until_dropped() {
        let dir = TempDir::new("lock");
        let first = DirLock::acquire(dir.path()).unwrap();
        let err = DirLock::acquire(dir.path()).unwrap_err();
        assert!(matches!(err, SpillError::Locked { .. }), "{err:?}");
        drop(first);
        DirLock::acquire(dir.path()).unwrap();
    }

    #[test]
    fn created_directories_are_private() {
        let dir = TempDir::new("lock-mode");
        let nested = dir.path().join("a/b");
        create_dir(&nested).unwrap();
        let mode = std::fs::metadata(&nested).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
        create_dir(&nested).unwrap();
    }
}
