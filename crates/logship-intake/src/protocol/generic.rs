//! The generic intake protocol: logship's own wire format, served on every
//! path outside `/_intake/` and the vendors' path prefixes. A path under a vendor's
//! prefix that no vendor serves (`/api/v2/lgos`) answers 404 naming the paths served,
//! as the real vendor answers a typo: it must never be taken as generic.
//!
//! It is deliberately strict, because it exists to catch logship sending
//! something a real intake would choke on: `POST` only, `Content-Length`
//! framing (no chunked bodies), identity or gzip `Content-Encoding`, and a
//! body that is NDJSON (`application/x-ndjson`, one object per line) or JSON
//! (`application/json`, an array of objects or one object). Success is
//! `200 {"accepted":N}`.

use super::shared::{
    decode_body, media_type, parse_json_events, parse_ndjson, require_content_length, require_post,
    Accepted, Rejection,
};
use logship_http::Request;

/// Path prefixes of the vendors' APIs (Datadog and Dynatrace `/api/`, Splunk
/// `/services/`, New Relic `/log/`, Loki `/loki/`, OTLP `/v1/` and `/otlp/`, Dynatrace
/// environments `/e/`); any path segment starting with `_` is Elasticsearch's.
const VENDOR_PREFIXES: &[&str] = &[
    "/api/",
    "/services/",
    "/log/",
    "/loki/",
    "/v1/",
    "/otlp/",
    "/e/",
];

/// The paths the vendors are served at, for the 404 answer.
pub(crate) const SERVED: &str = "/api/v2/logs (datadog), /services/collector/event, \
/services/collector/ack and /services/collector/health (splunk), /log/v1 (newrelic), /api/v2/logs/ingest and \
/e/<env>/api/v2/logs/ingest (dynatrace), /loki/api/v1/push (loki), /_bulk and \
/<index>/_bulk (elasticsearch), /v1/logs (otlp); any other path outside those prefixes \
is the generic NDJSON/JSON intake";

/// Whether `path` is under a vendor's prefix (and so, routed here, served by none).
pub(crate) fn is_vendor_path(path: &str) -> bool {
    VENDOR_PREFIXES.iter().any(|p| path.starts_with(p))
        || path.split('/').any(|segment| segment.starts_with('_'))
}

/// Validates and decodes a generic-protocol request.
pub(crate) fn handle(req: &Request) -> Result<Accepted, Rejection> {
    if is_vendor_path(req.path()) {
        return Err(Rejection::new(
            404,
            format!("unknown path {:?}: this intake serves {SERVED}", req.path()),
        ));
    }
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
    let response = logship_http::answers::generic::accepted(events.len());
    Ok(Accepted::new(events, decoded_bytes, response))
}
