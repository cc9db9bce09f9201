//! New Relic's regions: the documented list `region` is checked against, and the host each
//! one names.
//!
//! Why it exists: `region` is checked at start-up against the same list the encoder builds
//! its URL from, so the two can never disagree. This module must never build a request.

use crate::config::Config;
use crate::error::ConfigError;

/// New Relic regions and their hosts (docs/wire-formats.md section 3.1), the default first.
pub(crate) const NEWRELIC_REGIONS: &[(&str, &str)] = &[
    ("us", "log-api.newrelic.com"),
    ("eu", "log-api.eu.newrelic.com"),
    ("jp", "log-api.jp.nr-data.net"),
    ("fedramp", "gov-log-api.newrelic.com"),
];

/// Checks the New Relic region.
pub(crate) fn validate_region(config: &Config) -> Result<(), ConfigError> {
    match config.region.as_deref() {
        None => Ok(()),
        Some(r) if NEWRELIC_REGIONS.iter().any(|(name, _)| *name == r) => Ok(()),
        Some(r) => Err(ConfigError::new("region", r, "is not a New Relic region")
            .fix("use one of: us, eu, jp, fedramp")),
    }
}
