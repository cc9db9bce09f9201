//! New Relic Log API (`POST /log/v1`), emulated strictly.
//!
//! Facts from `docs/wire-formats.md` section 3 (and section 9): the
//! license key comes in the `Api-Key` header (also `X-License-Key`,
//! `License-Key`, or `?Api-Key=` / `?License-Key=` in the query); a missing
//! or wrong key is 403. `Content-Type` must be one of [`CONTENT_TYPES`]
//! (415 otherwise), the body **as sent** (compressed) at most
//! [`MAX_WIRE_BYTES`] (413 beyond: the client must split). The detailed
//! format is a JSON array of `{"common":{"attributes":{…}}?, "logs":[…]}`
//! blocks; a simple object (or an array of them) is accepted as New Relic
//! does, but recorded as a violation. Success is `202 {"requestId":…}`.
//!
//! New Relic itself would accept several of the mistakes refused here
//! (seconds timestamps, array attributes) and only report them later as
//! `NrIntegrationError` events; refusing them with 400 makes logship's
//! mistake visible to the test that caused it.

use serde_json::{Map, Value};

use super::shared::{
    check_credential, check_epoch_ms, decode_body, gunzip, kind, media_type,
    require_content_length, require_post, Accepted, Credential, Rejection, Settings,
    MAX_DECODED_BODY,
};
use logship_http::{Request, Response};

/// The intake path (docs/wire-formats.md 3.1).
pub(crate) const PATH: &str = "/log/v1";

/// Largest body **as sent on the wire** (compressed): 1 MB = 10^6 bytes
/// (docs/wire-formats.md 3.4; 413 beyond, 3.5).
pub(crate) const MAX_WIRE_BYTES: usize = 1_000_000;

/// The accepted `Content-Type` values (docs/wire-formats.md 3.2; 415 otherwise).
pub(crate) const CONTENT_TYPES: [&str; 4] =
    ["application/json", "json", "application/gzip", "gzip"];

/// Headers that may carry the license key, in order of preference
/// (docs/wire-formats.md 3.1; `X-License-Key` is UNCONFIRMED but tolerated).
const KEY_HEADERS: [&str; 3] = ["api-key", "x-license-key", "license-key"];

/// Query parameters that may carry the license key (docs/wire-formats.md 3.1).
const KEY_QUERY_PARAMS: [&str; 2] = ["Api-Key", "License-Key"];

/// Whether this module serves `path`.
pub(crate) fn serves(path: &str) -> bool {
    path == PATH
}

/// Validates and decodes a New Relic request.
pub(crate) fn handle(req: &Request, settings: &Settings) -> Result<Accepted, Rejection> {
    require_post(req)?;
    let key = KEY_HEADERS
        .iter()
        .find_map(|h| req.header(h))
        .or_else(|| KEY_QUERY_PARAMS.iter().find_map(|q| req.query_param(q)));
    match check_credential(settings, key) {
        Credential::Valid => {}
        Credential::Missing => {
            return Err(Rejection::auth(
                Response::error(403, "missing license key (Api-Key header)"),
                "missing Api-Key",
            ))
        }
        Credential::Wrong => {
            return Err(Rejection::auth(
                Response::error(403, "invalid license key"),
                "wrong Api-Key",
            ))
        }
    }
    require_content_length(req)?;
    let mt = media_type(req);
    let gzip_type = match mt.as_deref() {
        Some(t) if CONTENT_TYPES.contains(&t) => t.ends_with("gzip"),
        Some(other) => {
            return Err(Rejection::new(
                415,
                format!(
                    "unsupported Content-Type {other:?}; New Relic accepts {}",
                    CONTENT_TYPES.join(", ")
                ),
            ))
        }
        None => {
            return Err(Rejection::new(
                415,
                "missing Content-Type; New Relic requires one",
            ))
        }
    };
    if req.body.len() > MAX_WIRE_BYTES {
        return Err(Rejection::new(
            413,
            format!(
                "body of {} bytes as sent is over New Relic's {MAX_WIRE_BYTES} byte limit; split it",
                req.body.len()
            ),
        ));
    }
    // `Content-Type: gzip` without `Content-Encoding` still means gzip.
    let gzip_magic = req.body.starts_with(&[0x1f, 0x8b]);
    let body = if gzip_type && req.header("content-encoding").is_none() && gzip_magic {
        gunzip(&req.body, MAX_DECODED_BODY)?
    } else {
        decode_body(req)?
    };
    let decoded = body.len();
    let parsed: Value = serde_json::from_slice(&body).map_err(|e| {
        Rejection::new(400, format!("body is not valid JSON: {e}")).with_decoded(decoded)
    })?;
    let (events, violations) =
        flatten(parsed).map_err(|e| Rejection::new(400, e).with_decoded(decoded))?;
    let mut accepted = Accepted::new(events, decoded, logship_http::answers::newrelic::accepted());
    accepted.violations = violations;
    Ok(accepted)
}

