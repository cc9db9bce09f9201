//! Splunk HTTP Event Collector (docs/wire-formats.md section 2).
//!
//! `POST <endpoint>/services/collector/event` with `Authorization: Splunk <token>`;
//! concatenated event objects (no array): `time` in epoch seconds with a millisecond
//! fraction, `host`, `source`, `sourcetype`, `index`, `event` (the message, level, logger
//! and the event's fields), and `fields` (flat, string values: the service and tags).
//! A 400 naming an `invalid-event-number` rejects just that event: the others are resent.

use super::fields::{
    id_name, unique_tags, write_error, write_logger, write_opt, write_pairs, ErrorNames, Naming,
    Style, ENV_NAME, ID_NAME, VERSION_NAME,
};
use super::format::Protocol;
use super::{Context, Limits};
use crate::config::Config;
use crate::support::json;
use crate::vendors::classify::{ItemResults, Outcome, Rule};
use crate::capture::record::Record;

/// The standard path, appended to an `endpoint` given without one.
pub(super) const PATH: &str = "/services/collector/event";
/// Default request cap: 1,000,000 bytes, the pre-6.5 `max_content_length` that hardened
/// servers still use (section 2.3); configurable with `max_request_bytes`.
pub(super) const DEFAULT_MAX_REQUEST_BYTES: usize = 1_000_000;
/// Section 2.3: about 5 MB per event (400 code 6 beyond); no entry count limit.
pub(super) const LIMITS: Limits = Limits {
    max_records: usize::MAX,
    max_body_bytes: DEFAULT_MAX_REQUEST_BYTES,
    max_event_bytes: 5_000_000,
    max_wire_bytes: None,
};
/// Section 2.4: 200 delivered; 500 (code 8) and 503 (codes 9, 18-20) retried, like other
/// 5xx; 408 and 429 retried; 413 split; 400 with `invalid-event-number` isolates the event
/// (handled in [`classify`]); other 4xx permanent.
pub(super) const RESPONSES: &[Rule] = &[
    Rule::range(200, 299, Outcome::Delivered),
    Rule::one(408, Outcome::Retry),
    Rule::one(413, Outcome::TooLarge),
    Rule::one(429, Outcome::Retry),
    Rule::range(500, 599, Outcome::Retry),
];
const RESERVED: &[&str] = &["message", "level", "logger"];

/// What a response means, including Splunk's per-event rejection.
pub(super) fn classify(status: u16, body: &str) -> Outcome {
    if status == 400 {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(body) {
            if let Some(i) = v.get("invalid-event-number").and_then(|n| n.as_u64()) {
                return Outcome::RejectEvent(i as usize);
            }
        }
    }
    super::classify::by_table(RESPONSES, status)
}

/// The channel header value: the configured GUID, else (none, or `auto`) this process's
/// own GUID, generated once. A channel is always sent: tokens with indexer acknowledgement
/// refuse requests without one (code 10), and the others accept it.
pub(super) fn channel(config: &Config) -> String {
    static PROCESS_CHANNEL: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    match config.splunk.channel.as_deref() {
        None | Some("auto") => PROCESS_CHANNEL.get_or_init(new_guid).clone(),
        Some(c) => c.to_owned(),
    }
}

/// Path of the acknowledgement endpoint (docs/wire-formats.md 2.1).
const ACK_PATH: &str = "/services/collector/ack";

/// Most ackIds one acknowledgement query asks about; more are asked in several.
pub(crate) const MAX_ACK_IDS: usize = 1000;

/// Most bytes of an acknowledgement answer read: `MAX_ACK_IDS` entries of
/// `"1234567890":false,` with room to spare.
pub(crate) const MAX_ACK_ANSWER: u64 = 64 * 1024;

/// The acknowledgement URL for the event URL `url`: its path up to `/services/collector`,
/// then `/ack`, with the same query (which may carry `channel=`); `None` when the path has
/// no `/services/collector` (then the endpoint's owner must name one that does).
pub(super) fn ack_url(url: &str) -> Option<String> {
    let uri = url.parse::<ureq::http::Uri>().ok()?;
    let (scheme, authority) = (uri.scheme_str()?, uri.authority()?);
    let path = uri.path();
    let at = path.find("/services/collector")?;
    let base = &path[..at];
    Some(match uri.query() {
        Some(q) => format!("{scheme}://{authority}{base}{ACK_PATH}?{q}"),
        None => format!("{scheme}://{authority}{base}{ACK_PATH}"),
    })
}

/// The `ackId` of a success answer (`{"text":"Success","code":0,"ackId":7}`); `None` when
/// it has none (a token without indexer acknowledgement) or is not JSON.
pub(super) fn ack_id(body: &str) -> Option<u64> {
    let v: serde_json::Value = serde_json::from_str(body.trim()).ok()?;
    v.get("ackId")?.as_u64()
}

/// The body of an acknowledgement query: `{"acks":[0,1,2]}`.
pub(super) fn ack_query(ids: &[u64]) -> Vec<u8> {
    let mut body = b"{\"acks\":[".to_vec();
    for (i, id) in ids.iter().enumerate() {
        if i > 0 {
            body.push(b',');
        }
        json::unsigned(&mut body, *id);
    }
    body.extend_from_slice(b"]}");
    body
}

