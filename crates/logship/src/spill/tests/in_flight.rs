//! Insurance copies of batches in flight: adopted and replayed after a crash, gone without
//! a trace when the batch settled first.

use super::*;

#[test]
fn copies_left_by_a_crash_are_adopted_and_replayed_after_what_was_spilled() {
    let dir = TempDir::new("in-flight-adopt");
    {
        let mut spill = Spill::open(cfg(dir.path())).unwrap();
        spill.append(&recs(0..3)).unwrap();
        spill.write_in_flight(&recs(3..8)).unwrap();
        spill.write_in_flight(&recs(8..10)).unwrap();
        // The process dies: nothing settles, the copies stay.
    }
    let mut spill = Spill::open(cfg(dir.path())).unwrap();
    count_backlog(&mut spill);
    assert!(
        segment::list(&dir.path().join(crate::spill::in_flight::IN_FLIGHT_DIR))
            .unwrap()
            .is_empty(),
        "every copy was adopted"
    );
    let messages: Vec<String> = drain(&mut spill, 100)
        .iter()
        .map(|r| r.message_str().to_owned())
        .collect();
    let want: Vec<String> = (0..10).map(|i| format!("record {i:06}")).collect();
    assert_eq!(messages, want, "spilled first, then the copies, each once");
}

#[test]
fn a_copy_deleted_after_its_batch_settled_is_never_replayed() {
    let dir = TempDir::new("in-flight-settled");
    {
        let mut spill = Spill::open(cfg(dir.path())).unwrap();
        let copy = spill.write_in_flight(&recs(0..5)).unwrap();
        assert!(copy.starts_with(dir.path().join(crate::spill::in_flight::IN_FLIGHT_DIR)));
        assert_eq!(mode(&copy), 0o600, "private like every segment");
        std::fs::remove_file(copy).unwrap(); // what the sender does once it settled
    }
    let mut spill = Spill::open(cfg(dir.path())).unwrap();
    count_backlog(&mut spill);
    assert!(drain(&mut spill, 100).is_empty());
    assert_eq!(
        spill.stats().written_records,
        0,
        "a copy is not counted as spilled"
    );
}

#[test]
fn a_torn_copy_costs_only_its_damaged_tail() {
    let dir = TempDir::new("in-flight-torn");
    let copy = {
        let mut spill = Spill::open(cfg(dir.path())).unwrap();
        spill.write_in_flight(&recs(0..4)).unwrap()
    };
    // Killed while writing: the last frame is cut short.
    let len = std::fs::metadata(&copy).unwrap().len();
    let file = std::fs::OpenOptions::new().write(true).open(&copy).unwrap();
    file.set_len(len - 3).unwrap();
    drop(file);
    let mut spill = Spill::open(cfg(dir.path())).unwrap();
    count_backlog(&mut spill);
    assert_eq!(drain(&mut spill, 100).len(), 3, "the intact records replay");
}
