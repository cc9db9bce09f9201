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
//! hundred bytes), so a batch never exceeds its byte budget. `close` then rewrites the
//! body from the batch's records, grouped and stably sorted by time. This costs a second
//! encoding of each event (cheap next to compression) and keeps the encoder stateless,
//! so the splitting path ([`super::Codec::encode`]) produces exactly the same format.

use std::fmt::Write as _;

use super::fields::{unique_tags, write_error, write_id, ErrorNames, Naming, Style};
use super::format::Protocol;
use super::{Context, Limits};
use crate::config::loki::static_labels;
use crate::config::Config;
use crate::error::ConfigError;
use crate::support::json;
use crate::vendors::classify::{ItemResults, Outcome, Rule};
use crate::capture::record::{cut, Entry, Level, Record, Value};

/// The standard path, appended to an `endpoint` given without one.
pub(super) const PATH: &str = "/loki/api/v1/push";

/// Loki does not document a request size limit (docs/wire-formats.md 6.2, UNCONFIRMED); bodies are
/// kept under the default 6 MB ingestion burst so one push never exceeds it alone.
pub(super) const LIMITS: Limits = Limits {
    max_records: 100_000,
    max_body_bytes: 4 * 1024 * 1024,
    max_event_bytes: 4 * 1024 * 1024,
    max_wire_bytes: None,
};

/// Section 6.3: 204 delivered; 429 and 5xx retried (the Promtail client's rule); 260
/// (`block_ingestion_until`) is not an acceptance; 413 (a gateway's body limit) split;
/// 400 and everything else permanent.
pub(super) const RESPONSES: &[Rule] = &[
    Rule::range(200, 259, Outcome::Delivered),
    Rule::one(260, Outcome::Permanent),
    Rule::range(261, 299, Outcome::Delivered),
    Rule::one(413, Outcome::TooLarge),
    Rule::one(429, Outcome::Retry),
    Rule::range(500, 599, Outcome::Retry),
];

/// Appended to a line cut to `max_line_bytes`.
const LINE_MARKER: &str = "…[truncated]";

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
pub(super) struct Encoder {
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
    pub(super) fn new(ctx: &Context, config: &Config) -> Result<Encoder, ConfigError> {
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
        let tags = unique_tags(&ctx.tags, Style::LokiName, &FIXED_METADATA);
        for (k, v) in &tags {
            common.push(b',');
            json::string(&mut common, k);
            common.push(b':');
            json::string(&mut common, v);
        }
        let taken = FIXED_METADATA
            .iter()
            .copied()
            .chain(ErrorNames::LOKI.all())
            .chain(tags.iter().map(|(k, _)| k.as_str()));
        Ok(Encoder {
            heads,
            common,
            max_line_bytes: config.loki.max_line_bytes,
            naming: Naming::new(ctx.span_fields, Style::LokiName, taken),
            with_id: ctx.event_id,
        })
    }

    /// Writes the start of the body.
    pub(super) fn open(body: &mut Vec<u8>) {
        body.extend_from_slice(OPEN);
    }

    /// Appends one entry (ungrouped; `close` groups them).
    pub(super) fn push(&self, body: &mut Vec<u8>, record: &Record, first: bool) {
        if !first {
            body.push(b',');
        }
        self.entry(body, record, &mut String::new());
    }

    /// An upper bound of what `close` adds to the pushed entries: every stream's header
    /// and tail, and the closing brackets.
    pub(super) fn close_len(&self) -> usize {
        self.heads
            .iter()
            .map(|h| h.len() + STREAM_TAIL.len())
            .sum::<usize>()
            + CLOSE.len()
    }

