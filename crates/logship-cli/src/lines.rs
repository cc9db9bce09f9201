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

#[path = "lines/json.rs"]
pub(crate) mod json;

pub(crate) use json::{Json, Members};

/// Target of an event whose input names no logger: none (the vendors' logger field is
/// left out rather than filled with a name logship made up).
pub(crate) const TARGET: &str = "";

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
        let (used, done) = match memchr::memchr(b'\n', chunk) {
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
pub(crate) fn json_record(line: &str) -> Option<Record> {
    let Ok(Json::Object(map)) = Json::parse(line) else {
        return None;
    };
    Some(object_record(&map, line.len()))
}

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
    if let Some(t) = thrown {
        let error = Throwable::read(t);
        record.error("error", &error);
        if let Some(Json::String(name)) = t.get("name") {
            record.field("thrown.name", name.as_ref());
        }
        if let Some(trace) = stack_text(t) {
            record.field("thrown.extendedStackTrace", trace.as_str());
        }
    }
    for leaf in &leaves {
        add_field(&mut record, &leaf.name, leaf.value);
    }
    record
}

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

/// Most causes of one Log4j2 `thrown` read (deeper ones are left out).
const MAX_CAUSES: usize = 16;

/// A Java exception as Log4j2's `JsonLayout` writes it (`thrown`: `name`, `message`,
/// `cause`...), as an error value: its `Debug` is the simple class name (the record reads
/// the error's kind from it), its `Display` the message, its `source` the cause.
#[derive(Default)]
struct Throwable {
    simple_name: String,
    name: String,
    message: String,
    /// A cause's `Display` is `name: message`, as Java prints a `Caused by:` line.
    is_cause: bool,
    cause: Option<Box<Throwable>>,
}

impl Throwable {
    /// Reads `thrown` and its causes (iteratively, at most [`MAX_CAUSES`]).
    fn read(thrown: &Members<'_>) -> Throwable {
        let one = |t: &Members<'_>, is_cause| {
            let text = |k: &str| t.get(k).and_then(Json::as_str).unwrap_or("").to_owned();
            let name = text("name");
            Throwable {
                simple_name: name.rsplit(['.', '$']).next().unwrap_or("").to_owned(),
                name,
                message: text("message"),
                is_cause,
                cause: None,
            }
        };
        let mut chain = vec![one(thrown, false)];
        let mut at = thrown;
        while let Some(Json::Object(cause)) = at.get("cause") {
            if chain.len() > MAX_CAUSES {
                break;
            }
            chain.push(one(cause, true));
            at = cause;
        }
        let mut inner: Option<Box<Throwable>> = None;
        while let Some(mut t) = chain.pop() {
            t.cause = inner.take();
            inner = Some(Box::new(t));
        }
        inner.map(|b| *b).unwrap_or_default()
    }
}

impl std::fmt::Debug for Throwable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.simple_name)
    }
}

