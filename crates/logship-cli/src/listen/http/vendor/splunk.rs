//! Splunk HTTP Event Collector: `/services/collector`, `/services/collector/event` (and
//! `/event/1.0`), `/services/collector/raw` (and `/raw/1.0`), `/services/collector/health`
//! (and `/health/1.0`), as HEC's clients send them (docs/listen-vendors.md).
//!
//! `/event`: concatenated JSON envelopes, with or without whitespace between them
//! (`{"event":…}{"event":…}`). `time` (epoch seconds, a number or a numeric string) is
//! the event's time; `host`, `source`, `sourcetype`, `index` become fields; `event` is
//! the message when a string (read like a JSON line when it is a JSON object text),
//! or read like a JSON line (message, level, logger, fields) when an object; `fields`
//! (indexed fields) become fields. `/raw`: one event per line, with `host`, `source`,
//! `sourcetype`, `index` from the query.
//!
//! Answers: `200 {"text":"Success","code":0}`; errors `{"text","code"}` with HEC's codes
//! and statuses (no data 5, invalid data format 6 and event field required 12 or blank 13
//! with the 0-based `invalid-event-number`; server busy 9 is 503). As on the real HEC,
//! one bad envelope fails the whole request. Must never: accept part of a request it
//! answers with an error.

use std::borrow::Cow;

use logship::Record;
use logship_http::answers::splunk::{hec_json, text as hec_text};
use logship_http::answers::strip_scheme;

pub(super) use logship_http::answers::splunk::code;

use super::exchange::{Answer, Decoded, Request, Vendor};
use crate::lines::{self, Json, Members};

/// The `/event` paths.
const EVENT_PATHS: [&str; 3] = [
    "/services/collector",
    "/services/collector/event",
    "/services/collector/event/1.0",
];
/// The `/raw` paths.
const RAW_PATHS: [&str; 2] = ["/services/collector/raw", "/services/collector/raw/1.0"];
/// The health paths.
const HEALTH_PATHS: [&str; 2] = [
    "/services/collector/health",
    "/services/collector/health/1.0",
];
/// The indexer acknowledgement query path: acknowledgement is off here (code 14).
const ACK_PATH: &str = "/services/collector/ack";
/// Envelope metadata kept as fields.
const METADATA: [&str; 4] = ["host", "source", "sourcetype", "index"];

/// The HEC API on `path`.
pub(super) fn route(path: &str) -> Option<Vendor> {
    if EVENT_PATHS.contains(&path) || path == ACK_PATH {
        Some(Vendor::SplunkEvent)
    } else if RAW_PATHS.contains(&path) {
        Some(Vendor::SplunkRaw)
    } else if HEALTH_PATHS.contains(&path) {
        Some(Vendor::SplunkHealth)
    } else {
        None
    }
}

/// The token: `Authorization: Splunk T` (or `Bearer T`, or `Basic` with T as the
/// password, as HEC reads it whatever the user name), else `?token=T`.
pub(super) fn credential<'a>(req: &Request<'a>) -> Option<Cow<'a, str>> {
    let auth = req.header("authorization");
    if let Some(t) =
        auth.and_then(|v| strip_scheme(v, "Splunk").or_else(|| strip_scheme(v, "Bearer")))
    {
        return Some(Cow::Borrowed(t));
    }
    if let Some(basic) = auth.and_then(|v| strip_scheme(v, "Basic")) {
        return basic_password(basic).map(Cow::Owned);
    }
    req.query_raw("token").map(Cow::Borrowed)
}

/// The password of a Basic credential (`base64(user:password)`); `None` when it is not
/// valid base64, UTF-8 or `user:password`.
fn basic_password(encoded: &str) -> Option<String> {
    use base64::Engine as _;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()?;
    let text = String::from_utf8(decoded).ok()?;
    text.split_once(':')
        .map(|(_, password)| password.to_owned())
}

/// A HEC answer with `code`'s text.
pub(super) fn answer(status: u16, code: u16, event: Option<usize>) -> Answer {
    Answer::json(status, &hec_json(code, hec_text(code), event))
}

/// An answer without a HEC code of its own (405, 413): the HEC shape, the HTTP status as
/// the code.
pub(super) fn http_error(status: u16, message: &str) -> Answer {
    Answer::json(status, &hec_json(status, message, None))
}

/// 503 code 9, "Server is busy".
pub(super) fn busy() -> Answer {
    answer(503, code::SERVER_BUSY, None)
}

/// `/services/collector/health`: 200 code 17, whatever the method and token (the server
/// answers [`busy`] instead when its queue is full).
pub(super) fn health(_req: &Request<'_>) -> Decoded {
    Decoded::Answer(answer(200, code::HEALTHY, None))
}

fn success() -> Answer {
    answer(200, code::SUCCESS, None)
}

fn require_post(req: &Request<'_>) -> Result<(), Answer> {
    if req.method == "POST" {
        return Ok(());
    }
    let message = format!("method {} not allowed: HEC events are POSTed", req.method);
    Err(http_error(405, &message).allow("POST"))
}

