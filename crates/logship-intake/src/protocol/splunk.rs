//! Splunk HTTP Event Collector (`/services/collector`, `/event`,
//! `/event/1.0`, and `GET /services/collector/health`), emulated strictly.
//!
//! Facts from `docs/wire-formats.md` section 2 (and section 9):
//! `Authorization: Splunk <token>` authenticates (none: 401 code 2;
//! another scheme: 401 code 3; unknown token: 403 code 4); the body is
//! concatenated JSON envelopes (no enclosing array), identity or gzip
//! encoded, at most `max_content_length` bytes decoded (413 beyond). Each
//! envelope needs a non-blank `event`; `time` is epoch **seconds**. Success
//! is `200 {"text":"Success","code":0}`; errors are
//! `{"text":…,"code":N}` plus `"invalid-event-number"` (0-based) on codes
//! 6, 12 and 13. A single bad envelope fails the whole request, as on the
//! real HEC.
//!
//! Indexer acknowledgement (a channel required, `ackId` in answers, `POST
//! /services/collector/ack`) is emulated when turned on: see [`super::splunk_ack`].
//! `/services/collector/raw` is not emulated (it falls through to the generic protocol).

use serde_json::{json, Map, Value};

use super::shared::{
    check_credential, decode_body_with, kind, require_content_length, require_post, strip_scheme,
    Accepted, Credential, Rejection, Settings,
};
use super::splunk_ack::ACK_PATHS;
use logship_http::answers::splunk::{code, hec_json, success_json, text};
use logship_http::{Request, Response};

/// Event endpoints (docs/wire-formats.md 2.1: `/services/collector` is an alias of
/// `/event`, and `/event/1.0` behaves the same).
pub(crate) const EVENT_PATHS: [&str; 3] = [
    "/services/collector",
    "/services/collector/event",
    "/services/collector/event/1.0",
];

/// Health endpoints (docs/wire-formats.md 2.1, answer taken from Splunk 8.2.4).
pub(crate) const HEALTH_PATHS: [&str; 2] = [
    "/services/collector/health",
    "/services/collector/health/1.0",
];

/// A `time` above this many seconds (year 5138) is really milliseconds:
/// HEC expects epoch seconds with an optional fraction (docs/wire-formats.md 2.2).
pub(crate) const MAX_TIME_SECONDS: f64 = 1e11;

/// Envelope metadata that must be strings when present (docs/wire-formats.md 2.2).
const STRING_FIELDS: [&str; 4] = ["host", "source", "sourcetype", "index"];

/// Header naming the data channel, which must be a GUID (docs/wire-formats.md 2.1).
const CHANNEL_HEADER: &str = "x-splunk-request-channel";

/// Whether this module serves `path`.
pub(crate) fn serves(path: &str) -> bool {
    EVENT_PATHS.contains(&path) || HEALTH_PATHS.contains(&path) || ACK_PATHS.contains(&path)
}

/// Validates and decodes a HEC request.
pub(crate) fn handle(req: &Request, settings: &Settings) -> Result<Accepted, Rejection> {
    if HEALTH_PATHS.contains(&req.path()) {
        return health(req);
    }
    require_post(req).map_err(|r| r.reshape(http_error))?;
    check_auth(req, settings)?;
    let channel = req
        .header(CHANNEL_HEADER)
        .or_else(|| req.query_param("channel"));
    if let Some(channel) = channel {
        if !is_guid(channel) {
            return Err(reject(
                400,
                code::INVALID_CHANNEL,
                None,
                format!("data channel {channel:?} is not a GUID"),
            ));
        }
    }
    let ack = settings.splunk_ack.mode().enabled;
    let channel = match channel {
        Some(c) => Some(c),
        None if ack || ACK_PATHS.contains(&req.path()) => {
            settings.splunk_ack.count_missing_channel();
            return Err(reject(
                400,
                code::CHANNEL_MISSING,
                None,
                "indexer acknowledgement is on and the request names no channel (X-Splunk-Request-Channel header or ?channel=)",
            ));
        }
        None => None,
    };
    require_content_length(req).map_err(|r| r.reshape(http_error))?;
    if ACK_PATHS.contains(&req.path()) {
        return ack_query(req, settings, ack, channel.unwrap_or_default());
    }
    let body = decode_body_with(req, false, settings.splunk_max_content_length as u64)
        .map_err(|r| r.reshape(http_error))?;
    let decoded = body.len();
    let events = parse_envelopes(&body).map_err(|r| r.with_decoded(decoded))?;
    let mut answer = success_json();
    if let (true, Some(channel)) = (ack, channel) {
        answer["ackId"] = json!(settings.splunk_ack.issue(channel));
    }
    Ok(Accepted::new(events, decoded, Response::json(200, &answer)))
}

