//! Datadog Logs intake: `POST /api/v2/logs` (and the legacy `POST /v1/input`,
//! `/v1/input/<API key>`), as Datadog's clients send it (docs/listen-vendors.md).
//!
//! The body is a JSON array of log objects or a single object (`application/json`), or
//! lines of text (`text/plain`, `application/logplex-1`, one log per line). Each object
//! becomes one event: `message` (or `msg`, `log`), `status` (or `severity`, `level`,
//! `syslog.severity`) read with the rules of Datadog's status remapper, `timestamp` (or
//! the other date attributes of Datadog's date remapper) as epoch milliseconds or ISO
//! 8601, `logger.name` as the target, `hostname` as the field `host`, `service`, `ddsource`
//! as the field `source`, each `ddtags` tag `k:v` as the field `k` (a bare tag as `true`),
//! every other attribute as a field, nested objects under dotted names.
//!
//! Answers: `202 {}` (v1: `200 {}`); errors in Datadog's shape
//! `{"errors":[{"status","title","detail"}]}`. Must never: refuse what Datadog takes (an
//! entry without `message`, a numeric status, an unknown attribute).

use logship::{Level, Record};

use super::exchange::{Answer, Decoded, Request};
use crate::lines::{self, Json, Members};

/// The v2 path.
const PATH: &str = "/api/v2/logs";
/// The legacy v1 path (also `/v1/input/<API key>`).
const V1_PATH: &str = "/v1/input";
/// Where Datadog's clients send the API key.
const API_KEY_HEADER: &str = "dd-api-key";

/// Attributes Datadog's status remapper reads, first found wins.
const STATUS_KEYS: &[&str] = &["status", "severity", "level", "syslog.severity"];
/// Attributes Datadog's message remapper reads.
const MESSAGE_KEYS: &[&str] = &["message", "msg", "log"];
/// Attributes Datadog's date remapper reads (docs/wire-formats.md 1.3).
const DATE_KEYS: &[&str] = &[
    "timestamp",
    "date",
    "_timestamp",
    "Timestamp",
    "eventTime",
    "published_date",
];
/// Attributes read as the logger (Datadog's standard attribute first).
const LOGGER_KEYS: &[&str] = &["logger.name", "logger"];

/// Whether this module serves `path`.
pub(super) fn serves(path: &str) -> bool {
    path == PATH || v1_key(path).is_some() || path == V1_PATH
}

/// The API key of a `/v1/input/<key>` path.
fn v1_key(path: &str) -> Option<&str> {
    path.strip_prefix("/v1/input/")
        .filter(|k| !k.is_empty() && !k.contains('/'))
}

/// The API key: `DD-API-KEY`, else the `dd-api-key` query parameter, else the v1 path.
pub(super) fn credential<'a>(req: &Request<'a>) -> Option<&'a str> {
    req.header(API_KEY_HEADER)
        .map(str::trim)
        .or_else(|| req.query_raw(API_KEY_HEADER))
        .or_else(|| v1_key(req.path))
}

/// Datadog's error answer.
pub(super) fn error(status: u16, detail: &str) -> Answer {
    Answer::json(
        status,
        &logship_http::answers::datadog::error_json(status, detail),
    )
}

/// Decodes one request.
pub(super) fn decode(req: &Request<'_>) -> Decoded {
    if req.method != "POST" {
        let detail = format!("method {} not allowed: Datadog logs are POSTed", req.method);
        return Decoded::Answer(error(405, &detail).allow("POST"));
    }
    let success = if req.path == PATH {
        Answer::json(202, &serde_json::json!({}))
    } else {
        Answer::json(200, &serde_json::json!({}))
    };
    let defaults = Defaults::of(req);
    let text = matches!(
        req.media_type().as_deref(),
        Some("text/plain" | "application/logplex-1")
    );
    let records = if text {
        text_lines(req.body, &defaults)
    } else {
        match json_body(req.body, &defaults) {
            Ok(records) => records,
            Err(detail) => return Decoded::Answer(error(400, &detail)),
        }
    };
    if records.is_empty() {
        return Decoded::Answer(success);
    }
    Decoded::Events(records, success)
}

/// What the query string sets for every entry of the request: `ddtags` (added to each
/// entry's own), and the v1 parameters `ddsource`, `service`, `hostname` (an entry's own
/// attribute wins).
struct Defaults {
    tags: Option<String>,
    source: Option<String>,
    service: Option<String>,
    host: Option<String>,
}

impl Defaults {
    fn of(req: &Request<'_>) -> Defaults {
        Defaults {
            tags: req.query_param("ddtags"),
            source: req.query_param("ddsource"),
            service: req.query_param("service"),
            host: req.query_param("hostname"),
        }
    }
}

/// A JSON body: an array of entries or one entry. Whitespace only, `[]` and `{}` carry
/// nothing (Datadog's agents send `{}` to keep a connection alive).
fn json_body(body: &[u8], defaults: &Defaults) -> Result<Vec<Record>, String> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Vec::new());
    }
    let root: Json<'_> = serde_json::from_slice(body)
        .map_err(|e| format!("Malformed payload: the body is not valid JSON ({e})"))?;
    let entries = match root {
        Json::Array(items) => items,
        Json::Object(map) if map.is_empty() => return Ok(Vec::new()),
        other @ Json::Object(_) => vec![other],
        other => {
            return Err(format!(
                "Malformed payload: the body is a JSON {}, not an array of logs",
                other.kind()
            ))
        }
    };
    let mut records = Vec::with_capacity(entries.len());
    for (i, entry) in entries.iter().enumerate() {
        match entry {
            Json::Object(map) => records.push(entry_record(map, defaults)),
            Json::String(s) => records.push(text_entry(s, defaults)),
            other => {
                return Err(format!(
                    "Malformed payload: log {i} is a JSON {}, not an object",
                    other.kind()
                ))
            }
        }
    }
    Ok(records)
}

