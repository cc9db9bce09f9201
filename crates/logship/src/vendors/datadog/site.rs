//! Datadog's sites: the documented list `site` is checked against, and the URL built from it.
//!
//! Why it exists: `site` is checked at start-up against the same list the encoder builds
//! its URL from, so the two can never disagree. This module must never build a request.

use crate::config::Config;
use crate::error::ConfigError;

/// Documented Datadog sites (docs/wire-formats.md section 1.1), the default first; each becomes
/// `http-intake.logs.<site>`.
pub(crate) const DATADOG_SITES: &[&str] = &[
    "datadoghq.com",
    "us3.datadoghq.com",
    "us5.datadoghq.com",
    "datadoghq.eu",
    "ap1.datadoghq.com",
    "ap2.datadoghq.com",
    "uk1.datadoghq.com",
    "ddog-gov.com",
    "us2.ddog-gov.com",
];

/// Checks the Datadog site.
pub(crate) fn validate_site(config: &Config) -> Result<(), ConfigError> {
    match config.site.as_deref() {
        None => Ok(()),
        Some(site) if DATADOG_SITES.contains(&site) => Ok(()),
        Some(site) => Err(ConfigError::new("site", site, "is not a Datadog site")
            .fix(format!("use one of: {}", DATADOG_SITES.join(", ")))),
    }
}
