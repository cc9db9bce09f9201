//! Scrubbing: text from the network made safe to print or store: known secrets hidden,
//! control characters escaped, length capped. (Not to be confused with redaction,
//! `admit::redaction`, which rewrites the events themselves.)
//!
//! Why it exists: an intake's answer (or a proxy's, or a network error's text) is
//! untrusted. It may echo the request's headers, API key included, and it may carry
//! terminal escape sequences, carriage returns or bidi overrides that rewrite the
//! operator's terminal or forge lines. Everything logship prints or stores about a
//! delivery (stderr, `stats().last_error`, the error callback) goes through one
//! [`Scrubber`], which knows every secret value of the configuration. Must never: show a
//! known secret, let a raw control character through, or return more than the cap asked
//! for (plus a short marker).

use std::fmt::Write as _;

use super::echoes;
use crate::support::secret::Secret;

/// How many bytes of text per byte of output are searched for secrets (see `clean`).
const SCAN: usize = 4;

/// Shortest secret value redacted: shorter ones cannot be told apart from ordinary text
/// (and are not credentials any intake accepts).
const MIN_SECRET_LEN: usize = 3;

/// What ends a text that was cut.
const CUT_MARKER: &str = "…[cut]";

/// Every known secret value, and the one way to make untrusted text printable.
#[derive(Clone, Debug, Default)]
pub(crate) struct Scrubber {
    /// Longest first, so a secret containing another is redacted whole.
    secrets: Vec<String>,
}

impl Scrubber {
    /// A scrubber for these secret values (header values, API key, password, URL
    /// user-info and query values). Each is also known by its parts: the token after an
    /// authorization scheme (`Token tok`), and a percent-decoded form.
    pub(crate) fn new<'a>(values: impl IntoIterator<Item = &'a str>) -> Scrubber {
        let mut secrets: Vec<String> = Vec::new();
        let mut add = |v: &str| {
            let v = v.trim();
            if v.len() >= MIN_SECRET_LEN && !secrets.iter().any(|s| s == v) {
                secrets.push(v.to_owned());
            }
        };
        for value in values {
            add(value);
            if let Some((_, token)) = value.trim().split_once(' ') {
                add(token);
            }
            if let Some(decoded) = percent_decode(value) {
                add(&decoded);
            }
        }
        secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        Scrubber { secrets }
    }

    /// A scrubber for a configured pipeline: every header value (derived authorization
    /// headers included), the API key, the password, the endpoint's user-info and query
    /// values, and `more` (the proxy's credentials, in every form they are sent).
    pub(crate) fn for_pipeline(
        headers: &[(String, Secret)],
        api_key: Option<&Secret>,
        password: Option<&Secret>,
        urls: &[&str],
        more: &[String],
    ) -> Scrubber {
        let mut values: Vec<&str> = headers.iter().map(|(_, v)| v.expose()).collect();
        values.extend(more.iter().map(String::as_str));
        values.extend(api_key.map(Secret::expose));
        values.extend(password.map(Secret::expose));
        for url in urls {
            values.extend(url_secrets(url));
        }
        Scrubber::new(values)
    }

    /// `text` with every known secret replaced by `[redacted]`, every control character
    /// (C0, DEL, C1) and bidi override escaped (`\x1b`, `\r`, `\u{202e}`), and cut to
    /// about `max` bytes (ending in a marker). Secrets are redacted before the text is
    /// cut, so a cut never leaves part of one.
    ///
    /// Echoes in another form are found too (`observe::echoes`): percent-encoded,
    /// `\u`-escaped, in another letter case, a prefix or a piece of a long secret. Only
    /// the start of a long text is searched (what the cut can show, and more).
    pub(crate) fn clean(&self, text: &str, max: usize) -> String {
        if self.secrets.is_empty() {
            return escape(text, max);
        }
        // The cut keeps about `max` bytes of output, and each character of the text
        // gives at least one: what lies past `SCAN` times that is never shown.
        let mut end = text
            .len()
            .min(max.saturating_mul(SCAN).saturating_add(1024));
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        escape(&echoes::redact(&text[..end], &self.secrets), max)
    }
}

