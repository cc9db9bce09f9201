//! Replacing a small file so that a crash leaves either the old content or the new one.
//!
//! Why it exists: the spill's replay progress file and the volume budget's state file are
//! both rewritten in place while the program runs, and a half-written one must never
//! replace a good one. Must never: leave its temporary file behind on failure.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Replaces `target` with `bytes` atomically: written to `tmp` (owner-only, 0600),
/// `sync_all`, renamed over `target`; `tmp` is removed on failure. The caller syncs the
/// directory (see [`sync_dir`]) when the rename itself must survive a crash.
pub(crate) fn write_durably(tmp: &Path, target: &Path, bytes: &[u8]) -> io::Result<()> {
    let result = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(0o600)
            .open(tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(tmp, target)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(tmp);
    }
    result
}

/// Makes renames, creations and removals in `dir` durable.
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}
