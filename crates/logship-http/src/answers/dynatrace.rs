//! Dynatrace Log ingest v2's success answer (docs/wire-formats.md section 4).

use crate::response::Response;

/// The success answer: `204` without a body (every record accepted).
pub fn accepted() -> Response {
    Response::empty(204)
}