/// `text` with control characters and bidi overrides escaped, cut to about `max` bytes.
pub(crate) fn escape(text: &str, max: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max) + 16);
    for c in text.chars() {
        if out.len() >= max {
            out.push_str(CUT_MARKER);
            return out;
        }
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (0x80..=0x9f).contains(&(c as u32)) || is_bidi_control(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// Unicode's explicit directional formatting characters (Trojan Source, CVE-2021-42574).
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// The secret-bearing parts of a URL: user-info (whole, user, password) and each query
/// value.
fn url_secrets(url: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, Some(q)),
        None => (url, None),
    };
    if let Some((_, rest)) = base.split_once("://") {
        let authority = rest.split('/').next().unwrap_or("");
        if let Some((userinfo, _)) = authority.rsplit_once('@') {
            out.push(userinfo);
            if let Some((user, password)) = userinfo.split_once(':') {
                out.push(user);
                out.push(password);
            }
        }
    }
    if let Some(query) = query {
        let query = query.split('#').next().unwrap_or("");
        out.extend(
            query
                .split('&')
                .filter_map(|pair| pair.split_once('=').map(|(_, v)| v)),
        );
    }
    out
}

/// `value` percent-decoded, when that changes it and gives UTF-8.
fn percent_decode(value: &str) -> Option<String> {
    if !value.contains('%') {
        return None;
    }
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h)? * 16 + hex(l)?) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_secret_form_is_redacted_before_the_cut() {
        let r = Scrubber::for_pipeline(
            &[
                ("Authorization".into(), Secret::new("Token tok-123456")),
                ("X-Custom".into(), Secret::new("hdr-secret")),
            ],
            Some(&Secret::new("key-abcdef")),
            Some(&Secret::new("pw-xyz")),
            &["https://user:pass%2Fword@h/p?api-key=q-secret&x=1"],
            &["proxy-pw-777".to_owned()],
        );
        let echoed = "authorization: Token tok-123456\nx-custom: hdr-secret\n\
                      key=key-abcdef pw-xyz token tok-123456 pass/word q-secret user:pass%2Fword \
                      proxy-pw-777";
        let clean = r.clean(echoed, 10_000);
        for leak in [
            "tok-123456",
            "hdr-secret",
            "key-abcdef",
            "pw-xyz",
            "pass/word",
            "q-secret",
            "pass%2Fword",
            "proxy-pw-777",
        ] {
            assert!(!clean.contains(leak), "{leak} in {clean}");
        }
        assert!(clean.contains("authorization: [redacted]"), "{clean}");
        // A cut right inside a secret still shows none of it.
        let cut = r.clean("aaaa key-abcdef", 8);
        assert!(!cut.contains("key-"), "{cut}");
    }

    #[test]
    fn control_characters_and_bidi_overrides_are_escaped_and_text_is_capped() {
        let hostile = "ok\x1b]0;pwned\x07\r\nlogship: shipped 1000 of 1000\0\u{9b}\u{202e}evil\x7f";
        let shown = escape(hostile, 1000);
        assert!(
            shown
                .chars()
                .all(|c| !c.is_control() && !is_bidi_control(c)),
            "{shown:?}"
        );
        assert_eq!(
            shown,
            "ok\\x1b]0;pwned\\x07\\r\\nlogship: shipped 1000 of 1000\\0\\u{9b}\\u{202e}evil\\x7f"
        );
        let long = "é".repeat(10_000);
        let capped = escape(&long, 300);
        assert!(
            capped.len() <= 300 + CUT_MARKER.len() + 4,
            "{}",
            capped.len()
        );
        assert!(capped.ends_with(CUT_MARKER));
    }
}
