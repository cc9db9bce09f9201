//! The replay progress file (`ACK` on disk): how far replay has got in each segment,
//! durable across crashes.
//!
//! Why it exists: replay is at-least-once. After a restart, records the intake already
//! accepted should not be shipped again, and records it did not accept must not be lost.
//! The file records, per segment, how many leading frames are acknowledged and the byte
//! offset just past them (so a reopened spill resumes without rereading them).
//!
//! Format (text, one entry a line): `logship-spill-ack 1` then `<segment id> <frames>
//! <offset>` lines. It is replaced atomically: written to `ACK.tmp`, `sync_all`, renamed
//! over `ACK`, then the directory is synced.
//!
//! Must never: refuse to open because the file is damaged (a damaged file means "nothing
//! acknowledged": records are shipped again rather than lost), or leave a half-written
//! `ACK` in place of a good one.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use crate::support::durable::{sync_dir, write_durably};

/// File name of the acknowledgement file.
pub(crate) const ACK_FILE: &str = "ACK";
/// Temporary name used while replacing it.
pub(crate) const ACK_TMP: &str = "ACK.tmp";
const FIRST_LINE: &str = "logship-spill-ack 1";
/// Larger files are not acknowledgement files this code wrote; only the start is read.
const MAX_ACK_BYTES: u64 = 16 * 1024 * 1024;

/// Acknowledged prefix of one segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SegmentProgress {
    /// Leading frames acknowledged.
    pub(crate) frames: u64,
    /// Byte offset just past the last acknowledged frame.
    pub(crate) offset: u64,
}

/// Reads `<dir>/ACK`. A missing file is empty; malformed lines are ignored.
pub(crate) fn load(dir: &Path) -> io::Result<BTreeMap<u64, SegmentProgress>> {
    let mut text = Vec::new();
    match File::open(dir.join(ACK_FILE)) {
        Ok(f) => {
            f.take(MAX_ACK_BYTES).read_to_end(&mut text)?;
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(e) => return Err(e),
    }
    Ok(parse(&text))
}

/// Parses the file's bytes, keeping every well-formed entry of a file with the right
/// first line (anything else is "nothing acknowledged").
pub(crate) fn parse(bytes: &[u8]) -> BTreeMap<u64, SegmentProgress> {
    let mut out = BTreeMap::new();
    let text = String::from_utf8_lossy(bytes);
    let mut lines = text.lines();
    if lines.next().map(str::trim) != Some(FIRST_LINE) {
        return out;
    }
    for line in lines {
        let mut parts = line.split_ascii_whitespace().map(str::parse::<u64>);
        if let (Some(Ok(id)), Some(Ok(frames)), Some(Ok(offset)), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        {
            out.insert(id, SegmentProgress { frames, offset });
        }
    }
    out
}

/// Replaces `<dir>/ACK` with `entries`, durably: temp file, `sync_all`, rename, then
/// `sync_all` on the directory. When this returns `Ok`, the new content survives a crash.
pub(crate) fn store(
    dir: &Path,
    entries: impl IntoIterator<Item = (u64, SegmentProgress)>,
) -> io::Result<()> {
    let mut text = String::from(FIRST_LINE);
    text.push('\n');
    for (id, e) in entries {
        text.push_str(&format!("{id} {} {}\n", e.frames, e.offset));
    }
    write_durably(&dir.join(ACK_TMP), &dir.join(ACK_FILE), text.as_bytes())?;
    sync_dir(dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spill::testutil::TempDir;

    #[test]
    fn store_then_load_round_trips_and_leaves_no_temp_file() {
        let dir = TempDir::new("ack-roundtrip");
        let entries = [
            (
                3,
                SegmentProgress {
                    frames: 10,
                    offset: 500,
                },
            ),
            (
                u64::MAX,
                SegmentProgress {
                    frames: 0,
                    offset: 12,
                },
            ),
        ];
        store(dir.path(), entries).unwrap();
        assert_eq!(load(dir.path()).unwrap(), entries.into_iter().collect());
        assert!(!dir.path().join(ACK_TMP).exists());
        store(dir.path(), []).unwrap();
        assert!(load(dir.path()).unwrap().is_empty());
    }

    #[test]
    fn missing_or_damaged_files_mean_nothing_acknowledged() {
        let dir = TempDir::new("ack-damaged");
        assert!(load(dir.path()).unwrap().is_empty());
        assert!(parse(b"garbage\n1 2 3\n").is_empty());
        assert!(parse(&[0xff, 0xfe, 0]).is_empty());
        let parsed = parse(b"logship-spill-ack 1\n1 2 3\n1 2\nx y z\n4 5 6 7\n9 9 99\n");
        assert_eq!(parsed.len(), 2);
        assert_eq!(
            parsed[&9],
            SegmentProgress {
                frames: 9,
                offset: 99
            }
        );
        let mut rng = fastrand::Rng::with_seed(7);
        for _ in 0..500 {
            let junk: Vec<u8> = (0..rng.usize(0..64)).map(|_| rng.u8(..)).collect();
            let _ = parse(&junk);
        }
    }
}