impl std::fmt::Display for Throwable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.is_cause, self.message.is_empty()) {
            (true, true) => f.write_str(&self.name),
            (true, false) => write!(f, "{}: {}", self.name, self.message),
            (false, _) => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for Throwable {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.cause
            .as_deref()
            .map(|c| c as &(dyn std::error::Error + 'static))
    }
}

/// Most stack frames written per exception in `thrown.extendedStackTrace`.
const MAX_FRAMES: usize = 256;

/// `thrown.extendedStackTrace` as Java prints it (`\tat class.method(File.java:12)` lines,
/// each cause after a `Caused by:` line): a string as it is (`stacktraceAsString`), an
/// array of frames formatted.
fn stack_text(thrown: &Members<'_>) -> Option<String> {
    let mut out = String::new();
    let mut at = Some(thrown);
    let mut depth = 0;
    while let Some(t) = at {
        match t.get("extendedStackTrace") {
            Some(Json::String(s)) => return Some(s.to_string()),
            Some(Json::Array(frames)) => {
                if depth > 0 {
                    let text = |k: &str| t.get(k).and_then(Json::as_str).unwrap_or("");
                    out.push_str(&format!(
                        "Caused by: {}: {}\n",
                        text("name"),
                        text("message")
                    ));
                }
                for frame in frames.iter().take(MAX_FRAMES) {
                    let text = |k: &str| frame.get(k).and_then(Json::as_str).unwrap_or("?");
                    let line = frame.get("line").and_then(Json::as_i64).unwrap_or(-1);
                    out.push_str(&format!(
                        "\tat {}.{}({}:{line})\n",
                        text("class"),
                        text("method"),
                        text("file")
                    ));
                }
            }
            _ => {}
        }
        depth += 1;
        at = match t.get("cause") {
            Some(Json::Object(c)) if depth <= MAX_CAUSES => Some(c),
            _ => None,
        };
    }
    (!out.is_empty()).then_some(out)
}

/// One leaf of a flattened object.
#[derive(Debug)]
pub(crate) struct Leaf<'a, 'b> {
    /// Its dotted name (borrowed where it is a member's own name).
    pub(crate) name: Cow<'a, str>,
    /// Its value.
    pub(crate) value: &'a Json<'b>,
    /// Lifted out of an object whose members are plain fields (Log4j2's `contextMap`):
    /// never read as the event's level, logger, message or time.
    pub(crate) own: bool,
}

/// The leaves of `map` in order, nested objects' under dotted names; iterative (no
/// recursion on input). An empty object is a leaf (its text, `{}`).
pub(crate) fn flatten<'a, 'b>(
    map: &'a Members<'b>,
    lift_fields: bool,
    skip: &[&str],
) -> Vec<Leaf<'a, 'b>> {
    flatten_with(map, lift_fields, skip, None)
}

/// [`flatten`], with the members of the root object `own` (if it is one) named by their
/// own keys and marked [`Leaf::own`] (an empty key keeps the name `own.`). `skip` names
/// root members left out; `lift_fields` lifts tracing-subscriber's `fields` to the root.
fn flatten_with<'a, 'b>(
    map: &'a Members<'b>,
    lift_fields: bool,
    skip: &[&str],
    own: Option<&'a str>,
) -> Vec<Leaf<'a, 'b>> {
    /// One object being walked: the prefix of its names, whether its members are lifted
    /// `own` fields (and whether it is the `own` object itself), and its other members.
    struct Frame<'a, 'b> {
        prefix: Cow<'a, str>,
        own: bool,
        own_root: bool,
        members: std::slice::Iter<'a, (Cow<'b, str>, Json<'b>)>,
    }
    let mut out = Vec::with_capacity(map.len() + 4);
    // Room for three levels below the root before it grows (Log4j2's events have one).
    let mut stack = Vec::with_capacity(4);
    stack.push(Frame {
        prefix: Cow::Borrowed(""),
        own: false,
        own_root: false,
        members: map.as_slice().iter(),
    });
    loop {
        let depth = stack.len();
        let Some(frame) = stack.last_mut() else {
            break;
        };
        let Some((key, value)) = frame.members.next() else {
            stack.pop();
            continue;
        };
        let at_root = depth == 1;
        if at_root && skip.contains(&key.as_ref()) {
            continue;
        }
        let in_own = frame.own;
        let name: Cow<'a, str> = if frame.own_root && key.is_empty() {
            Cow::Owned(format!("{}.", own.unwrap_or_default()))
        } else if frame.prefix.is_empty() {
            Cow::Borrowed(key.as_ref())
        } else {
            let prefix = &frame.prefix;
            let mut name = String::with_capacity(prefix.len() + 1 + key.len());
            name.push_str(prefix);
            name.push('.');
            name.push_str(key);
            Cow::Owned(name)
        };
        match value {
            Json::Object(inner) if !inner.is_empty() => {
                let lifts_own = at_root && own == Some(key.as_ref());
                let name = if (lift_fields && at_root && key == "fields") || lifts_own {
                    Cow::Borrowed("")
                } else {
                    name
                };
                stack.push(Frame {
                    prefix: name,
                    own: in_own || lifts_own,
                    own_root: lifts_own,
                    members: inner.as_slice().iter(),
                });
            }
            leaf => out.push(Leaf {
                name,
                value: leaf,
                own: in_own,
            }),
        }
    }
    out
}

/// The first of `keys` (in their order of preference) whose leaf `read` accepts; that
/// leaf is taken out of `leaves`. A leaf `read` refuses stays a field.
pub(crate) fn take_first<'a, 'b, T>(
    leaves: &mut Vec<Leaf<'a, 'b>>,
    keys: &[&str],
    read: impl Fn(&'a Json<'b>) -> Option<T>,
) -> Option<T> {
    for key in keys {
        let found = leaves
            .iter()
            .position(|leaf| !leaf.own && leaf.name == *key)
            .and_then(|i| Some((i, read(leaves[i].value)?)));
        if let Some((i, value)) = found {
            leaves.remove(i);
            return Some(value);
        }
    }
    None
}

/// `value` as the record's field `key`: strings, booleans and numbers as themselves;
/// arrays, `null` and empty objects as their JSON text.
pub(crate) fn add_field(record: &mut Record, key: &str, value: &Json<'_>) {
    match value {
        Json::String(s) => record.field(key, s.as_ref()),
        Json::Bool(b) => record.field(key, *b),
        Json::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => record.field(key, i),
            (None, Some(u), _) => record.field(key, u),
            (None, None, Some(f)) => record.field(key, f),
            _ => record.field(key, n.to_string().as_str()),
        },
        // Arrays, null and empty objects stay structure (their JSON text, checked again
        // by the record) for the vendors whose bodies are JSON.
        other => record.field(key, logship::Value::Json(&other.to_string())),
    };
}