/// `/event` (and `/ack`, answered "ACK is disabled").
pub(super) fn decode_event(req: &Request<'_>) -> Decoded {
    if let Err(answer) = require_post(req) {
        return Decoded::Answer(answer);
    }
    if req.path == ACK_PATH {
        return Decoded::Answer(answer(400, code::ACK_DISABLED, None));
    }
    match envelopes(req.body, req.max_events) {
        Ok(records) => Decoded::Events(records, success()),
        Err(answer) => Decoded::Answer(answer),
    }
}

/// Every envelope of the body (reading stops at one more than `max_events`), or the
/// answer to the first bad one.
fn envelopes(body: &[u8], max_events: usize) -> Result<Vec<Record>, Answer> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(answer(400, code::NO_DATA, None));
    }
    let mut records = Vec::new();
    let stream = serde_json::Deserializer::from_slice(body).into_iter::<Json<'_>>();
    for (i, item) in stream.enumerate() {
        let invalid = || answer(400, code::INVALID_DATA_FORMAT, Some(i));
        let Ok(Json::Object(envelope)) = item else {
            return Err(invalid());
        };
        records.push(envelope_record(&envelope, i)?);
        if records.len() > max_events {
            break;
        }
    }
    Ok(records)
}

/// One envelope as an event.
fn envelope_record(envelope: &Members<'_>, i: usize) -> Result<Record, Answer> {
    let mut record = match envelope.get("event") {
        None => return Err(answer(400, code::EVENT_REQUIRED, Some(i))),
        Some(Json::Null) => return Err(answer(400, code::EVENT_BLANK, Some(i))),
        Some(Json::String(s)) if s.is_empty() => {
            return Err(answer(400, code::EVENT_BLANK, Some(i)))
        }
        Some(Json::Object(o)) if o.is_empty() => {
            return Err(answer(400, code::EVENT_BLANK, Some(i)))
        }
        Some(Json::String(s)) => string_event(s),
        Some(Json::Object(o)) => lines::object_record(o, 256),
        Some(other) => lines::text_record(&other.to_string()),
    };
    if let Some(time) = envelope.get("time") {
        match epoch_seconds(time) {
            Some(nanos) => {
                record.set_timestamp_nanos(nanos);
            }
            None => return Err(answer(400, code::INVALID_DATA_FORMAT, Some(i))),
        }
    }
    for key in METADATA {
        match envelope.get(key) {
            Some(Json::String(s)) => {
                record.field(key, s.as_ref());
            }
            None | Some(Json::Null) => {}
            Some(other) => {
                record.field(key, other.to_string().as_str());
            }
        }
    }
    if let Some(Json::Object(fields)) = envelope.get("fields") {
        for (key, value) in fields.iter() {
            lines::flatten::add_field(&mut record, key, value);
        }
    }
    Ok(record)
}

/// A string event: read like a JSON line when it is a JSON object, else the message.
fn string_event(s: &str) -> Record {
    if s.trim_start().starts_with('{') {
        if let Some(record) = lines::json_record(s) {
            return record;
        }
    }
    lines::text_record(s)
}

/// HEC's `time`: epoch seconds with an optional fraction, as a number or a numeric string
/// (as HEC takes it), as Unix nanoseconds. `None` for anything else.
fn epoch_seconds(v: &Json<'_>) -> Option<u64> {
    let secs = match v {
        Json::Number(n) => n.as_f64()?,
        Json::String(s) => s.trim().parse::<f64>().ok()?,
        _ => return None,
    };
    if !(0.0..1e11).contains(&secs) {
        return None;
    }
    let whole = secs.trunc();
    let frac = ((secs - whole) * 1e9).round() as u64;
    (whole as u64).checked_mul(1_000_000_000)?.checked_add(frac)
}

/// `/raw`: one event per non-empty line, the query's metadata on each.
pub(super) fn decode_raw(req: &Request<'_>) -> Decoded {
    if let Err(answer) = require_post(req) {
        return Decoded::Answer(answer);
    }
    if req.body.iter().all(u8::is_ascii_whitespace) {
        return Decoded::Answer(answer(400, code::NO_DATA, None));
    }
    let metadata: Vec<(&str, String)> = METADATA
        .iter()
        .filter_map(|key| Some((*key, req.query_param(key)?)))
        .collect();
    let records = req
        .body
        .split(|b| *b == b'\n')
        .map(lines::trim_newline)
        .filter(|l| !l.iter().all(u8::is_ascii_whitespace))
        // One more than the queue holds is enough for the server's 413.
        .take(req.max_events.saturating_add(1))
        .map(|line| {
            let text = lines::utf8_lossy(line);
            let mut record = lines::json_record(&text).unwrap_or_else(|| lines::text_record(&text));
            if matches!(text, std::borrow::Cow::Owned(_)) {
                record.mark_invalid_utf8();
            }
            for (key, value) in &metadata {
                record.field(key, value.as_str());
            }
            record
        })
        .collect();
    Decoded::Events(records, success())
}
