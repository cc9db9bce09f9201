//! Dead letters: records the intake refused for good land in `dead/`, within their own
//! budget, and are never replayed.

use super::*;

#[test]
fn dead_letters_land_in_dead_and_are_never_replayed() {
    let dir = TempDir::new("dead");
    let mut c = cfg(dir.path());
    c.max_total_bytes = 8 * 4 * (HEADER_LEN + frame_len()); // dead budget: 4 one-record segs
    c.segment_max_bytes = HEADER_LEN + frame_len();
    let mut spill = Spill::open(c.clone()).unwrap();
    spill.dead_letter(&recs(0..3)).unwrap();
    assert!(spill.next_batch(10, usize::MAX).unwrap().is_none());
    assert!(spill.is_empty());
    let s = spill.stats();
    assert_eq!((s.dead_letter_records, s.segments), (3, 0));
    drop(spill);

    let info = inspect(dir.path()).unwrap();
    assert_eq!(info.len(), 3);
    assert!(info
        .iter()
        .all(|i| i.dead_letter && i.records == 1 && i.corrupt == 0));
    assert_eq!(info[0].oldest_ts_nanos, Some(rec(0).timestamp_nanos()));
    assert_eq!(info[2].newest_ts_nanos, Some(rec(2).timestamp_nanos()));

    // The dead-letter budget applies across restarts (old segments counted when evicted).
    let mut spill = Spill::open(c).unwrap();
    spill.dead_letter(&recs(3..6)).unwrap();
    let s = spill.stats();
    assert_eq!(
        (s.dead_letter_records, s.dead_letter_dropped_records),
        (3, 2)
    );
    assert_eq!(segment_files(&dir.path().join(DEAD_DIR)).len(), 4);
}
