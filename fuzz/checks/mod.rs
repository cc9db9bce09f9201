//! The fuzz targets' bodies: one function per target, each feeding untrusted bytes to the
//! library's own parser and asserting what must hold for every input (not just "no
//! panic"). Shared by the `cargo fuzz` targets (`fuzz/fuzz_targets/*.rs`) and by the stable
//! corpus replay (`crates/logship-cli/tests/fuzz_corpus.rs`), which runs every committed
//! corpus and regression file through the same function, so each is a regression test.
//!
//! Must never: depend on anything but the input (no clock, no network, no process
//! environment except the `${env:}` lookups `Config::from_toml_str` makes by contract),
//! leave files behind outside its scratch directory, or take more than milliseconds on a
//! few-KB input.

#![allow(dead_code)]

use std::collections::{BTreeMap, HashMap};
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime};

use logship::fuzzing::{self, Answer, Intake, SegmentItem};
use logship::{Config, Layered, Level, Record, Vendor};

// The CLI's line reader is compiled in by each crate root (fuzz target or replay test) as
// `crate::lines`, because the syslog parser below reaches it by that path, as in the CLI.
use crate::lines;

#[path = "../../crates/logship-cli/src/listen/stream/framing.rs"]
mod framing;
#[path = "../../crates/logship-cli/src/listen/stream/syslog/mod.rs"]
mod syslog;

pub mod inputs;
pub mod records;

pub use inputs::{http_request, json_flatten, otlp_cost};

/// Every target, by the name of its corpus directory.
/// A fuzz target's check: any bytes in, a panic when the property fails.
pub type Check = fn(&[u8]);

pub const TARGETS: &[(&str, Check)] = &[
    ("spill_segment", spill_segment),
    ("spill_ack", spill_ack),
    ("retry_after", retry_after),
    ("answers", answers),
    ("otlp_protobuf_answer", otlp_protobuf_answer),
    ("config", config),
    ("cli_lines", cli_lines),
    ("stream_framing", stream_framing),
    ("syslog_message", syslog_message),
    ("http_request", http_request),
    ("otlp_cost", otlp_cost),
    ("json_flatten", json_flatten),
];

/// A scratch directory of this process (on tmpfs when there is one: the spill syncs).
fn scratch() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let base = if Path::new("/dev/shm").is_dir() {
            PathBuf::from("/dev/shm")
        } else {
            std::env::temp_dir()
        };
        let dir = base.join(format!("logship-fuzz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("create the scratch directory");
        dir
    })
}

/// An empty directory `name` under the scratch directory.
fn fresh_dir(name: &str) -> PathBuf {
    let dir = scratch().join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("create a scratch subdirectory");
    dir
}

