//! Grafana Loki push API (docs/wire-formats.md section 6).
//!
//! `POST <endpoint>/loki/api/v1/push`, JSON (gzip allowed):
//! `{"streams":[{"stream":{labels},"values":[["<ns>","<line>",{metadata}],…]},…]}`.
//! The line is the event's message; the labels are `service`, `level` and the configured
//! static labels (`loki_labels`), never an event field, so the number of streams stays
//! small; the event's fields, its target, the host name and the tags travel as structured
//! metadata (flat string to string, names made query-safe). `X-Scope-OrgID` carries the
//! tenant and basic auth the optional user name and password.
//!
//! # Why `close` re-encodes the batch
//! Loki wants entries grouped by label set and, within a stream, ordered by time; events
//! arrive interleaved. The batcher streams events into the body with `push` and needs the
//! body's size at each step (its byte trigger). Because the label set of an event depends
//! on its level alone (the other labels are fixed per pipeline), a batch has at most five
//! streams, and the grouped body's size is known in advance: `push` appends each entry as
//! it will finally be written (separated by commas, so the `N - 1` separators are the same
//! as in the grouped body), and the grouped body only adds each present stream's header
//! and tail and the closing brackets. [`Encoder::close_len`] returns these for all five
//! streams: an upper bound that is off by at most the headers of absent streams (a few
//! hundred bytes), so a batch never exceeds its byte limit. `close` then rewrites the
//! body from the batch's records, grouped and stably sorted by time. This costs a second
//! encoding of each event (cheap next to compression) and keeps the encoder stateless,
//! so the splitting path (`Codec::encode`) produces exactly the same format.

pub(crate) mod facts;
pub(crate) mod labels;
pub(crate) mod options;
mod streams;

use std::fmt::Write as _;

use crate::capture::record::{Level, Record, Value, MARKER as LINE_MARKER};
use crate::config::Config;
use crate::error::ConfigError;
use crate::support::http_auth::basic_auth;
use crate::support::json;
use crate::support::secret::Secret;
use crate::vendors::answer::{Outcome, Rule};
use crate::vendors::context::Context;
use crate::vendors::fields::{unique_tags, write_error, write_id, ErrorNames, Naming, Style};
use crate::vendors::limits::Limits;
use crate::vendors::protocol::{Protocol, JSON};
use labels::static_labels;

/// The standard path, appended to an `endpoint` given without one.
const PATH: &str = "/loki/api/v1/push";

/// Loki does not document a request size limit (docs/wire-formats.md 6.2, UNCONFIRMED); bodies are
/// kept under the default 6 MB ingestion burst so one push never exceeds it alone.
const LIMITS: Limits = Limits {
    max_records: 100_000,
    max_body_bytes: 4 * 1024 * 1024,
    max_event_bytes: 4 * 1024 * 1024,
    max_wire_bytes: None,
};

/// Section 6.3: 204 delivered; 429 and 5xx retried (the Promtail client's rule); 260
/// (`block_ingestion_until`) is not an acceptance; 413 (a gateway's body limit) split;
/// 400 and everything else permanent.
const RESPONSES: &[Rule] = &[
    Rule::range(200, 259, Outcome::Delivered),
    Rule::one(260, Outcome::Permanent),
    Rule::range(261, 299, Outcome::Delivered),
    Rule::one(413, Outcome::TooLarge),
    Rule::one(429, Outcome::Retry),
    Rule::range(500, 599, Outcome::Retry),
];

/// OpenTelemetry's error names as Loki's own OpenTelemetry endpoint stores them in
/// metadata.
const ERRORS: ErrorNames = ErrorNames {
    kind: "exception_type",
    message: "exception_message",
    stack: "exception_stacktrace",
};

/// The levels, in the order their streams are written; index = `Level as usize`.
const LEVELS: [Level; 5] = Level::ALL;
/// Metadata every entry carries besides the tags and the event's fields.
const FIXED_METADATA: [&str; 4] = ["target", "hostname", "service_version", ID_METADATA];
/// The structured-metadata name of each event's id (`event_id`; the label alphabet has
/// no `.`).
const ID_METADATA: &str = "logship_id";
const OPEN: &[u8] = b"{\"streams\":[";
const STREAM_TAIL: &[u8] = b"]}";
const CLOSE: &[u8] = b"]}";

/// The `level` label's value: the lower-case names Loki recognises.
fn level_label(level: Level) -> &'static str {
    match level {
        Level::Trace => "trace",
        Level::Debug => "debug",
        Level::Info => "info",
        Level::Warn => "warn",
        Level::Error => "error",
    }
}

