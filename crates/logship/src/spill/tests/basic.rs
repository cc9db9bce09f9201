//! The basic promise: what is appended comes back, in order, once, and a segment is
//! deleted when everything in it is acknowledged; segments rotate at their size; batches
//! keep to their byte cap; every fsync policy round-trips.

use super::*;

#[test]
fn append_seal_replay_ack_returns_every_record_in_order_and_deletes_segments() {
    let dir = TempDir::new("roundtrip");
    let mut c = cfg(dir.path());
    c.segment_max_bytes = HEADER_LEN + 10 * frame_len();
    let mut spill = Spill::open(c).unwrap();
    for chunk in recs(0..95).chunks(7) {
        let out = spill.append(chunk).unwrap();
        assert_eq!(out.written, chunk.len());
        assert_eq!((out.dropped_records, out.dropped_segments), (0, 0));
    }
    spill.seal().unwrap();
    assert_eq!(segment_files(dir.path()).len(), 10);
    let s = spill.stats();
    assert_eq!(
        (s.segments, s.pending_records, s.written_records),
        (10, 95, 95)
    );
    assert!(!spill.is_empty());

    assert_eq!(drain(&mut spill, 4), recs(0..95));
    assert!(spill.is_empty());
    assert!(segment_files(dir.path()).is_empty());
    let s = spill.stats();
    assert_eq!((s.segments, s.pending_records, s.bytes), (0, 0, 0));
    assert_eq!((s.acked_records, s.corrupt_records), (95, 0));
    assert!(dir.path().join(progress::ACK_FILE).exists());
    assert!(!dir.path().join(progress::ACK_TMP).exists());
}

#[test]
fn segments_rotate_before_exceeding_segment_max_bytes() {
    let dir = TempDir::new("rotate");
    let mut c = cfg(dir.path());
    c.segment_max_bytes = HEADER_LEN + 3 * frame_len();
    let mut spill = Spill::open(c.clone()).unwrap();
    spill.append(&recs(0..4)).unwrap();
    spill.append(&recs(4..10)).unwrap();
    spill.seal().unwrap();
    let files = segment_files(dir.path());
    let sizes: Vec<u64> = files
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().len())
        .collect();
    let full = c.segment_max_bytes;
    assert_eq!(sizes, vec![full, full, full, HEADER_LEN + frame_len()]);
    let info = inspect(dir.path()).unwrap();
    let counts: Vec<u64> = info.iter().map(|i| i.records).collect();
    assert_eq!(counts, vec![3, 3, 3, 1]);
    assert_eq!(spill.stats().bytes, sizes.iter().sum::<u64>());

    // A record larger than a segment still goes in, alone.
    let mut big = rec(99);
    big.field("pad", "x".repeat(4 * frame_len() as usize).as_str());
    assert_eq!(spill.append(&[big.clone(), rec(100)]).unwrap().written, 2);
    spill.seal().unwrap();
    let mut expected = recs(0..10);
    expected.extend([big, rec(100)]);
    assert_eq!(drain(&mut spill, 100), expected);
}

#[test]
fn batches_respect_max_bytes_but_always_carry_one_record() {
    let dir = TempDir::new("maxbytes");
    let mut spill = Spill::open(cfg(dir.path())).unwrap();
    spill.append(&recs(0..10)).unwrap();
    let size = rec(0).size();
    let b = spill.next_batch(100, 3 * size).unwrap().unwrap();
    assert_eq!(b.len(), 3);
    spill.ack(b).unwrap();
    let b = spill.next_batch(100, 1).unwrap().unwrap();
    assert_eq!(b.records(), &recs(3..4)[..]);
    spill.ack(b).unwrap();
    assert_eq!(drain(&mut spill, 100), recs(4..10));
}

#[test]
fn replay_reads_only_sealed_segments_while_appends_continue() {
    let dir = TempDir::new("concurrent");
    let mut c = cfg(dir.path());
    c.segment_max_bytes = HEADER_LEN + 4 * frame_len();
    let mut spill = Spill::open(c).unwrap();
    spill.append(&recs(0..6)).unwrap(); // sealed 0..4, being written 4..6
    let b = spill.next_batch(100, usize::MAX).unwrap().unwrap();
    assert_eq!(
        b.records(),
        &recs(0..4)[..],
        "the segment being written is not read"
    );
    spill.ack(b).unwrap();
    let b = spill.next_batch(100, usize::MAX).unwrap().unwrap();
    assert_eq!(
        b.records(),
        &recs(4..6)[..],
        "sealed on demand when nothing else is left"
    );
    spill.ack(b).unwrap();
    assert!(spill.next_batch(100, usize::MAX).unwrap().is_none());

    // Interleaved appends, deliveries and refusals: every record delivered once, in order.
    let mut delivered = recs(0..6);
    let mut next = 6;
    for round in 0..60u64 {
        let n = round % 5 + 1;
        spill.append(&recs(next..next + n)).unwrap();
        next += n;
        if let Some(b) = spill.next_batch(3, usize::MAX).unwrap() {
            if round % 3 == 0 {
                spill.nack(b);
            } else {
                delivered.extend(b.records().iter().cloned());
                spill.ack(b).unwrap();
            }
        }
    }
    delivered.extend(drain(&mut spill, 3));
    assert_eq!(delivered, recs(0..next));
    assert!(spill.is_empty());
    assert_eq!(spill.stats().acked_records, next);
    assert!(segment_files(dir.path()).is_empty());
}

#[test]
fn fsync_policies_all_round_trip() {
    for fsync in [
        SpillFsync::Always,
        SpillFsync::Never,
        SpillFsync::OnSegmentClose,
    ] {
        let dir = TempDir::new("fsync");
        let mut c = cfg(dir.path());
        c.fsync = fsync;
        c.segment_max_bytes = HEADER_LEN + 3 * frame_len();
        let mut spill = Spill::open(c).unwrap();
        spill.append(&recs(0..5)).unwrap();
        spill.append(&recs(5..8)).unwrap();
        assert_eq!(drain(&mut spill, 2), recs(0..8), "{fsync:?}");
    }
}
