//! Dynatrace Log ingest API v2 (docs/wire-formats.md section 4).
//!
//! `POST <endpoint>/api/v2/logs/ingest` with `Authorization: Api-Token <token>`; a JSON
//! array of records with `content`, `timestamp` (RFC 3339 with milliseconds), `severity`,
//! `log.source`, `service.name`, `host.name`, `logger.name`, tags and the event's fields
//! as attributes. Dynatrace takes the level and timestamp from the first of several
//! well-known keys, so event fields with those names are renamed `field.<name>` and can
//! never override what logship sets. A 200 (not 204) is a partial success: counted, not
//! resent.

pub(crate) mod facts;

use crate::capture::record::{Level, Record};
use crate::config::Config;
use crate::support::json;
use crate::support::secret::Secret;
use crate::vendors::answer::{Outcome, Rule};
use crate::vendors::context::Context;
use crate::vendors::fields::{
    id_name, unique_tags, write_error, write_id, write_logger, write_opt, write_pairs, ErrorNames,
    Naming, Style, ENV_NAME, ID_NAME, VERSION_NAME,
};
use crate::vendors::limits::Limits;
use crate::vendors::protocol::{Framing, Protocol};

/// The standard path, appended to an `endpoint` given without one.
const PATH: &str = "/api/v2/logs/ingest";
/// Section 4.3: 50,000 records and 10 MB per request, 10 MB content per record.
const LIMITS: Limits = Limits {
    max_records: 50_000,
    max_body_bytes: 10_000_000,
    max_event_bytes: 10_000_000,
    max_wire_bytes: None,
};
/// Section 4.4: 204 delivered, 200 partial (not resent); 429, 500, 502, 503, 504
/// retried (Dynatrace's own client adds 500); 413 split; everything else permanent
/// (including 501).
const RESPONSES: &[Rule] = &[
    Rule::one(200, Outcome::Partial),
    Rule::range(201, 299, Outcome::Delivered),
    Rule::one(408, Outcome::Retry),
    Rule::one(413, Outcome::TooLarge),
    Rule::one(429, Outcome::Retry),
    Rule::one(500, Outcome::Retry),
    Rule::range(502, 504, Outcome::Retry),
];
/// Keys Dynatrace reads the timestamp, level or content from (section 4.2), plus ours.
const RESERVED: &[&str] = &[
    "content",
    "message",
    "payload",
    "body",
    "log",
    "_raw",
    "timestamp",
    "@timestamp",
    "_timestamp",
    "eventtime",
    "date",
    "published_date",
    "syslog.timestamp",
    "time",
    "epochSecond",
    "startTime",
    "datetime",
    "ts",
    "timeMillis",
    "@t",
    "loglevel",
    "status",
    "severity",
    "level",
    "syslog.severity",
    "log.source",
    "service.name",
    "host.name",
    "logger.name",
    ENV_NAME,
    VERSION_NAME,
];

fn severity(level: Level) -> &'static str {
    match level {
        Level::Trace | Level::Debug => "DEBUG",
        Level::Info => "INFO",
        Level::Warn => "WARN",
        Level::Error => "ERROR",
    }
}

/// Encodes records; the fixed attributes are encoded once.
#[derive(Debug)]
pub(crate) struct Encoder {
    common: Vec<u8>,
    naming: Naming,
    /// Whether each event's id is written as `logship.id` (`event_id`).
    with_id: bool,
}

impl Encoder {
    pub(crate) fn new(ctx: &Context) -> Encoder {
        let mut common = Vec::new();
        write_opt(&mut common, "log.source", Some(&ctx.source));
        write_opt(&mut common, "service.name", ctx.service.as_deref());
        write_opt(&mut common, "host.name", Some(&ctx.hostname));
        write_opt(&mut common, ENV_NAME, ctx.env.as_deref());
        write_opt(&mut common, VERSION_NAME, ctx.version.as_deref());
        // A tag may not take the name the event id is written under either.
        let tag_taken: Vec<&str> = RESERVED
            .iter()
            .copied()
            .chain(id_name(ctx.event_id, ID_NAME))
            .collect();
        let tags = unique_tags(&ctx.tags, Style::Json, &tag_taken);
        write_pairs(&mut common, &tags, false);
        let taken = RESERVED
            .iter()
            .copied()
            .chain(ErrorNames::OTEL.all())
            .chain(id_name(ctx.event_id, ID_NAME))
            .chain(tags.iter().map(|(k, _)| k.as_str()));
        Encoder {
            common,
            naming: Naming::new(ctx.span_fields, Style::Json, taken),
            with_id: ctx.event_id,
        }
    }

    fn push_entry(&self, body: &mut Vec<u8>, record: &Record, first: bool) {
        if !first {
            body.push(b',');
        }
        body.extend_from_slice(b"{\"content\":");
        json::string(body, record.message_str());
        body.extend_from_slice(b",\"timestamp\":\"");
        json::rfc3339_millis(body, record.timestamp_nanos());
        body.extend_from_slice(b"\",\"severity\":\"");
        body.extend_from_slice(severity(record.level()).as_bytes());
        body.push(b'"');
        write_logger(body, "logger.name", record);
        body.extend_from_slice(&self.common);
        write_id(body, ID_NAME, record, self.with_id);
        write_error(body, record, &ErrorNames::OTEL);
        self.naming.write_flat(body, record, false, json::value);
        body.push(b'}');
    }
}

impl Protocol for Encoder {
    fn path(&self) -> Option<&'static str> {
        Some(PATH)
    }
    fn headers(&self, _config: &Config, key: &Secret) -> Vec<(String, Secret)> {
        vec![(
            "Authorization".into(),
            Secret::new(format!("Api-Token {}", key.expose())),
        )]
    }
    fn limits(&self) -> Limits {
        LIMITS
    }
    fn framing(&self) -> Framing {
        Framing::Array
    }
    fn push(&self, body: &mut Vec<u8>, record: &Record, prev: Option<&Record>) {
        self.push_entry(body, record, prev.is_none());
    }
    fn responses(&self) -> Option<&'static [Rule]> {
        Some(RESPONSES)
    }
}

#[cfg(test)]
pub(super) mod tests;
