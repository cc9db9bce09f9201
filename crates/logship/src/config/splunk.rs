//! Splunk HTTP Event Collector options and their rules.
//!
//! Why it exists: the options that only Splunk reads travel together, so the builder has
//! one typed setter for them and validation of the channel lives next to its field. This
//! module must never build a request: the encoder reads these
//! values, it does not decide whether they are valid.

use crate::error::ConfigError;

/// Options of the Splunk HTTP Event Collector (`vendor = splunk`). Keys `splunk_index`,
/// `splunk_sourcetype`, `splunk_channel`.
///
/// ```
/// let splunk = logship::SplunkOptions::default().index("main").channel("auto");
/// let builder = logship::Logship::builder().splunk(splunk);
/// assert_eq!(builder.config().splunk.sourcetype, None);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct SplunkOptions {
    /// Splunk `index` (key `splunk_index`). Default: none (the token's default index).
    pub index: Option<String>,
    /// Splunk `sourcetype` (key `splunk_sourcetype`). Default: none, sent as `_json`.
    pub sourcetype: Option<String>,
    /// Request channel (key `splunk_channel`): a GUID, or `auto` to generate one.
    /// Default: none (no channel header).
    pub channel: Option<String>,
}

impl SplunkOptions {
    /// The `index` events are written to. Default: none (the token's default index).
    pub fn index(mut self, index: impl Into<String>) -> Self {
        self.index = Some(index.into());
        self
    }

    /// The `sourcetype` of every event. Default: `_json`.
    pub fn sourcetype(mut self, sourcetype: impl Into<String>) -> Self {
        self.sourcetype = Some(sourcetype.into());
        self
    }

    /// The request channel: a GUID, or `auto` to generate one. Default: none.
    pub fn channel(mut self, channel: impl Into<String>) -> Self {
        self.channel = Some(channel.into());
        self
    }

    /// Checks the channel.
    pub(crate) fn validate(&self) -> Result<(), ConfigError> {
        match self.channel.as_deref() {
            None | Some("auto") => Ok(()),
            Some(c) if is_guid(c) => Ok(()),
            Some(c) => Err(
                ConfigError::new("splunk_channel", c, "must be a GUID or auto")
                    .fix("use auto to generate one, e.g. splunk_channel = auto"),
            ),
        }
    }
}

/// Whether `s` is a GUID (`8-4-4-4-12` hexadecimal digits).
pub(crate) fn is_guid(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    parts.len() == 5
        && parts
            .iter()
            .zip([8, 4, 4, 4, 12])
            .all(|(p, n)| p.len() == n && p.bytes().all(|b| b.is_ascii_hexdigit()))
}
