//! New Relic Log API (docs/wire-formats.md section 3).
//!
//! `POST https://log-api.newrelic.com/log/v1` (or the EU, JP, FedRAMP host) with
//! `Api-Key`, in the detailed format: `[{"common":{"attributes":{...}},"logs":[...]}]`,
//! each log with `timestamp` (epoch milliseconds), `message`, and flat `attributes`. New
//! Relic rejects arrays as attribute values; logship's field values are always scalars
//! (anything else was already formatted as a string), so none is ever sent. The
//! 1,000,000-byte limit applies to the body as sent (compressed): senders split a batch
//! whose compressed body is over it before sending, and split again on 413.

pub(crate) mod facts;
pub(crate) mod region;

use crate::capture::record::Record;
use crate::config::Config;
use crate::support::json;
use crate::support::secret::Secret;
use crate::vendors::answer::{Outcome, Rule};
use crate::vendors::context::Context;
use crate::vendors::fields::{
    id_name, millis, unique_tags, write_error, write_id, write_logger, write_opt, write_pairs,
    ErrorNames, Naming, Style, TraceIds, ENV_NAME, ID_NAME, VERSION_NAME,
};
use crate::vendors::limits::Limits;
use crate::vendors::protocol::{Protocol, JSON};
use region::NEWRELIC_REGIONS;

/// The standard path, appended to an `endpoint` given without one.
const PATH: &str = "/log/v1";
/// Section 3.4: 10^6 bytes per request as sent (compressed). The sender splits a batch
/// whose compressed body is over it, and cuts a single event that still does not fit; an
/// encoded event is capped just under the limit so that, uncompressed, it fits too.
const LIMITS: Limits = Limits {
    max_records: usize::MAX,
    max_body_bytes: usize::MAX,
    max_event_bytes: 1_000_000 - 4096,
    max_wire_bytes: Some(1_000_000),
};
/// Section 3.5: 2xx delivered; 408, 429 and 5xx retried; 413 split; other 4xx permanent.
const RESPONSES: &[Rule] = &[
    Rule::range(200, 299, Outcome::Delivered),
    Rule::one(408, Outcome::Retry),
    Rule::one(413, Outcome::TooLarge),
    Rule::one(429, Outcome::Retry),
    Rule::range(500, 599, Outcome::Retry),
];
const RESERVED: &[&str] = &["level", "logger.name", "trace.id", "span.id"];
/// New Relic's logs-in-context error attributes.
const ERRORS: ErrorNames = ErrorNames {
    kind: "error.class",
    message: "error.message",
    stack: "error.stack",
};

/// The intake URL for a region.
fn url(config: &Config) -> String {
    let region = config.region.as_deref().unwrap_or("us");
    let host = NEWRELIC_REGIONS
        .iter()
        .find(|(r, _)| *r == region)
        .map_or(NEWRELIC_REGIONS[0].1, |(_, h)| *h);
    format!("https://{host}{PATH}")
}

/// Encodes the detailed format; the common block is encoded once.
#[derive(Debug)]
pub(crate) struct Encoder {
    open: Vec<u8>,
    naming: Naming,
    /// Whether each event's id is written as `logship.id` (`event_id`).
    with_id: bool,
}

impl Encoder {
    pub(crate) fn new(ctx: &Context) -> Encoder {
        let mut open = b"[{\"common\":{\"attributes\":{\"hostname\":".to_vec();
        json::string(&mut open, &ctx.hostname);
        write_opt(&mut open, "service", ctx.service.as_deref());
        write_opt(&mut open, "logtype", Some(&ctx.source));
        write_opt(&mut open, ENV_NAME, ctx.env.as_deref());
        write_opt(&mut open, VERSION_NAME, ctx.version.as_deref());
        let tags = unique_tags(
            &ctx.tags,
            Style::Json,
            &["hostname", "service", "logtype", ENV_NAME, VERSION_NAME],
        );
        write_pairs(&mut open, &tags, false);
        open.extend_from_slice(b"}},\"logs\":[");
        Encoder {
            open,
            naming: Naming::new(
                ctx.span_fields,
                Style::Json,
                RESERVED
                    .iter()
                    .copied()
                    .chain(ERRORS.all())
                    .chain(id_name(ctx.event_id, ID_NAME)),
            ),
            with_id: ctx.event_id,
        }
    }

    fn open_body(&self, body: &mut Vec<u8>) {
        body.extend_from_slice(&self.open);
    }

    const CLOSE: &'static [u8] = b"]}]";

    fn push_entry(&self, body: &mut Vec<u8>, record: &Record, first: bool) {
        if !first {
            body.push(b',');
        }
        body.extend_from_slice(b"{\"timestamp\":");
        json::unsigned(body, millis(record));
        body.extend_from_slice(b",\"message\":");
        json::string(body, record.message_str());
        body.extend_from_slice(b",\"attributes\":{\"level\":\"");
        body.extend_from_slice(record.level().as_str().as_bytes());
        body.push(b'"');
        write_logger(body, "logger.name", record);
        write_id(body, ID_NAME, record, self.with_id);
        write_error(body, record, &ERRORS);
        TraceIds::of(record).write_hex(body, "trace.id", "span.id");
        // New Relic attributes take no arrays or objects: structure goes as its JSON text.
        self.naming
            .write_flat(body, record, false, json::scalar_value);
        body.extend_from_slice(b"}}");
    }
}

impl Protocol for Encoder {
    fn path(&self) -> Option<&'static str> {
        Some(PATH)
    }
    fn default_url(&self, config: &Config) -> Option<String> {
        Some(url(config))
    }
    fn headers(&self, _config: &Config, key: &Secret) -> Vec<(String, Secret)> {
        vec![("Api-Key".into(), key.clone())]
    }
    fn limits(&self) -> Limits {
        LIMITS
    }
    fn content_type(&self) -> &'static str {
        JSON
    }
    fn open(&self, body: &mut Vec<u8>) {
        self.open_body(body);
    }
    fn push(&self, body: &mut Vec<u8>, record: &Record, prev: Option<&Record>) {
        self.push_entry(body, record, prev.is_none());
    }
    fn close_len(&self) -> usize {
        Encoder::CLOSE.len()
    }
    fn close(&self, body: &mut Vec<u8>, _records: &[Record]) {
        body.extend_from_slice(Encoder::CLOSE);
    }
    fn responses(&self) -> Option<&'static [Rule]> {
        Some(RESPONSES)
    }
}

#[cfg(test)]
pub(super) mod tests;
