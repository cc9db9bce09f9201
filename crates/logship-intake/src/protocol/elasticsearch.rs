//! Elasticsearch / OpenSearch `_bulk` (`POST /_bulk` or `POST /{index}/_bulk`),
//! emulated strictly.
//!
//! Facts from `docs/wire-formats.md` section 7: the body is NDJSON, pairs
//! of an action line and a source line, and **the last line must end with
//! `\n`** (400 `illegal_argument_exception` otherwise). `Content-Type` must be
//! `application/x-ndjson` or `application/json` (406 otherwise); the body may
//! be gzip- or deflate-encoded; at most [`MAX_CONTENT_LENGTH`] decoded bytes
//! (413). `create` and `index` actions are served (`update` and `delete` are
//! refused as logship never sends them); the target is the action's `_index`
//! or the index in the path. Targets named like the stock `logs-*-*` template
//! are data streams: they take only `create` and need `@timestamp`. Documents
//! may not hold metadata fields (`_id`, `_index`, ...) nor duplicate keys, and
//! `@timestamp` must be a date; such items fail with 400 like in Elasticsearch
//! and are recorded as violations, since logship must never produce them.
//!
//! Credentials: `Authorization: ApiKey <key>` or `Basic` (its password is the
//! key); 401 `security_exception` otherwise. The answer is `200` with
//! `{"took","errors","items":[{"create":{"_index","_id","status",...}}]}` in
//! request order, even when items failed, trimmed to the paths of a `filter_path`
//! query parameter (see [`super::filter_path`]). Items can be failed on purpose with
//! [`ItemFault`](crate::ItemFault)s. Each accepted document is recorded as an
//! event with its target added as `_index`.
//!
//! Document ids: an action may name an `_id` (a non-empty string of at most 512 bytes).
//! The documents are kept by concrete index and `_id` ([`super::documents`]): a `create`
//! of an `_id` already stored fails with `409 version_conflict_engine_exception` in the
//! item shape of a real cluster, is not stored again, and is not a violation (it is how a
//! client's replay stays duplicate-free); an `index` of one replaces it (`"updated"`).

use std::fmt;
use std::fmt::Write as _;
use std::sync::PoisonError;

use serde::de::{Deserializer, MapAccess, Visitor};
use serde_json::{json, Map, Value};

use super::documents::Stored;
use super::filter_path::FilterPath;
use super::shared::{
    check_credential, decode_body_with, kind, media_type, require_content_length, strip_scheme,
    Accepted, Credential, Rejection, Settings,
};
use logship_http::answers::elasticsearch as answers;
use logship_http::{Request, Response};

/// The bulk endpoint's last path segment.
pub(crate) const PATH: &str = "/_bulk";

/// `http.max_content_length`, 100 MB by default (docs/wire-formats.md 7); applied to the
/// decoded body here (whether ES counts compressed bytes is UNCONFIRMED).
pub(crate) const MAX_CONTENT_LENGTH: u64 = 100 * 1024 * 1024;

/// Longest `_id` Elasticsearch accepts, in bytes.
const MAX_ID_BYTES: usize = 512;

/// Media types accepted (docs/wire-formats.md 7).
const CONTENT_TYPES: [&str; 2] = ["application/x-ndjson", "application/json"];

/// Metadata fields a document may not contain.
const METADATA_FIELDS: [&str; 12] = [
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
];

/// Whether this module serves `path`: `/_bulk` or `/{index}/_bulk`.
pub(crate) fn serves(path: &str) -> bool {
    path == PATH || path_index(path).is_some()
}

/// The index in `/{index}/_bulk`.
fn path_index(path: &str) -> Option<&str> {
    path.strip_prefix('/')?
        .strip_suffix(PATH)
        .filter(|i| !i.is_empty() && !i.contains('/'))
}

