//! Grafana Loki push API (`POST /loki/api/v1/push`), JSON flavour, emulated
//! strictly.
//!
//! Facts from `docs/wire-formats.md` section 6: the body is
//! `application/json` (identity or gzip) shaped
//! `{"streams":[{"stream":{labels},"values":[["<ns>","<line>",{metadata}]]}]}`.
//! Every stream needs at least one label and at most [`MAX_LABELS`]; names
//! match `[a-zA-Z_][a-zA-Z0-9_]*` and do not start with `__`; names and values
//! are at most 1024 and 2048 bytes. A timestamp is a **string** of epoch
//! nanoseconds, not older than a week (`reject_old_samples`) and not more than
//! 10 minutes ahead (`creation_grace_period`); a line is at most
//! [`MAX_LINE_BYTES`] (`line_too_long`); structured metadata is a flat object
//! of strings; an entry more than an hour behind its stream's newest one in
//! the request is `too_far_behind`. Success is `204` without body; a
//! violation is `400` with a text body naming the stream and the reason.
//!
//! Loki itself has no authentication. When the intake has an API key, it
//! plays a gateway such as Grafana Cloud: basic auth whose password is the
//! key (401 otherwise). `X-Scope-OrgID`, when sent, must be a valid tenant ID
//! and is recorded on every event as `tenant`.
//!
//! Each entry becomes one event:
//! `{"line", "timestamp_ns", "labels", "metadata", "stream", "tenant"}`,
//! where `stream` is the index of its stream in the request, in body order.

use base64::Engine as _;
use serde_json::{json, Map, Value};

use super::shared::{
    check_credential, decode_body, kind, media_type, require_content_length, require_post,
    strip_scheme, Accepted, Credential, Rejection, Settings,
};
use logship_http::answers::loki::{self as answers, is_label_name};
use logship_http::{Request, Response};

/// The push path (docs/wire-formats.md 6.1).
pub(crate) const PATH: &str = "/loki/api/v1/push";
/// `max_line_size` default: 256 KB (docs/wire-formats.md 6.2).
pub(crate) const MAX_LINE_BYTES: usize = 256 * 1024;
/// `max_label_names_per_series` default (docs/wire-formats.md 6.2).
pub(crate) const MAX_LABELS: usize = 15;
const MAX_LABEL_NAME_BYTES: usize = 1024;
const MAX_LABEL_VALUE_BYTES: usize = 2048;
/// `reject_old_samples_max_age` default: one week.
const MAX_AGE_NS: i128 = 7 * 24 * 3600 * 1_000_000_000;
/// `creation_grace_period` default: ten minutes.
const GRACE_NS: i128 = 10 * 60 * 1_000_000_000;
/// Half of the default `max_chunk_age` (2 h): the out-of-order window.
const BEHIND_NS: i128 = 3600 * 1_000_000_000;

/// Whether this module serves `path`.
pub(crate) fn serves(path: &str) -> bool {
    path == PATH
}

/// Validates and decodes a Loki push.
pub(crate) fn handle(req: &Request, settings: &Settings) -> Result<Accepted, Rejection> {
    require_post(req).map_err(|r| r.reshape(text))?;
    check_auth(req, settings)?;
    require_content_length(req).map_err(|r| r.reshape(text))?;
    let tenant = match req.header("x-scope-orgid").map(str::trim) {
        Some(t) if !is_tenant(t) => {
            return Err(reject(format!("invalid X-Scope-OrgID {t:?}: tenant IDs are up to 150 of letters, digits and !-_.*'()")));
        }
        t => t.map(str::to_owned),
    };
    match media_type(req).as_deref() {
        Some("application/json") => {}
        other => {
            let status = 415;
            let message = format!(
                "unsupported Content-Type {other:?}: this intake speaks Loki's JSON push (application/json); protobuf is not emulated"
            );
            return Err(Rejection::violation(text(status, &message), message));
        }
    }
    let body = decode_body(req).map_err(|r| r.reshape(text))?;
    let decoded = body.len();
    let events = parse(&body, tenant.as_deref(), super::shared::now_epoch_ms())
        .map_err(|m| reject(m).with_decoded(decoded))?;
    Ok(Accepted::new(events, decoded, answers::pushed()))
}

