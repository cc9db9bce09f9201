//! URLs as configuration shows and weighs them: their secrets hidden, their host judged.
//!
//! Why it exists: an endpoint or a proxy may carry a key in its query or user-info, so
//! every message and `config check` shows it through [`redact_url`]; start-up warns about
//! plain HTTP except to this machine ([`is_loopback_url`]). Must never return a secret.

/// A URL with its query string and user-info hidden (they may carry keys).
pub(crate) fn redact_url(url: &str) -> String {
    let (base, had_query) = match url.split_once('?') {
        Some((b, _)) => (b, true),
        None => (url, false),
    };
    let base = match base.split_once("://") {
        Some((scheme, rest)) => match rest.split_once('@') {
            Some((_, host)) if !host.contains('/') || rest.find('@') < rest.find('/') => {
                format!("{scheme}://[redacted]@{host}")
            }
            _ => base.to_owned(),
        },
        // No scheme (a proxy written `user:pass@host:port`): user-info all the same.
        None => match base.split_once('@') {
            Some((_, host)) if !base[..base.find('@').unwrap_or(0)].contains('/') => {
                format!("[redacted]@{host}")
            }
            _ => base.to_owned(),
        },
    };
    if had_query {
        format!("{base}?[redacted]")
    } else {
        base
    }
}

/// True when `url` targets this machine (so plain HTTP exposes nothing).
pub(crate) fn is_loopback_url(url: &str) -> bool {
    let Ok(uri) = url.parse::<ureq::http::Uri>() else {
        return false;
    };
    matches!(uri.host(), Some("localhost") | Some("[::1]") | Some("::1"))
        || uri.host().is_some_and(|h| h.starts_with("127."))
}
