//! Elasticsearch / OpenSearch `_bulk` (docs/wire-formats.md section 7).
//!
//! `POST <endpoint>/_bulk` with `Content-Type: application/x-ndjson`: for each event a
//! `create` action line naming the target (a data stream or an index, default
//! `logs-logship-default`; the name may hold a UTC date pattern such as `logs-%Y.%m.%d`,
//! expanded from each event's own timestamp) and a source line with ECS-style fields:
//! `@timestamp` (RFC 3339 with milliseconds), `message`, `log.level`, `log.logger`,
//! `service.name`, `host.name`, `event.dataset` (the source), `labels` (the tags) and
//! the event's fields. Every line ends with `\n`, the last one included (ES answers 400
//! otherwise). Auth is basic (`username`/`password`), `Authorization: ApiKey <api_key>`,
//! or none.
//!
//! The answer is 200 even when some items failed: `{"errors":true,"items":[...]}` with a
//! status per item, in request order. [`items`] reads it so that only the items that got
//! 429 or 5xx are resent and the others (mapping errors, 400s, 409s) are counted as
//! rejected; the whole batch is never resent because one item failed.
//!
//! Every request asks for a trimmed answer with [`FILTER_PATH`]: each item keeps only its
//! status and, when it failed, the error's type and reason (not `_index`, `_id`,
//! `_version`, `_shards`, ...). The reading does not depend on it: a full answer (a proxy
//! that drops the query string, an older server) is read the same way.

pub(crate) mod facts;
pub(crate) mod options;
pub(crate) mod target;

use std::borrow::Cow;

use serde::Deserialize;

use crate::capture::record::Record;
use crate::config::Config;
use crate::error::ConfigError;
use crate::support::http_auth::basic_auth;
use crate::support::json;
use crate::support::secret::Secret;
use crate::vendors::answer::{self, ItemResults, Outcome, Rule};
use crate::vendors::context::Context;
use crate::vendors::fields::{
    unique_tags, write_error, write_logger, write_opt, write_pairs, ErrorNames, Naming, Style,
    TraceIds,
};
use crate::vendors::limits::Limits;
use crate::vendors::protocol::{Protocol, NDJSON};
use target::IndexName;

/// The standard path, appended to an `endpoint` given without one.
const PATH: &str = "/_bulk";
/// The query parameter sent on every request: Elasticsearch's response filtering keeps
/// `errors` and, per item, `status` and the error's `type` and `reason`. Every item keeps
/// its status, so the answer still holds one item per document, in request order
/// (`items.*.error` alone would drop the successful items and lose the order).
const FILTER_PATH: &str =
    "filter_path=errors,items.*.status,items.*.error.type,items.*.error.reason";