/// The ackIds an acknowledgement answer (`{"acks":{"0":true,"1":false}}`) confirms;
/// `None` when the answer is not of that shape (a failed query: nothing is confirmed).
/// An id the answer does not name, or names with anything but `true`, is not confirmed.
pub(super) fn acked(body: &[u8]) -> Option<Vec<u64>> {
    let v: serde_json::Value = serde_json::from_slice(body).ok()?;
    let acks = v.get("acks")?.as_object()?;
    let mut confirmed = Vec::new();
    for (id, state) in acks {
        let id: u64 = id.parse().ok()?;
        if state.as_bool()? {
            confirmed.push(id);
        }
    }
    Some(confirmed)
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
pub(super) struct Encoder {
    envelope: Vec<u8>,
    /// The indexed fields every event carries (`"service":"…",…`, maybe none), without
    /// the `fields` object around them.
    fields: Vec<u8>,
    /// Whether each event's id is an indexed field `logship.id` (`event_id`).
    with_id: bool,
    naming: Naming,
    /// The server's `max_content_length` as configured (`max_request_bytes`).
    max_body_bytes: usize,
}

impl Encoder {
    pub(super) fn new(ctx: &Context, config: &Config) -> Encoder {
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
        }
    }

    pub(super) fn push(&self, body: &mut Vec<u8>, record: &Record) {
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
    /// The body limit is the server's own setting (`max_request_bytes`).
    fn limits(&self) -> Limits {
        Limits {
            max_body_bytes: self.max_body_bytes,
            ..LIMITS
        }
    }
    /// Splunk does not check it; plain JSON is what its documentation shows.
    fn content_type(&self) -> &'static str {
        "application/json"
    }
    /// Concatenated event envelopes: nothing before the first.
    fn open(&self, _body: &mut Vec<u8>) {}
    fn push(&self, body: &mut Vec<u8>, record: &Record, _prev: Option<&Record>) {
        Encoder::push(self, body, record);
    }
    fn close_len(&self) -> usize {
        0
    }
    fn close(&self, _body: &mut Vec<u8>, _records: &[Record]) {}
    fn classify(&self, status: u16, body: &[u8]) -> Outcome {
        classify(status, &String::from_utf8_lossy(body))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::splunk::is_guid;

    #[test]
    fn generated_channels_are_guids() {
        for _ in 0..100 {
            let g = new_guid();
            assert!(is_guid(&g), "{g}");
        }
    }

    #[test]
    fn a_channel_is_always_sent_and_one_per_process() {
        let mut config = Config::default();
        let first = channel(&config);
        assert!(is_guid(&first), "{first}");
        config.splunk.channel = Some("auto".into());
        assert_eq!(channel(&config), first, "auto is the process's channel");
        let own = "0f8b3c2a-1111-4222-8333-444455556666";
        config.splunk.channel = Some(own.into());
        assert_eq!(channel(&config), own);
    }

    #[test]
    fn the_ack_url_sits_beside_the_event_path() {
        for (event, ack) in [
            (
                "https://h:8088/services/collector/event",
                "https://h:8088/services/collector/ack",
            ),
            (
                "http://h:1/services/collector",
                "http://h:1/services/collector/ack",
            ),
            (
                "http://h:1/splunk/services/collector/event/1.0?channel=x",
                "http://h:1/splunk/services/collector/ack?channel=x",
            ),
        ] {
            assert_eq!(ack_url(event).as_deref(), Some(ack), "{event}");
        }
        assert_eq!(ack_url("http://h:1/hec"), None);
    }

    #[test]
    fn ack_answers_are_read_strictly() {
        assert_eq!(ack_id(r#"{"text":"Success","code":0,"ackId":7}"#), Some(7));
        assert_eq!(ack_id(r#"{"text":"Success","code":0}"#), None);
        assert_eq!(ack_id("<html>"), None);
        assert_eq!(ack_query(&[0, 5, 12]), br#"{"acks":[0,5,12]}"#.to_vec());
        let mut got = acked(br#"{"acks":{"0":true,"5":false,"12":true}}"#).unwrap();
        got.sort();
        assert_eq!(got, vec![0, 12]);
        for garbage in [
            &b"not json"[..],
            br#"{"acks":[0,1]}"#,
            br#"{"acks":{"x":true}}"#,
            br#"{"acks":{"1":"yes"}}"#,
            br#"{"text":"Invalid token","code":4}"#,
            b"",
        ] {
            assert_eq!(acked(garbage), None, "{}", String::from_utf8_lossy(garbage));
        }
    }

    #[test]
    fn invalid_event_number_isolates_one_event() {
        let body = r#"{"text":"Invalid data format","code":6,"invalid-event-number":3}"#;
        assert_eq!(classify(400, body), Outcome::RejectEvent(3));
        assert_eq!(
            classify(400, r#"{"text":"Incorrect index","code":7}"#),
            Outcome::Permanent
        );
    }
}
