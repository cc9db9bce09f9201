//! The generic intake protocol: logship's own wire format, served on every
//! path outside `/_intake/`.
//!
//! It is deliberately strict, because it exists to catch logship sending
//! something a real intake would choke on: `POST` only, `Content-Length`
//! framing (no chunked bodies), identity or gzip `Content-Encoding`, and a
//! body that is NDJSON (`application/x-ndjson`, one object per line) or JSON
//! (`application/json`, an array of objects or one object). Success is
//! `200 {"accepted":N}`.

use serde_json::json;

use super::{
    decode_body, media_type, parse_json_events, parse_ndjson, require_content_length, require_post,
    Accepted, Rejection,
};
use crate::http::{Request, Response};

/// Validates and decodes a generic-protocol request.
pub(crate) fn handle(req: &Request) -> Result<Accepted, Rejection> {
    require_post(req)?;
    require_content_length(req)?;
    let mt = media_type(req);
    // Check the media type before decoding so an unusable body is not inflated.
    let parse: fn(&[u8]) -> Result<_, Rejection> = match mt.as_deref() {
        Some("application/x-ndjson") => parse_ndjson,
        Some("application/json") => parse_json_events,
        Some(other) => {
            return Err(Rejection::new(
                415,
                format!("unsupported Content-Type {other:?}; expected application/x-ndjson or application/json"),
            ))
        }
        None => {
            return Err(Rejection::new(
                415,
                "missing Content-Type; expected application/x-ndjson or application/json",
            ))
        }
    };
    let body = decode_body(req)?;
    let decoded_bytes = body.len();
    let events = parse(&body).map_err(|r| r.with_decoded(decoded_bytes))?;
    let response = Response::json(200, &json!({ "accepted": events.len() }));
    Ok(Accepted::new(events, decoded_bytes, response))
}
