//! OpenTelemetry (OTLP/HTTP) options: the body encoding, as a row of the key table.
//!
//! Why it exists: the options that only the `otlp` vendor reads travel together, so the
//! builder has one typed setter for them. This module must never encode a body: the
//! encoder reads the encoding chosen here.

use crate::config::key::{Flag::*, Kind};
use crate::config::options::options;
use crate::config::value::quote;
use crate::error::ConfigError;

/// The body encoding of [`crate::Vendor::Otlp`] requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum OtlpEncoding {
    /// Binary protobuf (`application/x-protobuf`), the OTLP default.
    #[default]
    Protobuf,
    /// The OTLP JSON mapping (`application/json`).
    Json,
}

/// The encodings' names, in the order of [`OtlpEncoding::ALL`].
pub(crate) const OTLP_ENCODING_NAMES: &[&str] = &["protobuf", "json"];

impl OtlpEncoding {
    /// Every encoding, in the order messages list them.
    pub(crate) const ALL: [OtlpEncoding; 2] = [OtlpEncoding::Protobuf, OtlpEncoding::Json];

    /// The name used on the command line and in config files.
    pub fn name(self) -> &'static str {
        match self {
            OtlpEncoding::Protobuf => "protobuf",
            OtlpEncoding::Json => "json",
        }
    }
}

impl std::str::FromStr for OtlpEncoding {
    type Err = ConfigError;

    fn from_str(s: &str) -> Result<OtlpEncoding, ConfigError> {
        match s.trim().to_ascii_lowercase().as_str() {
            "protobuf" | "proto" => Ok(OtlpEncoding::Protobuf),
            "json" => Ok(OtlpEncoding::Json),
            _ => Err(ConfigError::new(
                "otlp_encoding",
                s,
                "must be one of protobuf, json",
            )),
        }
    }
}

options! {
    /// Options of the OpenTelemetry OTLP/HTTP intake (`vendor = otlp`). Key `otlp_encoding`.
    ///
    /// ```
    /// let otlp = logship::OtlpOptions::default().encoding(logship::OtlpEncoding::Json);
    /// let builder = logship::Logship::builder().otlp(otlp);
    /// assert_eq!(builder.config().otlp.encoding, logship::OtlpEncoding::Json);
    /// ```
    #[derive(Clone, PartialEq, Eq)]
    #[non_exhaustive]
    pub struct OtlpOptions {
        setters: otlp_setters,
        setters_on: "OtlpOptions",
        debug: generated,
        rows: [
            /// The body encoding: protobuf (`application/x-protobuf`, the OTLP default) or
            /// JSON (`application/json`).
            encoding: OtlpEncoding = OtlpEncoding::Protobuf => {
                name: "otlp_encoding",
                kind: Kind::Choice(OTLP_ENCODING_NAMES),
                flag: Value("--otlp-encoding"),
                default: "`protobuf`",
                doc: "OTLP body: `protobuf` (`application/x-protobuf`) or `json` (`application/json`)",
                set: |c, v| c.encoding = OtlpEncoding::ALL[v.choice()],
                get: |c| Some(quote(c.encoding.name())),
                setter: fn encoding(encoding: crate::OtlpEncoding) |f| *f = encoding,
            },
        ]
    }
}

impl OtlpOptions {
    otlp_setters!();
}
