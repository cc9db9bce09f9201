//! Datadog Logs API v2 (`POST /api/v2/logs`), emulated strictly.
//!
//! Facts from `docs/wire-formats.md` section 1 (and the section 9 quick
//! table): the `DD-API-KEY` header authenticates (missing 401, wrong 403);
//! the body is `application/json`, identity, gzip or zlib-wrapped `deflate`
//! encoded, a JSON array of log objects (a single object is tolerated); at
//! most [`MAX_ENTRIES`] entries and [`MAX_DECODED_BYTES`] decoded bytes.
//! Success is `202 {}`; errors use Datadog's
//! `{"errors":[{"status","title","detail"}]}` shape.
//!
//! An entry over [`MAX_ENTRY_BYTES`] is what Datadog truncates while still
//! answering 202, so it is recorded as a violation of an accepted request.
//! Every other breach refuses the whole request, so logship cannot ship
//! something the real intake would silently mangle or drop.

use serde_json::{Map, Value};

use super::shared::{
    check_credential, check_epoch_ms, decode_body_with, kind, media_type, now_epoch_ms,
    parse_json_events, require_content_length, require_post, Accepted, Credential, Rejection,
    Settings,
};
use logship_http::answers::datadog::{self as answers, error_json};
use logship_http::{Request, Response};

/// The intake path (docs/wire-formats.md 1.1).
pub(crate) const PATH: &str = "/api/v2/logs";

/// Header carrying the API key (docs/wire-formats.md 1.2).
pub(crate) const API_KEY_HEADER: &str = "dd-api-key";

/// Largest request body after decompression: "5 MB" read as 10^6-byte MB,
/// as docs/wire-formats.md 1.4 advises for a strict mock (413 beyond, 1.5).
pub(crate) const MAX_DECODED_BYTES: usize = 5_000_000;

/// Most log entries per request (docs/wire-formats.md 1.4). Datadog's answer beyond
/// it is UNCONFIRMED; this intake answers 400 so the mistake is loud.
pub(crate) const MAX_ENTRIES: usize = 1000;

/// Largest single entry (its JSON serialisation); Datadog truncates bigger
/// ones but still answers 2xx (docs/wire-formats.md 1.4).
pub(crate) const MAX_ENTRY_BYTES: usize = 1_000_000;

/// Oldest accepted `timestamp`: 18 h before now (docs/wire-formats.md 1.3).
pub(crate) const MAX_PAST_MS: i64 = 18 * 3600 * 1000;

/// Newest accepted `timestamp`: 2 h after now (docs/wire-formats.md 1.3).
pub(crate) const MAX_FUTURE_MS: i64 = 2 * 3600 * 1000;

/// Entry fields that must be strings when present (docs/wire-formats.md 1.3; `ddtags`
/// is one comma-separated string, never an array).
const STRING_FIELDS: [&str; 5] = ["status", "ddtags", "hostname", "service", "ddsource"];

/// Whether this module serves `path`.
pub(crate) fn serves(path: &str) -> bool {
    path == PATH
}

/// Validates and decodes a Datadog request.
pub(crate) fn handle(req: &Request, settings: &Settings) -> Result<Accepted, Rejection> {
    require_post(req).map_err(|r| r.reshape(error))?;
    match check_credential(settings, req.header(API_KEY_HEADER)) {
        Credential::Valid => {}
        Credential::Missing => {
            return Err(Rejection::auth(
                error(401, "API key is missing: send it in the DD-API-KEY header"),
                "missing DD-API-KEY",
            ))
        }
        Credential::Wrong => {
            return Err(Rejection::auth(
                error(403, "Forbidden: the API key in DD-API-KEY is not valid"),
                "wrong DD-API-KEY",
            ))
        }
    }
    require_content_length(req).map_err(|r| r.reshape(error))?;
    match media_type(req).as_deref() {
        Some("application/json") => {}
        Some(other) => {
            return Err(reject(
                415,
                format!("unsupported Content-Type {other:?}; Datadog logs need application/json"),
            ))
        }
        None => {
            return Err(reject(
                415,
                "missing Content-Type; Datadog logs need application/json",
            ))
        }
    }
    let body =
        decode_body_with(req, true, MAX_DECODED_BYTES as u64).map_err(|r| r.reshape(error))?;
    let decoded = body.len();
    let entries = parse_json_events(&body).map_err(|r| r.reshape(error).with_decoded(decoded))?;
    if entries.len() > MAX_ENTRIES {
        return Err(reject(
            400,
            format!(
                "more than {MAX_ENTRIES} entries ({}) in one request",
                entries.len()
            ),
        )
        .with_decoded(decoded));
    }
    let now = now_epoch_ms();
    let mut violations = Vec::new();
    for (i, entry) in entries.iter().enumerate() {
        // parse_json_events only returns objects.
        let Some(fields) = entry.as_object() else {
            continue;
        };
        check_entry(fields, now)
            .map_err(|e| reject(400, format!("entry {i}: {e}")).with_decoded(decoded))?;
        let size = entry.to_string().len();
        if size > MAX_ENTRY_BYTES {
            violations.push(format!(
                "entry {i} over 1 MB ({size} bytes > {MAX_ENTRY_BYTES}); Datadog truncates it"
            ));
        }
    }
    let mut accepted = Accepted::new(entries, decoded, answers::accepted());
    accepted.violations = violations;
    Ok(accepted)
}

/// Checks one log entry's reserved fields.
fn check_entry(fields: &Map<String, Value>, now: i64) -> Result<(), String> {
    match fields.get("message") {
        Some(Value::String(_)) => {}
        Some(other) => return Err(format!("message is a {}, not a string", kind(other))),
        None => return Err("message is missing".into()),
    }
    for name in STRING_FIELDS {
        if let Some(v) = fields.get(name) {
            if !v.is_string() {
                return Err(format!("{name} is a {}, not a string", kind(v)));
            }
        }
    }
    if let Some(ts) = fields.get("timestamp") {
        let ms = check_epoch_ms(ts).map_err(|e| format!("timestamp {e}"))?;
        if ms < now - MAX_PAST_MS {
            return Err(format!(
                "timestamp {ms} is more than 18 h in the past; Datadog rejects it"
            ));
        }
        if ms > now + MAX_FUTURE_MS {
            return Err(format!(
                "timestamp {ms} is more than 2 h in the future; Datadog rejects it"
            ));
        }
    }
    Ok(())
}

/// A violation answered with Datadog's error body.
fn reject(status: u16, message: impl Into<String>) -> Rejection {
    let message = message.into();
    Rejection::violation(error(status, &message), message)
}

/// Datadog's error body: `{"errors":[{"status","title","detail"}]}`
/// (docs/wire-formats.md 1.5; field names UNCONFIRMED for logs specifically).
fn error(status: u16, detail: &str) -> Response {
    Response::json(status, &error_json(status, detail))
}