/// Validates and decodes a `_bulk` request.
pub(crate) fn handle(req: &Request, settings: &Settings) -> Result<Accepted, Rejection> {
    if req.method != "POST" && req.method != "PUT" {
        let mut r = reject(
            405,
            "illegal_argument_exception",
            format!(
                "Incorrect HTTP method for uri [{}] and method [{}], allowed: [POST, PUT]",
                req.target, req.method
            ),
        );
        r.response.headers.push(("Allow".into(), "POST,PUT".into()));
        return Err(r);
    }
    check_auth(req, settings)?;
    require_content_length(req)
        .map_err(|r| r.reshape(|status, m| error(status, "parse_exception", m)))?;
    match media_type(req) {
        Some(t) if CONTENT_TYPES.contains(&t.as_str()) => {}
        other => {
            let shown = req.header("content-type").unwrap_or("");
            let message = format!("Content-Type header [{shown}] is not supported");
            let response = Response::json(406, &json!({ "error": message, "status": 406 }));
            return Err(Rejection::violation(
                response,
                format!("{message} (media type {other:?}); send application/x-ndjson"),
            ));
        }
    }
    let body = decode_body_with(req, true, MAX_CONTENT_LENGTH)
        .map_err(|r| r.reshape(|status, m| error(status, "parse_exception", m)))?;
    let decoded = body.len();
    let fail = |status: u16, kind: &str, message: String| {
        reject(status, kind, message).with_decoded(decoded)
    };
    if body.is_empty() {
        return Err(fail(
            400,
            "action_request_validation_exception",
            "Validation Failed: 1: no requests added;".into(),
        ));
    }
    if body.last() != Some(&b'\n') {
        return Err(fail(
            400,
            "illegal_argument_exception",
            "The bulk request must be terminated by a newline [\\n]".into(),
        ));
    }
    let default_index = path_index(req.path());
    let mut lines = body
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .enumerate()
        .filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace));
    let mut pairs = Vec::new();
    while let Some((n, action_line)) = lines.next() {
        let action = parse_action(action_line, default_index).map_err(|m| {
            fail(
                400,
                "illegal_argument_exception",
                format!("line {}: {m}", n + 1),
            )
        })?;
        let Some((_, source)) = lines.next() else {
            return Err(fail(
                400,
                "illegal_argument_exception",
                format!(
                    "line {}: the {} action is not followed by a source line",
                    n + 1,
                    action.op
                ),
            ));
        };
        pairs.push((action, source));
    }
    let took = pairs.len() as u64 / 100 + 1;
    let mut items = String::with_capacity(pairs.len() * 200);
    let mut events = Vec::new();
    let mut violations = Vec::new();
    let mut errors = false;
    let mut faults = settings
        .item_faults
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    for (i, (action, source)) in pairs.into_iter().enumerate() {
        let checked = check_document(&action, source).map_err(|(status, kind, reason)| {
            violations.push(format!(
                "item {i} ({}): {status} {kind}: {reason}",
                action.index
            ));
            (status, kind, reason)
        });
        let target = backing_index(&action.index);
        let result = match checked {
            Ok(doc) => match faults.take(source) {
                Some(fault) => {
                    let (kind, reason) = fault.error();
                    Err((fault.status, kind, reason.to_owned()))
                }
                None => store(settings, &action, &target, source).map(|s| (doc, s)),
            },
            Err(e) => Err(e),
        };
        // Written as text: building a `Value` per item costs more than the rest.
        match result {
            Ok((mut doc, stored)) => {
                doc.insert("_index".into(), Value::String(action.index));
                events.push(Value::Object(doc));
                let id = action.id.unwrap_or_else(answers::generated_id);
                let updated = matches!(stored, Stored::Updated);
                answers::push_stored_item(&mut items, action.op, &target, &id, i, updated);
            }
            Err((status, kind, reason)) => {
                errors = true;
                if !items.is_empty() {
                    items.push(',');
                }
                let target_json = Value::String(target.clone()).to_string();
                let mut error = json!({ "type": kind, "reason": reason, "index": target });
                if status == 409 {
                    // A real cluster's version conflict also names the shard and index.
                    error["index_uuid"] = json!("bG9nc2hpcC1pbnRha2U");
                    error["shard"] = json!("0");
                }
                let _ = write!(
                    items,
                    r#"{{"{}":{{"_index":{target_json},"status":{status},"error":{error}}}}}"#,
                    action.op
                );
            }
        }
    }
    drop(faults);
    let response = Response {
        status: 200,
        headers: vec![("Content-Type".into(), "application/json".into())],
        body: filtered(req, settings, answers::bulk_answer(took, errors, &items)).into_bytes(),
    };
    let mut accepted = Accepted::new(events, decoded, response);
    accepted.violations = violations;
    Ok(accepted)
}

