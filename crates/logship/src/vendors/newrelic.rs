//! New Relic Log API (docs/wire-formats.md section 3).
//!
//! `POST https://log-api.newrelic.com/log/v1` (or the EU, JP, FedRAMP host) with
//! `Api-Key`, in the detailed format: `[{"common":{"attributes":{...}},"logs":[...]}]`,
//! each log with `timestamp` (epoch milliseconds), `message`, and flat `attributes`. New
//! Relic rejects arrays as attribute values; logship's field values are always scalars
//! (anything else was already formatted as a string), so none is ever sent. The
//! 1,000,000-byte limit applies to the body as sent (compressed): senders split a batch
//! whose compressed body is over it before sending, and split again on 413.

use super::fields::{
    id_name, millis, unique_tags, write_error, write_id, write_logger, write_opt, write_pairs,
    ErrorNames, Naming, Style, TraceIds, ENV_NAME, ID_NAME, VERSION_NAME,
};
use super::format::Protocol;
use super::{Context, Limits};
use crate::config::hosted::NEWRELIC_REGIONS;
use crate::config::Config;
use crate::support::json;
use crate::vendors::classify::{ItemResults, Outcome, Rule};
use crate::capture::record::Record;

/// The standard path, appended to an `endpoint` given without one.
pub(super) const PATH: &str = "/log/v1";
/// Section 3.4: 10^6 bytes per request as sent (compressed). The sender splits a batch
/// whose compressed body is over it, and cuts a single event that still does not fit; an
/// encoded event is capped just under the limit so that, uncompressed, it fits too.
pub(super) const LIMITS: Limits = Limits {
    max_records: usize::MAX,
    max_body_bytes: usize::MAX,
    max_event_bytes: 1_000_000 - 4096,
    max_wire_bytes: Some(1_000_000),
};
/// Section 3.5: 2xx delivered; 408, 429 and 5xx retried; 413 split; other 4xx permanent.
pub(super) const RESPONSES: &[Rule] = &[
    Rule::range(200, 299, Outcome::Delivered),
    Rule::one(408, Outcome::Retry),
    Rule::one(413, Outcome::TooLarge),
    Rule::one(429, Outcome::Retry),
    Rule::range(500, 599, Outcome::Retry),
];
const RESERVED: &[&str] = &["level", "logger.name", "trace.id", "span.id"];

/// The intake URL for a region.
pub(super) fn url(config: &Config) -> String {
    let region = config.region.as_deref().unwrap_or("us");
    let host = NEWRELIC_REGIONS
        .iter()
        .find(|(r, _)| *r == region)
        .map_or(NEWRELIC_REGIONS[0].1, |(_, h)| *h);
    format!("https://{host}{PATH}")
}

/// Encodes the detailed format; the common block is encoded once.
#[derive(Debug)]
pub(super) struct Encoder {
    open: Vec<u8>,
    naming: Naming,
    /// Whether each event's id is written as `logship.id` (`event_id`).
    with_id: bool,
}

impl Encoder {
    pub(super) fn new(ctx: &Context) -> Encoder {
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
                    .chain(ErrorNames::NEW_RELIC.all())
                    .chain(id_name(ctx.event_id, ID_NAME)),
            ),
            with_id: ctx.event_id,
        }
    }

    pub(super) fn open(&self, body: &mut Vec<u8>) {
        body.extend_from_slice(&self.open);
    }

    pub(super) const CLOSE: &'static [u8] = b"]}]";

    pub(super) fn push(&self, body: &mut Vec<u8>, record: &Record, first: bool) {
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
        write_error(body, record, &ErrorNames::NEW_RELIC);
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
    fn limits(&self) -> Limits {
        LIMITS
    }
    fn content_type(&self) -> &'static str {
        "application/json"
    }
    fn open(&self, body: &mut Vec<u8>) {
        Encoder::open(self, body);
    }
    fn push(&self, body: &mut Vec<u8>, record: &Record, prev: Option<&Record>) {
        Encoder::push(self, body, record, prev.is_none());
    }
    fn close_len(&self) -> usize {
        Encoder::CLOSE.len()
    }
    fn close(&self, body: &mut Vec<u8>, _records: &[Record]) {
        body.extend_from_slice(Encoder::CLOSE);
    }
    fn classify(&self, status: u16, _body: &[u8]) -> Outcome {
        super::classify::by_table(RESPONSES, status)
    }
    fn items(&self, _body: &str, _sent: usize) -> Option<ItemResults> {
        None
    }
    fn max_response_bytes(&self) -> u64 {
        super::MAX_ERROR_BODY
    }
    fn fit_line(&self, _record: &Record) -> Option<Record> {
        None
    }
}