fn u32_le(b: &[u8]) -> u32 {
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// The intact frame at `at` in `data` and its end: the reference check, written from the
/// format's definition (magic, length within the file, CRC32 over length ‖ payload, a
/// payload that decodes as a record).
fn intact_frame_at(data: &[u8], at: usize) -> Option<(Record, usize)> {
    let h = data.get(at..at.checked_add(fuzzing::FRAME_HEADER_LEN as usize)?)?;
    if u32_le(&h[..4]) != fuzzing::FRAME_MAGIC {
        return None;
    }
    let len = u32_le(&h[4..8]);
    let payload_at = at + fuzzing::FRAME_HEADER_LEN as usize;
    let end = payload_at.checked_add(len as usize)?;
    let payload = data.get(payload_at..end)?;
    let mut hasher = crc32fast::Hasher::new();
    hasher.update(&len.to_le_bytes());
    hasher.update(payload);
    if hasher.finalize() != u32_le(&h[8..12]) {
        return None;
    }
    fuzzing::record_from_bytes(payload).map(|r| (r, end))
}

/// Reads `data` as a segment file and checks the reader's answer against the format:
/// items tile the file from the header to the end; every record is an intact frame (CRC
/// matched, payload decoded to that very record); every damaged region starts where no
/// intact frame starts, holds no intact frame start inside it, and is followed by a
/// record or the end of the file.
fn check_segment(path: &Path, data: &[u8]) -> Vec<Record> {
    std::fs::write(path, data).expect("write the segment");
    let (header, len, items) = fuzzing::read_segment(path).expect("read the segment");
    assert_eq!(len, data.len() as u64);
    let header_len = fuzzing::SEGMENT_HEADER_LEN as usize;
    let header_ok = data.len() >= header_len
        && &data[..8] == fuzzing::SEGMENT_FILE_MAGIC
        && (fuzzing::SEGMENT_OLDEST_VERSION..=fuzzing::SEGMENT_VERSION)
            .contains(&u32_le(&data[8..12]));
    assert_eq!(header.is_ok(), header_ok, "header verdict: {header:?}");
    let mut pos = header_len.min(data.len());
    let mut after_corrupt = false;
    let mut records = Vec::new();
    for item in items {
        match item {
            SegmentItem::Record { record, start, end } => {
                assert_eq!(start as usize, pos, "items must tile the file");
                let (want, want_end) = intact_frame_at(data, pos)
                    .unwrap_or_else(|| panic!("record at {pos} is not an intact frame"));
                assert_eq!(end as usize, want_end);
                assert_eq!(record, want, "record at {pos} differs from its payload");
                records.push(record);
                pos = want_end;
                after_corrupt = false;
            }
            SegmentItem::Corrupt { start, end } => {
                assert_eq!(start as usize, pos, "items must tile the file");
                assert!(!after_corrupt, "two damaged regions in a row at {pos}");
                let (start, end) = (start as usize, end as usize);
                assert!(start < end && end <= data.len(), "region {start}..{end}");
                for at in start..end {
                    assert!(
                        intact_frame_at(data, at).is_none(),
                        "an intact frame at {at} was skipped as damage ({start}..{end})"
                    );
                }
                pos = end;
                after_corrupt = true;
            }
        }
    }
    assert_eq!(pos, data.len(), "the reader stopped before the end");
    records
}

/// Target `spill_segment`. First byte even: the rest is a segment file as found on disk.
/// Odd: records built from the rest are written with the library's frame encoder, then
/// one byte is flipped or the file is cut; every record outside the damaged frame must
/// come back, in order (a cut keeps exactly the whole frames before it).
pub fn spill_segment(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let path = scratch().join("segment.seg");
    if mode % 2 == 0 {
        check_segment(&path, rest);
        return;
    }
    let Some((damage, rest)) = rest.split_first_chunk::<4>() else {
        return;
    };
    let recs = records::from_bytes(rest, 16);
    let mut file = Vec::from(*fuzzing::SEGMENT_FILE_MAGIC);
    file.extend_from_slice(&fuzzing::SEGMENT_VERSION.to_le_bytes());
    let mut bounds = Vec::new();
    for r in &recs {
        let start = file.len();
        assert!(fuzzing::encode_frame(r, &mut file));
        bounds.push((start, file.len()));
    }
    let at = u32::from_le_bytes(*damage) as usize % (file.len() + 1);
    if mode & 2 == 0 {
        // Cut at `at`: the whole frames before it survive, nothing else.
        let got = check_segment(&path, &file[..at]);
        let whole = bounds.iter().take_while(|(_, end)| *end <= at).count();
        assert_eq!(got, recs[..whole], "a cut at {at} lost intact records");
    } else if at < file.len() {
        // Flip one byte: only the frame holding it is lost.
        file[at] ^= (mode >> 2) | 1;
        let got = check_segment(&path, &file);
        let want: Vec<Record> = recs
            .iter()
            .zip(&bounds)
            .filter(|(_, (start, end))| !(start..end).contains(&&at))
            .map(|(r, _)| r.clone())
            .collect();
        assert_eq!(got, want, "a flipped byte at {at} cost more than its frame");
    }
}

/// Target `spill_ack`. Records built from the input go into two segment files (ids 1 and
/// 2) written with the library's encoder; the ACK file is the input's tail, verbatim.
/// `Spill::open` then replay to the end must: never take an acknowledged offset beyond a
/// segment's length; replay exactly the records of each segment that start at or after
/// its acknowledged offset (all of them without a usable entry); and finish with the
/// spill empty.
pub fn spill_ack(data: &[u8]) {
    let Some((head, rest)) = data.split_first_chunk::<2>() else {
        return;
    };
    let split = (u16::from_le_bytes(*head) as usize).min(rest.len());
    let (record_bytes, ack) = rest.split_at(split);
    // Texts restricted to alphanumerics, so that no record's payload can hold a frame
    // whose CRC matches (which would make "the records after the offset" ambiguous).
    let mut recs = records::from_bytes_alnum(record_bytes, 12);
    for (i, r) in recs.iter_mut().enumerate() {
        r.field("seq", i as u64);
    }
    let dir = fresh_dir("spill");
    let half = recs.len() / 2;
    let mut segments = BTreeMap::new();
    for (id, part) in [(1u64, &recs[..half]), (2, &recs[half..])] {
        let mut file = Vec::from(*fuzzing::SEGMENT_FILE_MAGIC);
        file.extend_from_slice(&fuzzing::SEGMENT_VERSION.to_le_bytes());
        let mut frames = Vec::new();
        for r in part {
            let start = file.len();
            assert!(fuzzing::encode_frame(r, &mut file));
            frames.push((start as u64, r.clone()));
        }
        std::fs::write(dir.join(format!("{id:020}.seg")), &file).expect("write a segment");
        segments.insert(id, (file.len() as u64, frames));
    }
    std::fs::write(dir.join("ACK"), ack).expect("write the ACK file");
    let parsed = fuzzing::parse_ack(ack);
    let (opened, replayed) =
        fuzzing::replay_dir(&dir).unwrap_or_else(|e| panic!("replay of a sound spill failed: {e}"));
    let mut want = Vec::new();
    for (id, (len, frames)) in &segments {
        let seg = opened.iter().find(|s| s.id == *id);
        if let Some(seg) = seg {
            assert_eq!(seg.bytes, *len);
            assert!(
                seg.acked_offset <= seg.bytes,
                "segment {id}: acknowledged offset {} beyond its length {}",
                seg.acked_offset,
                seg.bytes
            );
        }
        // Opened segments start at their acknowledged offset; a segment acknowledged to
        // its end was finished at open (`seg` is None) and replays nothing.
        let from = match seg {
            Some(s) => s.acked_offset,
            None => {
                let entry = parsed.iter().rev().find(|(i, _, _)| i == id);
                assert!(
                    entry.is_some_and(|(_, _, off)| *off >= *len) || frames.is_empty(),
                    "segment {id} vanished at open without being acknowledged to its end"
                );
                u64::MAX
            }
        };
        want.extend(
            frames
                .iter()
                .filter(|(start, _)| *start >= from)
                .map(|(_, r)| r.clone()),
        );
    }
    assert_eq!(replayed, want, "replay handed out the wrong records");
}

/// Target `retry_after`: any header value. Delta-seconds parse exactly; a date in the
/// past is no wait; the delay slept is never above the backoff's cap, whatever the header
/// or the policy's numbers.
pub fn retry_after(data: &[u8]) {
    let Some((head, rest)) = data.split_first_chunk::<9>() else {
        return;
    };
    let initial = Duration::from_millis(u64::from(u32_le(&head[..4])));
    let max = Duration::from_millis(u64::from(u32_le(&head[4..8])));
    let retry = u32::from(head[8]);
    let value = String::from_utf8_lossy(rest);
    let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_795_960_800); // 2026-11-29
    let (parsed, delay) = fuzzing::retry_after(&value, now, initial, max, retry);
    assert!(
        delay <= max,
        "delay {delay:?} above the cap {max:?} for {value:?}"
    );
    if let Ok(secs) = value.trim().parse::<u64>() {
        assert_eq!(parsed, Some(Duration::from_secs(secs)));
    } else if let Ok(at) = httpdate::parse_http_date(value.trim()) {
        assert_eq!(
            parsed,
            Some(at.duration_since(now).unwrap_or(Duration::ZERO))
        );
    } else {
        assert_eq!(
            parsed, None,
            "{value:?} is neither seconds nor an HTTP-date"
        );
    }
}

