//! Handing a spill directory from one pipeline of this process to the next.
//!
//! Why it exists: log4rs rebuilds every appender when its configuration file changes,
//! and builds the new appender *before* it drops the old one (on whichever application
//! thread logged last). Both pipelines want the same spill directory, which one process
//! may own only once (the `LOCK` file). Pipelines built with hand-over allowed therefore
//! share one open [`Spill`] per directory: the newcomer joins the owner instead of failing,
//! whatever either of them writes is replayed by whoever is still running, and the
//! directory is sealed and unlocked only when the last of them shuts down. Pipelines
//! without hand-over keep the strict rule: a held directory fails the build.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, Weak};

use super::handle::SpillHandle;
use super::{Spill, SpillConfig, SpillError};

/// One shared directory: its handle and how many running pipelines use it.
struct Entry {
    dir: PathBuf,
    handle: Weak<SpillHandle>,
    owners: usize,
}

/// Directories currently shared, by canonical path.
static SHARED: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

fn registry() -> std::sync::MutexGuard<'static, Vec<Entry>> {
    SHARED.lock().unwrap_or_else(|e| e.into_inner())
}

/// The directory's canonical path when it exists (so `a/../b` and `b` match).
fn key(dir: &Path) -> PathBuf {
    std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf())
}

/// Opens the spill for a new pipeline. With `share`, joins a pipeline of this process that
/// already owns the directory with hand-over allowed; otherwise opens (and locks) it.
pub(crate) fn open(config: SpillConfig, share: bool) -> Result<Arc<SpillHandle>, SpillError> {
    if !share {
        return Ok(Arc::new(SpillHandle::new(Spill::open(config)?)));
    }
    let mut shared = registry();
    let raw = config.dir.clone();
    let dir = key(&raw);
    shared.retain(|e| e.owners > 0 && e.handle.strong_count() > 0);
    if let Some(entry) = shared.iter_mut().find(|e| e.dir == dir) {
        if let Some(handle) = entry.handle.upgrade() {
            entry.owners += 1;
            return Ok(handle);
        }
    }
    let handle = Arc::new(SpillHandle::new(Spill::open(config)?));
    shared.push(Entry {
        dir: key(&raw),
        handle: Arc::downgrade(&handle),
        owners: 1,
    });
    Ok(handle)
}

/// A pipeline is done with its spill (at the end of its shutdown): closes it (sealing what
/// was written and unlocking the directory) unless another pipeline still uses it.
pub(crate) fn release(handle: &Arc<SpillHandle>) {
    let mut shared = registry();
    if let Some(at) = shared
        .iter()
        .position(|e| std::ptr::eq(e.handle.as_ptr(), Arc::as_ptr(handle)))
    {
        shared[at].owners -= 1;
        if shared[at].owners > 0 {
            // Still in use: wake the others' replayers so they see what this one spilled.
            handle.wake();
            return;
        }
        shared.remove(at);
    }
    handle.close();
}
