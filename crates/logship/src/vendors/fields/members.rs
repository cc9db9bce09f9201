//! Single JSON members every encoder writes: an optional string, the logger, the time in
//! milliseconds, and the shared names of the environment and the version.
//!
//! Why it exists: the same few members appear in most vendors' objects; one writer each
//! keeps their escaping and their "absent, not empty" rule the same everywhere. Must
//! never: write a member whose value is not set.

use crate::capture::record::Record;
use crate::support::json;

/// `,"key":"value"` when the value is set.
#[inline]
pub(crate) fn write_opt(out: &mut Vec<u8>, key: &str, value: Option<&str>) {
    if let Some(v) = value {
        out.push(b',');
        json::string(out, key);
        out.push(b':');
        json::string(out, v);
    }
}

/// Appends `,"key":"logger"`, the record's target, unless it has none: an event received
/// without a logger (a text line, or an agent's event that names none) gets no made-up
/// one.
#[inline]
pub(crate) fn write_logger(out: &mut Vec<u8>, key: &str, record: &Record) {
    write_opt(out, key, Some(record.target()).filter(|t| !t.is_empty()));
}

/// The OpenTelemetry semantic-convention name of the deployment environment (`env`),
/// also used by the vendors without a convention of their own (docs/vendors.md).
pub(crate) const ENV_NAME: &str = "deployment.environment.name";
/// The OpenTelemetry semantic-convention name of the service version (`version`).
pub(crate) const VERSION_NAME: &str = "service.version";

/// Epoch milliseconds of a record.
#[inline]
pub(crate) fn millis(record: &Record) -> u64 {
    record.timestamp_nanos() / 1_000_000
}
