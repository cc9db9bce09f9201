//! The public intakes whose URL logship knows: Datadog sites and New Relic regions.
//!
//! Why it exists: `site` and `region` are checked at start-up against the documented
//! lists, and the wire-format code (the Datadog and New Relic encoders)
//! builds its URL from the same lists, so the two can never disagree. This module must
//! never build a request.

use super::Config;
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

/// New Relic regions and their hosts (docs/wire-formats.md section 3.1), the default first.
pub(crate) const NEWRELIC_REGIONS: &[(&str, &str)] = &[
    ("us", "log-api.newrelic.com"),
    ("eu", "log-api.eu.newrelic.com"),
    ("jp", "log-api.jp.nr-data.net"),
    ("fedramp", "gov-log-api.newrelic.com"),
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

/// Checks the New Relic region.
pub(crate) fn validate_region(config: &Config) -> Result<(), ConfigError> {
    match config.region.as_deref() {
        None => Ok(()),
        Some(r) if NEWRELIC_REGIONS.iter().any(|(name, _)| *name == r) => Ok(()),
        Some(r) => Err(ConfigError::new("region", r, "is not a New Relic region")
            .fix("use one of: us, eu, jp, fedramp")),
    }
}
