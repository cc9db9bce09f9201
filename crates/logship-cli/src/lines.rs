//! How `logship ship` turns input bytes into events: splitting lines under a cap, and
//! reading a JSON-object line into a record.
//!
//! Why it exists apart from `ship.rs`: these are pure functions of untrusted input, so the
//! fuzz targets (`fuzz/`, which include this file with `#[path]`) and their stable corpus
//! replay can drive them without the rest of the binary. It uses only `logship` and
//! `serde_json`, never `crate::` paths, so it compiles wherever it is included.
//!
//! Must never: panic on any input, keep more than `cap` bytes of one line, or recurse on
//! input (serde_json's own nesting limit bounds JSON depth).

use std::io::{self, BufRead, ErrorKind};

use logship::{Level, Record};
use serde_json::{Map, Value};

/// Target of every shipped event.
pub(crate) const TARGET: &str = "logship::ship";

/// Reads one line (including its `\n`, if any) into `buf`, keeping at most `cap` bytes and
/// discarding the rest of a longer line. Returns the line's real length, or `None` at end
/// of input.
pub(crate) fn read_line(
    reader: &mut dyn BufRead,
    buf: &mut Vec<u8>,
    cap: usize,
) -> io::Result<Option<usize>> {
    buf.clear();
    let mut any = false;
    let mut total = 0usize;
    loop {
        let chunk = match reader.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok(any.then_some(total));
        }
        any = true;
        let (used, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let room = cap.saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..used.min(room)]);
        total = total.saturating_add(used);
        reader.consume(used);
        if done {
            return Ok(Some(total));
        }
    }
}

/// The line without its trailing `\n` or `\r\n`.
pub(crate) fn trim_newline(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// An INFO event whose message is the line.
pub(crate) fn text_record(line: &str) -> Record {
    let mut record = Record::with_capacity(Level::Info, TARGET, line.len() + 48);
    record.message(line);
    record
}

/// The event a JSON-object line describes, or `None` when the line is not a JSON object.
pub(crate) fn json_record(line: &str) -> Option<Record> {
    let Ok(Value::Object(mut map)) = serde_json::from_str::<Value>(line) else {
        return None;
    };
    let level = match map
        .get("level")
        .and_then(Value::as_str)
        .and_then(parse_level)
    {
        Some(level) => {
            map.remove("level");
            level
        }
        None => Level::Info, // a non-level "level" stays as a field
    };
    let message = map.remove("message").or_else(|| map.remove("msg"));
    let mut record = Record::with_capacity(level, TARGET, line.len() + 48);
    match &message {
        Some(Value::String(s)) => {
            record.message(s);
        }
        Some(other) => {
            record.message(&other.to_string());
        }
        None => {}
    }
    add_fields(&mut record, &map);
    Some(record)
}

fn add_fields(record: &mut Record, map: &Map<String, Value>) {
    for (key, value) in map {
        match value {
            Value::String(s) => record.field(key, s.as_str()),
            Value::Bool(b) => record.field(key, *b),
            Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
                (Some(i), _, _) => record.field(key, i),
                (None, Some(u), _) => record.field(key, u),
                (None, None, Some(f)) => record.field(key, f),
                _ => record.field(key, n.to_string().as_str()),
            },
            // Nested objects, arrays and null keep their JSON text.
            other => record.field(key, other.to_string().as_str()),
        };
    }
}

/// A level name as commonly written in JSON logs, case-insensitive.
fn parse_level(s: &str) -> Option<Level> {
    Some(match s.trim().to_ascii_lowercase().as_str() {
        "trace" => Level::Trace,
        "debug" => Level::Debug,
        "info" => Level::Info,
        "warn" | "warning" => Level::Warn,
        "error" | "fatal" | "critical" => Level::Error,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use logship::{Entry, Value as V};

    fn fields(r: &Record) -> Vec<(String, String)> {
        r.entries()
            .filter_map(|e| match e {
                Entry::Field(k, v) => Some((k.to_owned(), format!("{v:?}"))),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn json_lines_map_to_level_message_and_fields() {
        let r = json_record(
            r#"{"level":"WARN","msg":"disk low","free":12,"ratio":0.5,"ok":false,"tags":["a"],"n":null,"big":18446744073709551615}"#,
        )
        .expect("object");
        assert_eq!(r.level(), Level::Warn);
        assert_eq!(r.message_str(), "disk low");
        let f = fields(&r);
        assert!(f.contains(&("free".into(), format!("{:?}", V::I64(12)))));
        assert!(f.contains(&("ratio".into(), format!("{:?}", V::F64(0.5)))));
        assert!(f.contains(&("ok".into(), format!("{:?}", V::Bool(false)))));
        assert!(f.contains(&("tags".into(), format!("{:?}", V::Str("[\"a\"]")))));
        assert!(f.contains(&("n".into(), format!("{:?}", V::Str("null")))));
        assert!(f.contains(&("big".into(), format!("{:?}", V::U64(u64::MAX)))));
    }

    #[test]
    fn message_wins_over_msg_and_odd_levels_stay_fields() {
        let r = json_record(r#"{"message":"m","msg":"other","level":"notice"}"#).expect("obj");
        assert_eq!(r.message_str(), "m");
        assert_eq!(r.level(), Level::Info);
        let f = fields(&r);
        assert!(f.iter().any(|(k, _)| k == "msg"));
        assert!(f.iter().any(|(k, _)| k == "level"));
        assert!(json_record("[1,2]").is_none());
        assert!(json_record("not json").is_none());
        assert!(json_record("42").is_none());
    }

    #[test]
    fn lines_are_split_and_capped() {
        let data = b"one\r\ntwo\n\nlong-line-here\nlast";
        let mut reader = &data[..];
        let mut buf = Vec::new();
        let mut lines = Vec::new();
        let mut sizes = Vec::new();
        while let Some(n) = read_line(&mut reader, &mut buf, 6).expect("in-memory read") {
            lines.push(String::from_utf8_lossy(trim_newline(&buf)).into_owned());
            sizes.push(n);
        }
        assert_eq!(lines, ["one", "two", "", "long-l", "last"]);
        assert_eq!(sizes, [5, 4, 1, 15, 4], "the real length, newline included");
    }
}