/// The default target: a data stream matching the stock `logs-*-*` index template.
const DEFAULT_INDEX: &str = "logs-logship-default";
/// Default request cap: `http.max_content_length`, 100 MB (section 7); configurable with
/// `max_request_bytes`. Batches are far smaller by default (`max_batch_bytes`, 1 MiB).
const DEFAULT_MAX_REQUEST_BYTES: usize = 100_000_000;
/// Events per request are capped so the per-item answer stays small enough to read whole
/// (see [`MAX_RESPONSE_BYTES`]); Elastic advises requests of a few MB to a few tens of MB.
const LIMITS: Limits = Limits {
    max_records: 10_000,
    max_body_bytes: DEFAULT_MAX_REQUEST_BYTES,
    max_event_bytes: DEFAULT_MAX_REQUEST_BYTES,
    max_wire_bytes: None,
};
/// Most response bytes read: the per-item answer to [`LIMITS`]`.max_records` items, each
/// with an error, fits.
const MAX_RESPONSE_BYTES: u64 = 16 * 1024 * 1024;
/// Section 7.1: 200 answers per item (read by [`classify`]); a whole-request 429 and 5xx
/// are retried; 413 splits; 401, 403 and other 4xx (a 400 for a malformed body, 406 for a
/// wrong Content-Type) are permanent.
const RESPONSES: &[Rule] = &[
    Rule::range(200, 299, Outcome::Delivered),
    Rule::one(408, Outcome::Retry),
    Rule::one(413, Outcome::TooLarge),
    Rule::one(429, Outcome::Retry),
    Rule::one(501, Outcome::Permanent),
    Rule::range(500, 599, Outcome::Retry),
];
/// Elastic Common Schema's error fields.
const ERRORS: ErrorNames = ErrorNames {
    kind: "error.type",
    message: "error.message",
    stack: "error.stack_trace",
};
/// Names logship writes itself, those whose mapping would clash with them (a string `log`
/// cannot live beside the object `log.level`), and ES metadata fields, which a document
/// may not contain: an event field with one of these names is written `field.<name>`.
const RESERVED: &[&str] = &[
    "@timestamp",
    "message",
    "log",
    "log.level",
    "log.logger",
    "service",
    "service.name",
    "service.environment",
    "service.version",
    "trace",
    "trace.id",
    "span",
    "span.id",
    "host",
    "host.name",
    "event",
    "event.dataset",
    "labels",
    "data_stream",
    "_id",
    "_index",
    "_source",
    "_routing",
    "_version",
    "_seq_no",
    "_primary_term",
    "_ignored",
    "_field_names",
    "_doc_count",
    "_tier",
    "_type",
    "_data_stream_timestamp",
    "_nested_path",
    "_tsid",
];
/// `url` with [`FILTER_PATH`] added to its query string (after the endpoint's own
/// parameters, before a fragment). A `filter_path` the endpoint already sets is replaced:
/// an answer without each item's status could not be matched to the documents sent.
fn with_filter_path(url: &str) -> String {
    let (rest, fragment) = match url.split_once('#') {
        Some((rest, fragment)) => (rest, Some(fragment)),
        None => (url, None),
    };
    let (base, query) = match rest.split_once('?') {
        Some((base, query)) => (base, query),
        None => (rest, ""),
    };
    let mut out = String::with_capacity(url.len() + FILTER_PATH.len() + 2);
    out.push_str(base);
    out.push('?');
    for param in query.split('&').filter(|p| !p.is_empty()) {
        if param.split('=').next() != Some("filter_path") {
            out.push_str(param);
            out.push('&');
        }
    }
    out.push_str(FILTER_PATH);
    if let Some(fragment) = fragment {
        out.push('#');
        out.push_str(fragment);
    }
    out
}

/// The `Authorization` header value, if any: basic auth or `ApiKey`.
fn authorization(config: &Config) -> Option<String> {
    if let (Some(user), Some(password)) = (
        config.username.as_deref().filter(|u| !u.is_empty()),
        config.password.as_ref().filter(|p| !p.is_empty()),
    ) {
        return Some(basic_auth(user, password));
    }
    config
        .api_key
        .as_ref()
        .filter(|k| !k.is_empty())
        .map(|k| format!("ApiKey {}", k.expose()))
}

/// Encodes events as action and source line pairs; the fixed parts are encoded once.
#[derive(Debug)]
pub(crate) struct Encoder {
    index: IndexName,
    /// The action line up to its `_index` value when the target has no date pattern
    /// (`{"create":{"_index":"<name>"`).
    action: Option<Vec<u8>>,
    /// Whether each event's id is sent as `_id` (`event_id`).
    with_id: bool,
    common: Vec<u8>,
    naming: Naming,
    /// The cluster's `http.max_content_length` as configured (`max_request_bytes`).
    max_body_bytes: usize,
}

impl Encoder {
    /// Builds the encoder for a validated configuration.
    pub(crate) fn new(ctx: &Context, config: &Config) -> Result<Encoder, ConfigError> {
        let index = IndexName::parse(
            config
                .elasticsearch
                .index
                .as_deref()
                .unwrap_or(DEFAULT_INDEX),
        )?;
        let action = (!index.is_dated()).then(|| action_head(&index.render(0)));
        let mut common = Vec::new();
        write_opt(&mut common, "service.name", ctx.service.as_deref());
        // ECS: `service.environment` is equivalent to `deployment.environment.name`.
        write_opt(&mut common, "service.environment", ctx.env.as_deref());
        write_opt(&mut common, "service.version", ctx.version.as_deref());
        write_opt(&mut common, "host.name", Some(&ctx.hostname));
        write_opt(&mut common, "event.dataset", Some(&ctx.source));
        if !ctx.tags.is_empty() {
            common.extend_from_slice(b",\"labels\":{");
            write_pairs(&mut common, &unique_tags(&ctx.tags, Style::Json, &[]), true);
            common.push(b'}');
        }
        Ok(Encoder {
            index,
            action,
            with_id: ctx.event_id,
            common,
            naming: Naming::new(
                ctx.span_fields,
                Style::Json,
                RESERVED.iter().chain(&["error"]).chain(&ERRORS.all()),
            ),
            max_body_bytes: config
                .max_request_bytes
                .unwrap_or(DEFAULT_MAX_REQUEST_BYTES),
        })
    }

