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

use std::borrow::Cow;
use std::io::{self, BufRead, ErrorKind};

use logship::{Level, Record};

#[path = "lines/flatten.rs"]
pub(crate) mod flatten;
#[path = "lines/json.rs"]
pub(crate) mod json;
#[path = "lines/level.rs"]
pub(crate) mod level;
#[path = "lines/room.rs"]
pub(crate) mod room;
#[path = "lines/throwable.rs"]
mod throwable;
#[path = "lines/time.rs"]
pub(crate) mod time;

pub(crate) use json::{Json, Members};

use flatten::{add_field, flatten_with, take_first};
use level::parse_level_value;
use throwable::{stack_text, Throwable};
use time::{instant_nanos, log4j_instant, parse_time};

/// Target of an event whose input names no logger: none (the vendors' logger field is
/// left out rather than filled with a name logship made up).
pub(crate) const TARGET: &str = "";

/// Reads one line (including its `\n`, if any) into `buf`, keeping at most `cap` bytes and
/// discarding the rest of a longer line. Returns the line's real length, and whether it
/// ended in `\n` (which the length counts; the last line of an input may have none: the
/// text's own length is one less, even when the newline was cut off with the rest of a
/// long line), or `None` at end of input.
pub(crate) fn read_line(
    reader: &mut dyn BufRead,
    buf: &mut Vec<u8>,
    cap: usize,
) -> io::Result<Option<(usize, bool)>> {
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
            return Ok(any.then_some((total, false)));
        }
        any = true;
        let (used, done) = match memchr::memchr(b'\n', chunk) {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let room = cap.saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..used.min(room)]);
        total = total.saturating_add(used);
        reader.consume(used);
        if done {
            return Ok(Some((total, true)));
        }
    }
}

