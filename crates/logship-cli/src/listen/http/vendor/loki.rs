//! Grafana Loki push API: `POST /loki/api/v1/push` (and `/api/prom/push`), JSON
//! (`application/json`) or a snappy-compressed protobuf `logproto.PushRequest` (any other
//! Content-Type, as Loki reads it), as Loki's clients send it (docs/listen-vendors.md).
//!
//! Each entry becomes one event: a JSON-object line read like a JSON line (message,
//! level, logger, fields), any other line the message; the entry's timestamp its time;
//! the stream's labels and the entry's structured metadata fields (a text line's level
//! from a `level` or `detected_level` label). Answers: `204` without a body; `400` with a
//! text body for a malformed push (bad JSON, corrupt snappy, bad labels), as Loki does.
//! Loki's per-tenant limits (line size, sample age, label count) are not applied: they
//! are the store's, and logship is not the store. Must never: recurse on the label text.

use logship::{Level, Record};
use logship_http::answers::loki::is_label_name as loki_label_name;

use super::exchange::{Answer, Decoded, Request};
use crate::lines::{self, Json};

/// The push paths (the second is Loki's legacy one).
const PATHS: [&str; 2] = ["/loki/api/v1/push", "/api/prom/push"];

/// Whether this module serves `path`.
pub(super) fn serves(path: &str) -> bool {
    PATHS.contains(&path)
}

/// `logproto.PushRequest` (grafana/loki `pkg/push/push.proto`).
#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct PushRequest {
    /// The streams.
    #[prost(message, repeated, tag = "1")]
    pub streams: Vec<StreamAdapter>,
}

/// One stream: its labels as selector text, and its entries.
#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct StreamAdapter {
    /// `{k="v", ...}`.
    #[prost(string, tag = "1")]
    pub labels: String,
    /// The entries.
    #[prost(message, repeated, tag = "2")]
    pub entries: Vec<EntryAdapter>,
    /// The stream's hash (ignored).
    #[prost(uint64, tag = "3")]
    pub hash: u64,
}

/// One entry.
#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct EntryAdapter {
    /// When.
    #[prost(message, optional, tag = "1")]
    pub timestamp: Option<Timestamp>,
    /// The line.
    #[prost(string, tag = "2")]
    pub line: String,
    /// Structured metadata.
    #[prost(message, repeated, tag = "3")]
    pub structured_metadata: Vec<LabelPair>,
}

/// `google.protobuf.Timestamp`.
#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct Timestamp {
    /// Seconds since the epoch.
    #[prost(int64, tag = "1")]
    pub seconds: i64,
    /// Nanoseconds in the second.
    #[prost(int32, tag = "2")]
    pub nanos: i32,
}

/// `LabelPairAdapter`: one structured metadata pair.
#[derive(Clone, PartialEq, prost::Message)]
pub(super) struct LabelPair {
    /// Name.
    #[prost(string, tag = "1")]
    pub name: String,
    /// Value.
    #[prost(string, tag = "2")]
    pub value: String,
}

/// Decodes one push.
pub(super) fn decode(req: &Request<'_>) -> Decoded {
    if req.method != "POST" {
        let message = format!("method {} not allowed: pushes are POSTed\n", req.method);
        return Decoded::Answer(Answer::text(405, &message).allow("POST"));
    }
    let records = if req.media_type().as_deref() == Some("application/json") {
        json_push(req.body, req.max_events)
    } else {
        let raw = match snappy(req.body, req.max_body) {
            Ok(raw) => raw,
            Err(answer) => return Decoded::Answer(answer),
        };
        // Counted on the wire first: decoded entries take many times their bytes.
        let entries = super::wire_count::count(&raw, &[1, 2], req.max_events);
        if entries.is_some_and(|n| n > req.max_events) {
            let message = super::exchange::too_many_message(req.max_events);
            return Decoded::Answer(Answer::text(413, &format!("{message}\n")));
        }
        proto_push(&raw, req.max_events)
    };
    match records {
        Ok(records) if records.is_empty() => Decoded::Answer(Answer::empty(204)),
        Ok(records) => Decoded::Events(records, Answer::empty(204)),
        Err(message) => Decoded::Answer(Answer::text(400, &format!("{message}\n"))),
    }
}

/// The snappy block of a protobuf push, decompressed: 400 when it is not one, 413 when
/// it says it holds more than `max_body` bytes (checked before anything is allocated).
fn snappy(body: &[u8], max_body: usize) -> Result<Vec<u8>, Answer> {
    let bad = |e: snap::Error| Answer::text(400, &format!("snappy: {e}\n"));
    let len = snap::raw::decompress_len(body).map_err(bad)?;
    if len > max_body {
        let message = format!(
            "the push decompresses to {len} bytes, over logship's limit of {max_body}: send smaller batches\n"
        );
        return Err(Answer::text(413, &message));
    }
    snap::raw::Decoder::new().decompress_vec(body).map_err(bad)
}

/// A decompressed protobuf `PushRequest`.
fn proto_push(raw: &[u8], max_events: usize) -> Result<Vec<Record>, String> {
    let push = <PushRequest as prost::Message>::decode(raw)
        .map_err(|e| format!("failed to parse the push request: {e}"))?;
    let mut records = Vec::new();
    for stream in &push.streams {
        let labels = parse_labels(&stream.labels)?;
        for entry in &stream.entries {
            let nanos = entry.timestamp.as_ref().and_then(|t| {
                let secs = u64::try_from(t.seconds).ok()?;
                let frac = u64::try_from(t.nanos).ok()?;
                secs.checked_mul(1_000_000_000)?.checked_add(frac)
            });
            let metadata: Vec<(&str, &str)> = entry
                .structured_metadata
                .iter()
                .map(|p| (p.name.as_str(), p.value.as_str()))
                .collect();
            records.push(entry_record(&entry.line, nanos, &labels, &metadata));
            if records.len() > max_events {
                return Ok(records); // one too many: the server answers 413
            }
        }
    }
    Ok(records)
}