/// The answer trimmed to the request's `filter_path` (when the setting honours it).
fn filtered(req: &Request, settings: &Settings, answer: String) -> String {
    let filter = req
        .query_param("filter_path")
        .filter(|_| settings.es_filter_path)
        .and_then(FilterPath::parse);
    let Some(filter) = filter else {
        return answer;
    };
    match serde_json::from_str::<Value>(&answer) {
        Ok(value) => filter.apply(&value).to_string(),
        Err(_) => answer,
    }
}

/// One parsed action line.
struct Action {
    /// `create` or `index`.
    op: &'static str,
    /// The target: the action's `_index`, else the path's.
    index: String,
    /// The document id the client chose, if any.
    id: Option<String>,
}

/// Stores a checked document: `Err` (409) for a `create` of an `_id` stored before.
fn store(
    settings: &Settings,
    action: &Action,
    target: &str,
    source: &[u8],
) -> Result<Stored, ItemError> {
    let id = action.id.as_deref();
    match settings
        .documents
        .store(target, id, action.op == "create", source)
    {
        Stored::Conflict => Err((
            409,
            "version_conflict_engine_exception",
            format!(
                "[{}]: version conflict, document already exists (current version [1])",
                id.unwrap_or("")
            ),
        )),
        stored => Ok(stored),
    }
}

/// Parses `{"create":{"_index":"x"}}` (or `index`).
fn parse_action(line: &[u8], default_index: Option<&str>) -> Result<Action, String> {
    let value: Value =
        serde_json::from_slice(line).map_err(|e| format!("Malformed action/metadata line: {e}"))?;
    let Value::Object(map) = value else {
        return Err(format!(
            "Malformed action/metadata line: a {}, expected an object",
            kind(&value)
        ));
    };
    let mut entries = map.into_iter();
    let (Some((op, meta)), None) = (entries.next(), entries.next()) else {
        return Err("Malformed action/metadata line: expected exactly one action".into());
    };
    let op = match op.as_str() {
        "create" => "create",
        "index" => "index",
        "update" | "delete" => {
            return Err(format!(
                "action [{op}] is valid in Elasticsearch but logship must send create"
            ))
        }
        other => {
            return Err(format!(
                "Action/metadata line contains an unknown parameter [{other}]"
            ))
        }
    };
    let Value::Object(meta) = meta else {
        return Err(format!("the [{op}] action's metadata is not an object"));
    };
    let index = match meta.get("_index") {
        Some(Value::String(s)) => s.clone(),
        Some(other) => return Err(format!("_index is a {}, not a string", kind(other))),
        None => match default_index {
            Some(i) => i.to_owned(),
            None => return Err("Validation Failed: 1: index is missing;".into()),
        },
    };
    check_index_name(&index)?;
    let id =
        match meta.get("_id") {
            None => None,
            Some(Value::String(s)) if s.is_empty() => return Err(
                "Validation Failed: 1: an id must be provided if version type or value are set;"
                    .into(),
            ),
            Some(Value::String(s)) if s.len() > MAX_ID_BYTES => {
                return Err(format!(
            "Validation Failed: 1: id is too long, must be no longer than 512 bytes but was: {};",
            s.len()
        ))
            }
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => return Err(format!("_id is a {}, not a string", kind(other))),
        };
    Ok(Action { op, index, id })
}

/// Elasticsearch's index naming rules.
fn check_index_name(name: &str) -> Result<(), String> {
    let problem = if name.is_empty() || name == "." || name == ".." {
        Some("must not be empty, . or ..")
    } else if name.len() > 255 {
        Some("is longer than 255 bytes")
    } else if name.starts_with(['-', '_', '+']) {
        Some("must not start with '_', '-', or '+'")
    } else if name.chars().any(char::is_uppercase) {
        Some("must be lowercase")
    } else if name.contains(['\\', '/', '*', '?', '"', '<', '>', '|', ' ', ',', '#', ':']) {
        Some("must not contain the following characters [ , \", *, \\, <, |, ,, >, /, ?, :, #]")
    } else {
        None
    };
    match problem {
        Some(p) => Err(format!(
            "invalid_index_name_exception: Invalid index name [{name}], {p}"
        )),
        None => Ok(()),
    }
}

