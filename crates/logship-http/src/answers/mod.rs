//! The vendors' answers: the bodies a real intake sends, and the small parsers a
//! receiver needs to answer like it.
//!
//! Why it exists: three servers must answer a client exactly as the real vendor does:
//! the strict test intake, `logship ship --listen`'s vendor inputs and the demo's sink.
//! Each vendor's answer shapes (facts from the project's `docs/wire-formats.md`) live
//! here once, one file per vendor. Must never: validate (the intake is strict, the
//! listener lenient, the sink neither: each decides for itself what to refuse), or echo
//! a credential.

pub mod datadog;
pub mod dynatrace;
pub mod elasticsearch;
pub mod generic;
pub mod loki;
pub mod newrelic;
pub mod otlp;
pub mod splunk;

/// The credential of an `Authorization: <scheme> <credential>` value when
/// the scheme is `scheme` (case-insensitive); `None` for another scheme.
pub fn strip_scheme<'a>(value: &'a str, scheme: &str) -> Option<&'a str> {
    let value = value.trim();
    let (given, rest) = value.split_once(char::is_whitespace).unwrap_or((value, ""));
    given.eq_ignore_ascii_case(scheme).then(|| rest.trim())
}

#[cfg(test)]
mod tests {
    use super::strip_scheme;

    #[test]
    fn strip_scheme_takes_the_credential_of_the_named_scheme_only() {
        assert_eq!(strip_scheme("Bearer  abc ", "bearer"), Some("abc"));
        assert_eq!(strip_scheme("Splunk t", "Splunk"), Some("t"));
        assert_eq!(strip_scheme("Basic t", "Splunk"), None);
        assert_eq!(strip_scheme("Splunk", "Splunk"), Some(""));
    }
}
