//! The `Authorization` value of HTTP basic auth (RFC 7617).
//!
//! Why it exists: intakes that take a user and password and proxies that ask for one
//! write the same header; the scrubber must know the value to hide it in echoed answers.
//! Must never: print what it builds.

use crate::support::secret::Secret;

/// `Basic <base64(user:password)>`.
pub(crate) fn basic_auth(user: &str, password: &Secret) -> String {
    use base64::Engine as _;
    let pair = format!("{user}:{}", password.expose());
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(pair)
    )
}
