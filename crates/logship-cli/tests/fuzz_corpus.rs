//! Every committed fuzz input, replayed on stable Rust: the seed corpora
//! (`fuzz/corpus/<target>/`) and the inputs that once found a bug
//! (`fuzz/regressions/<target>/`) run through the same check functions the `cargo fuzz`
//! targets call (`fuzz/checks/`), so each file is a regression test of `cargo test`.
//!
//! Why here: the checks drive the library's parsers through `logship::fuzzing` (feature
//! `fuzzing`) and the CLI's line reader (`src/lines.rs`), and this crate's dev-dependency
//! on `logship` turns that feature on for tests only. Must never: skip a file, or pass
//! when a target's corpus directory is missing or empty.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

#[path = "../../../fuzz/checks/mod.rs"]
mod checks;
#[path = "../src/lines.rs"]
#[allow(dead_code)]
mod lines;

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// The files of `dir`, sorted (none when it does not exist).
fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .map(|e| e.expect("read a corpus entry").path())
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out
}

/// Runs every corpus and regression file of `target`; fails naming each file that fails.
fn replay(target: &str) {
    let check = checks::TARGETS
        .iter()
        .find(|(name, _)| *name == target)
        .map(|(_, f)| *f)
        .expect("a target of that name");
    let corpus = files(&fuzz_dir().join("corpus").join(target));
    assert!(
        !corpus.is_empty(),
        "fuzz/corpus/{target}/ is missing or empty"
    );
    let regressions = files(&fuzz_dir().join("regressions").join(target));
    let mut failed = Vec::new();
    for path in corpus.iter().chain(&regressions) {
        let data = std::fs::read(path).expect("read a corpus file");
        if catch_unwind(AssertUnwindSafe(|| check(&data))).is_err() {
            failed.push(path.display().to_string());
        }
    }
    assert!(failed.is_empty(), "{target}: failing inputs: {failed:#?}");
}

#[test]
fn every_target_has_a_replay_test() {
    let here = include_str!("fuzz_corpus.rs");
    for (name, _) in checks::TARGETS {
        assert!(
            here.contains(&format!("fn {name}()")),
            "no replay test for {name}"
        );
    }
}

#[test]
fn spill_segment() {
    replay("spill_segment");
}

#[test]
fn spill_ack() {
    replay("spill_ack");
}

#[test]
fn retry_after() {
    replay("retry_after");
}

#[test]
fn answers() {
    replay("answers");
}

#[test]
fn otlp_protobuf_answer() {
    replay("otlp_protobuf_answer");
}

#[test]
fn config() {
    replay("config");
}

#[test]
fn cli_lines() {
    replay("cli_lines");
}

#[test]
fn http_request() {
    replay("http_request");
}

#[test]
fn otlp_cost() {
    replay("otlp_cost");
}

#[test]
fn json_flatten() {
    replay("json_flatten");
}

/// Rewrites the generated seed files (`LOGSHIP_FUZZ_SEEDS=1 cargo test -p logship-cli
/// --test fuzz_corpus -- --ignored write_seeds`): segments and ACK files framed by the
/// library's own encoder, with ACK offsets at real frame boundaries, mid-frame and past
/// the end. The hand-written seeds (answers, configuration, lines) are not touched.
#[test]
#[ignore = "writes the seed corpora; run by hand when the spill format changes"]
fn write_seeds() {
    if std::env::var_os("LOGSHIP_FUZZ_SEEDS").is_none() {
        return;
    }
    let corpus = fuzz_dir().join("corpus");
    let write = |target: &str, name: &str, data: &[u8]| {
        let dir = corpus.join(target);
        std::fs::create_dir_all(&dir).expect("create a corpus directory");
        std::fs::write(dir.join(name), data).expect("write a seed");
    };
    // Record descriptions for `checks::records`: op byte, then its operands.
    let mut desc = Vec::new();
    for i in 0u8..6 {
        desc.extend_from_slice(&[i * 4, 8]);
        desc.extend_from_slice(b"app::svc");
        desc.extend_from_slice(&(1_795_960_800_000_000_000u64 + u64::from(i)).to_le_bytes());
        desc.extend_from_slice(&[1, 11]);
        desc.extend_from_slice(b"order place");
        desc.extend_from_slice(&[2 + 4, 5]);
        desc.extend_from_slice(b"order");
        desc.extend_from_slice(&u64::from(i).to_le_bytes());
        desc.extend_from_slice(&[3, 4]);
        desc.extend_from_slice(b"http");
        desc.extend_from_slice(&[2, 6]);
        desc.extend_from_slice(b"method");
        desc.extend_from_slice(&[3]);
        desc.extend_from_slice(b"GET");
    }
    let recs = checks::records::from_bytes(&desc, 16);
    let mut file = Vec::from(*logship::fuzzing::SEGMENT_FILE_MAGIC);
    file.extend_from_slice(&1u32.to_le_bytes());
    for r in &recs {
        assert!(logship::fuzzing::encode_frame(r, &mut file));
    }
    write(
        "spill_segment",
        "segment-6-records",
        &[&[0u8][..], &file].concat(),
    );
    write(
        "spill_segment",
        "segment-torn-tail",
        &[&[0u8][..], &file[..file.len() - 9]].concat(),
    );
    let mut flipped = file.clone();
    flipped[40] ^= 0x20;
    write(
        "spill_segment",
        "segment-flipped",
        &[&[0u8][..], &flipped].concat(),
    );
    write(
        "spill_segment",
        "records-cut",
        &[&[1u8, 77, 0, 0, 0][..], &desc].concat(),
    );
    write(
        "spill_segment",
        "records-flip",
        &[&[3u8 | 0x40, 99, 0, 0, 0][..], &desc].concat(),
    );

    // spill_ack: the same records (alphanumeric texts), split over segments 1 and 2.
    let alnum = checks::records::from_bytes_alnum(&desc, 12);
    let mut seg1 = vec![12u64];
    let mut len = 12;
    for (i, r) in alnum.iter().enumerate().take(alnum.len() / 2) {
        let mut r = r.clone();
        r.field("seq", i as u64);
        let mut frame = Vec::new();
        assert!(logship::fuzzing::encode_frame(&r, &mut frame));
        len += frame.len() as u64;
        seg1.push(len);
    }
    let split = (desc.len() as u16).to_le_bytes();
    let acks = [
        ("ack-none", String::new()),
        (
            "ack-one-frame",
            format!("logship-spill-ack 1\n1 1 {}\n", seg1[1]),
        ),
        (
            "ack-mid-frame",
            format!("logship-spill-ack 1\n1 1 {}\n", seg1[1] + 5),
        ),
        (
            "ack-whole-segment",
            format!("logship-spill-ack 1\n1 3 {}\n2 1 40\n", seg1[3]),
        ),
        (
            "ack-past-the-end",
            format!("logship-spill-ack 1\n1 9 {}\n2 99 99999\n", seg1[3] + 100),
        ),
        (
            "ack-garbage",
            "logship-spill-ack 1\n1 x 3\n\u{0}\n2 1 2 3\n".to_owned(),
        ),
    ];
    for (name, ack) in acks {
        write(
            "spill_ack",
            name,
            &[&split[..], &desc, ack.as_bytes()].concat(),
        );
    }
}

#[test]
fn stream_framing() {
    replay("stream_framing");
}

#[test]
fn syslog_message() {
    replay("syslog_message");
}