/// The intakes whose answers are parsed, in the order the `answers` target's first byte
/// picks them (OTLP twice: protobuf, then JSON).
const VENDORS: &[(Vendor, bool)] = &[
    (Vendor::Ndjson, false),
    (Vendor::JsonArray, false),
    (Vendor::Datadog, false),
    (Vendor::Splunk, false),
    (Vendor::NewRelic, false),
    (Vendor::Dynatrace, false),
    (Vendor::Loki, false),
    (Vendor::Elasticsearch, false),
    (Vendor::Otlp, false),
    (Vendor::Otlp, true),
];

fn intakes() -> &'static [Intake] {
    static INTAKES: OnceLock<Vec<Intake>> = OnceLock::new();
    INTAKES.get_or_init(|| {
        VENDORS
            .iter()
            .map(|&(v, json)| Intake::new(v, json).expect("default configuration"))
            .collect()
    })
}

/// Target `answers`: byte 0 picks the intake, bytes 1-2 the status, byte 3 how many
/// events were sent; the rest is the body. Checks each protocol's reading:
/// - only a 2xx is ever `Delivered` (or a partial success); only Elasticsearch's 200 is
///   read per item; only Splunk's 400 naming `invalid-event-number` rejects one event;
///   only OTLP reports a rejected count, and never 0;
/// - a per-item reading names each sent event at most once, in order, within `sent`,
///   with a report line iff some failed, and only for an answer holding one item per
///   event;
/// - OTLP/JSON's `partialSuccess.rejectedLogRecords` (number or string) is what is read.
pub fn answers(data: &[u8]) {
    let Some((head, body)) = data.split_first_chunk::<4>() else {
        return;
    };
    let pick = head[0] as usize % VENDORS.len();
    let (vendor, otlp_json) = VENDORS[pick];
    let intake = &intakes()[pick];
    let status = u16::from_le_bytes([head[1], head[2]]) % 1000;
    let sent = usize::from(head[3]);
    let text = String::from_utf8_lossy(body);
    // Splunk and Elasticsearch read the body as text (invalid UTF-8 replaced); OTLP/JSON
    // reads the bytes.
    let json: Option<serde_json::Value> = serde_json::from_str(&text).ok();
    let raw_json: Option<serde_json::Value> = serde_json::from_slice(body).ok();
    let outcome = intake.classify(status, body);
    let ok = (200..=299).contains(&status);
    match outcome {
        Answer::Delivered | Answer::Partial | Answer::PartialRejected(_) => {
            assert!(ok, "{vendor:?} {status} read as {outcome:?}")
        }
        Answer::Items => assert!(vendor == Vendor::Elasticsearch && status == 200),
        Answer::RejectEvent(i) => {
            assert!(vendor == Vendor::Splunk && status == 400, "{outcome:?}");
            let named = json.as_ref().and_then(|v| v.get("invalid-event-number"));
            assert_eq!(named.and_then(|n| n.as_u64()), Some(i as u64));
        }
        Answer::Retry | Answer::Permanent | Answer::TooLarge => {}
    }
    if let Answer::PartialRejected(n) = outcome {
        assert!(vendor == Vendor::Otlp && n > 0, "{vendor:?} {outcome:?}");
    }
    if matches!(outcome, Answer::Partial) {
        assert_eq!(vendor, Vendor::Dynatrace);
    }
    if vendor == Vendor::Otlp && otlp_json && ok {
        let rejected = raw_json
            .as_ref()
            .and_then(|v| v.get("partialSuccess")?.get("rejectedLogRecords").cloned());
        let count = match &rejected {
            Some(serde_json::Value::String(s)) => s.trim().parse::<i64>().ok(),
            Some(n) => n.as_i64(),
            None => None,
        };
        match (&rejected, count) {
            (_, Some(n)) if n > 0 => assert_eq!(outcome, Answer::PartialRejected(n as usize)),
            // Absent (or not JSON), or zero: plain success.
            (None, _) | (_, Some(0)) => assert_eq!(outcome, Answer::Delivered),
            // Negative or unreadable counts: issue #13 lists "silently taken as full
            // success" as a defect its fix addresses; not asserted here so this target
            // holds on both sides of that fix.
            _ => {}
        }
    }
    if let Some(items) = intake.items(&text, sent) {
        assert_eq!(vendor, Vendor::Elasticsearch, "only _bulk answers per item");
        let listed = json
            .as_ref()
            .and_then(|v| v.get("items")?.as_array().map(Vec::len));
        assert_eq!(
            listed,
            Some(sent),
            "items read from an answer without one per event"
        );
        for list in [&items.retry, &items.rejected] {
            assert!(
                list.windows(2).all(|w| w[0] < w[1]),
                "{list:?} not in order"
            );
            assert!(
                list.iter().all(|&i| i < sent),
                "{list:?} beyond {sent} sent"
            );
        }
        assert!(items.retry.iter().all(|i| !items.rejected.contains(i)));
        assert!(
            items.retry.len() + items.rejected.len() + items.already_delivered <= sent,
            "more outcomes than events sent"
        );
        assert_eq!(items.retry_error.is_some(), !items.retry.is_empty());
        assert_eq!(items.rejected_error.is_some(), !items.rejected.is_empty());
        assert_eq!(items.rejected_status.is_some(), !items.rejected.is_empty());
        for line in [&items.retry_error, &items.rejected_error]
            .into_iter()
            .flatten()
        {
            // A status, a type and a reason cut to 200 characters (4 bytes each at most).
            assert!(
                line.len() <= 1000 + body.len().min(1000),
                "report line too long"
            );
        }
    }
}

