//! What each intake wants on the wire, one module per vendor.
//!
//! Why it exists: a vendor is a URL, some headers, a body shape, hard limits, and a
//! meaning for each response status. Everything else in the pipeline (queue, batching,
//! sending, retries) is shared. [`Codec`] is the one type the worker and senders talk to;
//! it dispatches to the vendor's module with a `match`, so adding a vendor means adding a
//! module that looks like its siblings plus one arm per method here.

mod generic;

use crate::config::{Config, Vendor};
use crate::error::ConfigError;
use crate::record::Record;
use crate::secret::Secret;
use crate::send::classify::Outcome;

/// Hard limits of an intake; batches are cut so no request exceeds them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    /// Most events in one request.
    pub max_records: usize,
    /// Most uncompressed body bytes in one request.
    pub max_body_bytes: usize,
}

/// The request format of one configured intake.
#[derive(Debug)]
pub(crate) struct Codec {
    vendor: Vendor,
    url: String,
    headers: Vec<(String, Secret)>,
    limits: Limits,
}

impl Codec {
    /// Builds the codec for a validated configuration.
    pub(crate) fn new(config: &Config) -> Result<Codec, ConfigError> {
        let url = config
            .endpoint
            .clone()
            .ok_or_else(|| ConfigError::new("endpoint", "(none)", "an endpoint URL is required"))?;
        let vendor_limits = match config.vendor {
            Vendor::Ndjson | Vendor::JsonArray => generic::LIMITS,
        };
        Ok(Codec {
            vendor: config.vendor,
            url,
            headers: config.headers.clone(),
            limits: Limits {
                max_records: vendor_limits.max_records.min(config.max_batch_records),
                max_body_bytes: vendor_limits.max_body_bytes.min(config.max_batch_bytes),
            },
        })
    }

    /// The URL requests are POSTed to (may contain secrets in its query: never print it raw).
    pub(crate) fn url(&self) -> &str {
        &self.url
    }

    /// Request headers besides Content-Type, Content-Encoding and User-Agent.
    pub(crate) fn headers(&self) -> &[(String, Secret)] {
        &self.headers
    }

    /// The body's media type.
    pub(crate) fn content_type(&self) -> &'static str {
        match self.vendor {
            Vendor::Ndjson => generic::NDJSON_CONTENT_TYPE,
            Vendor::JsonArray => generic::ARRAY_CONTENT_TYPE,
        }
    }

    /// Effective batch limits: the tighter of the configuration and the vendor's own.
    pub(crate) fn limits(&self) -> Limits {
        self.limits
    }

    /// Writes what comes before the first event.
    pub(crate) fn open(&self, body: &mut Vec<u8>) {
        match self.vendor {
            Vendor::Ndjson => {}
            Vendor::JsonArray => body.push(b'['),
        }
    }

    /// Appends one event; `first` is true for the first event of the body.
    pub(crate) fn push(&self, body: &mut Vec<u8>, record: &Record, first: bool) {
        match self.vendor {
            Vendor::Ndjson => generic::push_ndjson(body, record),
            Vendor::JsonArray => generic::push_array_item(body, record, first),
        }
    }

    /// Bytes [`Codec::close`] will add, so the byte trigger can be checked before closing.
    pub(crate) fn close_len(&self) -> usize {
        match self.vendor {
            Vendor::Ndjson => 0,
            Vendor::JsonArray => 1,
        }
    }

    /// Writes what comes after the last event.
    pub(crate) fn close(&self, body: &mut Vec<u8>) {
        match self.vendor {
            Vendor::Ndjson => {}
            Vendor::JsonArray => body.push(b']'),
        }
    }

    /// Encodes a whole batch (used when a batch must be re-cut, e.g. split on 413).
    pub(crate) fn encode(&self, records: &[Record]) -> Vec<u8> {
        let mut body = Vec::with_capacity(records.iter().map(|r| r.size()).sum());
        self.open(&mut body);
        for (i, r) in records.iter().enumerate() {
            self.push(&mut body, r, i == 0);
        }
        self.close(&mut body);
        body
    }

    /// What a response means for the batch that was sent.
    pub(crate) fn classify(&self, status: u16) -> Outcome {
        match self.vendor {
            Vendor::Ndjson | Vendor::JsonArray => generic::classify(status),
        }
    }
}