/// Turns the body into recorded logs (each with its block's common
/// attributes under `"common"`), plus the tolerated-format violations.
fn flatten(body: Value) -> Result<(Vec<Value>, Vec<String>), String> {
    const SIMPLE: &str =
        "use the detailed format: a JSON array of {\"common\":…, \"logs\":[…]} blocks";
    let is_block = |v: &Value| v.get("logs").is_some();
    let mut events = Vec::new();
    match body {
        Value::Array(items) if items.iter().any(is_block) => {
            for (b, block) in items.into_iter().enumerate() {
                if !is_block(&block) {
                    return Err(format!("block {b} has no `logs` array"));
                }
                events.extend(block_logs(block, &format!("block {b}"))?);
            }
            Ok((events, Vec::new()))
        }
        Value::Array(items) => {
            let n = items.len();
            for (i, log) in items.into_iter().enumerate() {
                events.push(with_common(log, Map::new(), &format!("log {i}"))?);
            }
            let violations = if n == 0 {
                Vec::new()
            } else {
                vec![format!("array of simple log objects; {SIMPLE}")]
            };
            Ok((events, violations))
        }
        block @ Value::Object(_) if is_block(&block) => {
            events.extend(block_logs(block, "block")?);
            Ok((events, vec![format!("a single block object; {SIMPLE}")]))
        }
        log @ Value::Object(_) => {
            events.push(with_common(log, Map::new(), "log")?);
            Ok((
                events,
                vec![format!("a single simple log object; {SIMPLE}")],
            ))
        }
        other => Err(format!(
            "body is a {}, not an array of blocks",
            kind(&other)
        )),
    }
}

/// Checks one detailed-format block and returns its logs.
fn block_logs(block: Value, at: &str) -> Result<Vec<Value>, String> {
    let Value::Object(mut block) = block else {
        return Err(format!("{at} is a {}, not an object", kind(&block)));
    };
    let mut common_attrs = Map::new();
    if let Some(common) = block.get("common") {
        let Value::Object(common) = common else {
            return Err(format!(
                "{at}: `common` is a {}, not an object",
                kind(common)
            ));
        };
        if let Some(ts) = common.get("timestamp") {
            check_epoch_ms(ts).map_err(|e| format!("{at}: common.timestamp {e}"))?;
        }
        if let Some(attrs) = common.get("attributes") {
            check_attributes(attrs).map_err(|e| format!("{at}: common.attributes {e}"))?;
            common_attrs = attrs.as_object().cloned().unwrap_or_default();
        }
    }
    let Some(Value::Array(logs)) = block.remove("logs") else {
        return Err(format!("{at}: `logs` is not an array"));
    };
    logs.into_iter()
        .enumerate()
        .map(|(i, log)| with_common(log, common_attrs.clone(), &format!("{at} log {i}")))
        .collect()
}

/// Checks one log and adds `"common": <common attributes>` to it.
fn with_common(log: Value, common: Map<String, Value>, at: &str) -> Result<Value, String> {
    let Value::Object(mut log) = log else {
        return Err(format!("{at} is a {}, not an object", kind(&log)));
    };
    match log.get("message") {
        Some(Value::String(_)) => {}
        Some(other) => return Err(format!("{at}: message is a {}, not a string", kind(other))),
        None => return Err(format!("{at}: message is missing")),
    }
    if let Some(ts) = log.get("timestamp") {
        check_epoch_ms(ts).map_err(|e| format!("{at}: timestamp {e}"))?;
    }
    if let Some(attrs) = log.get("attributes") {
        check_attributes(attrs).map_err(|e| format!("{at}: attributes {e}"))?;
    }
    log.insert("common".into(), Value::Object(common));
    Ok(Value::Object(log))
}

/// Attributes: an object whose values are strings, numbers or booleans
/// (docs/wire-formats.md 3.3: "Arrays are unsupported").
fn check_attributes(attrs: &Value) -> Result<(), String> {
    let Value::Object(map) = attrs else {
        return Err(format!("is a {}, not an object", kind(attrs)));
    };
    for (k, v) in map {
        match v {
            Value::String(_) | Value::Number(_) | Value::Bool(_) => {}
            Value::Array(_) => {
                return Err(format!(
                    "{k:?} is an array; New Relic does not support arrays"
                ))
            }
            other => {
                return Err(format!(
                    "{k:?} is a {}; only strings, numbers and booleans are supported",
                    kind(other)
                ))
            }
        }
    }
    Ok(())
}
