//! Splunk HTTP Event Collector's answers (docs/wire-formats.md 2.4): `{"text","code"}`
//! bodies, plus `invalid-event-number` (0-based) on the codes that name an event.

use serde_json::{json, Value};

/// HEC status codes (docs/wire-formats.md 2.4 table).
pub mod code {
    /// Success.
    pub const SUCCESS: u16 = 0;
    /// Token is required (401).
    pub const TOKEN_REQUIRED: u16 = 2;
    /// Invalid authorization (401).
    pub const INVALID_AUTHORIZATION: u16 = 3;
    /// Invalid token (403).
    pub const INVALID_TOKEN: u16 = 4;
    /// No data (400).
    pub const NO_DATA: u16 = 5;
    /// Invalid data format (400).
    pub const INVALID_DATA_FORMAT: u16 = 6;
    /// Data channel is missing (400).
    pub const CHANNEL_MISSING: u16 = 10;
    /// Invalid data channel (400).
    pub const INVALID_CHANNEL: u16 = 11;
    /// Event field is required (400).
    pub const EVENT_REQUIRED: u16 = 12;
    /// Event field cannot be blank (400).
    pub const EVENT_BLANK: u16 = 13;
    /// ACK is disabled (400).
    pub const ACK_DISABLED: u16 = 14;
    /// Error in handling indexed fields (400).
    pub const INDEXED_FIELDS: u16 = 15;
    /// HEC is healthy (200).
    pub const HEALTHY: u16 = 17;
    /// Server is busy (503).
    pub const SERVER_BUSY: u16 = 9;
}

/// The HEC text for `code` (docs/wire-formats.md 2.4 table).
pub fn text(code: u16) -> &'static str {
    match code {
        code::SUCCESS => "Success",
        code::TOKEN_REQUIRED => "Token is required",
        code::INVALID_AUTHORIZATION => "Invalid authorization",
        code::INVALID_TOKEN => "Invalid token",
        code::SERVER_BUSY => "Server is busy",
        code::HEALTHY => "HEC is healthy",
        code::NO_DATA => "No data",
        code::INVALID_DATA_FORMAT => "Invalid data format",
        code::INVALID_CHANNEL => "Invalid data channel",
        code::EVENT_REQUIRED => "Event field is required",
        code::EVENT_BLANK => "Event field cannot be blank",
        code::INDEXED_FIELDS => "Error in handling indexed fields",
        code::CHANNEL_MISSING => "Data channel is missing",
        code::ACK_DISABLED => "ACK is disabled",
        _ => "Error",
    }
}

/// The JSON of a HEC answer: `{"text","code"}`, plus `invalid-event-number` (0-based)
/// when given (the intake's answers, and those of `logship ship --listen`'s HEC input).
pub fn hec_json(code: u16, text: &str, event: Option<usize>) -> Value {
    let mut v = json!({ "text": text, "code": code });
    if let Some(i) = event {
        v["invalid-event-number"] = json!(i);
    }
    v
}

/// The success answer's JSON: `{"text":"Success","code":0}`.
pub fn success_json() -> Value {
    hec_json(code::SUCCESS, text(code::SUCCESS), None)
}