/// Basic auth with the intake's key as password, when it has one.
fn check_auth(req: &Request, settings: &Settings) -> Result<(), Rejection> {
    if settings.api_key.is_none() {
        return Ok(());
    }
    let password = req
        .header("authorization")
        .and_then(|v| strip_scheme(v, "Basic"))
        .and_then(|b64| base64::engine::general_purpose::STANDARD.decode(b64).ok())
        .and_then(|raw| String::from_utf8(raw).ok())
        .and_then(|pair| pair.split_once(':').map(|(_, p)| p.to_owned()));
    match check_credential(settings, password.as_deref()) {
        Credential::Valid => Ok(()),
        Credential::Missing => Err(Rejection::auth(
            text(401, "unauthorized: send basic auth (user and token)\n"),
            "missing basic auth",
        )),
        Credential::Wrong => Err(Rejection::auth(
            text(401, "unauthorized: invalid credentials\n"),
            "wrong basic-auth password",
        )),
    }
}

/// Whether `t` is a valid tenant ID.
fn is_tenant(t: &str) -> bool {
    !t.is_empty()
        && t.len() <= 150
        && t != "."
        && t != ".."
        && t.chars()
            .all(|c| c.is_ascii_alphanumeric() || "!-_.*'()".contains(c))
}

/// A stream's labels as Loki prints them: `{a="1", b="2"}`.
fn selector(labels: &Map<String, Value>) -> String {
    let mut pairs: Vec<String> = labels
        .iter()
        .map(|(k, v)| format!("{k}={}", Value::String(v.as_str().unwrap_or("").into())))
        .collect();
    pairs.sort();
    format!("{{{}}}", pairs.join(", "))
}

/// Parses and checks the whole body; `Err` is the text of the 400 answer.
fn parse(body: &[u8], tenant: Option<&str>, now_ms: i64) -> Result<Vec<Value>, String> {
    let root: Value =
        serde_json::from_slice(body).map_err(|e| format!("loghttp: invalid JSON body: {e}"))?;
    let streams = match root.get("streams") {
        Some(Value::Array(s)) => s,
        Some(other) => return Err(format!("streams is a {}, not an array", kind(other))),
        None => return Err("the body has no \"streams\" array".into()),
    };
    let now_ns = i128::from(now_ms) * 1_000_000;
    let mut events = Vec::new();
    for (index, stream) in streams.iter().enumerate() {
        let labels = match stream.get("stream") {
            Some(Value::Object(l)) => l,
            Some(other) => {
                return Err(format!(
                    "stream {index}: \"stream\" is a {}, not an object of labels",
                    kind(other)
                ))
            }
            None => return Err(format!("stream {index}: missing \"stream\" labels")),
        };
        check_labels(labels).map_err(|e| format!("stream {index}: {e}"))?;
        let name = selector(labels);
        let values = match stream.get("values") {
            Some(Value::Array(v)) => v,
            Some(other) => {
                return Err(format!(
                    "stream '{name}': \"values\" is a {}, not an array",
                    kind(other)
                ))
            }
            None => return Err(format!("stream '{name}': missing \"values\"")),
        };
        let mut newest: Option<i128> = None;
        for (i, entry) in values.iter().enumerate() {
            let (ts, line, metadata) =
                check_entry(entry).map_err(|e| format!("stream '{name}' entry {i}: {e}"))?;
            if ts < now_ns - MAX_AGE_NS {
                return Err(format!(
                    "entry for stream '{name}' has timestamp too old: {ts} (greater_than_max_sample_age: older than 1 week)"
                ));
            }
            if ts > now_ns + GRACE_NS {
                return Err(format!(
                    "entry for stream '{name}' has timestamp too new: {ts} (too_far_in_future: more than 10 minutes ahead)"
                ));
            }
            if line.len() > MAX_LINE_BYTES {
                return Err(format!(
                    "Max entry size '{MAX_LINE_BYTES}' bytes exceeded for stream '{name}' while adding an entry with length '{}' bytes (line_too_long)",
                    line.len()
                ));
            }
            if let Some(n) = newest {
                if ts < n - BEHIND_NS {
                    return Err(format!(
                        "entry too far behind for stream '{name}': timestamp {ts} is more than 1h older than the stream's newest {n} (too_far_behind)"
                    ));
                }
            }
            newest = Some(newest.map_or(ts, |n| n.max(ts)));
            events.push(json!({
                "line": line,
                "timestamp_ns": ts.to_string(),
                "labels": labels,
                "metadata": metadata,
                "stream": index,
                "tenant": tenant,
            }));
        }
    }
    Ok(events)
}

