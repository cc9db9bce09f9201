//! Grafana Loki push API's answers and label names (docs/wire-formats.md section 6).

use crate::response::Response;

/// The success answer: `204` without a body.
pub fn pushed() -> Response {
    Response::empty(204)
}

/// Whether `name` is a valid label name (`[a-zA-Z_][a-zA-Z0-9_]*`).
pub fn is_label_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}
