//! The budget's state file: what was spent in the current hour and day, kept across
//! restarts (by default `budget.json` in the spill directory).
//!
//! Why it exists: a budget that forgets what it spent whenever the program restarts is no
//! cap at all for a service that restarts often. The file is written whole to a temporary
//! file, synced, and renamed over the old one, so a crash leaves the old state or the new
//! one, never half of either. Must never: block start-up (a missing file is a first run,
//! an unreadable or corrupt one is reported by the caller and replaced), or run on a log
//! call's thread.

use std::fs;
use std::path::Path;

use super::state::Spent;

/// The file's format version, so a later release can tell an old file apart.
const VERSION: u64 = 1;

#[derive(serde::Serialize, serde::Deserialize)]
struct File {
    version: u64,
    #[serde(flatten)]
    spent: Spent,
}

/// Reads the state file: `Ok(None)` when there is none, `Err` (with what is wrong) when
/// it cannot be read or is not a budget state of this version.
pub(crate) fn load(path: &Path) -> Result<Option<Spent>, String> {
    let bytes = match fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let file: File = serde_json::from_slice(&bytes).map_err(|e| e.to_string())?;
    if file.version != VERSION {
        return Err(format!("unknown version {}", file.version));
    }
    Ok(Some(file.spent))
}

/// Writes the state file atomically: a temporary file beside it, synced, then renamed.
pub(crate) fn save(path: &Path, spent: &Spent) -> std::io::Result<()> {
    let body = serde_json::to_vec(&File {
        version: VERSION,
        spent: *spent,
    })
    .map_err(std::io::Error::other)?;
    let mut tmp_name = path.as_os_str().to_owned();
    tmp_name.push(".tmp");
    crate::support::durable::write_durably(std::path::Path::new(&tmp_name), path, &body)?;
    if let Some(dir) = path.parent() {
        let _ = crate::support::durable::sync_dir(dir);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dir(name: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("logship-budget-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_saved_state_reads_back_and_leaves_no_temporary_file() {
        let d = dir("roundtrip");
        let path = d.join("budget.json");
        let spent = Spent {
            hour: 7,
            day: 3,
            hour_bytes: 10,
            day_bytes: 20,
            hour_events: 1,
            day_events: 2,
            level_hour_bytes: [0, 5, 0, 0, 0],
            level_day_bytes: [0, 9, 1, 0, 0],
        };
        save(&path, &spent).unwrap();
        assert_eq!(load(&path).unwrap(), Some(spent));
        // A file of the version before per-level caps reads with zeros for them.
        fs::write(
            &path,
            r#"{"version":1,"hour":7,"day":3,"hour_bytes":10,"day_bytes":20,"hour_events":1,"day_events":2}"#,
        )
        .unwrap();
        let old = load(&path).unwrap().unwrap();
        assert_eq!((old.hour_bytes, old.level_day_bytes), (10, [0; 5]));
        assert_eq!(fs::read_dir(&d).unwrap().count(), 1);
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn a_missing_file_is_a_first_run_and_garbage_is_an_error() {
        let d = dir("garbage");
        let path = d.join("budget.json");
        assert_eq!(load(&path), Ok(None));
        for garbage in [
            &b"{\"version\":1,"[..],
            b"\x00\xff",
            b"{\"version\":9,\"hour\":1}",
            b"",
        ] {
            fs::write(&path, garbage).unwrap();
            assert!(load(&path).is_err(), "{garbage:?}");
        }
        let _ = fs::remove_dir_all(&d);
    }
}
