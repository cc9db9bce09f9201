//! The spill directory as the CLI (`logship spill ls/verify/rm`) sees it, through the public
//! API only: files are written here byte by byte from the documented format, so these
//! tests also pin the on-disk format down.
//!
//! Must never: sleep, assert on timing, or leave directories behind in the temp dir.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use logship::{inspect, remove_all, SpillConfig, SpillError, SpillFsync, SpillFull};
use logship::{Level, Record};

const FRAME_MAGIC: u32 = 0x5246_534C;

struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let path = std::env::temp_dir().join(format!(
            "logship-spill-it-{name}-{}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed),
            fastrand::u64(..)
        ));
        std::fs::create_dir_all(&path).unwrap();
        TempDir(path)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn rec(i: u64) -> Record {
    let mut r = Record::new(Level::Warn, "it::spill");
    r.set_timestamp_nanos(5_000 + i)
        .message(&format!("spilled {i}"))
        .field("n", i);
    r
}

fn frame(record: &Record) -> Vec<u8> {
    let mut payload = Vec::new();
    record.to_bytes(&mut payload);
    let len = (payload.len() as u32).to_le_bytes();
    let mut h = crc32fast::Hasher::new();
    h.update(&len);
    h.update(&payload);
    let mut out = FRAME_MAGIC.to_le_bytes().to_vec();
    out.extend_from_slice(&len);
    out.extend_from_slice(&h.finalize().to_le_bytes());
    out.extend_from_slice(&payload);
    out
}

fn segment(records: impl IntoIterator<Item = u64>) -> Vec<u8> {
    let mut out = b"LGSHSPIL".to_vec();
    out.extend_from_slice(&1u32.to_le_bytes());
    for i in records {
        out.extend(frame(&rec(i)));
    }
    out
}

fn seg_path(dir: &Path, id: u64) -> PathBuf {
    dir.join(format!("{id:020}.seg"))
}

#[test]
fn config_defaults_match_the_documentation() {
    let c = SpillConfig::new("/var/spool/app");
    assert_eq!(c.dir, PathBuf::from("/var/spool/app"));
    assert_eq!(c.segment_max_bytes, 16 * 1024 * 1024);
    assert_eq!(c.max_total_bytes, 1024 * 1024 * 1024);
    assert_eq!(c.full, SpillFull::DropOldest);
    assert_eq!(c.fsync, SpillFsync::OnSegmentClose);
}

#[test]
fn inspect_reports_records_timestamps_acks_damage_and_dead_letters() {
    let tmp = TempDir::new("inspect");
    let dir = &tmp.0;
    std::fs::write(seg_path(dir, 1), segment(0..5)).unwrap();
    let mut torn = segment(5..8);
    torn.extend_from_slice(&frame(&rec(8))[..10]);
    std::fs::write(seg_path(dir, 2), torn).unwrap();
    let mut flipped = segment(10..14);
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0xff;
    std::fs::write(seg_path(dir, 3), flipped).unwrap();
    std::fs::write(seg_path(dir, 4), b"not a segment at all").unwrap();
    std::fs::write(dir.join("notes.txt"), b"ignored").unwrap();
    std::fs::write(dir.join("ACK"), "logship-spill-ack 1\n1 2 999\n").unwrap();
    std::fs::create_dir(dir.join("dead")).unwrap();
    std::fs::write(seg_path(&dir.join("dead"), 9), segment(20..23)).unwrap();

    let info = inspect(dir).unwrap();
    let summary: Vec<(u64, u64, u64, bool)> = info
        .iter()
        .map(|i| (i.records, i.corrupt, i.acked, i.dead_letter))
        .collect();
    assert_eq!(
        summary,
        vec![
            (5, 0, 2, false),
            (3, 1, 0, false),
            (3, 1, 0, false),
            (0, 1, 0, false),
            (3, 0, 0, true),
        ]
    );
    assert_eq!(info[0].path, seg_path(dir, 1));
    assert_eq!(info[0].bytes, segment(0..5).len() as u64);
    assert_eq!(info[0].oldest_ts_nanos, Some(5_000));
    assert_eq!(info[0].newest_ts_nanos, Some(5_004));
    assert_eq!(info[3].oldest_ts_nanos, None);
    assert_eq!(info[4].path, seg_path(&dir.join("dead"), 9));
    assert_eq!(info[4].oldest_ts_nanos, Some(5_020));
    // Inspection changed nothing.
    assert!(seg_path(dir, 4).exists());
    assert!(!dir.join("LOCK").exists());
}

