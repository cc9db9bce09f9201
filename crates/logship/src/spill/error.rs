//! Why the spill could not be used ([`SpillError`]): a held lock or a refused file
//! operation, each saying what to do.
//!
//! Why it exists: a spill directory that cannot be used must never stop the program; the
//! pipeline says why once and runs without spill (or, with `spill_required`, fails
//! start-up with this error). Must never: carry a secret.

use std::io;
use std::path::{Path, PathBuf};

/// Why the spill could not be used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SpillError {
    /// Another `Spill` (in this or another process) holds the directory's lock.
    #[error("spill directory {} is in use by another logship process (or another logship pipeline in this process); give each process its own spill_dir", dir.display())]
    Locked {
        /// The spill directory.
        dir: PathBuf,
    },
    /// The operating system refused a file operation.
    #[error("could not {action} in spill directory {}: {source} (check that the directory is writable by this user and the disk is not full, or point spill_dir elsewhere)", dir.display())]
    Io {
        /// The spill directory.
        dir: PathBuf,
        /// What was being done, e.g. "write a segment file".
        action: &'static str,
        /// The OS error.
        source: io::Error,
    },
}

impl SpillError {
    pub(crate) fn io(dir: &Path, action: &'static str, source: io::Error) -> SpillError {
        SpillError::Io {
            dir: dir.to_path_buf(),
            action,
            source,
        }
    }
}