    fn push_pair(&self, body: &mut Vec<u8>, record: &Record) {
        let nanos = record.timestamp_nanos();
        match &self.action {
            Some(head) => body.extend_from_slice(head),
            None => body.extend_from_slice(&action_head(&self.index.render(nanos))),
        }
        // The event's own id as `_id`: a `create` of an id the index holds already answers
        // 409, so a replayed event is never stored twice (see [`items`]).
        if let Some(id) = record.id().filter(|_| self.with_id) {
            body.extend_from_slice(b",\"_id\":\"");
            id.write_hex(body);
            body.push(b'"');
        }
        body.extend_from_slice(b"}}\n");
        body.extend_from_slice(b"{\"@timestamp\":\"");
        json::rfc3339_millis(body, nanos);
        body.extend_from_slice(b"\",\"message\":");
        json::string(body, record.message_str());
        body.extend_from_slice(b",\"log.level\":\"");
        body.extend_from_slice(record.level().as_str().as_bytes());
        body.push(b'"');
        write_logger(body, "log.logger", record);
        body.extend_from_slice(&self.common);
        write_error(body, record, &ERRORS);
        TraceIds::of(record).write_hex(body, "trace.id", "span.id");
        self.naming.write_flat(body, record, false, json::value);
        body.extend_from_slice(b"}\n");
    }
}

/// `{"create":{"_index":"<name>"`: the action line up to where `_id` goes.
fn action_head(index: &str) -> Vec<u8> {
    let mut line = b"{\"create\":{\"_index\":".to_vec();
    json::string(&mut line, index);
    line
}

/// What a response means: a 200 with `errors: true` is answered per item.
fn classify(status: u16, body: &str) -> Outcome {
    if status == 200 {
        #[derive(Deserialize)]
        struct Head {
            errors: Option<bool>,
        }
        // Only a `_bulk` answer saying `errors: false` is plain success, and `errors:
        // true` asks for its items; anything else (an HTML page, a proxy's text, JSON of
        // another shape) proves nothing was stored: a failure to retry.
        return match serde_json::from_str::<Head>(body) {
            Ok(Head {
                errors: Some(false),
            }) => Outcome::Delivered,
            Ok(Head { errors: Some(true) }) => Outcome::Items,
            _ => Outcome::Retry,
        };
    }
    answer::by_table(RESPONSES, status)
}

/// The items of a `_bulk` answer, read only as far as one item per event sent: a longer
/// list is refused after `sent + 1` items, whatever its length.
struct BulkItems {
    sent: usize,
}

impl<'de> serde::de::DeserializeSeed<'de> for BulkItems {
    type Value = Vec<std::collections::HashMap<String, BulkItem>>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> serde::de::Visitor<'de> for BulkItems {
    type Value = Vec<std::collections::HashMap<String, BulkItem>>;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "at most {} bulk items", self.sent)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut items = Vec::with_capacity(self.sent.min(4096));
        while let Some(item) = seq.next_element()? {
            if items.len() == self.sent {
                return Err(serde::de::Error::custom("more items than events sent"));
            }
            items.push(item);
        }
        Ok(items)
    }
}

/// The top level of a `_bulk` answer: only `items` is read (through [`BulkItems`]).
struct BulkResponse {
    sent: usize,
}

impl<'de> serde::de::DeserializeSeed<'de> for BulkResponse {
    type Value = Option<Vec<std::collections::HashMap<String, BulkItem>>>;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_map(self)
    }
}