/// Target `otlp_protobuf_answer`: any bytes as a 200 answer to an OTLP/protobuf request.
/// Whenever the official generated types (prost) decode it, the rejected count logship
/// reads must be theirs: a positive count is a partial rejection of exactly that many,
/// no partial success or a count of 0 is plain success.
pub fn otlp_protobuf_answer(data: &[u8]) {
    use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceResponse;
    use prost::Message as _;
    let intake = &intakes()[8];
    let outcome = intake.classify(200, data);
    let Ok(response) = ExportLogsServiceResponse::decode(data) else {
        return;
    };
    match response
        .partial_success
        .as_ref()
        .map(|p| p.rejected_log_records)
    {
        None | Some(0) => assert_eq!(outcome, Answer::Delivered, "{response:?}"),
        Some(n) if n > 0 => assert_eq!(outcome, Answer::PartialRejected(n as usize)),
        // Negative counts: an issue #13 defect, fixed there; not asserted (see `answers`).
        Some(_) => {}
    }
}

/// A secret value the `config` target injects; inputs that contain it are not checked
/// for it (they could set it as a non-secret value themselves).
const CANARY: &str = "c4n4ry-s3cr3t-v4lue";

/// Target `config`: the input up to its first NUL byte is a TOML file, the rest
/// `NAME=value` lines of an environment. Parsing never panics, and a secret (an
/// `api_key` line prepended to a file without one, `LOGSHIP_PASSWORD` in the
/// environment) never
/// appears in an error, in the configuration's `Debug` text or in its effective values.
pub fn config(data: &[u8]) {
    let (toml_bytes, env_bytes) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &[][..]),
    };
    let text = String::from_utf8_lossy(toml_bytes).into_owned();
    let mut env: HashMap<String, String> = String::from_utf8_lossy(env_bytes)
        .lines()
        .filter_map(|l| l.split_once('='))
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
    let _ = Config::from_toml_str(&text);
    let mut plain = Config::default();
    let env_for_plain = env.clone();
    let _ = plain.apply_env(move |k| env_for_plain.get(k).cloned());

    let check_canary = !String::from_utf8_lossy(data).contains(CANARY)
        && !text.contains("${")
        && !env
            .keys()
            .any(|k| k.contains("PASSWORD") || k.contains("API_KEY"));
    env.insert("LOGSHIP_PASSWORD".to_owned(), CANARY.to_owned());
    // A file that sets its own `api_key` keeps it (a second one is a TOML error).
    let file = if text.contains("api_key") {
        text
    } else {
        format!("api_key = \"{CANARY}\"\n{text}")
    };
    let resolved = Layered::new()
        .toml_str("fuzz.toml", file)
        .env(move |k| env.get(k).cloned())
        .resolve();
    if !check_canary {
        return;
    }
    match resolved {
        Ok(r) => {
            let shown = format!("{:?} {:?}", r.config, r.config.effective_values());
            assert!(
                !shown.contains(CANARY),
                "a secret in the configuration's text"
            );
            if let Err(e) = r.config.validate() {
                assert!(!e.to_string().contains(CANARY), "a secret in {e}");
            }
        }
        Err(e) => {
            let shown = format!("{e} {e:?}");
            assert!(!shown.contains(CANARY), "a secret in an error: {shown}");
        }
    }
}