/// The label rules (docs/wire-formats.md 6.1, 6.2).
fn check_labels(labels: &Map<String, Value>) -> Result<(), String> {
    if labels.is_empty() {
        return Err("error at least one label pair is required per stream".into());
    }
    if labels.len() > MAX_LABELS {
        return Err(format!(
            "stream '{}' has {} label names; limit {MAX_LABELS}",
            selector(labels),
            labels.len()
        ));
    }
    for (name, value) in labels {
        let Some(value) = value.as_str() else {
            return Err(format!("label {name:?} is a {}, not a string", kind(value)));
        };
        if !is_label_name(name) {
            return Err(format!(
                "invalid label name {name:?}: must match [a-zA-Z_][a-zA-Z0-9_]*"
            ));
        }
        if name.starts_with("__") {
            return Err(format!(
                "invalid label name {name:?}: names starting with __ are reserved"
            ));
        }
        if name.len() > MAX_LABEL_NAME_BYTES {
            return Err(format!(
                "label name {name:?} is longer than {MAX_LABEL_NAME_BYTES} bytes"
            ));
        }
        if value.len() > MAX_LABEL_VALUE_BYTES {
            return Err(format!(
                "label {name:?} has a value longer than {MAX_LABEL_VALUE_BYTES} bytes"
            ));
        }
    }
    Ok(())
}

/// One `["<ns>", "<line>", {metadata}?]` entry.
fn check_entry(entry: &Value) -> Result<(i128, &str, Value), String> {
    let Some(parts) = entry.as_array() else {
        return Err(format!("is a {}, not an array", kind(entry)));
    };
    if !(2..=3).contains(&parts.len()) {
        return Err(format!(
            "has {} elements; expected [timestamp, line] or [timestamp, line, metadata]",
            parts.len()
        ));
    }
    let ts = match &parts[0] {
        Value::String(s) if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) => s
            .parse::<i128>()
            .map_err(|e| format!("timestamp {s:?}: {e}"))?,
        Value::String(s) => {
            return Err(format!(
                "timestamp {s:?} is not a string of epoch nanoseconds"
            ))
        }
        other => {
            return Err(format!(
                "timestamp is a {} ({other}); Loki wants a STRING of epoch nanoseconds",
                kind(other)
            ))
        }
    };
    let Some(line) = parts[1].as_str() else {
        return Err(format!("line is a {}, not a string", kind(&parts[1])));
    };
    let metadata = match parts.get(2) {
        None => Value::Object(Map::new()),
        Some(Value::Object(m)) => {
            if let Some((k, v)) = m.iter().find(|(_, v)| !v.is_string()) {
                return Err(format!(
                    "structured metadata {k:?} is a {}; values must be strings (flat string to string)",
                    kind(v)
                ));
            }
            Value::Object(m.clone())
        }
        Some(other) => {
            return Err(format!(
                "structured metadata is a {}, not an object",
                kind(other)
            ))
        }
    };
    Ok((ts, line, metadata))
}

/// A violation: `400` with Loki's text body.
fn reject(message: impl Into<String>) -> Rejection {
    let message = message.into();
    Rejection::violation(text(400, &message), message)
}