/// Whether the stock `logs-*-*` template makes `index` a data stream.
fn is_data_stream(index: &str) -> bool {
    index
        .strip_prefix("logs-")
        .is_some_and(|rest| rest.split('-').filter(|p| !p.is_empty()).count() >= 2)
}

/// The concrete index a document lands in: a data stream's backing index.
fn backing_index(index: &str) -> String {
    if is_data_stream(index) {
        format!(".ds-{index}-000001")
    } else {
        index.to_owned()
    }
}

/// An item's failure: status, error type, reason.
type ItemError = (u16, &'static str, String);

/// Checks one source line as Elasticsearch would when indexing it.
fn check_document(action: &Action, source: &[u8]) -> Result<Map<String, Value>, ItemError> {
    let doc =
        parse_document(source).map_err(|reason| (400, "document_parsing_exception", reason))?;
    if let Some(field) = METADATA_FIELDS.iter().find(|f| doc.contains_key(**f)) {
        return Err((
            400,
            "mapper_parsing_exception",
            format!("Field [{field}] is a metadata field and cannot be added inside a document. Use the index API request parameters."),
        ));
    }
    match doc.get("@timestamp") {
        Some(Value::String(s)) if is_date(s) => {}
        Some(other) => {
            return Err((
                400,
                "mapper_parsing_exception",
                format!("failed to parse field [@timestamp] of type [date]: {other}"),
            ))
        }
        None if is_data_stream(&action.index) => {
            return Err((
                400,
                "document_parsing_exception",
                format!(
                    "data stream timestamp field [@timestamp] is missing (data stream [{}])",
                    action.index
                ),
            ))
        }
        None => {}
    }
    if action.op != "create" && is_data_stream(&action.index) {
        return Err((
            400,
            "illegal_argument_exception",
            format!(
                "only write ops with an op_type of create are allowed in data streams [{}]",
                action.index
            ),
        ));
    }
    Ok(doc)
}

/// Whether `s` is an RFC 3339 date-time with a zone (`2026-01-17T22:12:31.000Z`).
fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    let head = b.len() >= 20
        && digits(0..4)
        && b[4] == b'-'
        && digits(5..7)
        && b[7] == b'-'
        && digits(8..10)
        && b[10] == b'T'
        && digits(11..13)
        && b[13] == b':'
        && digits(14..16)
        && b[16] == b':'
        && digits(17..19);
    if !head {
        return false;
    }
    let mut i = 19;
    if b[i] == b'.' {
        i += 1;
        let start = i;
        while b.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        if i == start {
            return false;
        }
    }
    matches!(&b[i..], [b'Z'] | [b'+' | b'-', _, _, b':', _, _])
}

/// Parses a document that must be one JSON object whose top-level keys are unique
/// (Elasticsearch parses with strict duplicate detection), in one pass.
fn parse_document(source: &[u8]) -> Result<Map<String, Value>, String> {
    struct Doc(Map<String, Value>);
    impl<'de> serde::Deserialize<'de> for Doc {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Doc, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Doc;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("a JSON object")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Doc, A::Error> {
                    let mut doc = Map::new();
                    while let Some(key) = map.next_key::<String>()? {
                        let value = map.next_value::<Value>()?;
                        if let Some(key) = doc.insert(key.clone(), value).map(|_| key) {
                            return Err(serde::de::Error::custom(format!(
                                "Duplicate field '{key}'"
                            )));
                        }
                    }
                    Ok(Doc(doc))
                }
            }
            d.deserialize_map(V)
        }
    }
    serde_json::from_slice::<Doc>(source)
        .map(|d| d.0)
        .map_err(|e| format!("failed to parse the document: {e}"))
}