/// `POST /services/collector/ack` (channel and token checked already).
fn ack_query(
    req: &Request,
    settings: &Settings,
    ack: bool,
    channel: &str,
) -> Result<Accepted, Rejection> {
    if !ack {
        return Err(reject(
            400,
            code::ACK_DISABLED,
            None,
            "an acknowledgement query, but indexer acknowledgement is off for this token",
        ));
    }
    let body = decode_body_with(req, false, settings.splunk_max_content_length as u64)
        .map_err(|r| r.reshape(http_error))?;
    let Some(ids) = super::splunk_ack::parse_query(&body) else {
        return Err(reject(
            400,
            code::INVALID_DATA_FORMAT,
            None,
            "the acknowledgement query is not {\"acks\":[<ackId>, ...]}",
        ));
    };
    let answer = settings.splunk_ack.query(channel, &ids);
    Ok(Accepted::new(
        Vec::new(),
        body.len(),
        Response::json(200, &answer),
    ))
}

/// `GET /services/collector/health`: always healthy (real Splunk largely
/// ignores the token there, so no auth check).
fn health(req: &Request) -> Result<Accepted, Rejection> {
    if req.method != "GET" {
        let message = format!(
            "method {} not allowed on the HEC health endpoint",
            req.method
        );
        let mut r = Rejection::violation(http_error(405, &message), message);
        r.response.headers.push(("Allow".into(), "GET".into()));
        return Err(r);
    }
    let response = Response::json(
        200,
        &json!({ "text": "HEC is healthy", "code": code::HEALTHY }),
    );
    Ok(Accepted::new(Vec::new(), 0, response))
}

/// `Authorization: Splunk <token>` (docs/wire-formats.md 2.1, codes from 2.4).
fn check_auth(req: &Request, settings: &Settings) -> Result<(), Rejection> {
    let Some(value) = req.header("authorization").filter(|v| !v.is_empty()) else {
        return Err(auth_failure(
            401,
            code::TOKEN_REQUIRED,
            "Token is required",
            "no Authorization header",
        ));
    };
    let Some(token) = strip_scheme(value, "Splunk") else {
        return Err(auth_failure(
            401,
            code::INVALID_AUTHORIZATION,
            "Invalid authorization",
            "Authorization header without the `Splunk ` scheme",
        ));
    };
    match check_credential(settings, Some(token)) {
        Credential::Valid => Ok(()),
        Credential::Missing | Credential::Wrong => Err(auth_failure(
            403,
            code::INVALID_TOKEN,
            "Invalid token",
            "unknown HEC token",
        )),
    }
}

/// Parses concatenated envelopes, checking each one; the first bad one
/// fails the request with its 0-based `invalid-event-number`.
fn parse_envelopes(body: &[u8]) -> Result<Vec<Value>, Rejection> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(reject(
            400,
            code::NO_DATA,
            None,
            "No data: the body is empty",
        ));
    }
    let mut events = Vec::new();
    let stream = serde_json::Deserializer::from_slice(body).into_iter::<Value>();
    for (i, item) in stream.enumerate() {
        let invalid = |message: String| reject(400, code::INVALID_DATA_FORMAT, Some(i), message);
        match item {
            Ok(Value::Object(envelope)) => {
                check_envelope(&envelope, i)?;
                events.push(Value::Object(envelope));
            }
            Ok(Value::Array(_)) => {
                return Err(invalid(format!(
                    "event {i} is a JSON array; HEC wants concatenated objects, not an array"
                )))
            }
            Ok(other) => {
                return Err(invalid(format!(
                    "event {i} is a {}, not an object",
                    kind(&other)
                )))
            }
            Err(e) => return Err(invalid(format!("event {i} is not valid JSON: {e}"))),
        }
    }
    Ok(events)
}

