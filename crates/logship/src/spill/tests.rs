//! Behaviour of `Spill` as the worker and replayer will use it.
//!
//! Why it exists: at-least-once replay across restarts, damage and byte caps is easy to
//! get subtly wrong; these tests pin it down on real files. Must never: sleep, or assert on
//! timing.

use super::segment::{self, encode_frame, FRAME_HEADER_LEN, HEADER_LEN};
use super::testutil::TempDir;
use super::*;
use crate::record::Level;
use std::collections::HashSet;
use std::os::unix::fs::PermissionsExt;

fn rec(i: u64) -> Record {
    let mut r = Record::new(Level::Info, "spill::test");
    r.set_timestamp_nanos(1_000_000 + i)
        .message(&format!("record {i:06}"))
        .field("i", i);
    r
}

fn recs(range: std::ops::Range<u64>) -> Vec<Record> {
    range.map(rec).collect()
}

/// Bytes of one frame of `rec(i)` (the same for every i below 10^6).
fn frame_len() -> u64 {
    let mut buf = Vec::new();
    assert!(encode_frame(&rec(0), &mut buf));
    buf.len() as u64
}

fn cfg(dir: &Path) -> SpillConfig {
    SpillConfig::new(dir)
}

/// Replays and acknowledges everything, returning the records in the order handed out.
fn drain(spill: &mut Spill, max_records: usize) -> Vec<Record> {
    let mut out = Vec::new();
    while let Some(batch) = spill.next_batch(max_records, usize::MAX).unwrap() {
        assert!(!batch.is_empty());
        assert!(batch.len() <= max_records.max(1));
        out.extend(batch.records().iter().cloned());
        spill.ack(batch).unwrap();
    }
    out
}

/// Counts the segments an earlier run left, as the replayer does after start-up.
fn count_backlog(spill: &mut Spill) {
    while let Some(job) = spill.next_count_job() {
        spill.count_now(&job).unwrap();
    }
}

