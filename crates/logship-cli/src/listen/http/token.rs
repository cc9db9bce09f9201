//! The optional token check of the HTTP input.
//!
//! Why it exists: a listener on a shared host should accept only its own clients.
//! Must never: print, log or echo the token (its `Debug` is `Token(<set>)`), or take
//! time that depends on how much of a wrong token matched.

/// A token clients must send.
#[derive(Clone)]
pub(crate) struct Token(String);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(<set>)")
    }
}

impl Token {
    /// Wraps `token`.
    pub(crate) fn new(token: String) -> Token {
        Token(token)
    }

    /// Whether `given` is the token (compared in constant time for a given length).
    pub(crate) fn matches(&self, given: Option<&str>) -> bool {
        let Some(given) = given else {
            return false;
        };
        let (a, b) = (self.0.as_bytes(), given.as_bytes());
        a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
    }

    /// The token a generic client sent: `Authorization: Bearer T` (or `Basic`'s
    /// password is not read), or `X-Logship-Token: T`.
    pub(crate) fn generic_credential(headers: &[(String, String)]) -> Option<&str> {
        let find = |name: &str| logship_http::find_header(headers, name);
        if let Some(t) = find("x-logship-token") {
            return Some(t);
        }
        let auth = find("authorization")?;
        let (scheme, value) = auth.split_once(' ')?;
        scheme.eq_ignore_ascii_case("bearer").then(|| value.trim())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_only_the_token_and_never_shows_it() {
        let t = Token::new("s3cret".into());
        assert!(t.matches(Some("s3cret")));
        assert!(!t.matches(Some("s3cre")) && !t.matches(Some("s3creT")) && !t.matches(None));
        assert!(!format!("{t:?}").contains("s3cret"));
        let h = vec![("authorization".to_owned(), "Bearer s3cret".to_owned())];
        assert_eq!(Token::generic_credential(&h), Some("s3cret"));
    }
}