/// The text of a line read as bytes: borrowed when it is valid UTF-8, which almost every
/// line is (checked at `from_utf8`'s word-at-a-time speed), otherwise a copy with each
/// invalid sequence replaced by U+FFFD (`Cow::Owned` tells the caller to count it).
/// `String::from_utf8_lossy` alone walks every line a byte at a time.
pub(crate) fn utf8_lossy(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// The line without its trailing `\n` or `\r\n`.
pub(crate) fn trim_newline(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Marks `record` as made of a line cut while reading: `kept` of its `real_len` bytes
/// were read (the line was over the read cap). `logship.truncated_bytes` counts the
/// bytes never read, and the pipeline adds what it cuts later; `logship.original_bytes`
/// is the line's real size.
pub(crate) fn mark_read_cut(record: &mut Record, real_len: usize, kept: usize) {
    record
        .field("logship.truncated", true)
        .field("logship.original_bytes", real_len as u64)
        .field(
            "logship.truncated_bytes",
            real_len.saturating_sub(kept) as u64,
        );
}

/// An INFO event whose message is the line.
pub(crate) fn text_record(line: &str) -> Record {
    text_record_with_room(line, 0)
}

/// [`text_record`] with room for `extra` more bytes of fields, so that adding them does
/// not grow (reallocate) the record.
pub(crate) fn text_record_with_room(line: &str, extra: usize) -> Record {
    let mut record = Record::with_capacity(Level::Info, TARGET, line.len() + 48 + extra);
    record.message(line);
    record
}

/// Keys read as the event's message, first found wins (tracing-subscriber writes its
/// message as `fields.message`, read as `message` once its `fields` are lifted).
const MESSAGE_KEYS: &[&str] = &["message", "msg"];
/// Keys read as the level: names (`WARN`, `warning`, ...) or bunyan/pino numbers.
const LEVEL_KEYS: &[&str] = &["level", "severity", "log.level", "levelname"];
/// Keys read as the logger, the event's target (`name` last: bunyan's, pino's and Python
/// logging's logger name).
const TARGET_KEYS: &[&str] = &[
    "target",
    "logger",
    "logger_name",
    "log.logger",
    "loggerName",
    "name",
];
/// Keys read as the time: RFC 3339 text or epoch seconds/ms/µs/ns by magnitude.
const TIME_KEYS: &[&str] = &["timestamp", "@timestamp", "time", "ts", "timeMillis"];

/// The event a JSON-object line describes, or `None` when the line is not a JSON object.
///
/// The timestamp, level, message and target are read under the usual keys of JSON
/// loggers (`TIME_KEYS`, `LEVEL_KEYS`, `MESSAGE_KEYS`, `TARGET_KEYS`; Log4j2's
/// `JsonLayout` `instant` too); a key that does not read as one (`"level":"notice"`)
/// stays a field. Nested objects become dotted names (`http.request.method`), the way
/// every vendor indexes nested JSON; arrays and `null` stay JSON ([`logship::Value::Json`]).
/// tracing-subscriber's `fields` object (a line with `fields` and `target`) holds the
/// event's own fields: they are lifted to the root. Fields keep the line's order.
///
/// A line of more than [`LINE_VALUES`] JSON values is not read as JSON (`None`: the
/// caller ships it as text), so no line's tree takes more than a few MiB.
pub(crate) fn json_record(line: &str) -> Option<Record> {
    json_record_with(line, &[])
}

/// [`json_record`] with the input's own fields `first` (a followed file's
/// `log.file.path`) placed right after the message, before the line's fields: when even
/// an event's field names are over the limit, truncation leaves out the last fields, and
/// the input's own must not be among them.
pub(crate) fn json_record_with(line: &str, first: &[(&'static str, String)]) -> Option<Record> {
    let (parsed, _) = json::with_value_budget(LINE_VALUES, || Json::parse(line));
    let Ok(Json::Object(map)) = parsed else {
        return None;
    };
    Some(object_record_with(&map, line.len(), first))
}

/// The most JSON values (elements, members and the slots objects allocate) one line is
/// read as: a Log4j2 event with a 50-frame stack trace takes about 800; 8 MiB of `[]`
/// would take 2.8 million (about 180 MiB of tree) without it.
pub(crate) const LINE_VALUES: usize = 64 * 1024;

/// [`json_record`] for an object already parsed (a JSON array's element, an HTTP body);
/// `size` is the object's size in bytes, if known, to size the record.
///
/// Log4j2's `JsonLayout` (and `JsonTemplateLayout`'s `JsonLayout.json` template) is read
/// as the Java service means it: `instant` or `timeMillis` is the time, `loggerName` the
/// target, `thread` a field, `contextMap` (MDC, the `properties` option) holds fields
/// named by their own keys, `thrown` is the event's error (its simple class name, its
/// message and the `cause` chain, with the full class name in `thrown.name` and the
/// stack frames as text in `thrown.extendedStackTrace`); Log4j2's internals
/// `loggerFqcn` and `endOfBatch` are left out.
pub(crate) fn object_record(map: &Members<'_>, size: usize) -> Record {
    object_record_with(map, size, &[])
}

/// [`object_record`] with `first` as in [`json_record_with`].
fn object_record_with(map: &Members<'_>, size: usize, first: &[(&'static str, String)]) -> Record {
    let lift_fields =
        matches!(map.get("fields"), Some(Json::Object(_))) && map.contains_key("target");
    let log4j = map.contains_key("loggerFqcn")
        || (map.contains_key("loggerName") && map.contains_key("thread"));
    let thrown = match map.get("thrown") {
        Some(Json::Object(t)) if log4j && t.contains_key("name") => Some(t),
        _ => None,
    };
    // Log4j2's `instant`, read straight from the object when nothing else can be the
    // time: its two leaves then need no dotted names only to be taken out again.
    let no_other_time = !map.iter().any(|(k, _)| TIME_KEYS.contains(&k));
    let instant = if log4j && !lift_fields && no_other_time {
        map.get("instant").and_then(instant_nanos)
    } else {
        None
    };
    let skip: &[&str] = match (log4j, thrown.is_some(), instant.is_some()) {
        (false, _, _) => &[],
        (true, false, false) => &["loggerFqcn", "endOfBatch"],
        (true, true, false) => &["loggerFqcn", "endOfBatch", "thrown"],
        (true, false, true) => &["loggerFqcn", "endOfBatch", "instant"],
        (true, true, true) => &["loggerFqcn", "endOfBatch", "thrown", "instant"],
    };
    let own = log4j.then_some(CONTEXT_MAP);
    let mut leaves = flatten_with(map, lift_fields, skip, own);
    let level = take_first(&mut leaves, LEVEL_KEYS, parse_level_value);
    let target = take_first(&mut leaves, TARGET_KEYS, |v| {
        v.as_str().filter(|s| !s.is_empty())
    });
    let message = take_first(&mut leaves, MESSAGE_KEYS, message_text);
    let nanos = instant.or_else(|| {
        take_first(&mut leaves, TIME_KEYS, parse_time).or_else(|| log4j_instant(&mut leaves))
    });
    let mut record = Record::with_capacity(
        level.unwrap_or(Level::Info),
        target.unwrap_or(TARGET),
        size + 48,
    );
    if let Some(nanos) = nanos {
        record.set_timestamp_nanos(nanos);
    }
    if let Some(m) = &message {
        record.message(m);
    }
    for (key, value) in first {
        record.field(key, value.as_str());
    }
    if log4j {
        // A Java service's event: `ddsource` "java" unless `source` is configured, as
        // from the in-process appender.
        record.source_hint(JAVA);
    }
    if let Some(t) = thrown {
        // The same error fields as the in-process JVM appenders (docs/jvm.md): the full
        // class name as the kind, the whole trace (frames, `Caused by:`) as the stack.
        let error = Throwable::read(t);
        let name = t.get("name").and_then(Json::as_str).unwrap_or("");
        let mut causes = String::new();
        let mut source = std::error::Error::source(&error);
        while let Some(cause) = source {
            if !causes.is_empty() {
                causes.push('\n');
            }
            causes.push_str(&cause.to_string());
            source = cause.source();
        }
        let trace = stack_text(t);
        record.error_parts(
            "error",
            name,
            &error.to_string(),
            &causes,
            trace.as_deref().unwrap_or(""),
        );
        record.field("thrown.name", name);
        if let Some(trace) = &trace {
            record.field("thrown.extendedStackTrace", trace.as_str());
        }
    }
    for leaf in &leaves {
        add_field(&mut record, &leaf.name, leaf.value);
    }
    record
}

/// The source hint of a Log4j2 event (`Record::source_hint`).
const JAVA: &str = "java";

/// Log4j2's context map (MDC, `JsonLayout`'s `properties`): its entries are the event's
/// own fields, named by their own keys.
const CONTEXT_MAP: &str = "contextMap";

/// A message value as text: a string as it is, anything else as its JSON.
pub(crate) fn message_text<'a>(v: &'a Json<'_>) -> Option<Cow<'a, str>> {
    Some(match v {
        Json::String(s) => Cow::Borrowed(s.as_ref()),
        other => Cow::Owned(other.to_string()),
    })
}

#[cfg(test)]
mod tests {
    use super::level::parse_level;
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
        assert!(f.contains(&("tags".into(), format!("{:?}", V::Json("[\"a\"]")))));
        assert!(f.contains(&("n".into(), format!("{:?}", V::Json("null")))));
        assert_eq!(r.target(), TARGET, "no logger key: the CLI's own target");
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
    fn nested_objects_become_dotted_names_and_tracing_fields_are_lifted() {
        let r = json_record(
            r#"{"timestamp":"2026-12-01T14:00:00.5Z","level":"INFO","fields":{"message":"hi","n":1},"target":"app::db","span":{"name":"req","id":7},"http":{"request":{"method":"GET"},"empty":{}}}"#,
        )
        .expect("object");
        assert_eq!(r.message_str(), "hi");
        assert_eq!(r.target(), "app::db");
        assert_eq!(r.timestamp_nanos(), 1_796_133_600_500_000_000);
        let f = fields(&r);
        let names: Vec<&str> = f.iter().map(|(k, _)| k.as_str()).collect();
        // In the line's order.
        assert_eq!(
            names,
            [
                "n",
                "span.name",
                "span.id",
                "http.request.method",
                "http.empty"
            ]
        );
        assert_eq!(f[4].1, format!("{:?}", V::Json("{}")));
        // Without `target`, a `fields` object is an ordinary nested object.
        let r = json_record(r#"{"fields":{"message":"x"}}"#).expect("object");
        assert_eq!(r.message_str(), "");
        assert_eq!(fields(&r)[0].0, "fields.message");
    }

    #[test]
    fn a_log4j_thrown_is_the_error_with_its_full_class_name_and_every_frame() {
        let r = json_record(
            r#"{"thread":"main","level":"ERROR","loggerName":"com.x.A","message":"m","loggerFqcn":"f","thrown":{"name":"java.lang.IllegalStateException","message":"boom","extendedStackTrace":[{"class":"com.x.A","method":"run","file":"A.java","line":3}],"cause":{"name":"java.io.IOException","message":"disk","extendedStackTrace":[{"class":"com.x.B","method":"save","file":"B.java","line":9}]}}}"#,
        )
        .expect("object");
        let (_, e) = r.first_error().expect("the thrown is the error");
        assert_eq!(e.kind, "java.lang.IllegalStateException");
        assert_eq!(e.message, "boom");
        assert_eq!(e.sources, "java.io.IOException: disk");
        assert_eq!(
            e.trace,
            "java.lang.IllegalStateException: boom\n\tat com.x.A.run(A.java:3)\n\
             Caused by: java.io.IOException: disk\n\tat com.x.B.save(B.java:9)\n"
        );
    }

    #[test]
    fn a_log4j_suppressed_exception_is_printed_as_java_does_before_the_cause() {
        let frame = |c: &str, l: u32| {
            format!(r#"{{"class":"{c}","method":"m","file":"{c}.java","line":{l}}}"#)
        };
        let line = format!(
            r#"{{"thread":"t","loggerName":"L","message":"m","thrown":{{"name":"a.Top","message":"top","extendedStackTrace":[{}],"suppressed":[{{"name":"a.S1","message":"s1","extendedStackTrace":[{}],"cause":{{"name":"a.S1Cause","extendedStackTrace":[{}]}}}},{{"name":"a.S2","extendedStackTrace":[]}}],"cause":{{"name":"a.C","message":"c","extendedStackTrace":[{}],"suppressed":[{{"name":"a.CS","extendedStackTrace":[{}]}}]}}}}}}"#,
            frame("A", 1),
            frame("S", 2),
            frame("T", 3),
            frame("C", 4),
            frame("D", 5),
        );
        let r = json_record(&line).expect("object");
        let (_, e) = r.first_error().expect("error");
        assert_eq!(e.kind, "a.Top");
        assert_eq!(e.sources, "a.C: c");
        assert_eq!(
            e.trace,
            "a.Top: top\n\tat A.m(A.java:1)\n\
             \tSuppressed: a.S1: s1\n\t\tat S.m(S.java:2)\n\
             \tCaused by: a.S1Cause\n\t\tat T.m(T.java:3)\n\
             \tSuppressed: a.S2\n\
             Caused by: a.C: c\n\tat C.m(C.java:4)\n\
             \tSuppressed: a.CS\n\t\tat D.m(D.java:5)\n"
        );
        // Frames a cause shares with its enclosing exception (Log4j2 leaves them out),
        // native and file-less frames: as Java prints them.
        let line = r#"{"thread":"t","loggerName":"L","thrown":{"name":"a.T","extendedStackTrace":[{"class":"x.N","method":"n","file":"N.java","line":-2},{"class":"x.U","method":"u","line":-1},{"class":"x.F","method":"f","file":"F.java","line":-1}],"cause":{"name":"a.C","commonElementCount":3}}}"#;
        let r2 = json_record(line).expect("object");
        assert_eq!(
            r2.first_error().expect("error").1.trace,
            "a.T\n\tat x.N.n(Native Method)\n\tat x.U.u(Unknown Source)\n\tat x.F.f(F.java)\n\
             Caused by: a.C\n\t... 3 more\n"
        );
        let hint = r.entries().find_map(|e| match e {
            Entry::Field(logship::SOURCE_HINT, V::Str(s)) => Some(s),
            _ => None,
        });
        assert_eq!(hint, Some("java"), "a Log4j2 event is a Java one");
        let plain = json_record(r#"{"message":"m"}"#).expect("object");
        assert!(fields(&plain).is_empty(), "no hint on other JSON");
    }

    #[test]
    fn log4j_context_map_entries_are_own_fields_in_place_and_never_the_events_own() {
        let r = json_record(
            r#"{"instant":{"epochSecond":1796133600,"nanoOfSecond":7},"thread":"main","level":"WARN","loggerName":"com.x.A","message":"m","endOfBatch":false,"loggerFqcn":"f","contextMap":{"requestId":"r1","level":"ERROR","message":"not it","":"e","nested":{"a":1}},"threadId":1}"#,
        )
        .expect("object");
        assert_eq!(r.timestamp_nanos(), 1_796_133_600_000_000_007);
        assert_eq!(r.level(), Level::Warn, "the root level, not the MDC's");
        assert_eq!(r.message_str(), "m");
        assert_eq!(r.target(), "com.x.A");
        let names: Vec<String> = fields(&r).into_iter().map(|(k, _)| k).collect();
        // In the line's order, the MDC's entries where the context map was; an empty key
        // keeps its prefix; Log4j2's internals and the instant are left out.
        let want = [
            logship::SOURCE_HINT,
            "thread",
            "requestId",
            "level",
            "message",
            "contextMap.",
            "nested.a",
            "threadId",
        ];
        assert_eq!(names, want);

        // An `instant` with more than its two members, or beside another time key, is
        // read the long way: its leaves stay fields unless they are the time.
        let odd = r#"{"instant":{"epochSecond":10,"nanoOfSecond":5,"x":1},"thread":"t","loggerName":"L","message":"m"}"#;
        let r = json_record(odd).expect("object");
        assert_eq!(r.timestamp_nanos(), 10_000_000_005);
        let names: Vec<String> = fields(&r).into_iter().map(|(k, _)| k).collect();
        assert_eq!(names, [logship::SOURCE_HINT, "instant.x", "thread"]);
        let both = r#"{"timeMillis":1796133600123,"instant":{"epochSecond":10},"thread":"t","loggerName":"L"}"#;
        let r = json_record(both).expect("object");
        assert_eq!(
            r.timestamp_nanos(),
            1_796_133_600_123_000_000,
            "timeMillis wins"
        );
        let names: Vec<String> = fields(&r).into_iter().map(|(k, _)| k).collect();
        assert_eq!(
            names,
            [logship::SOURCE_HINT, "instant.epochSecond", "thread"]
        );
        // Not a Log4j2 event: a context map is an ordinary nested object.
        let r = json_record(r#"{"contextMap":{"a":"b"},"message":"m"}"#).expect("object");
        assert_eq!(fields(&r)[0].0, "contextMap.a");
    }

    #[test]
    fn level_names_are_matched_whatever_their_case_and_padding() {
        for (text, want) in [
            ("INFO", Some(Level::Info)),
            (" Warning ", Some(Level::Warn)),
            ("eRr", Some(Level::Error)),
            ("FINEST", Some(Level::Trace)),
            ("fine", Some(Level::Debug)),
            ("notice", None),
            ("", None),
            ("infoo", None),
        ] {
            assert_eq!(parse_level(text), want, "{text:?}");
        }
    }

    #[test]
    fn times_read_as_rfc3339_or_epoch_by_magnitude() {
        let at = |line: &str| json_record(line).expect("object").timestamp_nanos();
        let want = 1_796_133_600_000_000_000u64; // 2026-12-01T14:00:00Z
        assert_eq!(at(r#"{"time":"2026-12-01T14:00:00Z"}"#), want);
        assert_eq!(at(r#"{"time":"2026-12-01t16:00:00+02:00"}"#), want);
        assert_eq!(at(r#"{"time":"2026-12-01 13:30:00-00:30"}"#), want);
        assert_eq!(
            at(r#"{"@timestamp":"2026-12-01T14:00:00.123456789123Z"}"#),
            want + 123_456_789
        );
        assert_eq!(at(r#"{"ts":1796133600}"#), want);
        assert_eq!(at(r#"{"ts":1796133600.25}"#), want + 250_000_000);
        assert_eq!(at(r#"{"time":1796133600000}"#), want);
        assert_eq!(at(r#"{"time":1796133600000000}"#), want);
        assert_eq!(at(r#"{"time":1796133600000000000}"#), want);
        assert_eq!(at(r#"{"timeMillis":1796133600001}"#), want + 1_000_000);
        assert_eq!(
            at(r#"{"instant":{"epochSecond":1796133600,"nanoOfSecond":7}}"#),
            want + 7
        );
        assert_eq!(at(r#"{"timestamp":"1970-01-01T00:00:00Z"}"#), 0);
        // Not a time: the record keeps its capture time and the key stays a field.
        for odd in [
            r#"{"time":"yesterday"}"#,
            r#"{"time":"2026-13-01T00:00:00Z"}"#,
            r#"{"time":"2026-12-01T14:00:00"}"#,
            r#"{"time":"2026-12-01T14:00:00.Z"}"#,
            r#"{"time":"1969-12-31T23:59:59Z"}"#,
            r#"{"time":-5}"#,
            r#"{"time":18446744073709551615000}"#,
            r#"{"time":99999999999999}"#,
        ] {
            let r = json_record(odd).expect("object");
            assert!(r.timestamp_nanos() > want, "{odd}: {}", r.timestamp_nanos());
            assert_eq!(fields(&r).len(), 1, "{odd}");
        }
    }

    #[test]
    fn levels_read_by_name_or_bunyan_number_under_the_usual_keys() {
        let level = |line: &str| json_record(line).expect("object").level();
        assert_eq!(level(r#"{"severity":"WARNING"}"#), Level::Warn);
        assert_eq!(level(r#"{"log.level":"error"}"#), Level::Error);
        assert_eq!(level(r#"{"log":{"level":"debug"}}"#), Level::Debug);
        assert_eq!(level(r#"{"levelname":"CRITICAL"}"#), Level::Error);
        assert_eq!(level(r#"{"level":10}"#), Level::Trace);
        assert_eq!(level(r#"{"level":40}"#), Level::Warn);
        assert_eq!(level(r#"{"level":60}"#), Level::Error);
        assert_eq!(level(r#"{"level":35,"severity":"debug"}"#), Level::Debug);
        let r = json_record(r#"{"level":35}"#).expect("object");
        assert_eq!(r.level(), Level::Info);
        assert_eq!(fields(&r)[0].0, "level");
    }

    /// Nested objects under long keys: `depth` levels of `key_len`-byte keys, then
    /// `leaves` members. Flattened naively, every leaf's name copies the whole path.
    fn name_bomb(depth: usize, key_len: usize, leaves: usize) -> String {
        let key = "k".repeat(key_len);
        let mut line = String::new();
        for _ in 0..depth {
            line.push_str(&format!("{{\"{key}\":"));
        }
        line.push('{');
        for i in 0..leaves {
            line.push_str(&format!("\"{i}\":1,"));
        }
        line.push_str("\"m\":\"end\"}");
        line.push_str(&"}".repeat(depth));
        line
    }

    #[test]
    fn nested_long_keys_build_names_bounded_by_the_lines_size() {
        // 100 levels of 1,000-byte keys over 10,000 leaves: a 190 KB line whose leaves'
        // names would take 1 GB.
        let line = format!(
            r#"{{"message":"bomb","level":"warn","ok":{{"a":1}},"x":{}}}"#,
            name_bomb(100, 1000, 10_000)
        );
        let r = json_record(&line).expect("object");
        assert_eq!(r.message_str(), "bomb");
        assert_eq!(r.level(), Level::Warn);
        let f = fields(&r);
        assert_eq!(f[0].0, "ok.a", "a small subtree is still flattened");
        assert_eq!(
            f[1].0,
            "x",
            "the bomb stays one field: {:?}",
            &f[1].0[..20.min(f[1].0.len())]
        );
        let names: usize = f.iter().map(|(k, _)| k.len()).sum();
        assert!(
            names < 8 * line.len(),
            "{names} name bytes for {}",
            line.len()
        );
        assert!(r.entries().count() < 10, "no field per leaf");
        // Deep but honest nesting still flattens.
        let r = json_record(&name_bomb(20, 3, 5)).expect("object");
        assert_eq!(fields(&r).len(), 6);
    }

    #[test]
    fn a_line_of_more_values_than_a_line_may_hold_is_not_read_as_json() {
        let line = format!(r#"{{"message":"m","a":[{}[]]}}"#, "[],".repeat(LINE_VALUES));
        assert!(
            json_record(&line).is_none(),
            "shipped as text by the caller"
        );
        let line = format!(r#"{{"message":"m","a":[{}[]]}}"#, "[],".repeat(1000));
        assert_eq!(json_record(&line).expect("object").message_str(), "m");
    }

    #[test]
    fn lines_are_split_and_capped() {
        let data = b"one\r\ntwo\n\nlong-line-here\nlast";
        let mut reader = &data[..];
        let mut buf = Vec::new();
        let mut lines = Vec::new();
        let mut sizes = Vec::new();
        let mut ends = Vec::new();
        while let Some((n, ended)) = read_line(&mut reader, &mut buf, 6).expect("in-memory read") {
            lines.push(utf8_lossy(trim_newline(&buf)).into_owned());
            sizes.push(n);
            ends.push(ended);
        }
        assert_eq!(lines, ["one", "two", "", "long-l", "last"]);
        assert_eq!(sizes, [5, 4, 1, 15, 4], "the real length, newline included");
        assert_eq!(
            ends,
            [true, true, true, true, false],
            "the cut line's newline too"
        );
    }
}