/// Appends a field value as a JSON string (structured metadata values are strings).
fn write_string_value(out: &mut Vec<u8>, value: Value<'_>, scratch: &mut String) {
    match value {
        Value::Str(s) | Value::Json(s) => json::string(out, s),
        other => {
            scratch.clear();
            let _ = match other {
                Value::I64(n) => write!(scratch, "{n}"),
                Value::U64(n) => write!(scratch, "{n}"),
                Value::F64(f) if f.is_nan() => write!(scratch, "NaN"),
                Value::F64(f) => write!(scratch, "{f}"),
                Value::Bool(b) => write!(scratch, "{b}"),
                _ => Ok(()),
            };
            json::string(out, scratch);
        }
    }
}

/// Encodes records as Loki push entries and groups them into streams on `close`.
#[derive(Debug)]
pub(crate) struct Encoder {
    /// `{"stream":{labels},"values":[` for each level, indexed by `Level as usize`.
    heads: [Vec<u8>; 5],
    /// `"target"` is written per entry; this is the rest of the fixed metadata:
    /// `,"hostname":"…"` and the tags.
    common: Vec<u8>,
    /// Lines longer than this are cut.
    max_line_bytes: usize,
    /// Metadata names: query-safe, unique, never `target`, `hostname` or a tag's.
    naming: Naming,
    /// Whether each entry's metadata holds its id as `logship_id` (`event_id`).
    with_id: bool,
}

impl Encoder {
    /// Builds the encoder; `config` has passed [`validate`].
    pub(crate) fn new(ctx: &Context, config: &Config) -> Result<Encoder, ConfigError> {
        let statics = static_labels(config)?;
        let heads = LEVELS.map(|level| {
            let mut head = b"{\"stream\":{".to_vec();
            if let Some(service) = &ctx.service {
                head.extend_from_slice(b"\"service\":");
                json::string(&mut head, service);
                head.push(b',');
            }
            if let Some(env) = &ctx.env {
                head.extend_from_slice(b"\"env\":");
                json::string(&mut head, env);
                head.push(b',');
            }
            head.extend_from_slice(b"\"level\":\"");
            head.extend_from_slice(level_label(level).as_bytes());
            head.push(b'"');
            for (name, value) in &statics {
                head.push(b',');
                json::string(&mut head, name);
                head.push(b':');
                json::string(&mut head, value);
            }
            head.extend_from_slice(b"},\"values\":[");
            head
        });
        let mut common = Vec::new();
        common.extend_from_slice(b",\"hostname\":");
        json::string(&mut common, &ctx.hostname);
        // The version changes with every deployment: metadata, not a stream label.
        if let Some(version) = &ctx.version {
            common.extend_from_slice(b",\"service_version\":");
            json::string(&mut common, version);
        }
        let tags = unique_tags(&ctx.tags, Style::Label, &FIXED_METADATA);
        for (k, v) in &tags {
            common.push(b',');
            json::string(&mut common, k);
            common.push(b':');
            json::string(&mut common, v);
        }
        let taken = FIXED_METADATA
            .iter()
            .copied()
            .chain(ERRORS.all())
            .chain(tags.iter().map(|(k, _)| k.as_str()));
        Ok(Encoder {
            heads,
            common,
            max_line_bytes: config.loki.max_line_bytes,
            naming: Naming::new(ctx.span_fields, Style::Label, taken),
            with_id: ctx.event_id,
        })
    }

    /// Writes the start of the body.
    fn open(body: &mut Vec<u8>) {
        body.extend_from_slice(OPEN);
    }

    /// Appends one entry (ungrouped; `close` groups them).
    fn push(&self, body: &mut Vec<u8>, record: &Record, first: bool) {
        if !first {
            body.push(b',');
        }
        self.entry(body, record, &mut String::new());
    }

    /// An upper bound of what `close` adds to the pushed entries: every stream's header
    /// and tail, and the closing brackets.
    fn close_len(&self) -> usize {
        self.heads
            .iter()
            .map(|h| h.len() + STREAM_TAIL.len())
            .sum::<usize>()
            + CLOSE.len()
    }

