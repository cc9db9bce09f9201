//! Opening a spill directory: one owner at a time, private permissions, and the backlog an
//! earlier run left read lazily (headers only at open) and counted exactly once, whether by
//! the background count, by replay getting there first, or after an eviction or a failure.

use super::*;

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
    assert_eq!(mode(&dir.join(progress::ACK_FILE)), 0o600);
    for p in segment_files(&dir)
        .iter()
        .chain(&segment_files(&dir.join(DEAD_DIR)))
    {
        assert_eq!(mode(p), 0o600, "{}", p.display());
    }
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
    let counters = crate::observe::stats::Counters::default();
    let reporter = crate::observe::reporter::Reporter::new(false, None);
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