/// Target `cli_lines`: byte 0 sets the line cap, byte 1 the read buffer size; the rest is
/// `logship ship`'s input. The reader must give exactly the input's lines, each cut to the
/// cap, however the input arrives; a text line is the message verbatim; a JSON line is a
/// record only for a JSON object, with its level, its message and one field per other leaf
/// (nested objects flattened).
pub fn cli_lines(data: &[u8]) {
    let Some((head, input)) = data.split_first_chunk::<2>() else {
        return;
    };
    let cap = 1 + usize::from(head[0]);
    let mut reader = BufReader::with_capacity(1 + usize::from(head[1] % 32), input);
    let mut buf = Vec::new();
    let mut got = Vec::new();
    let mut sizes = Vec::new();
    let mut ends = Vec::new();
    while let Some((n, ended)) =
        lines::read_line(&mut reader, &mut buf, cap).expect("in-memory read")
    {
        sizes.push(n);
        ends.push(ended);
        assert!(
            buf.len() <= cap,
            "a line of {} bytes above the cap {cap}",
            buf.len()
        );
        got.push(buf.clone());
    }
    let want: Vec<Vec<u8>> = input
        .split_inclusive(|&b| b == b'\n')
        .map(|l| l[..l.len().min(cap)].to_vec())
        .collect();
    assert_eq!(got, want);
    let real: Vec<usize> = input
        .split_inclusive(|&b| b == b'\n')
        .map(<[u8]>::len)
        .collect();
    assert_eq!(sizes, real, "each line's real length, however long");
    let newline: Vec<bool> = input
        .split_inclusive(|&b| b == b'\n')
        .map(|l| l.ends_with(b"\n"))
        .collect();
    assert_eq!(
        ends, newline,
        "whether each line ended in a newline, even when cut"
    );

    for line in input.split(|&b| b == b'\n') {
        let text = String::from_utf8_lossy(lines::trim_newline(line));
        assert_eq!(lines::text_record(&text).message_str(), text);
        let parsed = serde_json::from_str::<serde_json::Value>(&text).ok();
        let record = lines::json_record(&text);
        let Some(serde_json::Value::Object(map)) = parsed else {
            assert!(
                record.is_none(),
                "a record from a line that is not an object"
            );
            continue;
        };
        let record = record.expect("a JSON object is a record");
        // `level` is the first level key read: a standard name there is the level.
        let level = map.get("level").and_then(|l| l.as_str()).and_then(|l| {
            Some(match l.trim().to_ascii_lowercase().as_str() {
                "trace" => Level::Trace,
                "debug" => Level::Debug,
                "info" => Level::Info,
                "warn" | "warning" => Level::Warn,
                "error" | "fatal" | "critical" => Level::Error,
                _ => return None,
            })
        });
        if let Some(level) = level {
            assert_eq!(record.level(), level);
        }
        // `message` is the first message key read.
        if let Some(serde_json::Value::String(s)) = map.get("message") {
            assert_eq!(record.message_str(), s);
        }
        if !map.contains_key("message") && !map.contains_key("msg") && !map.contains_key("fields") {
            assert_eq!(record.message_str(), "");
        }
        // One field per leaf (nested objects flattened), but for the at most five leaves
        // read as time (two for Log4j2's `instant`), level, message and logger.
        // Log4j2's `JsonLayout`: `loggerFqcn` and `endOfBatch` are left out, `thrown`
        // becomes the error plus at most two fields (`thrown.name`, the stack text).
        let log4j = map.contains_key("loggerFqcn")
            || (map.contains_key("loggerName") && map.contains_key("thread"));
        let mut own = map.clone();
        let mut extra = 0;
        if log4j {
            own.remove("loggerFqcn");
            own.remove("endOfBatch");
            if matches!(own.get("thrown"), Some(serde_json::Value::Object(t)) if t.contains_key("name"))
            {
                own.remove("thrown");
                extra = 2;
            }
        }
        let leaves = json_leaves(&own);
        // The Java source hint (`logship.source`, read by the encoders, never shipped as a
        // field) is no leaf of the line.
        let fields = record
            .entries()
            .filter(|e| matches!(e, logship::Entry::Field(n, _) if *n != logship::SOURCE_HINT))
            .count();
        // Flattening builds at most 4 name bytes per byte of the object plus 2 KiB; past
        // that a subtree stays one field. Under the 2 KiB floor, one field per leaf.
        inputs::assert_names_bounded(&record, &text);
        assert!(
            fields <= leaves + extra,
            "{fields} fields from {leaves} leaves"
        );
        if json_name_bytes(&own) <= 2048 {
            assert!(
                leaves + extra - fields <= 5 + extra,
                "{fields} fields from {leaves} leaves"
            );
        }
    }
}

