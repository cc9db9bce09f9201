//! Dynatrace Log Monitoring API v2 (`POST /api/v2/logs/ingest`, also
//! `/e/{env-id}/api/v2/logs/ingest` as on ActiveGate and Managed),
//! emulated strictly.
//!
//! Facts from `docs/wire-formats.md` section 4 (and section 9):
//! `Authorization: Api-Token <token>` authenticates (401 otherwise). The
//! body is `application/json` (an array of records or one record), one of
//! the JSON-lines types in [`JSON_LINES_TYPES`], or `text/plain` (one
//! record); identity or gzip encoded (gzip is UNCONFIRMED for this endpoint,
//! so tolerated); at most [`MAX_RECORDS`] records and [`MAX_DECODED_BYTES`]
//! decoded bytes (413 beyond). Success is `204` without body; errors are
//! `{"error":{"code":N,"message":…}}`. The partial-success `200` is not
//! produced by validation: inject it with `Fault::json(200, …)`.

use serde_json::{json, Map, Value};

use super::shared::{
    check_credential, check_epoch_ms, decode_body_with, kind, media_type, parse_json_events,
    parse_ndjson, require_content_length, require_post, strip_scheme, Accepted, Credential,
    Rejection, Settings,
};
use logship_http::{Request, Response};

/// The intake path, alone (SaaS) or after `/e/{env-id}` (docs/wire-formats.md 4.1).
pub(crate) const PATH: &str = "/api/v2/logs/ingest";

/// Largest request body after decompression: 10 MB (docs/wire-formats.md 4.3).
pub(crate) const MAX_DECODED_BYTES: usize = 10_000_000;

/// Most records per request (docs/wire-formats.md 4.3).
pub(crate) const MAX_RECORDS: usize = 50_000;

/// Content types meaning one JSON object per line (docs/wire-formats.md 4.1).
pub(crate) const JSON_LINES_TYPES: [&str; 5] = [
    "application/jsonl",
    "application/jsonlines",
    "application/jsonlines+json",
    "application/x-ndjson",
    "application/x-jsonlines",
];

/// Authorization schemes accepted: `Api-Token` (docs/wire-formats.md 4.1), and the
/// UNCONFIRMED platform-token `Bearer`, tolerated.
const AUTH_SCHEMES: [&str; 2] = ["Api-Token", "Bearer"];

/// Record fields that must be strings when present (docs/wire-formats.md 4.2).
const STRING_FIELDS: [&str; 2] = ["severity", "loglevel"];

/// Whether this module serves `path`: the bare path or `/e/{env-id}` + path
/// with a non-empty, slash-free environment id.
pub(crate) fn serves(path: &str) -> bool {
    if path == PATH {
        return true;
    }
    path.strip_prefix("/e/")
        .and_then(|rest| rest.strip_suffix(PATH))
        .is_some_and(|env| !env.is_empty() && !env.contains('/'))
}

/// Validates and decodes a Dynatrace request.
pub(crate) fn handle(req: &Request, settings: &Settings) -> Result<Accepted, Rejection> {
    require_post(req).map_err(|r| r.reshape(error))?;
    check_auth(req, settings)?;
    require_content_length(req).map_err(|r| r.reshape(error))?;
    enum Shape {
        Json,
        Lines,
        Text,
    }
    let shape = match media_type(req).as_deref() {
        Some("application/json") => Shape::Json,
        Some(t) if JSON_LINES_TYPES.contains(&t) => Shape::Lines,
        Some("text/plain") => Shape::Text,
        Some(other) => {
            return Err(reject(
                415,
                format!("unsupported Content-Type {other:?}; Dynatrace wants application/json or JSON lines"),
            ))
        }
        None => {
            return Err(reject(
                415,
                "missing Content-Type; Dynatrace wants application/json or JSON lines",
            ))
        }
    };
    let body =
        decode_body_with(req, false, MAX_DECODED_BYTES as u64).map_err(|r| r.reshape(error))?;
    let decoded = body.len();
    let records = match shape {
        Shape::Json => parse_json_events(&body),
        Shape::Lines => parse_ndjson(&body),
        Shape::Text => match String::from_utf8(body) {
            Ok(text) if !text.trim().is_empty() => Ok(vec![json!({ "content": text })]),
            Ok(_) => Ok(Vec::new()),
            Err(_) => Err(Rejection::new(400, "text/plain body is not UTF-8")),
        },
    }
    .map_err(|r| r.reshape(error).with_decoded(decoded))?;
    if records.is_empty() {
        return Err(reject(400, "empty batch: no log records").with_decoded(decoded));
    }
    if records.len() > MAX_RECORDS {
        return Err(reject(
            413,
            format!(
                "{} records in one request; Dynatrace accepts at most {MAX_RECORDS}",
                records.len()
            ),
        )
        .with_decoded(decoded));
    }
    for (i, record) in records.iter().enumerate() {
        // The parsers only return objects.
        let Some(fields) = record.as_object() else {
            continue;
        };
        check_record(fields)
            .map_err(|e| reject(400, format!("record {i}: {e}")).with_decoded(decoded))?;
    }
    Ok(Accepted::new(
        records,
        decoded,
        logship_http::answers::dynatrace::accepted(),
    ))
}

