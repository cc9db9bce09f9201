//! Splunk HTTP Event Collector options and their rules, as rows of the key table.
//!
//! Why it exists: the options that only Splunk reads travel together, so the builder has
//! one typed setter for them and validation of the channel lives next to its field. This
//! module must never build a request: the encoder reads these values, it does not decide
//! whether they are valid.

use crate::config::key::{Flag::*, Kind};
use crate::config::key_parts::*;
use crate::config::options::options;
use std::time::Duration;

use crate::error::ConfigError;

/// Default [`SplunkOptions::ack_timeout`]: Splunk's documentation suggests treating data
/// as lost when its acknowledgement has not come after about five minutes.
pub(crate) const DEFAULT_ACK_TIMEOUT: Duration = Duration::from_secs(300);

options! {
    /// Options of the Splunk HTTP Event Collector (`vendor = splunk`). Keys `splunk_index`,
    /// `splunk_sourcetype`, `splunk_channel`, `splunk_ack`, `splunk_ack_timeout_ms`.
    ///
    /// ```
    /// let splunk = logship::SplunkOptions::default().index("main").channel("auto");
    /// let builder = logship::Logship::builder().splunk(splunk);
    /// assert_eq!(builder.config().splunk.sourcetype, None);
    /// ```
    #[derive(Clone, PartialEq, Eq)]
    #[non_exhaustive]
    pub struct SplunkOptions {
        setters: splunk_setters,
        setters_on: "SplunkOptions",
        debug: generated,
        rows: [
            /// The `index` events are written to. Unset: the token's default index.
            index: Option<String> = None => {
                name: "splunk_index",
                kind: Kind::Str,
                flag: Value("--splunk-index"),
                default: "none",
                doc: "Splunk index",
                set: |c, v| c.index = v.text(),
                get: |c| text(&c.index),
                setter: fn index(index: impl Into<String>) |f| *f = Some(index.into()),
            },
            /// The `sourcetype` of every event. Unset: sent as `_json`.
            sourcetype: Option<String> = None => {
                name: "splunk_sourcetype",
                kind: Kind::Str,
                flag: Value("--splunk-sourcetype"),
                default: "`_json`",
                doc: "Splunk sourcetype",
                set: |c, v| c.sourcetype = v.text(),
                get: |c| text(&c.sourcetype),
                setter: fn sourcetype(sourcetype: impl Into<String>) |f| *f = Some(sourcetype.into()),
            },
            /// The request channel: a GUID, or `auto` to generate one. Unset also generates
            /// one: a channel is always sent (`X-Splunk-Request-Channel`), a new GUID per
            /// process (docs/wire-formats.md 2.5).
            channel: Option<String> = None => {
                name: "splunk_channel",
                kind: Kind::Str,
                flag: Value("--splunk-channel"),
                default: "a GUID generated per process",
                doc: "Splunk channel (`X-Splunk-Request-Channel`, always sent): a GUID or `auto`",
                set: |c, v| c.channel = v.text(),
                get: |c| text(&c.channel),
                setter: fn channel(channel: impl Into<String>) |f| *f = Some(channel.into()),
            },
            /// Indexer acknowledgement: a batch counts as delivered only once
            /// `/services/collector/ack` confirms its `ackId`, and is resent when that takes
            /// longer than `ack_timeout`. Turn it on when the HEC token has "Enable indexer
            /// acknowledgement" set.
            ack: bool = false => {
                name: "splunk_ack",
                kind: Kind::Bool,
                flag: On("--splunk-ack"),
                default: "false",
                doc: "Splunk indexer acknowledgement: delivered only once `/services/collector/ack` confirms",
                set: |c, v| c.ack = v.bool(),
                get: |c| Some(c.ack.to_string()),
                setter: fn ack(on: bool) |f| *f = on,
            },
            /// With `ack`: how long after a batch was accepted its acknowledgement may take
            /// before the batch is resent.
            ack_timeout: Duration = DEFAULT_ACK_TIMEOUT => {
                name: "splunk_ack_timeout_ms",
                kind: int(100, 3_600_000, MS),
                flag: Value("--splunk-ack-timeout-ms"),
                default: "300,000",
                doc: "with `splunk_ack`: a batch not acknowledged this long after it was accepted is resent",
                set: |c, v| c.ack_timeout = ms(v.int()),
                get: |c| millis(c.ack_timeout),
                setter: fn ack_timeout(timeout: std::time::Duration) |f| *f = timeout,
            },
        ]
    }
}

impl SplunkOptions {
    splunk_setters!();

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