impl<'de> serde::de::Visitor<'de> for BulkResponse {
    type Value = Option<Vec<std::collections::HashMap<String, BulkItem>>>;
    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a _bulk answer")
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut items = None;
        while let Some(key) = map.next_key::<Cow<'de, str>>()? {
            if key == "items" && items.is_none() {
                items = Some(map.next_value_seed(BulkItems { sent: self.sent })?);
            } else {
                map.next_value::<serde::de::IgnoredAny>()?;
            }
        }
        Ok(items)
    }
}

#[derive(Deserialize)]
struct BulkItem {
    status: u16,
    #[serde(default)]
    error: Option<BulkError>,
}

#[derive(Deserialize)]
struct BulkError {
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    reason: Option<String>,
}

/// The error type of a `create` whose `_id` exists (`409`).
const VERSION_CONFLICT: &str = "version_conflict_engine_exception";

/// Reads a `_bulk` answer for `sent` events; `None` when it is not one (unreadable, or
/// not one item per event).
fn items(body: &str, sent: usize) -> Option<ItemResults> {
    use serde::de::DeserializeSeed;
    let mut de = serde_json::Deserializer::from_str(body);
    let items = BulkResponse { sent }.deserialize(&mut de).ok()??;
    de.end().ok()?;
    if items.len() != sent {
        return None;
    }
    let mut results = ItemResults::default();
    for (i, item) in items.iter().enumerate() {
        // One action per item: `create` (or whatever the server echoes).
        let item = item.values().next()?;
        let describe = || {
            let (kind, reason) = item
                .error
                .as_ref()
                .map_or((None, None), |e| (e.kind.as_deref(), e.reason.as_deref()));
            let reason: Cow<'_, str> = match reason {
                Some(r) => crate::capture::record::cut(r, 200).into(),
                None => "".into(),
            };
            format!("{} {}: {reason}", item.status, kind.unwrap_or("error"))
        };
        let conflict = item.status == 409
            && item
                .error
                .as_ref()
                .and_then(|e| e.kind.as_deref())
                .is_some_and(|k| k == VERSION_CONFLICT);
        match item.status {
            200..=299 => {}
            // A `create` of an `_id` the index already holds: this event was stored by an
            // earlier request (a replay after a crash or a lost answer). Delivered, once.
            409 if conflict => results.already_delivered += 1,
            429 | 500..=599 => {
                results.retry.push(i);
                results.retry_error.get_or_insert_with(describe);
            }
            _ => {
                results.rejected.push(i);
                results.rejected_error.get_or_insert_with(describe);
                results.rejected_status.get_or_insert(item.status);
            }
        }
    }
    Some(results)
}

impl Protocol for Encoder {
    fn path(&self) -> Option<&'static str> {
        Some(PATH)
    }
    /// Every request asks for the trimmed per-item answer ([`FILTER_PATH`]).
    fn finish_url(&self, url: String) -> String {
        with_filter_path(&url)
    }
    fn headers(&self, config: &Config, _key: &Secret) -> Vec<(String, Secret)> {
        authorization(config)
            .map(|auth| ("Authorization".to_owned(), Secret::new(auth)))
            .into_iter()
            .collect()
    }
    /// The body limit is the cluster's own setting (`max_request_bytes`).
    fn limits(&self) -> Limits {
        Limits {
            max_body_bytes: self.max_body_bytes,
            ..LIMITS
        }
    }
    fn content_type(&self) -> &'static str {
        NDJSON
    }
    fn push(&self, body: &mut Vec<u8>, record: &Record, _prev: Option<&Record>) {
        self.push_pair(body, record);
    }
    fn classify(&self, status: u16, body: &[u8]) -> Outcome {
        classify(status, &String::from_utf8_lossy(body))
    }
    fn items(&self, body: &str, sent: usize) -> Option<ItemResults> {
        items(body, sent)
    }
    /// The whole per-item answer (for a filtered answer, far less).
    fn max_response_bytes(&self) -> u64 {
        MAX_RESPONSE_BYTES
    }
}

#[cfg(test)]
pub(super) mod tests;
