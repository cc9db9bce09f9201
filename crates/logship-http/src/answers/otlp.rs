//! OpenTelemetry OTLP/HTTP logs' answers (docs/wire-formats.md 5.3): an empty
//! `ExportLogsServiceResponse` in the request's encoding on success, a
//! `google.rpc.Status` on error.

use prost::Message;
use serde_json::json;

use crate::response::Response;

/// The protobuf media type.
pub const PROTOBUF: &str = "application/x-protobuf";

/// `google.rpc.Status`, the body of OTLP error responses (`details` is never sent).
#[derive(Clone, PartialEq, Message)]
pub struct Status {
    /// The gRPC status code (`INVALID_ARGUMENT` 3, `UNAVAILABLE` 14, ...).
    #[prost(int32, tag = "1")]
    pub code: i32,
    /// For developers: what was wrong.
    #[prost(string, tag = "2")]
    pub message: String,
}

/// gRPC's `INVALID_ARGUMENT`, the code of a malformed request.
pub const INVALID_ARGUMENT: i32 = 3;

/// The success answer: `200` with an empty `ExportLogsServiceResponse`, as protobuf (no
/// bytes) or as JSON (`{}`), the request's encoding.
pub fn success(json: bool) -> Response {
    if json {
        Response::json(200, &json!({}))
    } else {
        Response {
            status: 200,
            headers: vec![("Content-Type".into(), PROTOBUF.into())],
            body: Vec::new(),
        }
    }
}