fn segment_files(dir: &Path) -> Vec<PathBuf> {
    segment::list(dir)
        .unwrap()
        .into_iter()
        .map(|(_, p)| p)
        .collect()
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

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
    assert!(dir.path().join(ack::ACK_FILE).exists());
    assert!(!dir.path().join(ack::ACK_TMP).exists());
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

#[test]
fn a_second_open_is_locked_until_the_first_is_dropped() {
    let dir = TempDir::new("locked");
    let first = Spill::open(cfg(dir.path())).unwrap();
    let err = Spill::open(cfg(dir.path())).unwrap_err();
    assert!(matches!(&err, SpillError::Locked { dir: d } if d == dir.path()));
    let msg = err.to_string();
    assert!(msg.contains("another logship process"), "{msg}");
    assert!(msg.contains("spill_dir"), "{msg}");
    assert!(msg.contains(&dir.path().display().to_string()), "{msg}");
    assert!(matches!(
        remove_all(dir.path()),
        Err(SpillError::Locked { .. })
    ));
    drop(first);
    Spill::open(cfg(dir.path())).unwrap();
}

#[test]
fn directories_are_0700_and_files_0600() {
    let parent = TempDir::new("modes");
    let dir = parent.path().join("spill");
    let mut spill = Spill::open(cfg(&dir)).unwrap();
    spill.append(&recs(0..3)).unwrap();
    spill.dead_letter(&recs(3..4)).unwrap();
    let b = spill.next_batch(1, usize::MAX).unwrap().unwrap();
    spill.ack(b).unwrap();
    assert_eq!(mode(&dir), 0o700);
    assert_eq!(mode(&dir.join(DEAD_DIR)), 0o700);
    assert_eq!(mode(&dir.join(lock::LOCK_FILE)), 0o600);
    assert_eq!(mode(&dir.join(ack::ACK_FILE)), 0o600);
    for p in segment_files(&dir)
        .iter()
        .chain(&segment_files(&dir.join(DEAD_DIR)))
    {
        assert_eq!(mode(p), 0o600, "{}", p.display());
    }
}

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

#[test]
fn ack_file_is_replaced_by_rename_and_stale_entries_do_not_skip_new_segments() {
    let dir = TempDir::new("ackfile");
    let c = cfg(dir.path());
    // An ACK entry for a segment that no longer exists (deleted after the ACK was written).
    ack::store(
        dir.path(),
        [(
            5,
            ack::AckEntry {
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
    assert!(!dir.path().join(ack::ACK_TMP).exists());
    let entries = ack::load(dir.path()).unwrap();
    assert_eq!(entries.keys().copied().collect::<Vec<_>>(), vec![6]);
    assert_eq!(entries[&6].frames, 2);
    drop(spill);
    // A leftover temp file from a crash is ignored and removed.
    std::fs::write(dir.path().join(ack::ACK_TMP), b"junk").unwrap();
    let mut spill = Spill::open(c).unwrap();
    assert!(!dir.path().join(ack::ACK_TMP).exists());
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
    ack::store(
        dir.path(),
        [(
            1,
            ack::AckEntry {
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

/// Three segments of 10 records from an earlier run: the first with 4 records acknowledged,
/// the second with a torn tail, the third with a damaged record in the middle.
fn backlog_of_earlier_run(dir: &Path) -> SpillConfig {
    let mut c = cfg(dir);
    c.segment_max_bytes = HEADER_LEN + 10 * frame_len();
    let mut spill = Spill::open(c.clone()).unwrap();
    spill.append(&recs(0..30)).unwrap();
    spill.seal().unwrap();
    let b = spill.next_batch(4, usize::MAX).unwrap().unwrap();
    spill.ack(b).unwrap();
    drop(spill);
    let files = segment_files(dir);
    assert_eq!(files.len(), 3);
    let len = std::fs::metadata(&files[1]).unwrap().len();
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&files[1])
        .unwrap();
    f.set_len(len - frame_len() / 2).unwrap(); // record 19 torn
    let mut bytes = std::fs::read(&files[2]).unwrap();
    bytes[(HEADER_LEN + 5 * frame_len() + FRAME_HEADER_LEN + 3) as usize] ^= 0x20; // record 25
    std::fs::write(&files[2], &bytes).unwrap();
    c
}

#[test]
fn open_reads_only_headers_and_the_backlog_is_counted_later_exactly_once() {
    let dir = TempDir::new("lazy-open");
    let c = backlog_of_earlier_run(dir.path());
    let mut spill = Spill::open(c).unwrap();
    // Nothing past the headers was read: no segment is counted, the damage is not found yet.
    assert!(spill.store.sealed.iter().all(|s| !s.records_known));
    assert_eq!(spill.store.sealed.len(), 3);
    let s = spill.stats();
    assert_eq!(
        (s.pending_records, s.corrupt_records, s.segments),
        (0, 0, 3)
    );
    assert!(!spill.is_empty(), "segments not counted yet are not empty");
    // The oldest first, from the end of its acknowledged prefix.
    let job = spill.next_count_job().unwrap();
    assert_eq!((job.id, job.from), (1, HEADER_LEN + 4 * frame_len()));

    count_backlog(&mut spill);
    assert!(spill.store.sealed.iter().all(|s| s.records_known));
    let s = spill.stats();
    assert_eq!((s.pending_records, s.corrupt_records), (30 - 4 - 2, 2));
    let expected: Vec<Record> = (4..30).filter(|i| ![19, 25].contains(i)).map(rec).collect();
    assert_eq!(drain(&mut spill, 3), expected);
    let s = spill.stats();
    assert_eq!(
        (s.pending_records, s.corrupt_records, s.segments),
        (0, 2, 0)
    );
    assert!(
        segment_files(dir.path()).is_empty(),
        "finished segments deleted"
    );
}

#[test]
fn replay_counts_a_segment_first_when_it_gets_there_before_the_background_count() {
    let dir = TempDir::new("lazy-replay-first");
    let c = backlog_of_earlier_run(dir.path());
    let mut spill = Spill::open(c).unwrap();
    let job = match spill.next_step(100, usize::MAX).unwrap() {
        reader::Step::Count(job) => job,
        other => panic!("expected a count first, got {other:?}"),
    };
    assert_eq!(job.id, 1);
    // The count runs without the spill (as the pipeline does, off the lock); appends go on.
    let totals = job.run(&|| false).unwrap().unwrap();
    spill.append(&recs(30..31)).unwrap();
    spill.publish_count(&job, Ok(totals)).unwrap();
    // Published twice (a second replayer counted it too): ignored.
    spill.publish_count(&job, Ok(totals)).unwrap();
    assert_eq!(spill.stats().pending_records, 6 + 1);
    let mut expected: Vec<Record> = (4..30).filter(|i| ![19, 25].contains(i)).map(rec).collect();
    expected.push(rec(30));
    assert_eq!(drain(&mut spill, 4), expected);
    assert_eq!(spill.stats().corrupt_records, 2);
}

#[test]
fn a_backlog_segment_evicted_before_it_is_counted_is_counted_once() {
    let dir = TempDir::new("lazy-evict");
    let mut c = backlog_of_earlier_run(dir.path());
    let on_disk = spill_bytes(dir.path());
    c.max_total_bytes = on_disk + frame_len();
    let mut spill = Spill::open(c).unwrap();
    let job = spill.next_count_job().unwrap();
    let totals = job.run(&|| false).unwrap().unwrap();
    // Two more records need room: the oldest segment (6 records not acknowledged) goes.
    let out = spill.append(&recs(30..32)).unwrap();
    assert_eq!(
        (out.written, out.dropped_records, out.dropped_segments),
        (2, 6, 1)
    );
    // The count taken before the eviction finds its segment gone: nothing counted twice.
    spill.publish_count(&job, Ok(totals)).unwrap();
    count_backlog(&mut spill);
    let s = spill.stats();
    assert_eq!((s.pending_records, s.corrupt_records), (9 + 9 + 2, 2));
    let mut expected: Vec<Record> = (10..30)
        .filter(|i| ![19, 25].contains(i))
        .map(rec)
        .collect();
    expected.extend(recs(30..32));
    assert_eq!(drain(&mut spill, 5), expected);
}

#[test]
fn a_failed_count_leaves_the_segment_to_replay_which_still_counts_everything() {
    let dir = TempDir::new("lazy-count-error");
    let c = backlog_of_earlier_run(dir.path());
    let mut spill = Spill::open(c).unwrap();
    while let Some(job) = spill.next_count_job() {
        let failed = Err(io::Error::other("disk error"));
        assert!(spill.publish_count(&job, failed).is_err());
    }
    assert_eq!(spill.stats().pending_records, 0, "not counted");
    let expected: Vec<Record> = (4..30).filter(|i| ![19, 25].contains(i)).map(rec).collect();
    assert_eq!(drain(&mut spill, 4), expected);
    let s = spill.stats();
    assert_eq!(
        (s.pending_records, s.corrupt_records, s.segments),
        (0, 2, 0)
    );
}

#[test]
fn the_handle_counts_the_backlog_and_stops_when_asked() {
    let dir = TempDir::new("lazy-handle");
    let c = backlog_of_earlier_run(dir.path());
    let handle = handle::SpillHandle::new(Spill::open(c).unwrap());
    let counters = crate::stats::Counters::default();
    let reporter = crate::reporter::Reporter::new(false, None);
    assert!(!handle.count_backlog(&|| true, &counters, &reporter));
    assert_eq!(
        handle.stats().pending_records,
        0,
        "stopped: nothing published"
    );
    assert!(handle.count_backlog(&|| false, &counters, &reporter));
    let s = handle.stats();
    assert_eq!((s.pending_records, s.corrupt_records), (24, 2));
    assert!(!handle.wait_until_drained(std::time::Instant::now()));
}

fn spill_bytes(dir: &Path) -> u64 {
    segment_files(dir)
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().len())
        .sum()
}
