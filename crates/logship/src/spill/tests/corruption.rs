//! Damage on disk: a torn tail or flipped bytes cost only the damaged records, which are
//! counted; random damage never panics nor invents a record; a damaged header quarantines
//! its segment instead of refusing to open.

use super::*;

#[test]
fn a_torn_tail_costs_only_the_torn_record() {
    let dir = TempDir::new("torn");
    let c = cfg(dir.path());
    let mut spill = Spill::open(c.clone()).unwrap();
    spill.append(&recs(0..10)).unwrap();
    drop(spill);
    let path = segment_files(dir.path()).remove(0);
    let len = std::fs::metadata(&path).unwrap().len();
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.set_len(len - frame_len() / 2).unwrap();
    drop(f);

    let mut spill = Spill::open(c).unwrap();
    count_backlog(&mut spill);
    assert_eq!(spill.stats().corrupt_records, 1);
    assert_eq!(spill.stats().pending_records, 9);
    assert_eq!(drain(&mut spill, 4), recs(0..9));
    assert_eq!(spill.stats().corrupt_records, 1, "counted once");
    assert!(segment_files(dir.path()).is_empty());
}

#[test]
fn flipped_bytes_in_the_middle_cost_only_the_damaged_records() {
    let dir = TempDir::new("flip");
    let c = cfg(dir.path());
    let mut spill = Spill::open(c.clone()).unwrap();
    spill.append(&recs(0..20)).unwrap();
    drop(spill);
    let path = segment_files(dir.path()).remove(0);
    let mut bytes = std::fs::read(&path).unwrap();
    let f = frame_len() as usize;
    let h = HEADER_LEN as usize;
    bytes[h + 5 * f + 20] ^= 0xff; // payload of record 5
    bytes[h + 12 * f + 1] ^= 0x01; // frame magic of record 12
    bytes[h + 13 * f + 5] ^= 0x80; // length of record 13 (adjacent: same region)
    std::fs::write(&path, &bytes).unwrap();

    let mut spill = Spill::open(c).unwrap();
    count_backlog(&mut spill);
    assert_eq!(spill.stats().corrupt_records, 2);
    let expected: Vec<Record> = (0..20)
        .filter(|i| ![5, 12, 13].contains(i))
        .map(rec)
        .collect();
    assert_eq!(drain(&mut spill, 6), expected);
    assert_eq!(spill.stats().corrupt_records, 2);
}

#[test]
fn corruption_in_a_segment_written_by_this_process_is_counted_during_replay() {
    let dir = TempDir::new("flip-live");
    let mut spill = Spill::open(cfg(dir.path())).unwrap();
    spill.append(&recs(0..10)).unwrap();
    spill.seal().unwrap();
    let path = segment_files(dir.path()).remove(0);
    let mut bytes = std::fs::read(&path).unwrap();
    let at = (HEADER_LEN + 3 * frame_len() + FRAME_HEADER_LEN + 2) as usize;
    bytes[at] ^= 0x10;
    std::fs::write(&path, &bytes).unwrap();
    let expected: Vec<Record> = (0..10).filter(|&i| i != 3).map(rec).collect();
    assert_eq!(drain(&mut spill, 4), expected);
    let s = spill.stats();
    assert_eq!(
        (s.corrupt_records, s.pending_records, s.segments),
        (1, 0, 0)
    );
}

