//! The checkpoint file: for each followed file, its identity and the offset up to which
//! its lines are delivered or durably spilled.
//!
//! Why it exists: a restart (after SIGTERM, a crash or SIGKILL) must resume every file
//! where the last run's delivered lines end, so that no line is lost and few are shipped
//! twice. The file is small JSON, written atomically (a temporary file beside it, fsync,
//! rename, fsync of the directory), so a crash leaves either the old or the new version.
//! Who decides *when* an offset may be written is the follower (`mod.rs`): only after
//! the pipeline settled every line before it.
//!
//! Must never: block start-up (a missing, unreadable or corrupt file is reported once and
//! ignored), store log content (only hashes of it), or panic on any file content.

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::identity::{FileId, Fingerprint};

/// Format version written in the file; another version is ignored (and said so).
const VERSION: u32 = 1;
/// Checkpoint files larger than this are not read (a checkpoint is a few hundred bytes
/// per followed file).
const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;

/// Where one followed file stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The path it was last seen at (for people reading the file; not used to match).
    pub path: PathBuf,
    /// `st_dev`.
    pub dev: u64,
    /// `st_ino`.
    pub ino: u64,
    /// Leading bytes the fingerprint covers.
    pub fp_len: usize,
    /// FNV-1a 64 of those bytes.
    pub fp_hash: u64,
    /// Bytes of the file whose lines are settled: reading resumes here.
    pub offset: u64,
}

impl Entry {
    /// The file's identity.
    pub fn id(&self) -> FileId {
        FileId {
            dev: self.dev,
            ino: self.ino,
        }
    }

    /// The file's fingerprint.
    pub fn fingerprint(&self) -> Fingerprint {
        Fingerprint {
            len: self.fp_len,
            hash: self.fp_hash,
        }
    }
}

#[derive(Serialize, Deserialize)]
struct OnDisk {
    version: u32,
    files: Vec<Entry>,
}

/// Reads the checkpoint at `path`: its entries, and a warning to print when it existed
/// but could not be used (the follower then starts from its configured position).
pub fn load(path: &Path) -> (Vec<Entry>, Option<String>) {
    let unusable = |why: String| {
        (
            Vec::new(),
            Some(format!(
                "checkpoint file {} {why}; ignoring it: files are read from the configured --start-at position",
                path.display()
            )),
        )
    };
    let meta = match fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (Vec::new(), None),
        Err(e) => return unusable(format!("cannot be read ({e})")),
    };
    if meta.len() > MAX_FILE_BYTES {
        return unusable(format!(
            "is {} bytes, too large to be a checkpoint",
            meta.len()
        ));
    }
    let bytes = match fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => return unusable(format!("cannot be read ({e})")),
    };
    match serde_json::from_slice::<OnDisk>(&bytes) {
        Ok(disk) if disk.version == VERSION => (disk.files, None),
        Ok(disk) => unusable(format!(
            "has version {} (this logship reads {VERSION})",
            disk.version
        )),
        Err(e) => unusable(format!("is corrupt ({e})")),
    }
}

/// Writes `entries` to `path` atomically: a crash leaves the old file or the new one.
pub fn save(path: &Path, entries: &[Entry]) -> std::io::Result<()> {
    let json = serde_json::to_vec_pretty(&OnDisk {
        version: VERSION,
        files: entries.to_vec(),
    })
    .map_err(std::io::Error::other)?;
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    fs::create_dir_all(&dir)?;
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(".tmp");
    let tmp = dir.join(name);
    {
        let mut file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&tmp)?;
        // With the test-only `fault-points` feature, in two parts so the crash harness can
        // kill between them (a torn temporary file); otherwise in one (the second is empty).
        let half = if cfg!(feature = "fault-points") {
            json.len() / 2
        } else {
            json.len()
        };
        file.write_all(&json[..half])?;
        logship::fault_point::reached("checkpoint-write");
        file.write_all(&json[half..])?;
        file.write_all(b"\n")?;
        file.sync_all()?;
    }
    fs::rename(&tmp, path)?;
    // The rename is durable once the directory is synced.
    if let Ok(d) = File::open(&dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("logship-ckpt-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).expect("temp dir");
        d
    }

    fn entry(offset: u64) -> Entry {
        Entry {
            path: "/var/log/app.log".into(),
            dev: 1,
            ino: 2,
            fp_len: 3,
            fp_hash: u64::MAX,
            offset,
        }
    }

    #[test]
    fn saved_entries_load_back_and_no_temporary_file_stays() {
        let d = dir("roundtrip");
        let path = d.join("follow.json");
        save(&path, &[entry(10)]).expect("save");
        save(&path, &[entry(20)]).expect("save again");
        let (entries, warning) = load(&path);
        assert_eq!(entries, vec![entry(20)]);
        assert_eq!(warning, None);
        let names: Vec<_> = fs::read_dir(&d)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("follow.json")]);
    }

    #[test]
    fn missing_is_silent_and_corrupt_or_foreign_is_a_warning_never_an_error() {
        let d = dir("corrupt");
        let path = d.join("follow.json");
        assert_eq!(load(&path), (Vec::new(), None));
        for bad in [
            &b"{\"version\":1,\"files\":[{\"dev\":"[..],
            b"\xff\xfe garbage",
            b"{\"version\":99,\"files\":[]}",
            b"[]",
        ] {
            fs::write(&path, bad).unwrap();
            let (entries, warning) = load(&path);
            assert!(entries.is_empty());
            let warning = warning.expect("a warning");
            assert!(warning.contains("ignoring it"), "{warning}");
        }
    }
}