/// Loki's error answers are plain text.
fn text(status: u16, message: &str) -> Response {
    let mut body = message.as_bytes().to_vec();
    if !body.ends_with(b"\n") {
        body.push(b'\n');
    }
    Response {
        status,
        headers: vec![("Content-Type".into(), "text/plain; charset=utf-8".into())],
        body,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW_MS: i64 = 1_760_000_000_000;
    const NOW_NS: i128 = NOW_MS as i128 * 1_000_000;

    fn body(v: Value) -> Vec<u8> {
        v.to_string().into_bytes()
    }

    fn push(labels: Value, values: Value) -> Result<Vec<Value>, String> {
        parse(
            &body(json!({"streams": [{"stream": labels, "values": values}]})),
            None,
            NOW_MS,
        )
    }

    #[test]
    fn a_valid_push_becomes_one_event_per_entry() {
        let ts = NOW_NS.to_string();
        let events = parse(
            &body(json!({"streams": [
                {"stream": {"service": "a", "level": "info"}, "values": [[ts, "one"], [ts, "two", {"k": "v"}]]},
                {"stream": {"level": "error"}, "values": [[ts, "three"]]}
            ]})),
            Some("team-a"),
            NOW_MS,
        )
        .unwrap();
        assert_eq!(events.len(), 3);
        assert_eq!(events[1]["line"], "two");
        assert_eq!(events[1]["metadata"], json!({"k": "v"}));
        assert_eq!(
            events[1]["labels"],
            json!({"service": "a", "level": "info"})
        );
        assert_eq!(events[2]["stream"], 1);
        assert_eq!(events[2]["tenant"], "team-a");
        assert_eq!(events[0]["timestamp_ns"], ts);
    }

    #[test]
    fn violations_name_the_stream_and_the_reason() {
        let now = NOW_NS.to_string();
        let l = json!({"level": "info"});
        let cases: Vec<(Value, Value, &str)> = vec![
            (json!({}), json!([[now, "x"]]), "at least one label"),
            (
                json!({"2x": "a"}),
                json!([[now, "x"]]),
                "invalid label name \"2x\"",
            ),
            (json!({"__n": "a"}), json!([[now, "x"]]), "reserved"),
            (json!({"a": 1}), json!([[now, "x"]]), "not a string"),
            (
                l.clone(),
                json!([[NOW_NS as i64, "x"]]),
                "STRING of epoch nanoseconds",
            ),
            (
                l.clone(),
                json!([["12.5", "x"]]),
                "not a string of epoch nanoseconds",
            ),
            (
                l.clone(),
                json!([[(NOW_NS - MAX_AGE_NS - 1).to_string(), "x"]]),
                "greater_than_max_sample_age",
            ),
            (
                l.clone(),
                json!([[(NOW_NS + GRACE_NS + 1).to_string(), "x"]]),
                "too_far_in_future",
            ),
            (
                l.clone(),
                json!([[now, "x".repeat(MAX_LINE_BYTES + 1)]]),
                "line_too_long",
            ),
            (
                l.clone(),
                json!([[now, "x", {"n": {"nested": "no"}}]]),
                "flat string to string",
            ),
            (
                l.clone(),
                json!([[now, "x", {"n": 5}]]),
                "values must be strings",
            ),
            (
                l.clone(),
                json!([[now, "x"], [(NOW_NS - BEHIND_NS - 1).to_string(), "y"]]),
                "too_far_behind",
            ),
            (l.clone(), json!([[now]]), "has 1 elements"),
        ];
        for (labels, values, want) in cases {
            let err = push(labels, values).unwrap_err();
            assert!(err.contains(want), "{err:?} lacks {want:?}");
        }
        let many: Map<String, Value> = (0..16).map(|i| (format!("l{i}"), json!("v"))).collect();
        assert!(push(Value::Object(many), json!([]))
            .unwrap_err()
            .contains("limit 15"));
        let err = push(l, json!([[now, "x".repeat(MAX_LINE_BYTES + 1)]])).unwrap_err();
        assert!(err.contains("for stream '{level=\"info\"}'"), "{err}");
        assert!(push(
            json!({"level": "info"}),
            json!([[now, "x".repeat(MAX_LINE_BYTES)]])
        )
        .is_ok());
    }

    #[test]
    fn tenant_ids() {
        assert!(is_tenant("team-a"));
        assert!(is_tenant("a_(b).c*'!"));
        assert!(!is_tenant("team a"));
        assert!(!is_tenant(".."));
        assert!(!is_tenant(""));
        assert!(!is_tenant(&"a".repeat(151)));
    }
}