/// The bytes of every dotted name flattening `map` would build (iteratively).
fn json_name_bytes(map: &serde_json::Map<String, serde_json::Value>) -> usize {
    let mut n = 0usize;
    let mut stack: Vec<(usize, &serde_json::Map<String, serde_json::Value>)> = vec![(0, map)];
    while let Some((prefix, m)) = stack.pop() {
        for (k, v) in m {
            let name = if prefix == 0 {
                k.len()
            } else {
                prefix + 1 + k.len()
            };
            n += name;
            if let serde_json::Value::Object(inner) = v {
                if !inner.is_empty() {
                    stack.push((name.max(1), inner));
                }
            }
        }
    }
    n
}

/// The leaves of a JSON object's members: scalars, arrays and empty objects; non-empty
/// objects count their members' (iteratively).
fn json_leaves(map: &serde_json::Map<String, serde_json::Value>) -> usize {
    let mut n = 0usize;
    let mut stack: Vec<&serde_json::Value> = map.values().collect();
    while let Some(v) = stack.pop() {
        match v {
            serde_json::Value::Object(m) if !m.is_empty() => stack.extend(m.values()),
            _ => n += 1,
        }
    }
    n
}

/// Target `stream_framing`: the TCP listener's framer. Byte 0 picks the framing (bit 0:
/// syslog) and the piece size the stream arrives in (bits 1..5: 1 to 16 bytes); byte 1 the
/// cap on one event (1 to 256 bytes); the rest is the stream. However the stream is cut
/// into reads, the same events come out; none is empty or above the cap; each says its
/// real length; and for newline framing they are exactly the stream's LF/NUL-separated
/// pieces (a CR before an LF trimmed), cut to the cap.
pub fn stream_framing(data: &[u8]) {
    use framing::{Framer, Framing};
    let Some((head, input)) = data.split_first_chunk::<2>() else {
        return;
    };
    let framing = if head[0] & 1 == 1 {
        Framing::Syslog
    } else {
        Framing::Lines
    };
    let step = 1 + usize::from((head[0] >> 1) % 16);
    let max = 1 + usize::from(head[1]);
    let run = |pieces: &mut dyn Iterator<Item = &[u8]>| {
        let mut framer = Framer::new(framing, max);
        let mut out: Vec<(Vec<u8>, usize, bool)> = Vec::new();
        for piece in pieces {
            framer.feed(piece, &mut |f| {
                assert!(!f.bytes.is_empty(), "an empty event");
                assert!(
                    f.bytes.len() <= max,
                    "{} bytes above the cap {max}",
                    f.bytes.len()
                );
                assert!(
                    f.real_len >= f.bytes.len(),
                    "real length below the kept bytes"
                );
                assert_eq!(f.cut(), f.real_len > f.bytes.len());
                out.push((f.bytes.to_vec(), f.real_len, f.bad_count));
            });
        }
        out
    };
    let whole = run(&mut std::iter::once(input));
    let pieces = run(&mut input.chunks(step));
    let bytes = run(&mut input.chunks(1));
    assert_eq!(
        whole, pieces,
        "events depend on how the stream was read ({step})"
    );
    assert_eq!(whole, bytes, "events depend on how the stream was read (1)");
    if framing == Framing::Lines {
        // Only complete events come out: the last piece without a delimiter waits.
        let mut want: Vec<(Vec<u8>, usize, bool)> = Vec::new();
        let mut from = 0;
        for (i, &b) in input.iter().enumerate() {
            if b != b'\n' && b != 0 {
                continue;
            }
            let mut event = &input[from..i];
            if let (b'\n', [rest @ .., b'\r']) = (b, event) {
                event = rest;
            }
            if !event.is_empty() {
                want.push((event[..event.len().min(max)].to_vec(), event.len(), false));
            }
            from = i + 1;
        }
        assert_eq!(whole, want, "newline framing");
    }
}

