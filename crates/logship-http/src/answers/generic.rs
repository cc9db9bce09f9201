//! The answer of logship's own protocol (NDJSON or a JSON array to any path): what the
//! test intake and the demo's sink say when they took a body.

use serde_json::json;

use crate::response::Response;

/// The success answer: `200 {"accepted":N}`.
pub fn accepted(events: usize) -> Response {
    Response::json(200, &json!({ "accepted": events }))
}