/// A text body: one log per non-empty line.
fn text_lines(body: &[u8], defaults: &Defaults) -> Vec<Record> {
    body.split(|b| *b == b'\n')
        .map(lines::trim_newline)
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        .map(|l| {
            let text = lines::utf8_lossy(l);
            let mut record = text_entry(&text, defaults);
            if matches!(text, std::borrow::Cow::Owned(_)) {
                record.mark_invalid_utf8();
            }
            record
        })
        .collect()
}

/// A log that is only a message.
fn text_entry(message: &str, defaults: &Defaults) -> Record {
    let mut record = lines::text_record(message);
    add_defaults(&mut record, defaults, &Present::default());
    record
}

/// Which reserved attributes an entry had itself.
#[derive(Default)]
struct Present {
    source: bool,
    service: bool,
    host: bool,
}

/// The query-string defaults the entry did not set itself.
fn add_defaults(record: &mut Record, defaults: &Defaults, present: &Present) {
    if let (Some(s), false) = (&defaults.source, present.source) {
        record.field("source", s.as_str());
    }
    if let (Some(s), false) = (&defaults.service, present.service) {
        record.field("service", s.as_str());
    }
    if let (Some(s), false) = (&defaults.host, present.host) {
        record.field("host", s.as_str());
    }
    if let Some(tags) = &defaults.tags {
        add_tags(record, tags);
    }
}

/// One log object as an event.
fn entry_record(map: &Members<'_>, defaults: &Defaults) -> Record {
    let mut leaves = lines::flatten::flatten(map, false, &[]);
    let status = lines::flatten::take_first(&mut leaves, STATUS_KEYS, status_of);
    let message = lines::flatten::take_first(&mut leaves, MESSAGE_KEYS, lines::message_text);
    let nanos = lines::flatten::take_first(&mut leaves, DATE_KEYS, lines::time::parse_time);
    let target = lines::flatten::take_first(&mut leaves, LOGGER_KEYS, non_empty);
    let host = lines::flatten::take_first(&mut leaves, &["hostname", "host"], non_empty);
    let service = lines::flatten::take_first(&mut leaves, &["service"], non_empty);
    let source = lines::flatten::take_first(&mut leaves, &["ddsource", "source"], non_empty);
    let tags = lines::flatten::take_first(&mut leaves, &["ddtags"], non_empty);
    let (level, original) = status.unwrap_or((Level::Info, None));
    let target = target.unwrap_or(lines::TARGET);
    let mut record = Record::with_capacity(level, target, 256);
    if let Some(nanos) = nanos {
        record.set_timestamp_nanos(nanos);
    }
    if let Some(m) = &message {
        record.message(m);
    }
    if let Some(original) = &original {
        record.field("status", original.as_str());
    }
    let present = Present {
        source: source.is_some(),
        service: service.is_some(),
        host: host.is_some(),
    };
    for (key, value) in [("host", &host), ("service", &service), ("source", &source)] {
        if let Some(v) = value {
            record.field(key, *v);
        }
    }
    if let Some(tags) = &tags {
        add_tags(&mut record, tags);
    }
    for leaf in &leaves {
        lines::flatten::add_field(&mut record, &leaf.name, leaf.value);
    }
    add_defaults(&mut record, defaults, &present);
    record
}

fn non_empty<'a>(v: &'a Json<'_>) -> Option<&'a str> {
    v.as_str().filter(|s| !s.is_empty())
}

/// Each `k:v` tag of a comma-separated list as the field `k` = `v`; a tag without a
/// value as the field `tag` = `true`.
fn add_tags(record: &mut Record, tags: &str) {
    for tag in tags.split(',').map(str::trim).filter(|t| !t.is_empty()) {
        match tag.split_once(':') {
            Some((k, v)) if !k.is_empty() => record.field(k, v),
            _ => record.field(tag, true),
        };
    }
}

/// The level of a status, by Datadog's status remapper rules (docs/wire-formats.md 1.3):
/// integers 0-7 are syslog severities; a name by its first letters; anything else info.
/// The original text is kept (as the field `status`) when the level alone loses it
/// (`notice`, `critical`, `ok`, ...). `None` for a value that is not a string or number.
fn status_of(v: &Json<'_>) -> Option<(Level, Option<String>)> {
    let text = match v {
        Json::String(s) => s.trim().to_owned(),
        Json::Number(n) => {
            let level = match n.as_u64()? {
                0..=3 => Level::Error,
                4 => Level::Warn,
                5 | 6 => Level::Info,
                7 => Level::Debug,
                _ => Level::Info,
            };
            return Some((level, Some(n.to_string())));
        }
        _ => return None,
    };
    let lower = text.to_ascii_lowercase();
    let level = if let Ok(n) = lower.parse::<u8>() {
        status_of(&Json::Number(n.into()))?.0
    } else if ["emerg", "f", "a", "c", "err"]
        .iter()
        .any(|p| lower.starts_with(p))
    {
        // emergency, fatal, alert, critical, error.
        Level::Error
    } else if lower.starts_with('w') {
        Level::Warn
    } else if lower.starts_with('d') || lower.starts_with("trace") || lower.starts_with("verbose") {
        Level::Debug
    } else {
        // `n…` notice, `i…` info, `o…`/`s…` ok, and anything else: info.
        Level::Info
    };
    let exact = matches!(
        lower.as_str(),
        "debug" | "info" | "warn" | "warning" | "error"
    );
    Some((level, (!exact).then_some(text)))
}