#[test]
fn inspect_survives_arbitrary_bytes() {
    let tmp = TempDir::new("inspect-fuzz");
    let good = segment(0..10);
    let mut rng = fastrand::Rng::with_seed(42);
    for _ in 0..200 {
        let mut bytes = good.clone();
        for _ in 0..rng.usize(1..8) {
            let at = rng.usize(..bytes.len());
            bytes[at] = rng.u8(..);
        }
        bytes.truncate(rng.usize(..=bytes.len()));
        std::fs::write(seg_path(&tmp.0, 1), &bytes).unwrap();
        let info = inspect(&tmp.0).unwrap();
        assert_eq!(info.len(), 1);
        assert!(info[0].records <= 10);
        if let (Some(a), Some(b)) = (info[0].oldest_ts_nanos, info[0].newest_ts_nanos) {
            assert!((5_000..5_010).contains(&a) && (5_000..5_010).contains(&b) && a <= b);
        }
    }
}

#[test]
fn missing_directories_have_nothing_to_list_or_remove() {
    let tmp = TempDir::new("missing");
    let gone = tmp.0.join("never-created");
    assert!(inspect(&gone).unwrap().is_empty());
    assert_eq!(remove_all(&gone).unwrap(), 0);
    assert!(!gone.exists());
}

#[test]
fn remove_all_waits_for_no_one_and_refuses_a_directory_in_use() {
    let tmp = TempDir::new("rm");
    let dir = &tmp.0;
    std::fs::write(seg_path(dir, 1), segment(0..2)).unwrap();
    std::fs::write(seg_path(dir, 2), segment(2..4)).unwrap();
    std::fs::write(dir.join("00000000000000000003.seg.bad"), b"junk").unwrap();
    std::fs::write(dir.join("ACK"), "logship-spill-ack 1\n").unwrap();
    std::fs::create_dir(dir.join("dead")).unwrap();
    std::fs::write(seg_path(&dir.join("dead"), 1), segment(4..5)).unwrap();
    std::fs::write(dir.join("keep.txt"), b"not ours").unwrap();

    // Another owner holds the lock (same process, its own open file: flock semantics).
    let holder = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join("LOCK"))
        .unwrap();
    holder.try_lock().unwrap();
    let err = remove_all(dir).unwrap_err();
    assert!(matches!(&err, SpillError::Locked { dir: d } if d == dir));
    let msg = err.to_string();
    assert!(
        msg.contains("another logship process") && msg.contains("spill_dir"),
        "{msg}"
    );
    let listed: Vec<bool> = inspect(dir)
        .unwrap()
        .iter()
        .map(|i| i.quarantined)
        .collect();
    assert_eq!(
        listed,
        vec![false, false, true, false],
        "nothing removed while locked; the quarantined segment is listed"
    );
    drop(holder);

    assert_eq!(remove_all(dir).unwrap(), 5);
    assert!(inspect(dir).unwrap().is_empty());
    assert!(dir.join("keep.txt").exists());
    assert_eq!(remove_all(dir).unwrap(), 0);
}

#[test]
fn io_errors_name_the_directory_and_the_fix() {
    let tmp = TempDir::new("io-error");
    // A file where the directory should be: listing it fails.
    let not_a_dir = tmp.0.join("file");
    File::create(&not_a_dir).unwrap();
    let err = inspect(&not_a_dir).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, SpillError::Io { .. }), "{err:?}");
    assert!(msg.contains(&not_a_dir.display().to_string()), "{msg}");
    assert!(msg.contains("spill_dir"), "{msg}");
}
