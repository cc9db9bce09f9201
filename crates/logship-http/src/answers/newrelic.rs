//! New Relic Log API's success answer (docs/wire-formats.md section 3):
//! `202 {"requestId":"<uuid>"}`.

use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::json;

use crate::response::Response;

/// Makes every request id of the process different.
static REQUEST_COUNTER: AtomicU64 = AtomicU64::new(1);

/// The success answer, with a fresh request id.
pub fn accepted() -> Response {
    Response::json(202, &json!({ "requestId": request_id() }))
}

/// A UUID-shaped (version 4 layout) id, unique within the process.
fn request_id() -> String {
    let n = REQUEST_COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let pid = std::process::id();
    format!(
        "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
        nanos,
        pid & 0xffff,
        (pid >> 16) & 0xfff,
        0x8000 | ((n >> 48) & 0x3fff),
        n & 0xffff_ffff_ffff
    )
}
