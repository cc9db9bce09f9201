//! Splunk HTTP Event Collector (docs/wire-formats.md section 2).
//!
//! `POST <endpoint>/services/collector/event` with `Authorization: Splunk <token>`;
//! concatenated event objects (no array): `time` in epoch seconds with a millisecond
//! fraction, `host`, `source`, `sourcetype`, `index`, `event` (the message, level, logger
//! and the event's fields), and `fields` (flat, string values: the service and tags).
//! A 400 naming an `invalid-event-number` rejects just that event: the others are resent.

pub(crate) mod facts;
pub(crate) mod options;

mod ack;
mod stats_names;

use crate::capture::record::Record;
use crate::config::Config;
use crate::error::ConfigError;
use crate::support::json;
use crate::support::secret::Secret;
use crate::vendors::answer::{self, Outcome, Rule};
use crate::vendors::context::Context;
use crate::vendors::fields::{
    id_name, unique_tags, write_error, write_logger, write_opt, write_pairs, ErrorNames, Naming,
    Style, ENV_NAME, ID_NAME, VERSION_NAME,
};
use crate::vendors::limits::Limits;
use crate::vendors::protocol::{AckEndpoint, Protocol, JSON};

/// The standard path, appended to an `endpoint` given without one.
const PATH: &str = "/services/collector/event";
/// Default request cap: 1,000,000 bytes, the pre-6.5 `max_content_length` that hardened
/// servers still use (section 2.3); configurable with `max_request_bytes`.
const DEFAULT_MAX_REQUEST_BYTES: usize = 1_000_000;
/// Section 2.3: about 5 MB per event (400 code 6 beyond); no entry count limit.
const LIMITS: Limits = Limits {
    max_records: usize::MAX,
    max_body_bytes: DEFAULT_MAX_REQUEST_BYTES,
    max_event_bytes: 5_000_000,
    max_wire_bytes: None,
};
/// Section 2.4: 200 delivered; 500 (code 8) and 503 (codes 9, 18-20) retried, like other
/// 5xx; 408 and 429 retried; 413 split; 400 with `invalid-event-number` isolates the event
/// (handled in [`classify`]); other 4xx permanent.
const RESPONSES: &[Rule] = &[
    Rule::range(200, 299, Outcome::Delivered),
    Rule::one(408, Outcome::Retry),
    Rule::one(413, Outcome::TooLarge),
    Rule::one(429, Outcome::Retry),
    Rule::range(500, 599, Outcome::Retry),
];
const RESERVED: &[&str] = &["message", "level", "logger"];

/// What a response means, including Splunk's per-event rejection.
fn classify(status: u16, body: &str) -> Outcome {
    if status == 400 {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(body) {
            if let Some(i) = v.get("invalid-event-number").and_then(|n| n.as_u64()) {
                return Outcome::RejectEvent(i as usize);
            }
        }
    }
    answer::by_table(RESPONSES, status)
}

/// The channel header value: the configured GUID, else (none, or `auto`) this process's
/// own GUID, generated once. A channel is always sent: tokens with indexer acknowledgement
/// refuse requests without one (code 10), and the others accept it.
fn channel(config: &Config) -> String {
    static PROCESS_CHANNEL: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    match config.splunk.channel.as_deref() {
        None | Some("auto") => PROCESS_CHANNEL.get_or_init(new_guid).clone(),
        Some(c) => c.to_owned(),
    }
}

/// A random version-4 GUID.
fn new_guid() -> String {
    let a = fastrand::u64(..);
    let b = fastrand::u64(..);
    format!(
        "{:08x}-{:04x}-4{:03x}-{:x}{:03x}-{:012x}",
        a >> 32,
        (a >> 16) & 0xffff,
        a & 0x0fff,
        8 + (b >> 62),
        (b >> 48) & 0x0fff,
        b & 0xffff_ffff_ffff
    )
}

/// Encodes events; the envelope's fixed members are encoded once.
#[derive(Debug)]
pub(crate) struct Encoder {
    envelope: Vec<u8>,
    /// The indexed fields every event carries (`"service":"…",…`, maybe none), without
    /// the `fields` object around them.
    fields: Vec<u8>,
    /// Whether each event's id is an indexed field `logship.id` (`event_id`).
    with_id: bool,
    naming: Naming,
    /// The server's `max_content_length` as configured (`max_request_bytes`).
    max_body_bytes: usize,
    /// Indexer acknowledgement (`splunk_ack`): on, and how long to wait for one.
    ack: Option<std::time::Duration>,
}