    /// Rewrites `body` (opened and holding `records` pushed in order) grouped into one
    /// stream per level, each ordered by time.
    /// The pushed entries are copied, not encoded again, when `body` holds exactly them
    /// (always, from the batcher); otherwise each record is encoded anew.
    fn close(&self, body: &mut Vec<u8>, records: &[Record]) {
        let spans = streams::entry_spans(body, OPEN, records.len());
        let pushed = std::mem::take(body);
        body.reserve(pushed.len() + self.close_len());
        body.extend_from_slice(OPEN);
        let mut order: Vec<usize> = (0..records.len()).collect();
        // Stable: entries with equal timestamps keep their arrival order.
        order.sort_by_key(|&i| (records[i].level() as usize, records[i].timestamp_nanos()));
        let mut scratch = String::new();
        let mut current: Option<Level> = None;
        for i in order {
            let record = &records[i];
            if current == Some(record.level()) {
                body.push(b',');
            } else {
                if current.is_some() {
                    body.extend_from_slice(STREAM_TAIL);
                    body.push(b',');
                }
                current = Some(record.level());
                body.extend_from_slice(&self.heads[record.level() as usize]);
            }
            match &spans {
                Some(spans) => body.extend_from_slice(&pushed[spans[i].0..spans[i].1]),
                None => self.entry(body, record, &mut scratch),
            }
        }
        if current.is_some() {
            body.extend_from_slice(STREAM_TAIL);
        }
        body.extend_from_slice(CLOSE);
    }

    /// `["<ns>","<line>",{metadata}]`.
    fn entry(&self, body: &mut Vec<u8>, record: &Record, scratch: &mut String) {
        body.extend_from_slice(b"[\"");
        json::unsigned(body, record.timestamp_nanos());
        body.extend_from_slice(b"\",");
        json::string(body, record.message_str());
        body.extend_from_slice(b",{");
        // `common` starts with `,"hostname":...`, always there: after no target, the
        // object starts with it, its comma left out.
        if record.target().is_empty() {
            body.extend_from_slice(self.common.strip_prefix(b",").unwrap_or(&self.common));
        } else {
            body.extend_from_slice(b"\"target\":");
            json::string(body, record.target());
            body.extend_from_slice(&self.common);
        }
        write_id(body, ID_METADATA, record, self.with_id);
        write_error(body, record, &ERRORS);
        self.naming.each(
            record,
            |_, _| false,
            |name, value| {
                body.push(b',');
                json::string(body, name);
                body.push(b':');
                write_string_value(body, value, scratch);
            },
        );
        body.extend_from_slice(b"}]");
    }

    /// The record with its line (message) cut to `max_line_bytes`, when it is longer; the
    /// cut line ends in a marker, every other field is kept, and `logship_truncated`,
    /// `logship_original_bytes` and `logship_truncated_bytes` say so in the metadata.
    fn fit_line(&self, record: &Record) -> Option<Record> {
        if record.message_str().len() <= self.max_line_bytes {
            return None;
        }
        Some(record.with_message_cut(self.max_line_bytes.saturating_sub(LINE_MARKER.len())))
    }
}

impl Protocol for Encoder {
    fn path(&self) -> Option<&'static str> {
        Some(PATH)
    }
    /// The tenant (`X-Scope-OrgID`) and basic auth, each when configured
    /// (docs/wire-formats.md 6.1).
    fn headers(&self, config: &Config, _key: &Secret) -> Vec<(String, Secret)> {
        let mut headers = Vec::new();
        if let Some(tenant) = &config.loki.tenant_id {
            headers.push(("X-Scope-OrgID".into(), Secret::new(tenant.as_str())));
        }
        if let (Some(user), Some(password)) = (&config.username, &config.password) {
            headers.push((
                "Authorization".into(),
                Secret::new(basic_auth(user, password)),
            ));
        }
        headers
    }
    fn limits(&self) -> Limits {
        LIMITS
    }
    fn content_type(&self) -> &'static str {
        JSON
    }
    fn open(&self, body: &mut Vec<u8>) {
        Encoder::open(body);
    }
    fn push(&self, body: &mut Vec<u8>, record: &Record, prev: Option<&Record>) {
        Encoder::push(self, body, record, prev.is_none());
    }
    fn close_len(&self) -> usize {
        Encoder::close_len(self)
    }
    fn close(&self, body: &mut Vec<u8>, records: &[Record]) {
        Encoder::close(self, body, records);
    }
    fn responses(&self) -> Option<&'static [Rule]> {
        Some(RESPONSES)
    }
    fn fit_line(&self, record: &Record) -> Option<Record> {
        Encoder::fit_line(self, record)
    }
}

#[cfg(test)]
pub(super) mod tests;