#[test]
fn random_corruption_never_panics_nor_invents_records() {
    let dir = TempDir::new("fuzz");
    let written = recs(0..40);
    let original = {
        let mut spill = Spill::open(cfg(dir.path())).unwrap();
        spill.append(&written).unwrap();
        drop(spill);
        let path = segment_files(dir.path()).remove(0);
        let bytes = std::fs::read(&path).unwrap();
        std::fs::remove_file(path).unwrap();
        bytes
    };
    let known: HashSet<Vec<u8>> = written
        .iter()
        .map(|r| {
            let mut b = Vec::new();
            r.to_bytes(&mut b);
            b
        })
        .collect();
    let mut rng = fastrand::Rng::with_seed(0x5eed);
    for round in 0..300 {
        let mut bytes = original.clone();
        for _ in 0..rng.usize(1..6) {
            match rng.u8(0..6) {
                0 => {
                    let at = rng.usize(..bytes.len().max(1));
                    if let Some(b) = bytes.get_mut(at) {
                        *b ^= 1 << rng.u8(0..8);
                    }
                }
                1 => bytes.truncate(rng.usize(..=bytes.len())),
                2 => {
                    let at = rng.usize(..=bytes.len());
                    let junk: Vec<u8> = (0..rng.usize(1..40)).map(|_| rng.u8(..)).collect();
                    bytes.splice(at..at, junk);
                }
                3 => {
                    let a = rng.usize(..=bytes.len());
                    let b = rng.usize(a..=bytes.len());
                    bytes[a..b].fill(0);
                }
                4 => {
                    // Duplicate a region (records may come back twice: still written ones).
                    let a = rng.usize(..=bytes.len());
                    let b = rng.usize(a..=bytes.len().min(a + 300));
                    let copy = bytes[a..b].to_vec();
                    let at = rng.usize(..=bytes.len());
                    bytes.splice(at..at, copy);
                }
                _ => {
                    // Plant a frame magic with a huge length.
                    let at = rng.usize(..=bytes.len());
                    let mut fake = segment::FRAME_MAGIC.to_le_bytes().to_vec();
                    fake.extend_from_slice(&rng.u32(..).to_le_bytes());
                    bytes.splice(at..at, fake);
                }
            }
        }
        let case = dir.path().join(format!("case-{round}"));
        std::fs::create_dir(&case).unwrap();
        std::fs::write(case.join(segment::file_name(1)), &bytes).unwrap();
        for info in inspect(&case).unwrap() {
            assert!(info.records <= 80);
        }
        let mut spill = Spill::open(cfg(&case)).unwrap();
        count_backlog(&mut spill);
        let pending = spill.stats().pending_records;
        let got = drain(&mut spill, 7);
        assert_eq!(got.len() as u64, pending, "round {round}");
        for r in &got {
            let mut b = Vec::new();
            r.to_bytes(&mut b);
            assert!(known.contains(&b), "round {round}: invented {r:?}");
        }
        assert!(spill.is_empty());
        drop(spill);
        std::fs::remove_dir_all(&case).unwrap();
    }
}

#[test]
fn damaged_headers_are_quarantined_not_fatal() {
    let dir = TempDir::new("quarantine");
    let c = cfg(dir.path());
    let mut spill = Spill::open(c.clone()).unwrap();
    spill.append(&recs(0..3)).unwrap();
    spill.seal().unwrap();
    spill.append(&recs(3..6)).unwrap();
    drop(spill);
    let files = segment_files(dir.path());
    let mut bytes = std::fs::read(&files[0]).unwrap();
    bytes[2] = b'?';
    std::fs::write(&files[0], &bytes).unwrap();
    std::fs::write(dir.path().join(segment::file_name(77)), b"LGS").unwrap();

    let mut spill = Spill::open(c).unwrap();
    assert_eq!(spill.stats().corrupt_records, 2);
    assert_eq!(drain(&mut spill, 10), recs(3..6));
    let mut bad = files[0].clone().into_os_string();
    bad.push(".bad");
    assert!(Path::new(&bad).exists());
    // New segments get ids past every name seen, quarantined ones included.
    spill.append(&recs(6..7)).unwrap();
    spill.seal().unwrap();
    let ids: Vec<u64> = segment::list(dir.path())
        .unwrap()
        .iter()
        .map(|(id, _)| *id)
        .collect();
    assert_eq!(ids, vec![78]);
    drop(spill);
    std::fs::remove_file(dir.path().join(segment::file_name(78))).unwrap();
    // ... and in later runs too.
    let mut spill = Spill::open(cfg(dir.path())).unwrap();
    spill.append(&recs(7..8)).unwrap();
    spill.seal().unwrap();
    let ids: Vec<u64> = segment::list(dir.path())
        .unwrap()
        .iter()
        .map(|(id, _)| *id)
        .collect();
    assert_eq!(ids, vec![78]);
}