/// Target `syslog_message`: one syslog message (framing removed) into a record. Any
/// bytes give a record, parsed or not; one that does not parse is shipped as its text
/// with `syslog.parse_error`; a parsed one has a severity and a facility; the record
/// is at most a bounded multiple of the message (no blow-up from structured data or
/// replaced bytes).
pub fn syslog_message(data: &[u8]) {
    // 2026-12-01T00:00:00Z: RFC 3164 timestamps have no year, the clock gives it.
    const NOW_NANOS: u64 = 1_796_083_200_000_000_000;
    let (record, parsed) = syslog::record(data, NOW_NANOS);
    let field = |key: &str| {
        record.entries().find_map(|e| match e {
            logship::Entry::Field(k, v) if k == key => Some(format!("{v:?}")),
            _ => None,
        })
    };
    if parsed {
        assert!(
            field("syslog.severity").is_some(),
            "parsed without a severity"
        );
        assert!(
            field("syslog.facility").is_some(),
            "parsed without a facility"
        );
        assert!(field("syslog.parse_error").is_none());
    } else {
        assert_eq!(record.message_str(), String::from_utf8_lossy(data));
        assert!(
            field("syslog.parse_error").is_some(),
            "unparsed, not flagged"
        );
    }
    // The bound: the APP-NAME is both the target and `syslog.appname` (two copies), and
    // an invalid byte becomes U+FFFD (three bytes), so 6x plus the fixed fields.
    let size = record.size();
    assert!(
        size <= 6 * data.len() + 1024,
        "a {}-byte message made a {size}-byte record",
        data.len()
    );
}