/// `Authorization: Api-Token <token>` (docs/wire-formats.md 4.1).
fn check_auth(req: &Request, settings: &Settings) -> Result<(), Rejection> {
    let token = req
        .header("authorization")
        .and_then(|v| AUTH_SCHEMES.iter().find_map(|s| strip_scheme(v, s)));
    match check_credential(settings, token) {
        Credential::Valid => Ok(()),
        Credential::Missing => Err(Rejection::auth(
            error(
                401,
                "Missing authorization: send `Authorization: Api-Token <token>`",
            ),
            "missing Api-Token",
        )),
        Credential::Wrong => Err(Rejection::auth(
            error(401, "Token Authentication failed"),
            "wrong Api-Token",
        )),
    }
}

/// Checks one record's special fields (docs/wire-formats.md 4.2).
fn check_record(fields: &Map<String, Value>) -> Result<(), String> {
    match fields.get("content") {
        Some(Value::String(_)) => {}
        Some(other) => return Err(format!("content is a {}, not a string", kind(other))),
        None => return Err("content is missing".into()),
    }
    if let Some(ts) = fields.get("timestamp") {
        match ts {
            Value::String(s) if is_rfc3339(s) => {}
            Value::String(s) => {
                return Err(format!(
                    "timestamp {s:?} is neither RFC 3339 nor epoch milliseconds"
                ))
            }
            other => {
                check_epoch_ms(other).map_err(|e| format!("timestamp {e}"))?;
            }
        }
    }
    for name in STRING_FIELDS {
        if let Some(v) = fields.get(name) {
            if !v.is_string() {
                return Err(format!("{name} is a {}, not a string", kind(v)));
            }
        }
    }
    Ok(())
}

/// Whether `s` is an RFC 3339 date-time, e.g. `2026-01-17T22:12:31.000Z`.
/// A missing offset is tolerated (Dynatrace reads it as UTC, docs/wire-formats.md 4.2).
fn is_rfc3339(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 19 {
        return false;
    }
    let num = |from: usize, to: usize| -> Option<u32> {
        let part = std::str::from_utf8(&b[from..to]).ok()?;
        part.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    let valid_head = b[4] == b'-'
        && b[7] == b'-'
        && matches!(b[10], b'T' | b't' | b' ')
        && b[13] == b':'
        && b[16] == b':'
        && num(0, 4).is_some()
        && num(5, 7).is_some_and(|m| (1..=12).contains(&m))
        && num(8, 10).is_some_and(|d| (1..=31).contains(&d))
        && num(11, 13).is_some_and(|h| h < 24)
        && num(14, 16).is_some_and(|m| m < 60)
        && num(17, 19).is_some_and(|s| s <= 60);
    if !valid_head {
        return false;
    }
    let mut i = 19;
    if b.get(i) == Some(&b'.') {
        let start = i + 1;
        i = start;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    match &b[i..] {
        [] | [b'Z' | b'z'] => true,
        [b'+' | b'-', _, _, b':', _, _] => {
            num(i + 1, i + 3).is_some_and(|h| h < 24) && num(i + 4, i + 6).is_some_and(|m| m < 60)
        }
        _ => false,
    }
}

/// A violation answered with Dynatrace's error body.
fn reject(status: u16, message: impl Into<String>) -> Rejection {
    let message = message.into();
    Rejection::violation(error(status, &message), message)
}

/// Dynatrace's error body `{"error":{"code":N,"message":…}}` (docs/wire-formats.md 4.4).
fn error(status: u16, message: &str) -> Response {
    Response::json(
        status,
        &json!({ "error": { "code": status, "message": message } }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_timestamps() {
        for ok in [
            "2026-01-17T22:12:31Z",
            "2026-01-17T22:12:31.000Z",
            "2026-01-17t22:12:31.123456+02:00",
            "2026-01-17 22:12:31-05:30",
            "2026-01-17T22:12:31",
        ] {
            assert!(is_rfc3339(ok), "{ok}");
        }
        for bad in [
            "2026-01-17",
            "2026-13-17T22:12:31Z",
            "2026-01-17T25:12:31Z",
            "2026-01-17T22:12:31.Z",
            "2026-01-17T22:12:31+0200",
            "17/01/2026 22:12:31",
            "2026-01-17T22:12:31Zjunk",
        ] {
            assert!(!is_rfc3339(bad), "{bad}");
        }
    }
}
