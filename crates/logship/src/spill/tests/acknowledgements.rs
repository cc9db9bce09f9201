//! Acknowledgements: what was acknowledged is never replayed again, what was refused or not
//! acknowledged is, across restarts, and the ACK file itself survives a crash at any point.

use super::*;

#[test]
fn reopening_replays_unacknowledged_records_and_skips_acknowledged_ones() {
    let dir = TempDir::new("reopen");
    let mut c = cfg(dir.path());
    c.segment_max_bytes = HEADER_LEN + 10 * frame_len();
    {
        let mut spill = Spill::open(c.clone()).unwrap();
        spill.append(&recs(0..25)).unwrap();
        spill.seal().unwrap();
        let b1 = spill.next_batch(4, usize::MAX).unwrap().unwrap(); // 0..4
        let b2 = spill.next_batch(4, usize::MAX).unwrap().unwrap(); // 4..8
        let b3 = spill.next_batch(4, usize::MAX).unwrap().unwrap(); // 8..10
        assert_eq!(
            b3.records(),
            &recs(8..10)[..],
            "a batch never spans segments"
        );
        let b4 = spill.next_batch(4, usize::MAX).unwrap().unwrap(); // 10..14
        spill.ack(b1).unwrap();
        spill.ack(b3).unwrap(); // out of order: prefix stays at 4 until b2 settles
        spill.ack(b4).unwrap();
        drop(b2); // in flight when the process "crashes"
        spill.append(&recs(25..27)).unwrap(); // never sealed explicitly
        assert_eq!(spill.stats().pending_records, 27 - 10);
    }
    let mut spill = Spill::open(c.clone()).unwrap();
    count_backlog(&mut spill);
    assert_eq!(spill.stats().pending_records, 27 - 8);
    assert_eq!(spill.stats().corrupt_records, 0);
    let mut expected = recs(4..10);
    expected.extend(recs(14..27));
    let b = spill.next_batch(100, usize::MAX).unwrap().unwrap();
    assert_eq!(b.records(), &recs(4..10)[..]);
    spill.ack(b).unwrap();
    let b = spill.next_batch(3, usize::MAX).unwrap().unwrap();
    assert_eq!(b.records(), &recs(14..17)[..]);
    spill.ack(b).unwrap();
    drop(spill);

    let mut spill = Spill::open(c).unwrap();
    assert_eq!(drain(&mut spill, 5), recs(17..27));
    assert!(spill.is_empty());
    assert!(segment_files(dir.path()).is_empty());
}

#[test]
fn refused_batches_are_handed_out_again_before_newer_records() {
    let dir = TempDir::new("nack");
    let mut spill = Spill::open(cfg(dir.path())).unwrap();
    spill.append(&recs(0..10)).unwrap();
    let b1 = spill.next_batch(3, usize::MAX).unwrap().unwrap();
    let b2 = spill.next_batch(3, usize::MAX).unwrap().unwrap();
    assert_eq!(
        b2.records(),
        &recs(3..6)[..],
        "in-flight records are not repeated"
    );
    spill.nack(b1);
    assert_eq!(spill.stats().pending_records, 10);
    let again = spill.next_batch(2, usize::MAX).unwrap().unwrap();
    assert_eq!(again.records(), &recs(0..2)[..]);
    spill.ack(b2).unwrap();
    spill.ack(again).unwrap();
    assert_eq!(
        drain(&mut spill, 100),
        recs(2..3)
            .into_iter()
            .chain(recs(6..10))
            .collect::<Vec<_>>()
    );
    assert!(spill.is_empty());
    assert!(segment_files(dir.path()).is_empty());
    assert_eq!(spill.stats().acked_records, 10);
}

#[test]
fn ack_file_is_replaced_by_rename_and_stale_entries_do_not_skip_new_segments() {
    let dir = TempDir::new("ackfile");
    let c = cfg(dir.path());
    // An ACK entry for a segment that no longer exists (deleted after the ACK was written).
    progress::store(
        dir.path(),
        [(
            5,
            progress::SegmentProgress {
                frames: 3,
                offset: 999,
            },
        )],
    )
    .unwrap();
    let mut spill = Spill::open(c.clone()).unwrap();
    spill.append(&recs(0..4)).unwrap();
    spill.seal().unwrap();
    let ids: Vec<u64> = segment::list(dir.path())
        .unwrap()
        .iter()
        .map(|(id, _)| *id)
        .collect();
    assert_eq!(ids, vec![6], "ids continue past those in the ACK file");
    let b = spill.next_batch(2, usize::MAX).unwrap().unwrap();
    spill.ack(b).unwrap();
    assert!(!dir.path().join(progress::ACK_TMP).exists());
    let entries = progress::load(dir.path()).unwrap();
    assert_eq!(entries.keys().copied().collect::<Vec<_>>(), vec![6]);
    assert_eq!(entries[&6].frames, 2);
    drop(spill);
    // A leftover temp file from a crash is ignored and removed.
    std::fs::write(dir.path().join(progress::ACK_TMP), b"junk").unwrap();
    let mut spill = Spill::open(c).unwrap();
    assert!(!dir.path().join(progress::ACK_TMP).exists());
    assert_eq!(drain(&mut spill, 10), recs(2..4));
}

#[test]
fn fully_acknowledged_leftovers_are_deleted_at_open() {
    let dir = TempDir::new("leftover");
    let c = cfg(dir.path());
    let mut spill = Spill::open(c.clone()).unwrap();
    spill.append(&recs(0..3)).unwrap();
    drop(spill);
    let path = segment_files(dir.path()).remove(0);
    let len = std::fs::metadata(&path).unwrap().len();
    // As if the process died between writing the ACK file and unlinking the segment.
    progress::store(
        dir.path(),
        [(
            1,
            progress::SegmentProgress {
                frames: 3,
                offset: len,
            },
        )],
    )
    .unwrap();
    let spill = Spill::open(c).unwrap();
    assert!(spill.is_empty());
    assert!(!path.exists());
}