/// `Authorization: ApiKey <key>` or `Basic base64(user:password)`, the key or
/// password compared with the intake's key.
fn check_auth(req: &Request, settings: &Settings) -> Result<(), Rejection> {
    let header = req.header("authorization");
    let (credential, user) = match header {
        Some(v) => {
            if let Some(key) = strip_scheme(v, "ApiKey") {
                (Some(key.to_owned()), None)
            } else if let Some(basic) = strip_scheme(v, "Basic") {
                match base64_decode(basic)
                    .and_then(|b| String::from_utf8(b).ok())
                    .and_then(|s| s.split_once(':').map(|(u, p)| (u.to_owned(), p.to_owned())))
                {
                    Some((user, password)) if !user.is_empty() => (Some(password), Some(user)),
                    _ => (None, None),
                }
            } else {
                (None, None)
            }
        }
        None => (None, None),
    };
    match check_credential(settings, credential.as_deref()) {
        Credential::Valid => Ok(()),
        Credential::Missing => Err(Rejection::auth(
            auth_error(format!(
                "missing authentication credentials for REST request [{}]",
                req.target
            )),
            "missing or unreadable ApiKey/Basic credentials",
        )),
        Credential::Wrong => Err(Rejection::auth(
            auth_error(match user {
                Some(u) => format!("unable to authenticate user [{u}] for REST request [{}]", req.target),
                None => "unable to authenticate with provided credentials and anonymous access is not allowed for this request".into(),
            }),
            "wrong ApiKey/Basic credentials",
        )),
    }
}

/// Decodes standard base64 (padding optional); `None` when malformed.
fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let s = s.trim().trim_end_matches('=');
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for c in s.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// A 401 `security_exception` with Elasticsearch's challenge headers.
fn auth_error(reason: String) -> Response {
    let challenge = json!(["Basic realm=\"security\" charset=\"UTF-8\"", "ApiKey"]);
    let mut response = Response::json(
        401,
        &json!({
            "error": {
                "root_cause": [{ "type": "security_exception", "reason": reason, "header": { "WWW-Authenticate": challenge } }],
                "type": "security_exception",
                "reason": reason,
                "header": { "WWW-Authenticate": challenge },
            },
            "status": 401,
        }),
    );
    response.headers.push((
        "WWW-Authenticate".into(),
        "Basic realm=\"security\" charset=\"UTF-8\"".into(),
    ));
    response
        .headers
        .push(("WWW-Authenticate".into(), "ApiKey".into()));
    response
}

/// A whole-request violation answered with Elasticsearch's error body.
fn reject(status: u16, kind: &str, message: impl Into<String>) -> Rejection {
    let message = message.into();
    Rejection::violation(error(status, kind, &message), message)
}

/// `{"error":{"root_cause":[{type,reason}],"type","reason"},"status":N}`.
fn error(status: u16, kind: &str, reason: &str) -> Response {
    Response::json(
        status,
        &json!({
            "error": {
                "root_cause": [{ "type": kind, "reason": reason }],
                "type": kind,
                "reason": reason,
            },
            "status": status,
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routes_bulk_paths() {
        assert!(serves("/_bulk"));
        assert!(serves("/logs-app-default/_bulk"));
        assert!(!serves("//_bulk"));
        assert!(!serves("/a/b/_bulk"));
        assert!(!serves("/_bulkx"));
        assert_eq!(path_index("/my-index/_bulk"), Some("my-index"));
    }

    #[test]
    fn base64_decodes_basic_credentials() {
        assert_eq!(
            base64_decode("ZWxhc3RpYzpjaGFuZ2VtZQ==").unwrap(),
            b"elastic:changeme"
        );
        assert_eq!(base64_decode("Zm9vYg").unwrap(), b"foob");
        assert!(base64_decode("a*b").is_none());
    }

    #[test]
    fn duplicate_keys_and_dates_are_checked() {
        let dup = parse_document(br#"{"a":1,"b":{"a":2},"a":3}"#).unwrap_err();
        assert!(dup.contains("Duplicate field 'a'"), "{dup}");
        assert_eq!(parse_document(br#"{"a":1,"b":{"a":2}}"#).unwrap().len(), 2);
        assert!(parse_document(b"[1]")
            .unwrap_err()
            .contains("a JSON object"));
        assert!(is_date("2026-01-17T22:12:31.123Z"));
        assert!(is_date("2026-01-17T22:12:31+02:00"));
        assert!(!is_date("2026-01-17T22:12:31"));
        assert!(!is_date("1717171717123"));
    }

    #[test]
    fn data_streams_follow_the_logs_template() {
        assert!(is_data_stream("logs-logship-default"));
        assert!(!is_data_stream("logs-2026.01.17"));
        assert!(!is_data_stream("app-logs"));
        assert_eq!(backing_index("logs-a-b"), ".ds-logs-a-b-000001".to_owned());
    }
}
