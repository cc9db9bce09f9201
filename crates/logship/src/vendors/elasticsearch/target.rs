//! The rules for targets (data streams, indices, date patterns) and credentials, checked at
//! start-up; [`IndexName`] is the parsed target the encoder renders per event.
//!
//! Why it exists: a target name the cluster would refuse (upper case, forbidden
//! characters, an unknown date directive) fails at start-up with the option and the fix.
//! Must never build a request, and never show a password or an API key.

use crate::config::Config;
use crate::error::ConfigError;
use crate::support::json;

/// Characters an index or data stream name may not contain (besides upper case).
const FORBIDDEN_IN_INDEX: &[char] = &['\\', '/', '*', '?', '"', '<', '>', '|', ' ', ',', '#', ':'];

/// Checks the target name and the credentials.
pub(crate) fn validate(config: &Config) -> Result<(), ConfigError> {
    if let Some(index) = config.elasticsearch.index.as_deref() {
        IndexName::parse(index)?;
    }
    let user = config.username.as_deref().filter(|u| !u.is_empty());
    let password = config.password.as_ref().filter(|p| !p.is_empty());
    match (user, password) {
        (Some(u), _) if u.contains(':') => {
            return Err(
                ConfigError::new("username", u, "may not contain ':' (HTTP basic auth)")
                    .fix("use the user name alone; put the password in password"),
            )
        }
        (Some(_), None) => {
            return Err(ConfigError::new(
                "password",
                "(none)",
                "basic auth needs a password with the username",
            )
            .fix("set password or LOGSHIP_PASSWORD"))
        }
        (None, Some(_)) => {
            return Err(ConfigError::new(
                "username",
                "(none)",
                "basic auth needs a username with the password",
            )
            .fix("set username or LOGSHIP_USERNAME"))
        }
        _ => {}
    }
    if user.is_some() && config.api_key.as_ref().is_some_and(|k| !k.is_empty()) {
        return Err(ConfigError::new(
            "api_key",
            "[redacted]",
            "both an API key and a username/password are set",
        )
        .fix("keep one: api_key for `Authorization: ApiKey`, or username and password"));
    }
    Ok(())
}

/// One piece of a target name: literal text or a date field.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Text(String),
    Year,
    Month,
    Day,
    Hour,
}

/// A target name, possibly with a UTC date pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IndexName(Vec<Part>);

impl IndexName {
    /// Parses and checks a name: `%Y`, `%m`, `%d`, `%H` and `%%` are the only
    /// directives; the rest must be a valid lower-case index name.
    pub(crate) fn parse(name: &str) -> Result<IndexName, ConfigError> {
        let bad = |problem: String| {
            ConfigError::new("index", name, problem)
                .fix("use a lower-case name such as logs-logship-default or logs-%Y.%m.%d")
        };
        let mut parts = Vec::new();
        let mut text = String::new();
        let mut chars = name.chars();
        while let Some(c) = chars.next() {
            if c != '%' {
                text.push(c);
                continue;
            }
            let part = match chars.next() {
                Some('%') => {
                    text.push('%');
                    continue;
                }
                Some('Y') => Part::Year,
                Some('m') => Part::Month,
                Some('d') => Part::Day,
                Some('H') => Part::Hour,
                Some(other) => {
                    return Err(bad(format!(
                        "unknown date directive %{other}; use %Y, %m, %d or %H"
                    )))
                }
                None => return Err(bad("ends with a lone %".into())),
            };
            if !text.is_empty() {
                parts.push(Part::Text(std::mem::take(&mut text)));
            }
            parts.push(part);
        }
        if !text.is_empty() {
            parts.push(Part::Text(text));
        }
        // Check the name as it will be: digits stand for the date fields.
        let sample = IndexName(parts.clone()).render(0);
        if sample.is_empty() || sample == "." || sample == ".." {
            return Err(bad("is empty".into()));
        }
        if sample.len() > 255 {
            return Err(bad("is longer than 255 bytes".into()));
        }
        if sample.starts_with(['-', '_', '+']) {
            return Err(bad("may not start with -, _ or +".into()));
        }
        if sample.chars().any(|c| c.is_uppercase()) {
            return Err(bad("must be lower case".into()));
        }
        if let Some(c) = sample.chars().find(|c| FORBIDDEN_IN_INDEX.contains(c)) {
            return Err(bad(format!("may not contain {c:?}")));
        }
        Ok(IndexName(parts))
    }

    /// Whether the name holds a date pattern (so it is rendered per event).
    pub(crate) fn is_dated(&self) -> bool {
        self.0.iter().any(|p| !matches!(p, Part::Text(_)))
    }

    /// The name for an event at `unix_nanos` (UTC).
    pub(crate) fn render(&self, unix_nanos: u64) -> String {
        let secs = unix_nanos / 1_000_000_000;
        let (y, m, d) = json::civil_from_days((secs / 86_400) as i64);
        let hour = (secs % 86_400) / 3600;
        let mut out = String::new();
        for part in &self.0 {
            match part {
                Part::Text(t) => out.push_str(t),
                Part::Year => out.push_str(&format!("{y:04}")),
                Part::Month => out.push_str(&format!("{m:02}")),
                Part::Day => out.push_str(&format!("{d:02}")),
                Part::Hour => out.push_str(&format!("{hour:02}")),
            }
        }
        out
    }
}
