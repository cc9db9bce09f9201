//! Splunk HTTP Event Collector options and their rules.
//!
//! Why it exists: the options that only Splunk reads travel together, so the builder has
//! one typed setter for them and validation of the channel lives next to its field. This
//! module must never build a request: the encoder reads these
//! values, it does not decide whether they are valid.

use std::time::Duration;

use crate::error::ConfigError;

/// Default [`SplunkOptions::ack_timeout`]: Splunk's documentation suggests treating data
/// as lost when its acknowledgement has not come after about five minutes.
pub(crate) const DEFAULT_ACK_TIMEOUT: Duration = Duration::from_secs(300);

/// Options of the Splunk HTTP Event Collector (`vendor = splunk`). Keys `splunk_index`,
/// `splunk_sourcetype`, `splunk_channel`, `splunk_ack`, `splunk_ack_timeout_ms`.
///
/// ```
/// let splunk = logship::SplunkOptions::default().index("main").channel("auto");
/// let builder = logship::Logship::builder().splunk(splunk);
/// assert_eq!(builder.config().splunk.sourcetype, None);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SplunkOptions {
    /// Splunk `index` (key `splunk_index`). Default: none (the token's default index).
    pub index: Option<String>,
    /// Splunk `sourcetype` (key `splunk_sourcetype`). Default: none, sent as `_json`.
    pub sourcetype: Option<String>,
    /// Request channel (key `splunk_channel`): a GUID, or `auto` to generate one.
    /// Default: none, which also generates one: a channel is always sent
    /// (`X-Splunk-Request-Channel`), a new GUID per process (docs/wire-formats.md 2.5).
    pub channel: Option<String>,
    /// Indexer acknowledgement (key `splunk_ack`): a batch counts as delivered only once
    /// `/services/collector/ack` confirms its `ackId`. Default: false (a `200` counts).
    pub ack: bool,
    /// With `ack`: how long after a batch was accepted its acknowledgement may take
    /// before the batch is resent (key `splunk_ack_timeout_ms`). Default: 5 minutes.
    pub ack_timeout: Duration,
}

impl Default for SplunkOptions {
    fn default() -> Self {
        SplunkOptions {
            index: None,
            sourcetype: None,
            channel: None,
            ack: false,
            ack_timeout: DEFAULT_ACK_TIMEOUT,
        }
    }
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

    /// The request channel: a GUID, or `auto` to generate one. Default: a GUID generated
    /// per process.
    pub fn channel(mut self, channel: impl Into<String>) -> Self {
        self.channel = Some(channel.into());
        self
    }

    /// Indexer acknowledgement: count a batch as delivered only once Splunk's
    /// `/services/collector/ack` confirms it, resending it when that takes longer than
    /// [`SplunkOptions::ack_timeout`]. Turn it on when the HEC token has "Enable indexer
    /// acknowledgement" set. Default: off.
    pub fn ack(mut self, on: bool) -> Self {
        self.ack = on;
        self
    }

    /// With [`SplunkOptions::ack`]: how long an accepted batch may wait for its
    /// acknowledgement before it is resent. Default: 5 minutes.
    pub fn ack_timeout(mut self, timeout: Duration) -> Self {
        self.ack_timeout = timeout;
        self
    }

    /// Checks the channel and the acknowledgement timeout.
    pub(crate) fn validate(&self) -> Result<(), ConfigError> {
        if self.ack && self.ack_timeout < Duration::from_millis(100) {
            return Err(ConfigError::new(
                "splunk_ack_timeout_ms",
                self.ack_timeout.as_millis().to_string(),
                "must be at least 100 milliseconds",
            )
            .fix("Splunk suggests about 300000 (5 minutes), e.g. splunk_ack_timeout_ms = 300000"));
        }
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
