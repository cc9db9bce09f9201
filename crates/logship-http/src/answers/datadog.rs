//! Datadog Logs API v2's answers (docs/wire-formats.md 1.5): `202 {}`, and errors as
//! `{"errors":[{"status","title","detail"}]}` (field names UNCONFIRMED for logs
//! specifically).

use serde_json::{json, Value};

use crate::response::Response;

/// The success answer: `202 {}`.
pub fn accepted() -> Response {
    Response::json(202, &json!({}))
}

/// The JSON of Datadog's error body for `status` (the intake's answers, and those of
/// `logship ship --listen`'s Datadog input).
pub fn error_json(status: u16, detail: &str) -> Value {
    let title = match status {
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        405 => "Method Not Allowed",
        411 => "Length Required",
        413 => "Payload Too Large",
        415 => "Unsupported Media Type",
        429 => "Too Many Requests",
        503 => "Service Unavailable",
        _ => "Error",
    };
    json!({ "errors": [{ "status": status.to_string(), "title": title, "detail": detail }] })
}
