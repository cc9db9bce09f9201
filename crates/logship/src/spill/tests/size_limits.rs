//! Size limits: the byte budget holds under both `SpillFull` policies, and what is dropped
//! to keep it is counted exactly, batches in flight included.

use super::*;

#[test]
fn drop_oldest_counts_evicted_records_and_segments_exactly() {
    let dir = TempDir::new("drop-oldest");
    let f = frame_len();
    let mut c = cfg(dir.path());
    c.segment_max_bytes = HEADER_LEN + 2 * f;
    c.max_total_bytes = 3 * (HEADER_LEN + 2 * f);
    let mut spill = Spill::open(c.clone()).unwrap();
    let mut total = AppendOutcome::default();
    for i in 0..10 {
        let out = spill.append(&[rec(i)]).unwrap();
        total.written += out.written;
        total.dropped_records += out.dropped_records;
        total.dropped_segments += out.dropped_segments;
    }
    assert_eq!(
        total,
        AppendOutcome {
            written: 10,
            dropped_records: 4,
            dropped_segments: 2
        }
    );
    let s = spill.stats();
    assert_eq!(
        (s.dropped_records, s.dropped_segments, s.pending_records),
        (4, 2, 6)
    );
    assert!(s.bytes <= c.max_total_bytes);
    assert_eq!(drain(&mut spill, 100), recs(4..10));

    // One call that overflows at once.
    let out = spill.append(&recs(100..110)).unwrap();
    assert_eq!(
        out,
        AppendOutcome {
            written: 10,
            dropped_records: 4,
            dropped_segments: 2
        }
    );
    // A record that cannot fit the whole budget is refused alone.
    let mut huge = rec(0);
    huge.field("pad", "x".repeat(c.max_total_bytes as usize).as_str());
    let out = spill.append(&[huge, rec(110)]).unwrap();
    assert_eq!(out.written, 1);
    assert_eq!(out.dropped_records, 1 + 2);
    assert_eq!(drain(&mut spill, 100), recs(106..111));
    assert!(spill.stats().bytes <= c.max_total_bytes);
}

#[test]
fn drop_newest_refuses_new_records_and_counts_them_exactly() {
    let dir = TempDir::new("drop-newest");
    let f = frame_len();
    let mut c = cfg(dir.path());
    c.segment_max_bytes = HEADER_LEN + 2 * f;
    c.max_total_bytes = 3 * (HEADER_LEN + 2 * f);
    c.full = SpillFull::DropNewest;
    let mut spill = Spill::open(c).unwrap();
    let out = spill.append(&recs(0..4)).unwrap();
    assert_eq!(
        out,
        AppendOutcome {
            written: 4,
            dropped_records: 0,
            dropped_segments: 0
        }
    );
    let out = spill.append(&recs(4..10)).unwrap();
    assert_eq!(
        out,
        AppendOutcome {
            written: 2,
            dropped_records: 4,
            dropped_segments: 0
        }
    );
    let s = spill.stats();
    assert_eq!(
        (s.dropped_records, s.dropped_segments, s.pending_records),
        (4, 0, 6)
    );
    assert_eq!(drain(&mut spill, 100), recs(0..6));
    // Room again once replayed.
    assert_eq!(spill.append(&recs(10..11)).unwrap().written, 1);
}

#[test]
fn evicting_a_segment_with_batches_in_flight_settles_them_without_double_counting() {
    let dir = TempDir::new("evict-inflight");
    let f = frame_len();
    let mut c = cfg(dir.path());
    c.segment_max_bytes = HEADER_LEN + 4 * f;
    c.max_total_bytes = 2 * (HEADER_LEN + 4 * f);
    let mut spill = Spill::open(c).unwrap();
    spill.append(&recs(0..4)).unwrap();
    spill.seal().unwrap();
    let in_flight = spill.next_batch(1, usize::MAX).unwrap().unwrap();
    let refused = spill.next_batch(1, usize::MAX).unwrap().unwrap();
    spill.nack(refused);
    let out = spill.append(&recs(4..9)).unwrap();
    // Segment 1 (0..4) is evicted: 3 records lost (record 0 is in flight).
    assert_eq!((out.dropped_records, out.dropped_segments), (3, 1));
    spill.ack(in_flight).unwrap();
    let s = spill.stats();
    assert_eq!((s.acked_records, s.dropped_records), (1, 3));
    assert_eq!(drain(&mut spill, 100), recs(4..9));
}
