//! Pipeline options shared by `logship ship` and `logship demo`.
//!
//! Each option maps to one [`logship::Builder`] setter; an option left out keeps the
//! library's default. Range checks are the library's: an unusable value comes back from
//! `build` as an error that names the field and what is allowed.

use std::time::Duration;

use clap::Args;
use logship::{Builder, Vendor};

use crate::exit::Failure;

/// Default for `--shutdown-timeout-ms`: a command-line run can afford to wait longer than
/// an application's exit.
pub const DEFAULT_SHUTDOWN_TIMEOUT_MS: u64 = 30_000;

/// Options that configure the logship pipeline.
#[derive(Args, Debug, Clone)]
pub struct PipelineArgs {
    /// Wire format: ndjson (one JSON object per line) or json (one array per request).
    /// [default: ndjson]
    #[arg(long, value_name = "VENDOR", value_parser = parse_vendor)]
    pub vendor: Option<Vendor>,

    /// Extra request header as 'Name: value' (repeatable). Values are treated as secrets.
    #[arg(long = "header", value_name = "'NAME: VALUE'")]
    pub headers: Vec<String>,

    /// Events per batch. [default: 200]
    #[arg(long, value_name = "N")]
    pub max_batch_records: Option<usize>,

    /// Uncompressed bytes per batch. [default: 1048576]
    #[arg(long, value_name = "BYTES")]
    pub max_batch_bytes: Option<usize>,

    /// Send a batch once its oldest event is this old. [default: 1000]
    #[arg(long, value_name = "MS")]
    pub linger_ms: Option<u64>,

    /// Events the in-memory queue holds. [default: 10000]
    #[arg(long, value_name = "N")]
    pub queue_capacity: Option<usize>,

    /// Bytes of events held in memory, queued or in flight. [default: 67108864]
    #[arg(long, value_name = "BYTES")]
    pub queue_max_bytes: Option<usize>,

    /// Requests in flight at once. [default: 2]
    #[arg(long, value_name = "N")]
    pub max_in_flight: Option<usize>,

    /// Retries of a failed request (network errors, 408, 429, 5xx). [default: 3]
    #[arg(long, value_name = "N")]
    pub max_retries: Option<u32>,

    /// Send request bodies uncompressed (gzip is on by default).
    #[arg(long)]
    pub no_gzip: bool,

    /// How long to keep delivering what is queued once input ends.
    #[arg(long, value_name = "MS", default_value_t = DEFAULT_SHUTDOWN_TIMEOUT_MS)]
    pub shutdown_timeout_ms: u64,
}

impl PipelineArgs {
    /// The shutdown timeout as a duration.
    pub fn shutdown_timeout(&self) -> Duration {
        Duration::from_millis(self.shutdown_timeout_ms)
    }

    /// Applies every given option to `builder`. Fails (usage error) only on a `--header`
    /// that is not of the form `Name: value`; everything else is validated by `build`.
    pub fn apply(&self, mut builder: Builder) -> Result<Builder, Failure> {
        if let Some(vendor) = self.vendor {
            builder = builder.vendor(vendor);
        }
        for header in &self.headers {
            let (name, value) = parse_header(header)?;
            builder = builder.header(name, value);
        }
        if let Some(n) = self.max_batch_records {
            builder = builder.max_batch_records(n);
        }
        if let Some(n) = self.max_batch_bytes {
            builder = builder.max_batch_bytes(n);
        }
        if let Some(ms) = self.linger_ms {
            builder = builder.linger(Duration::from_millis(ms));
        }
        if let Some(n) = self.queue_capacity {
            builder = builder.queue_capacity(n);
        }
        if let Some(n) = self.queue_max_bytes {
            builder = builder.queue_max_bytes(n);
        }
        if let Some(n) = self.max_in_flight {
            builder = builder.max_in_flight(n);
        }
        if let Some(n) = self.max_retries {
            builder = builder.max_retries(n);
        }
        if self.no_gzip {
            builder = builder.gzip(false);
        }
        Ok(builder.shutdown_timeout(self.shutdown_timeout()))
    }
}

fn parse_vendor(s: &str) -> Result<Vendor, logship::ConfigError> {
    s.parse()
}

/// Splits `Name: value`. The value is never echoed in the error: it may be an API key.
fn parse_header(raw: &str) -> Result<(String, String), Failure> {
    match raw.split_once(':') {
        Some((name, value)) if !name.trim().is_empty() => {
            Ok((name.trim().to_owned(), value.trim().to_owned()))
        }
        _ => Err(Failure::usage(
            "--header expects 'Name: value', e.g. --header 'X-Api-Key: abc' \
             (one --header has no name before ':'; its value is not shown because it may be secret)",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_split_on_the_first_colon() {
        let (n, v) = parse_header("Authorization: Bearer a:b").expect("valid header");
        assert_eq!((n.as_str(), v.as_str()), ("Authorization", "Bearer a:b"));
        let err = parse_header("sk-secret").expect_err("no colon");
        assert!(err.message.contains("--header"));
        assert!(!err.message.contains("sk-secret"));
        assert!(parse_header(": v").is_err());
    }
}
