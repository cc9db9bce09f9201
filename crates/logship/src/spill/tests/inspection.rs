//! What `logship spill ls/verify/rm` relies on: `inspect` lists every segment (quarantined
//! and dead letters included) and `remove_all` deletes them all, ACK file included.

use super::*;

#[test]
fn inspect_lists_quarantined_segments_and_remove_all_deletes_them() {
    let dir = TempDir::new("inspect-quarantine");
    let mut spill = Spill::open(cfg(dir.path())).unwrap();
    spill.append(&recs(0..3)).unwrap();
    spill.seal().unwrap();
    spill.append(&recs(3..5)).unwrap();
    spill.dead_letter(&recs(5..6)).unwrap();
    drop(spill);
    let files = segment_files(dir.path());
    let mut bytes = std::fs::read(&files[0]).unwrap();
    bytes[0] ^= 0xff;
    std::fs::write(&files[0], &bytes).unwrap();
    // Opening quarantines the damaged segment (renames it to `*.seg.bad`).
    drop(Spill::open(cfg(dir.path())).unwrap());
    let mut bad = files[0].clone().into_os_string();
    bad.push(QUARANTINE_SUFFIX);
    // Not segments: a stray `.bad` file and a directory with a quarantined name.
    std::fs::write(dir.path().join("notes.seg.bad"), b"ignored").unwrap();
    std::fs::create_dir(dir.path().join(format!("{}.bad", segment::file_name(99)))).unwrap();

    let info = inspect(dir.path()).unwrap();
    let kinds: Vec<(bool, bool, u64, u64)> = info
        .iter()
        .map(|i| (i.quarantined, i.dead_letter, i.records, i.corrupt))
        .collect();
    assert_eq!(
        kinds,
        vec![
            (false, false, 2, 0),
            (true, false, 0, 1),
            (false, true, 1, 0)
        ]
    );
    assert_eq!(info[1].path, PathBuf::from(&bad));
    assert_eq!(info[1].bytes, bytes.len() as u64);
    assert_eq!(info[1].oldest_ts_nanos, None);

    // 1 segment + 1 quarantined + 1 dead letter; no ACK was ever written.
    assert_eq!(remove_all(dir.path()).unwrap(), 3);
    assert!(!Path::new(&bad).exists());
    assert!(inspect(dir.path()).unwrap().is_empty());
    assert!(dir.path().join("notes.seg.bad").exists());
}

#[test]
fn remove_all_clears_segments_dead_letters_and_ack() {
    let dir = TempDir::new("rm");
    let mut spill = Spill::open(cfg(dir.path())).unwrap();
    spill.append(&recs(0..3)).unwrap();
    spill.seal().unwrap();
    let b = spill.next_batch(1, usize::MAX).unwrap().unwrap();
    spill.ack(b).unwrap();
    spill.append(&recs(3..4)).unwrap();
    spill.dead_letter(&recs(4..5)).unwrap();
    drop(spill);
    // 2 segments + ACK + 1 dead-letter segment.
    assert_eq!(remove_all(dir.path()).unwrap(), 4);
    assert!(inspect(dir.path()).unwrap().is_empty());
    let spill = Spill::open(cfg(dir.path())).unwrap();
    assert!(spill.is_empty());
}