    /// Rewrites `body` (opened and holding `records` pushed in order) grouped into one
    /// stream per level, each ordered by time.
    pub(super) fn close(&self, body: &mut Vec<u8>, records: &[Record]) {
        body.clear();
        body.extend_from_slice(OPEN);
        let mut order: Vec<&Record> = records.iter().collect();
        // Stable: entries with equal timestamps keep their arrival order.
        order.sort_by_key(|r| (r.level() as usize, r.timestamp_nanos()));
        let mut scratch = String::new();
        let mut current: Option<Level> = None;
        for record in order {
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
            self.entry(body, record, &mut scratch);
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
        write_error(body, record, &ErrorNames::LOKI);
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
    /// cut line ends in a marker, and `logship_truncated` / `logship_original_bytes` say
    /// so in the metadata.
    pub(super) fn fit_line(&self, record: &Record) -> Option<Record> {
        let line = record.message_str();
        if line.len() <= self.max_line_bytes {
            return None;
        }
        let keep = cut(line, self.max_line_bytes.saturating_sub(LINE_MARKER.len()));
        let mut out = Record::with_capacity(record.level(), record.target(), keep.len() + 256);
        out.set_timestamp_nanos(record.timestamp_nanos());
        let mut marked = false;
        for entry in record.entries() {
            match entry {
                Entry::Message(_) => {
                    out.message_fmt(format_args!("{keep}{LINE_MARKER}"));
                }
                Entry::Field(k, v) => {
                    out.field(k, v);
                }
                Entry::Error(k, e) => {
                    out.error_value(k, e);
                }
                Entry::Span(name) => {
                    // The markers are the event's own fields: they go before any span's.
                    if !marked {
                        marked = true;
                        mark(&mut out, line.len());
                    }
                    out.span(name);
                }
            }
        }
        if !marked {
            mark(&mut out, line.len());
        }
        Some(out)
    }
}

/// Adds the fields that say a line was cut.
fn mark(record: &mut Record, original_bytes: usize) {
    record.field("logship.truncated", true);
    record.field("logship.original_bytes", original_bytes as u64);
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
    fn classify(&self, status: u16, _body: &[u8]) -> Outcome {
        super::classify::by_table(RESPONSES, status)
    }
    fn items(&self, _body: &str, _sent: usize) -> Option<ItemResults> {
        None
    }
    fn max_response_bytes(&self) -> u64 {
        super::MAX_ERROR_BODY
    }
    fn fit_line(&self, record: &Record) -> Option<Record> {
        Encoder::fit_line(self, record)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Instant;

    use super::*;
    use crate::batch::Batcher;
    use crate::config::loki::is_label_name;
    use crate::config::{LokiOptions, Vendor};
    use crate::vendors::Codec;
    use crate::support::secret::Secret;

    fn config() -> Config {
        Config {
            vendor: Vendor::Loki,
            endpoint: Some("http://loki:3100".into()),
            service: Some("checkout".into()),
            hostname: Some("web-1".into()),
            tags: vec!["team:pay".into()],
            loki: LokiOptions {
                labels: vec!["env=prod".into()],
                ..LokiOptions::default()
            },
            ..Config::default()
        }
    }

    fn rec(level: Level, ts: u64, msg: &str) -> Record {
        let mut r = Record::new(level, "app::pay");
        r.set_timestamp_nanos(ts)
            .message(msg)
            .field("order_id", 42u64)
            .field("ok", true)
            .field("hostname", "shadowed")
            .span("request")
            .field("id", 7i64);
        r
    }

    fn json(body: &[u8]) -> serde_json::Value {
        serde_json::from_slice(body).expect("valid JSON")
    }

    #[test]
    fn entries_are_grouped_by_level_and_ordered_by_time() {
        let codec = Codec::new(&config()).unwrap();
        assert_eq!(codec.url(), "http://loki:3100/loki/api/v1/push");
        let records = [
            rec(Level::Info, 30, "i30"),
            rec(Level::Error, 20, "e20"),
            rec(Level::Info, 10, "i10"),
            rec(Level::Info, 30, "i30b"),
            rec(Level::Error, 5, "e5"),
        ];
        let v = json(&codec.encode(&records));
        let streams = v["streams"].as_array().unwrap();
        assert_eq!(streams.len(), 2);
        assert_eq!(
            streams[0]["stream"],
            serde_json::json!({"service": "checkout", "level": "info", "env": "prod"})
        );
        assert_eq!(streams[1]["stream"]["level"], "error");
        let lines = |s: &serde_json::Value| -> Vec<(String, String)> {
            s["values"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| (e[0].as_str().unwrap().into(), e[1].as_str().unwrap().into()))
                .collect()
        };
        let pair = |t: &str, l: &str| (t.to_owned(), l.to_owned());
        assert_eq!(
            lines(&streams[0]),
            [pair("10", "i10"), pair("30", "i30"), pair("30", "i30b")]
        );
        assert_eq!(lines(&streams[1]), [pair("5", "e5"), pair("20", "e20")]);
        assert_eq!(
            streams[0]["values"][0][2],
            serde_json::json!({
                "target": "app::pay", "hostname": "web-1", "team": "pay",
                "order_id": "42", "ok": "true", "field_hostname": "shadowed", "id": "7",
                "logship_id": records[2].id().unwrap().to_string()
            })
        );
    }

    #[test]
    fn batcher_bodies_fit_their_budget_and_equal_the_split_encoding() {
        let mut c = config();
        c.max_batch_bytes = 4096;
        let codec = Arc::new(Codec::new(&c).unwrap());
        let mut batcher = Batcher::new(Arc::clone(&codec), 1 << 20);
        let mut out = Vec::new();
        let levels = [Level::Info, Level::Warn, Level::Error, Level::Debug];
        for i in 0..500u64 {
            let r = rec(
                levels[(i % 4) as usize],
                1000 - i,
                &"x".repeat((i % 50) as usize),
            );
            batcher.push(r, Instant::now(), &mut |b| out.push(b));
        }
        batcher.cut(&mut |b| out.push(b));
        assert!(out.len() > 10);
        let mut total = 0;
        for batch in &out {
            assert!(batch.body.len() <= 4096, "{} > 4096", batch.body.len());
            assert_eq!(batch.body, codec.encode(&batch.records));
            let v = json(&batch.body);
            total += v["streams"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["values"].as_array().unwrap().len())
                .sum::<usize>();
        }
        assert_eq!(total, 500);
    }

    #[test]
    fn the_close_bound_is_exact_when_every_level_is_present() {
        let codec = Codec::new(&config()).unwrap();
        let records: Vec<Record> = LEVELS.iter().map(|&l| rec(l, 1, "m")).collect();
        let mut staged = Vec::new();
        codec.open(&mut staged);
        for (i, r) in records.iter().enumerate() {
            codec.push(&mut staged, r, i.checked_sub(1).map(|p| &records[p]));
        }
        let bound = staged.len() + codec.close_len();
        assert_eq!(codec.encode(&records).len(), bound);
        assert!(codec.encode(&records[..2]).len() < bound);
    }

    #[test]
    fn long_lines_are_cut_to_max_line_bytes_and_marked() {
        let mut c = config();
        c.loki.max_line_bytes = 2048;
        let codec = Codec::new(&c).unwrap();
        assert!(codec
            .fit_line(&rec(Level::Info, 1, &"a".repeat(2048)))
            .is_none());
        let long = rec(Level::Info, 1, &"é".repeat(3000));
        let cut = codec.fit_line(&long).unwrap();
        assert!(cut.message_str().len() <= 2048);
        assert!(cut.message_str().ends_with(LINE_MARKER));
        let v = json(&codec.encode(&[cut]));
        let meta = &v["streams"][0]["values"][0][2];
        assert_eq!(meta["logship_truncated"], "true");
        assert_eq!(meta["logship_original_bytes"], "6000");
        assert_eq!(meta["order_id"], "42");
        assert_eq!(meta["id"], "7");
    }

    #[test]
    fn bad_labels_fail_with_the_field_and_the_fix() {
        let err = |labels: &[&str], service: Option<&str>| {
            let c = Config {
                loki: LokiOptions {
                    labels: labels.iter().map(|s| (*s).to_owned()).collect(),
                    ..LokiOptions::default()
                },
                service: service.map(str::to_owned),
                ..config()
            };
            c.validate().unwrap_err().to_string()
        };
        assert_eq!(
            err(&["2env=prod"], None),
            "loki_labels = 2env=prod: label name \"2env\" must match [a-zA-Z_][a-zA-Z0-9_]* (use letters, digits and underscores, not starting with a digit, e.g. env=prod)"
        );
        assert_eq!(
            err(&["__name__=x"], None),
            "loki_labels = __name__=x: label name \"__name__\" starts with \"__\", which Loki reserves (rename it, e.g. name__)"
        );
        assert_eq!(
            err(&["env"], None),
            "loki_labels = env: each label must be name=value (write loki_labels = [\"env=prod\", \"team=core\"])"
        );
        assert_eq!(
            err(&["level=x"], None),
            "loki_labels = level=x: duplicate label name \"level\": logship sets it (level from each event, service from `service`, env from `env`) (give each label a distinct name)"
        );
        assert_eq!(
            err(&["env="], None),
            "loki_labels = env=: label value is empty (give env a value, or leave the label out)"
        );
        let many: Vec<String> = (0..14).map(|i| format!("l{i}=v")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        assert!(err(&many, Some("svc")).contains(
            "14 labels plus logship's 2 (level, service) exceed Loki's 15 labels per stream (keep at most 13 static labels"
        ));
        let c = Config {
            loki: LokiOptions {
                labels: many[..13].iter().map(|s| (*s).to_owned()).collect(),
                ..LokiOptions::default()
            },
            ..config()
        };
        c.validate().unwrap();
        let c = Config {
            loki: LokiOptions {
                tenant_id: Some("team a".into()),
                ..config().loki
            },
            ..config()
        };
        assert!(c
            .validate()
            .unwrap_err()
            .to_string()
            .starts_with("tenant_id = team a: "));
        let c = Config {
            username: Some("u".into()),
            ..config()
        };
        assert_eq!(
            c.validate().unwrap_err().to_string(),
            "password = (none): basic auth needs a password with the username (set password or LOGSHIP_PASSWORD (Grafana Cloud: an access token))"
        );
    }

    #[test]
    fn tenant_and_basic_auth_headers_and_secrets_stay_hidden() {
        let c = Config {
            loki: LokiOptions {
                tenant_id: Some("team-a".into()),
                ..config().loki
            },
            username: Some("123456".into()),
            password: Some(Secret::new("glc_pw")),
            ..config()
        };
        c.validate().unwrap();
        let codec = Codec::new(&c).unwrap();
        let header = |name: &str| {
            codec
                .headers()
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, v)| v.expose().to_owned())
        };
        assert_eq!(header("X-Scope-OrgID").as_deref(), Some("team-a"));
        // base64("123456:glc_pw")
        assert_eq!(
            header("Authorization").as_deref(),
            Some("Basic MTIzNDU2OmdsY19wdw==")
        );
        for shown in [format!("{codec:?}"), format!("{c:?}")] {
            assert!(!shown.contains("glc_pw"), "{shown}");
            assert!(!shown.contains("MTIzNDU2OmdsY19wdw"), "{shown}");
        }
        let plain = Codec::new(&config()).unwrap();
        assert!(plain.headers().is_empty());
    }

    #[test]
    fn responses_follow_vendors_md() {
        let codec = Codec::new(&config()).unwrap();
        for (status, want) in [
            (204, Outcome::Delivered),
            (200, Outcome::Delivered),
            (260, Outcome::Permanent),
            (400, Outcome::Permanent),
            (401, Outcome::Permanent),
            (413, Outcome::TooLarge),
            (429, Outcome::Retry),
            (500, Outcome::Retry),
            (503, Outcome::Retry),
        ] {
            assert_eq!(codec.classify(status, b""), want, "{status}");
        }
    }

    #[test]
    fn label_names_follow_loki_rules() {
        for ok in ["env", "_x", "Team_2", "a"] {
            assert!(is_label_name(ok), "{ok}");
        }
        for bad in ["", "2env", "team-a", "a.b", "é"] {
            assert!(!is_label_name(bad), "{bad}");
        }
    }

    #[test]
    fn metadata_names_are_made_query_safe() {
        let name = |key| Style::LokiName.name(key);
        assert_eq!(name("trace_id"), "trace_id");
        assert_eq!(name("http.status"), "http_status");
        assert_eq!(name("1st"), "_1st");
        assert_eq!(name("\"é\""), "___");
        assert_eq!(name(""), "_");
    }
}
