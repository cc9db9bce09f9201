//! What `ship` cannot deliver goes to the spill (exit 3), and `logship spill ls`,
//! `verify`, `replay` and `rm` show, check, ship and remove it; without spill the loss is
//! counted (exit 1).

mod common;

use common::{messages, run, stderr, stdout, temp_path};
use logship_intake::{Intake, IntakeConfig};

#[test]
fn ship_spills_what_it_cannot_deliver_exits_3_and_spill_replay_ships_it() {
    let dir = temp_path("spill");
    let dir_arg = dir.to_string_lossy().into_owned();
    let n = 120;
    let input: String = (0..n).map(|i| format!("spilled line {i}\n")).collect();
    // The intake is down (nothing listens on port 1).
    let out = run(
        &[
            "ship",
            "--endpoint",
            "http://127.0.0.1:1/logs",
            "--spill-dir",
            &dir_arg,
            "--max-retries",
            "0",
            "--shutdown-timeout-ms",
            "10000",
        ],
        input.as_bytes(),
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert!(
        err.contains(&format!("{n} written to the spill directory")),
        "{err}"
    );

    let ls = run(&["spill", "ls", "--dir", &dir_arg], b"");
    assert!(ls.status.success());
    assert!(
        stdout(&ls).contains(&format!("{n} events waiting for replay")),
        "{}",
        stdout(&ls)
    );
    let verify = run(&["spill", "verify", "--dir", &dir_arg], b"");
    assert!(verify.status.success(), "{}", stdout(&verify));

    let intake = Intake::start(IntakeConfig::default()).expect("start intake");
    let endpoint = intake.url("/logs");
    let replay = run(
        &[
            "spill",
            "replay",
            "--dir",
            &dir_arg,
            "--endpoint",
            &endpoint,
        ],
        b"",
    );
    assert!(replay.status.success(), "{}", stderr(&replay));
    assert!(
        stderr(&replay).contains(&format!("replayed {n} events")),
        "{}",
        stderr(&replay)
    );
    let mut got = messages(&intake);
    got.sort();
    let mut want: Vec<String> = (0..n).map(|i| format!("spilled line {i}")).collect();
    want.sort();
    assert_eq!(got, want);

    let ls = run(&["spill", "ls", "--dir", &dir_arg], b"");
    assert!(
        stdout(&ls).contains("0 events waiting for replay"),
        "{}",
        stdout(&ls)
    );
    let rm = run(&["spill", "rm", "--dir", &dir_arg], b"");
    assert!(rm.status.success(), "{}", stderr(&rm));
}

/// Ships `lines` to an intake that is down (nothing listens on port 1), so they all land
/// in the spill directory `dir`.
fn ship_into_spill(dir: &str, lines: std::ops::Range<u32>) {
    let input: String = lines.map(|i| format!("line {i}\n")).collect();
    let out = run(
        &[
            "ship",
            "--endpoint",
            "http://127.0.0.1:1/logs",
            "--spill-dir",
            dir,
            "--max-retries",
            "0",
        ],
        input.as_bytes(),
    );
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
}

/// A segment file (`*.seg`) of the spill directory `dir`.
fn first_segment(dir: &std::path::Path) -> std::path::PathBuf {
    std::fs::read_dir(dir)
        .expect("spill dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| p.extension().is_some_and(|x| x == "seg"))
        .expect("a segment")
}

/// Flips the bits of `mask` in the byte at `at(file length)` of the file `path`, and
/// returns the damaged bytes.
fn damage(path: &std::path::Path, at: fn(usize) -> usize, mask: u8) -> Vec<u8> {
    let mut bytes = std::fs::read(path).expect("read segment");
    let i = at(bytes.len());
    bytes[i] ^= mask;
    std::fs::write(path, &bytes).expect("write segment");
    bytes
}

#[test]
fn spill_verify_reports_damage_with_exit_1() {
    let dir = temp_path("spill-damaged");
    let dir_arg = dir.to_string_lossy().into_owned();
    ship_into_spill(&dir_arg, 0..50);
    damage(&first_segment(&dir), |len| len / 2, 0x5a);
    let verify = run(&["spill", "verify", "--dir", &dir_arg], b"");
    assert_eq!(verify.status.code(), Some(1), "{}", stdout(&verify));
    assert!(
        stdout(&verify).contains("damaged region"),
        "{}",
        stdout(&verify)
    );
}

#[test]
fn spill_ls_shows_quarantined_segments_and_spill_rm_deletes_them() {
    let dir = temp_path("spill-quarantine");
    let dir_arg = dir.to_string_lossy().into_owned();
    ship_into_spill(&dir_arg, 0..5);
    let seg = first_segment(&dir);
    // Damage the header's magic: the next process to open the directory quarantines
    // the segment.
    let bytes = damage(&seg, |_| 0, 0xff);
    ship_into_spill(&dir_arg, 5..8);
    let bad_name = format!("{}.bad", seg.file_name().expect("name").to_string_lossy());
    assert!(dir.join(&bad_name).exists(), "not quarantined");
    let size = bytes.len();
    assert!(size < 1024, "sized in plain bytes below: {size}");

    let ls = run(&["spill", "ls", "--dir", &dir_arg], b"");
    let table = stdout(&ls);
    assert!(ls.status.success(), "{}", stderr(&ls));
    let row = table
        .lines()
        .find(|l| l.starts_with(&bad_name))
        .unwrap_or_else(|| panic!("no row for {bad_name}:\n{table}"));
    assert!(row.contains("quarantined"), "{row}");
    assert!(row.ends_with(&format!(" {size} B")), "{row}");
    // The live segment is listed as before and only its events wait for replay.
    assert!(
        table.contains("1 segments, 3 events waiting for replay"),
        "{table}"
    );
    assert!(
        table.contains(&format!(
            "1 quarantined segment(s), {size} B on disk: header damaged, never replayed"
        )),
        "{table}"
    );
    assert!(
        table.contains(&format!("logship spill rm --dir {dir_arg}")),
        "{table}"
    );

    // verify names it and fails: its header is damage nobody has dealt with yet.
    let verify = run(&["spill", "verify", "--dir", &dir_arg], b"");
    let report = stdout(&verify);
    assert_eq!(verify.status.code(), Some(1), "{report}");
    assert!(
        report.contains(&format!(
            "{bad_name}: quarantined (header damaged), never replayed"
        )),
        "{report}"
    );
    assert!(report.contains("1 quarantined segment(s)"), "{report}");

    let rm = run(&["spill", "rm", "--dir", &dir_arg], b"");
    assert!(rm.status.success(), "{}", stderr(&rm));
    let verify = run(&["spill", "verify", "--dir", &dir_arg], b"");
    assert!(verify.status.success(), "{}", stdout(&verify));
    assert!(
        !dir.join(&bad_name).exists(),
        "rm left the quarantined segment"
    );
    let ls = run(&["spill", "ls", "--dir", &dir_arg], b"");
    assert!(!stdout(&ls).contains("quarantined"), "{}", stdout(&ls));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn no_spill_counts_undelivered_events_as_failed_with_exit_1() {
    let out = run(
        &[
            "ship",
            "--endpoint",
            "http://127.0.0.1:1/logs",
            "--no-spill",
            "--max-retries",
            "0",
        ],
        b"a\nb\n",
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("shipped 0 of 2 events"), "{err}");
    // The outcome line names the loss and its reason; the report says it is lost.
    assert!(
        err.ends_with("logship: outcome: lost: 2 events rejected by the intake, or undeliverable with no room in the spill\n"),
        "{err}"
    );
    assert!(
        err.contains("gave up on 2 events after 0 retries (lost: spill is off)"),
        "{err}"
    );
}

#[test]
fn the_docs_give_the_exit_code_the_code_uses_when_events_wait_in_the_spill() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let read = |p: &str| std::fs::read_to_string(root.join(p)).expect(p);
    let code = logship_cli::exit::SPILLED;
    let operations = read("docs/operations.md");
    assert!(
        operations.contains(&format!(
            "`logship ship` exits {code} when nothing was lost but some events wait in the spill"
        )),
        "docs/operations.md"
    );
    for doc in ["docs/cli.md", "README.md"] {
        let text = read(doc);
        let row = text
            .lines()
            .find(|l| {
                l.contains("`ship` |") || l.starts_with(&format!("| {code} | nothing was lost"))
            })
            .unwrap_or_else(|| panic!("{doc}: no exit code row"));
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let spilled_cell = if doc == "README.md" {
            assert_eq!(cells[1], code.to_string(), "{doc}: {row}");
            cells[2]
        } else {
            // | command | 0 | 1 | 2 | 3 |: the column of `code`.
            cells[2 + code as usize]
        };
        assert!(
            spilled_cell.contains("wait in the spill"),
            "{doc}: exit {code} must be the spill's: {row}"
        );
    }
}