/// Level names as commonly written in JSON logs.
const LEVEL_NAMES: &[(&str, Level)] = &[
    ("info", Level::Info),
    ("warn", Level::Warn),
    ("error", Level::Error),
    ("debug", Level::Debug),
    ("trace", Level::Trace),
    ("warning", Level::Warn),
    ("information", Level::Info),
    ("err", Level::Error),
    ("fatal", Level::Error),
    ("critical", Level::Error),
    ("severe", Level::Error),
    ("fine", Level::Debug),
    ("finer", Level::Trace),
    ("finest", Level::Trace),
];

/// A level name as commonly written in JSON logs, case-insensitive (compared in place:
/// no lowercased copy per event).
pub(crate) fn parse_level(s: &str) -> Option<Level> {
    let s = s.trim();
    LEVEL_NAMES
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(s))
        .map(|&(_, level)| level)
}

/// A level name, or a bunyan/pino level number (10 trace, 20 debug, 30 info, 40 warn, 50
/// error, 60 fatal).
fn parse_level_value(v: &Json<'_>) -> Option<Level> {
    match v {
        Json::String(s) => parse_level(s),
        Json::Number(n) => Some(match n.as_u64()? {
            10 => Level::Trace,
            20 => Level::Debug,
            30 => Level::Info,
            40 => Level::Warn,
            50 | 60 => Level::Error,
            _ => return None,
        }),
        _ => None,
    }
}

/// A time as RFC 3339 text, or as epoch seconds, milliseconds, microseconds or
/// nanoseconds (told apart by magnitude: below 10^11 seconds, 10^14 ms, 10^17 µs), as
/// Unix nanoseconds. Before 1970 or past 2262 is not a time here.
pub(crate) fn parse_time(v: &Json<'_>) -> Option<u64> {
    match v {
        Json::String(s) => parse_rfc3339(s),
        Json::Number(n) => {
            if let Some(u) = n.as_u64() {
                return match u {
                    0..100_000_000_000 => u.checked_mul(1_000_000_000),
                    100_000_000_000..100_000_000_000_000 => u.checked_mul(1_000_000),
                    100_000_000_000_000..100_000_000_000_000_000 => u.checked_mul(1_000),
                    _ => Some(u),
                };
            }
            let f = n.as_f64()?;
            if !(0.0..1.8e19).contains(&f) {
                return None;
            }
            let scale: u64 = if f < 1e11 {
                1_000_000_000
            } else if f < 1e14 {
                1_000_000
            } else if f < 1e17 {
                1_000
            } else {
                1
            };
            // Whole and fraction apart: `f * 1e9` would lose the fraction's digits.
            let whole = f.trunc();
            let frac = ((f - whole) * scale as f64).round() as u64;
            (whole as u64).checked_mul(scale)?.checked_add(frac)
        }
        _ => None,
    }
}

/// Log4j2 `JsonLayout`'s `instant` object, `{"epochSecond": s, "nanoOfSecond": ns}` and
/// nothing else, as Unix nanoseconds.
fn instant_nanos(instant: &Json<'_>) -> Option<u64> {
    let Json::Object(m) = instant else {
        return None;
    };
    let secs = m.get("epochSecond")?.as_u64()?;
    let frac = match (m.len(), m.get("nanoOfSecond")) {
        (1, None) => 0,
        (2, Some(n)) => n.as_u64()?,
        _ => return None,
    };
    secs.checked_mul(1_000_000_000)?
        .checked_add(frac.min(999_999_999))
}

