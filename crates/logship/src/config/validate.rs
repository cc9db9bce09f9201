//! [`Config::validate`]: every unusable value becomes a [`ConfigError`] naming the field.
//!
//! Why it exists: a configuration built in code (the builder, struct fields) skips the
//! checks that files and the environment make when they read a value, so the same
//! ranges are checked again here, read from the table ([`super::keys::all`]), together
//! with the rules that span keys (backoff order, spill sizes) and each intake's own rules
//! (each vendor's own, from its folder). Errors never show a secret: header
//! values and API keys appear as `[redacted]`, URLs without query or user-info.

use super::example::PLACEHOLDER_KEY;
use super::keys::{self, Kind, When};
use super::{redact_url, Config};
use crate::error::ConfigError;
use crate::support::secret::Secret;

impl Config {
    /// Checks every option; the first unusable one is returned as an error naming it.
    /// The order: endpoint, the vendor's own rules, headers, each key's range (in the
    /// table's order), the rules between keys, tags.
    pub fn validate(&self) -> Result<(), ConfigError> {
        match self.endpoint.as_deref() {
            None | Some("") => {
                if self.vendor.needs_endpoint() {
                    return Err(ConfigError::new(
                        "endpoint",
                        "(none)",
                        "an endpoint URL is required",
                    )
                    .fix(self.vendor.endpoint_example()));
                }
            }
            Some(url) => validate_url(url, self.vendor.endpoint_schemes())?,
        }
        self.validate_intake()?;
        for (name, value) in &self.headers {
            if name.is_empty()
                || !name
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
            {
                return Err(
                    ConfigError::new("header", name, "is not a valid HTTP header name")
                        .fix("use the form 'Name: value', e.g. 'X-Api-Key: abc'"),
                );
            }
            if value
                .expose()
                .bytes()
                .any(|b| b == b'\r' || b == b'\n' || b == 0)
            {
                return Err(ConfigError::new(
                    "header",
                    format!("{name}: [redacted]"),
                    "header values may not contain line breaks or NUL",
                ));
            }
        }
        self.validate_ranges()?;
        self.control.validate()?;
        self.budget.validate()?;
        if self.retry_max_backoff < self.retry_initial_backoff {
            return Err(ConfigError::new(
                "retry_max_backoff_ms",
                self.retry_max_backoff.as_millis(),
                format!(
                    "must be at least retry_initial_backoff_ms ({})",
                    self.retry_initial_backoff.as_millis()
                ),
            ));
        }
        if self.spill_enabled && self.spill_max_bytes < self.spill_segment_bytes * 2 {
            return Err(ConfigError::new(
                "spill_max_bytes",
                self.spill_max_bytes,
                format!(
                    "must be at least twice spill_segment_bytes ({})",
                    self.spill_segment_bytes
                ),
            )
            .fix("raise spill_max_bytes or lower spill_segment_bytes"));
        }
        for tag in &self.tags {
            if tag.trim().is_empty() || tag.contains(',') {
                return Err(ConfigError::new(
                    "tags",
                    tag,
                    "each tag must be a non-empty key:value without commas",
                )
                .fix("write tags as env:prod,team:payments"));
            }
        }
        self.redaction.validate()?;
        Ok(())
    }

    /// Vendor-specific checks: the API key, then the vendor's own rules (from its folder).
    fn validate_intake(&self) -> Result<(), ConfigError> {
        if let Some(path) = &self.api_key_file {
            if let Err(problem) = Secret::from_file(path) {
                return Err(ConfigError::new("api_key_file", path.display(), problem)
                    .fix("give a readable file holding only the key (mode 0600)"));
            }
        }
        if let Some(var) = self.vendor.api_key_env() {
            if self.api_key.as_ref().is_none_or(Secret::is_empty) {
                return Err(ConfigError::new(
                    "api_key",
                    "(none)",
                    format!("vendor {} needs an API key", self.vendor.name()),
                )
                .fix(format!("set api_key or {var}")));
            }
            if self.api_key.as_ref().map(Secret::expose) == Some(PLACEHOLDER_KEY) {
                return Err(ConfigError::new(
                    "api_key",
                    PLACEHOLDER_KEY,
                    "is the example configuration's placeholder, not a key",
                )
                .fix(format!(
                    "set {var} (or api_key) to your {} key",
                    self.vendor.name()
                )));
            }
        }
        self.vendor.validate(self)
    }

    /// Each integer key's range, from the table: checked when its getter shows a value
    /// (an unset optional key is not checked) and its row says when.
    fn validate_ranges(&self) -> Result<(), ConfigError> {
        for key in keys::all() {
            let Kind::Int { min, max, unit } = key.kind else {
                continue;
            };
            let checked = match key.when {
                When::Always => true,
                When::SpillEnabled => self.spill_enabled,
                When::Reading => false,
            };
            let Some(shown) = checked.then(|| key.get(self)).flatten() else {
                continue;
            };
            let value: u128 = shown.parse().unwrap_or(u128::MAX);
            if value < u128::from(min) || value > u128::from(max) {
                return Err(ConfigError::new(
                    key.name,
                    shown,
                    format!("must be {min}..={max}{unit}"),
                ));
            }
        }
        Ok(())
    }
}

fn validate_url(url: &str, schemes: &[&str]) -> Result<(), ConfigError> {
    let shown = redact_url(url);
    if schemes != ["http", "https"] {
        // A vendor's own scheme: its folder checks the rest (`Vendor::validate`).
        let scheme = url.split_once("://").map(|(s, _)| s);
        if scheme.is_none_or(|s| !schemes.contains(&s)) {
            return Err(ConfigError::new(
                "endpoint",
                &shown,
                format!("must start with {}://", schemes.join(":// or ")),
            ));
        }
        return Ok(());
    }
    let uri: ureq::http::Uri = url.parse().map_err(|e| {
        ConfigError::new("endpoint", &shown, format!("is not a valid URL ({e})"))
            .fix("use a full URL such as https://intake.example.com/v1/logs")
    })?;
    match uri.scheme_str() {
        Some("http") | Some("https") => {}
        _ => {
            return Err(
                ConfigError::new("endpoint", &shown, "must start with http:// or https://")
                    .fix("add the scheme, e.g. https://"),
            )
        }
    }
    if uri.host().is_none_or(str::is_empty) {
        return Err(ConfigError::new("endpoint", &shown, "has no host"));
    }
    Ok(())
}