/// Checks one envelope (docs/wire-formats.md 2.2).
fn check_envelope(envelope: &Map<String, Value>, i: usize) -> Result<(), Rejection> {
    match envelope.get("event") {
        None => {
            return Err(reject(
                400,
                code::EVENT_REQUIRED,
                Some(i),
                format!("event {i} has no `event` field"),
            ))
        }
        Some(Value::Null) => {
            return Err(reject(
                400,
                code::EVENT_BLANK,
                Some(i),
                format!("event {i} has a null `event`"),
            ))
        }
        Some(Value::String(s)) if s.is_empty() => {
            return Err(reject(
                400,
                code::EVENT_BLANK,
                Some(i),
                format!("event {i} has an empty `event` string"),
            ))
        }
        Some(Value::Object(o)) if o.is_empty() => {
            return Err(reject(
                400,
                code::EVENT_BLANK,
                Some(i),
                format!("event {i} has an empty `event` object"),
            ))
        }
        Some(_) => {}
    }
    let invalid = |message: String| reject(400, code::INVALID_DATA_FORMAT, Some(i), message);
    if let Some(time) = envelope.get("time") {
        let Some(secs) = time.as_f64() else {
            return Err(invalid(format!(
                "event {i}: `time` is a {}, not a number of epoch seconds",
                kind(time)
            )));
        };
        if secs > MAX_TIME_SECONDS {
            return Err(invalid(format!(
                "event {i}: `time` {time} looks like epoch milliseconds; HEC wants epoch seconds"
            )));
        }
        if secs < 0.0 {
            return Err(invalid(format!("event {i}: `time` {time} is negative")));
        }
    }
    for name in STRING_FIELDS {
        if let Some(v) = envelope.get(name) {
            if !v.is_string() {
                return Err(invalid(format!(
                    "event {i}: `{name}` is a {}, not a string",
                    kind(v)
                )));
            }
        }
    }
    if let Some(fields) = envelope.get("fields") {
        check_fields(fields).map_err(|e| {
            reject(
                400,
                code::INDEXED_FIELDS,
                None,
                format!("event {i}: `fields` {e}"),
            )
        })?;
    }
    Ok(())
}

/// Indexed fields: a flat object of strings or arrays of strings.
fn check_fields(fields: &Value) -> Result<(), String> {
    let Value::Object(map) = fields else {
        return Err(format!("is a {}, not an object", kind(fields)));
    };
    for (k, v) in map {
        let ok = match v {
            Value::String(_) => true,
            Value::Array(items) => items.iter().all(Value::is_string),
            _ => false,
        };
        if !ok {
            return Err(format!(
                "value of {k:?} is a {}; only strings or arrays of strings are allowed",
                kind(v)
            ));
        }
    }
    Ok(())
}

/// Whether `s` is a GUID: 8-4-4-4-12 hex digits.
fn is_guid(s: &str) -> bool {
    let groups: Vec<&str> = s.split('-').collect();
    groups.len() == 5
        && groups
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(g, n)| g.len() == n && g.bytes().all(|b| b.is_ascii_hexdigit()))
}

/// HEC error body `{"text","code"}`, plus `invalid-event-number` when given.
fn body(status: u16, code: u16, text: &str, event: Option<usize>) -> Response {
    Response::json(status, &hec_json(code, text, event))
}

/// A violation answered with the HEC body for `code`.
fn reject(status: u16, code: u16, event: Option<usize>, message: impl Into<String>) -> Rejection {
    Rejection::violation(body(status, code, text(code), event), message)
}

/// An authentication failure answered with the HEC body.
fn auth_failure(status: u16, code: u16, text: &str, message: &str) -> Rejection {
    Rejection::auth(body(status, code, text, None), message)
}

/// Errors without a HEC code (405, 411, 413, 415): the HEC body shape with
/// the HTTP status as `code`. Splunk's exact bodies here are UNCONFIRMED.
fn http_error(status: u16, message: &str) -> Response {
    body(status, status, message, None)
}