/// Log4j2 `JsonLayout`'s `instant` among flattened leaves (`instant.epochSecond`,
/// `instant.nanoOfSecond`), taken out: where [`instant_nanos`] could not read it whole.
fn log4j_instant(leaves: &mut Vec<Leaf<'_, '_>>) -> Option<u64> {
    let at = |leaves: &Vec<Leaf<'_, '_>>, key: &str| {
        leaves
            .iter()
            .position(|l| !l.own && l.name == key && l.value.is_u64())
    };
    let s = at(leaves, "instant.epochSecond")?;
    let secs = leaves[s].value.as_u64()?;
    let n = at(leaves, "instant.nanoOfSecond");
    let frac = n.and_then(|n| leaves[n].value.as_u64()).unwrap_or(0);
    let nanos = secs
        .checked_mul(1_000_000_000)?
        .checked_add(frac.min(999_999_999))?;
    // Remove the later index first so the earlier one stays valid.
    let mut taken = [Some(s), n];
    taken.sort_unstable_by(|a, b| b.cmp(a));
    for i in taken.into_iter().flatten() {
        leaves.remove(i);
    }
    Some(nanos)
}

/// RFC 3339 (`2026-12-01T14:00:00.123456Z`, `…+02:00`; `t`, `z` and a space for `T`
/// accepted) as Unix nanoseconds; fractions past nanoseconds are cut.
pub(crate) fn parse_rfc3339(s: &str) -> Option<u64> {
    let b = s.trim().as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let part = b.get(from..from + len)?;
        part.iter().try_fold(0i64, |acc, &c| {
            c.is_ascii_digit().then(|| acc * 10 + i64::from(c - b'0'))
        })
    };
    let (year, month, day) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (hour, minute, second) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    if b.get(4) != Some(&b'-')
        || b.get(7) != Some(&b'-')
        || !matches!(b.get(10), Some(b'T' | b't' | b' '))
        || b.get(13) != Some(&b':')
        || b.get(16) != Some(&b':')
        || !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let mut i = 19;
    let mut frac = 0i64;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let mut digits = 0;
        while let Some(c) = b.get(i).filter(|c| c.is_ascii_digit()) {
            if digits < 9 {
                frac = frac * 10 + i64::from(c - b'0');
                digits += 1;
            }
            i += 1;
        }
        if digits == 0 {
            return None;
        }
        frac *= 10i64.pow(9 - digits);
    }
    let offset = match b.get(i)? {
        b'Z' | b'z' if i + 1 == b.len() => 0,
        sign @ (b'+' | b'-') if i + 6 == b.len() && b.get(i + 3) == Some(&b':') => {
            let (h, m) = (num(i + 1, 2)?, num(i + 4, 2)?);
            if h > 23 || m > 59 {
                return None;
            }
            let o = h * 3600 + m * 60;
            if *sign == b'+' {
                o
            } else {
                -o
            }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + hour * 3600 + minute * 60 + second.min(59) - offset;
    let nanos = i128::from(secs) * 1_000_000_000 + i128::from(frac);
    u64::try_from(nanos).ok()
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
pub(crate) fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
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
        assert_eq!(names, ["instant.x", "thread"]);
        let both = r#"{"timeMillis":1796133600123,"instant":{"epochSecond":10},"thread":"t","loggerName":"L"}"#;
        let r = json_record(both).expect("object");
        assert_eq!(
            r.timestamp_nanos(),
            1_796_133_600_123_000_000,
            "timeMillis wins"
        );
        let names: Vec<String> = fields(&r).into_iter().map(|(k, _)| k).collect();
        assert_eq!(names, ["instant.epochSecond", "thread"]);
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

    #[test]
    fn lines_are_split_and_capped() {
        let data = b"one\r\ntwo\n\nlong-line-here\nlast";
        let mut reader = &data[..];
        let mut buf = Vec::new();
        let mut lines = Vec::new();
        let mut sizes = Vec::new();
        while let Some(n) = read_line(&mut reader, &mut buf, 6).expect("in-memory read") {
            lines.push(utf8_lossy(trim_newline(&buf)).into_owned());
            sizes.push(n);
        }
        assert_eq!(lines, ["one", "two", "", "long-l", "last"]);
        assert_eq!(sizes, [5, 4, 1, 15, 4], "the real length, newline included");
    }
}