/// `{"streams":[{"stream":{labels},"values":[["<ns>","line",{metadata}?]]}]}`, read into
/// [`Json`] (so the listener's value budget bounds its tree).
fn json_push(body: &[u8], max_events: usize) -> Result<Vec<Record>, String> {
    let root: Json<'_> =
        serde_json::from_slice(body).map_err(|e| format!("loghttp: invalid JSON body: {e}"))?;
    let Some(Json::Array(streams)) = root.get("streams") else {
        return Err("loghttp: the body has no \"streams\" array".into());
    };
    let mut records = Vec::new();
    for (index, stream) in streams.iter().enumerate() {
        let labels: Vec<(String, String)> = match stream.get("stream") {
            Some(Json::Object(map)) => map
                .iter()
                .map(|(k, v)| {
                    (
                        k.to_owned(),
                        v.as_str().map_or_else(|| v.to_string(), str::to_owned),
                    )
                })
                .collect(),
            _ => Vec::new(),
        };
        check_labels(&labels)?;
        let Some(Json::Array(values)) = stream.get("values") else {
            return Err(format!("stream {index}: missing \"values\" array"));
        };
        for (i, value) in values.iter().enumerate() {
            let parts = match value {
                Json::Array(parts) => parts.as_slice(),
                _ => &[],
            };
            let (Some(ts), Some(line)) = (parts.first(), parts.get(1).and_then(Json::as_str))
            else {
                return Err(format!(
                    "stream {index} entry {i}: expected [\"<unix ns>\", \"<line>\"]"
                ));
            };
            let nanos = match ts {
                Json::String(s) => s.parse::<u64>().ok(),
                Json::Number(n) => n.as_u64(),
                _ => None,
            };
            let Some(nanos) = nanos else {
                return Err(format!(
                    "stream {index} entry {i}: timestamp {ts} is not epoch nanoseconds"
                ));
            };
            let metadata: Vec<(&str, &str)> = match parts.get(2) {
                Some(Json::Object(m)) => m
                    .iter()
                    .filter_map(|(k, v)| Some((k, v.as_str()?)))
                    .collect(),
                _ => Vec::new(),
            };
            records.push(entry_record(line, Some(nanos), &labels, &metadata));
            if records.len() > max_events {
                return Ok(records); // one too many: the server answers 413
            }
        }
    }
    Ok(records)
}

/// Loki's label rules: at least one, valid names.
fn check_labels(labels: &[(String, String)]) -> Result<(), String> {
    if labels.is_empty() {
        return Err("error at least one label pair is required per stream".into());
    }
    if let Some((name, _)) = labels.iter().find(|(n, _)| !loki_label_name(n)) {
        return Err(format!(
            "invalid label name {name:?}: must match [a-zA-Z_][a-zA-Z0-9_]*"
        ));
    }
    Ok(())
}

/// Labels `{k="v", k2="v2"}` (Prometheus selector text, `\"`, `\\`, `\n`, `\t` escapes),
/// read in one pass without recursion.
fn parse_labels(text: &str) -> Result<Vec<(String, String)>, String> {
    let fail = |why: &str| {
        let shown: String = text.chars().take(100).collect();
        format!("error parsing labels '{shown}': {why}")
    };
    let inner = text
        .trim()
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .ok_or_else(|| fail("labels must be enclosed in {}"))?;
    let mut labels = Vec::new();
    let mut chars = inner.chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace() || *c == ',').is_some() {}
        if chars.peek().is_none() {
            break;
        }
        let mut name = String::new();
        while let Some(c) = chars.next_if(|c| c.is_ascii_alphanumeric() || *c == '_') {
            name.push(c);
        }
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if name.is_empty() || chars.next() != Some('=') {
            return Err(fail("expected a label name and ="));
        }
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        if chars.next() != Some('"') {
            return Err(fail("expected a quoted label value"));
        }
        let mut value = String::new();
        loop {
            match chars.next() {
                None => return Err(fail("unterminated label value")),
                Some('"') => break,
                Some('\\') => match chars.next() {
                    Some('n') => value.push('\n'),
                    Some('t') => value.push('\t'),
                    Some(c) => value.push(c),
                    None => return Err(fail("unterminated label value")),
                },
                Some(c) => value.push(c),
            }
        }
        labels.push((name, value));
    }
    check_labels(&labels)?;
    Ok(labels)
}

/// One entry as an event.
fn entry_record(
    line: &str,
    nanos: Option<u64>,
    labels: &[(String, String)],
    metadata: &[(&str, &str)],
) -> Record {
    let mut record = lines::json_record(line).unwrap_or_else(|| {
        let level = labels
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .chain(metadata.iter().copied())
            .filter(|(k, _)| matches!(*k, "level" | "detected_level" | "severity"))
            .find_map(|(_, v)| lines::level::parse_level(v));
        let mut record = Record::with_capacity(
            level.unwrap_or(Level::Info),
            lines::TARGET,
            line.len() + 128,
        );
        record.message(line);
        record
    });
    if let Some(nanos) = nanos {
        record.set_timestamp_nanos(nanos);
    }
    for (k, v) in labels {
        record.field(k, v.as_str());
    }
    for (k, v) in metadata {
        record.field(k, *v);
    }
    record
}