impl Encoder {
    pub(crate) fn new(ctx: &Context, config: &Config) -> Encoder {
        let mut envelope = Vec::new();
        write_opt(&mut envelope, "host", Some(&ctx.hostname));
        write_opt(&mut envelope, "source", Some(&ctx.source));
        write_opt(
            &mut envelope,
            "sourcetype",
            Some(config.splunk.sourcetype.as_deref().unwrap_or("_json")),
        );
        write_opt(&mut envelope, "index", config.splunk.index.as_deref());
        let mut fields = Vec::new();
        let own = [
            ("service", &ctx.service),
            (ENV_NAME, &ctx.env),
            (VERSION_NAME, &ctx.version),
        ];
        if own.iter().any(|(_, v)| v.is_some()) || !ctx.tags.is_empty() {
            let mut first = true;
            let mut taken: Vec<&str> = id_name(ctx.event_id, ID_NAME).into_iter().collect();
            for (name, value) in own {
                let Some(value) = value else { continue };
                if !first {
                    fields.push(b',');
                }
                json::string(&mut fields, name);
                fields.push(b':');
                json::string(&mut fields, value);
                first = false;
                taken.push(name);
            }
            write_pairs(
                &mut fields,
                &unique_tags(&ctx.tags, Style::Json, &taken),
                first,
            );
        }
        Encoder {
            envelope,
            fields,
            with_id: ctx.event_id,
            naming: Naming::new(
                ctx.span_fields,
                Style::Json,
                RESERVED.iter().chain(&ErrorNames::OTEL.all()),
            ),
            max_body_bytes: config
                .max_request_bytes
                .unwrap_or(DEFAULT_MAX_REQUEST_BYTES),
            ack: config.splunk.ack.then_some(config.splunk.ack_timeout),
        }
    }

    fn push_event(&self, body: &mut Vec<u8>, record: &Record) {
        let nanos = record.timestamp_nanos();
        body.extend_from_slice(b"{\"time\":");
        json::unsigned(body, nanos / 1_000_000_000);
        body.push(b'.');
        let millis = (nanos / 1_000_000) % 1000;
        body.extend_from_slice(format!("{millis:03}").as_bytes());
        body.extend_from_slice(&self.envelope);
        body.extend_from_slice(b",\"event\":{\"message\":");
        json::string(body, record.message_str());
        body.extend_from_slice(b",\"level\":\"");
        body.extend_from_slice(record.level().as_str().as_bytes());
        body.push(b'"');
        write_logger(body, "logger", record);
        write_error(body, record, &ErrorNames::OTEL);
        self.naming.write_flat(body, record, false, json::value);
        body.push(b'}');
        // Indexed fields: the common ones, and the event's id (`| dedup logship.id`, or
        // `tstats` by it, finds a replayed event's second copy).
        let id = record.id().filter(|_| self.with_id);
        if !self.fields.is_empty() || id.is_some() {
            body.extend_from_slice(b",\"fields\":{");
            body.extend_from_slice(&self.fields);
            if let Some(id) = id {
                if !self.fields.is_empty() {
                    body.push(b',');
                }
                json::string(body, ID_NAME);
                body.extend_from_slice(b":\"");
                id.write_hex(body);
                body.push(b'"');
            }
            body.push(b'}');
        }
        body.extend_from_slice(b"}\n");
    }
}

impl Protocol for Encoder {
    fn path(&self) -> Option<&'static str> {
        Some(PATH)
    }
    /// The token, and a channel: always sent, as tokens with indexer acknowledgement
    /// refuse requests without one (code 10) and the others accept it.
    fn headers(&self, config: &Config, key: &Secret) -> Vec<(String, Secret)> {
        vec![
            (
                "Authorization".into(),
                Secret::new(format!("Splunk {}", key.expose())),
            ),
            (
                "X-Splunk-Request-Channel".into(),
                Secret::new(channel(config)),
            ),
        ]
    }
    /// The body limit is the server's own setting (`max_request_bytes`).
    fn limits(&self) -> Limits {
        Limits {
            max_body_bytes: self.max_body_bytes,
            ..LIMITS
        }
    }
    /// Splunk does not check it; plain JSON is what its documentation shows.
    fn content_type(&self) -> &'static str {
        JSON
    }
    fn push(&self, body: &mut Vec<u8>, record: &Record, _prev: Option<&Record>) {
        self.push_event(body, record);
    }
    fn classify(&self, status: u16, body: &[u8]) -> Outcome {
        classify(status, &String::from_utf8_lossy(body))
    }
    fn ack_endpoint(&self, url: &str) -> Result<Option<AckEndpoint>, ConfigError> {
        let Some(timeout) = self.ack else {
            return Ok(None);
        };
        let url = ack::url(url).ok_or_else(|| {
            ConfigError::new(
                "splunk_ack",
                "true",
                "the acknowledgement URL is the endpoint's path up to /services/collector, then /ack, and this endpoint's path has no /services/collector",
            )
            .fix("give the endpoint with its HEC path, e.g. endpoint = \"https://splunk:8088/services/collector/event\"")
        })?;
        Ok(Some(AckEndpoint {
            url,
            timeout,
            max_ids: ack::MAX_IDS,
            max_answer: ack::MAX_ANSWER,
        }))
    }
    fn ack_id(&self, answer: &str) -> Option<u64> {
        ack::ack_id(answer)
    }
    fn ack_query(&self, ids: &[u64]) -> Vec<u8> {
        ack::query(ids)
    }
    fn acked(&self, answer: &[u8]) -> Option<Vec<u64>> {
        ack::acked(answer)
    }
    fn missing_ack_id(&self) -> &'static str {
        ack::MISSING_ACK_ID
    }
}

#[cfg(test)]
pub(super) mod tests;
