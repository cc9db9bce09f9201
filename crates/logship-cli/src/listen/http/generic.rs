//! Generic HTTP bodies (every path the vendor APIs do not own): NDJSON, a JSON array of
//! objects, one JSON object (Log4j2's `JsonLayout`, compact or pretty-printed, with or
//! without its `\r\n` end), several whitespace-separated objects, or plain text lines.
//!
//! Why it exists: Log4j2's stock `Http` appender posts one event per request in its
//! layout's format, and many clients post NDJSON or arrays; each object becomes an event
//! through `crate::lines::object_record`, so its time, level, logger, thread, message,
//! exception and context map are the event's own.
//!
//! Must never: accept half a body (a malformed body is refused whole, 400 naming the line
//! and column, so nothing of it is queued and the client's retry duplicates nothing), or
//! recurse on input (serde_json's own depth limit bounds nesting).

use logship::Record;

use crate::lines::{object_record, text_record, trim_newline, utf8_lossy, Json};

/// How a body is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Json,
    Text,
}

/// The kind a `Content-Type` names, else what the body starts with.
fn kind(content_type: Option<&str>, body: &[u8]) -> Kind {
    let ct = content_type.unwrap_or("").to_ascii_lowercase();
    if ct.contains("json") {
        return Kind::Json;
    }
    if ct.starts_with("text/") {
        return Kind::Text;
    }
    match body.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{' | b'[') => Kind::Json,
        _ => Kind::Text,
    }
}

/// Why a body was refused whole.
#[derive(Debug, PartialEq)]
pub(crate) enum Refused {
    /// Not a body of any accepted shape (a 400 naming what is wrong).
    Malformed(String),
    /// More than the most events one request may hold (a 413).
    TooMany,
}

/// The JSON value budget of a body ([`crate::lines::json::with_value_budget`]: elements,
/// members and the slots objects allocate) per event it may hold: a Log4j2 event takes
/// about 50, one with a 50-frame stack trace about 800, so 1,000 of those fit in the
/// default queue's budget; 10 MiB of tiny objects stops at a bounded tree (tens of MiB).
pub(crate) const VALUES_PER_EVENT: usize = 128;

/// The events of a body, at most `max_events`, or why it is refused.
pub(crate) fn decode(
    content_type: Option<&str>,
    body: &[u8],
    max_events: usize,
) -> Result<Vec<Record>, Refused> {
    match kind(content_type, body) {
        Kind::Json => {
            let budget = max_events.saturating_mul(VALUES_PER_EVENT);
            match crate::lines::json::with_value_budget(budget, || json(body, max_events)) {
                (_, true) => Err(Refused::TooMany),
                (out, false) => out,
            }
        }
        Kind::Text => text(body, max_events),
    }
}

/// A body that is valid UTF-8 (checked once, with SIMD) is read as text: serde_json then
/// does not validate each string again (2,000 of 24,500 instructions per event of a Log4j2
/// `JsonLayout` POST, `crates/logship-bench/guard/check.sh listen_log4j2`). Other bodies
/// are read as bytes, so the error names the bad byte's place as before.
fn json(body: &[u8], max_events: usize) -> Result<Vec<Record>, Refused> {
    match simdutf8::basic::from_utf8(body) {
        Ok(text) => json_values(
            serde_json::Deserializer::from_str(text).into_iter(),
            max_events,
        ),
        Err(_) => json_values(
            serde_json::Deserializer::from_slice(body).into_iter(),
            max_events,
        ),
    }
}

fn json_values<'a, R: serde_json::de::Read<'a>>(
    mut values: serde_json::StreamDeserializer<'a, R, Json<'a>>,
    max_events: usize,
) -> Result<Vec<Record>, Refused> {
    let mut out = Vec::new();
    let mut n = 0usize;
    loop {
        let start = values.byte_offset();
        let value = match values.next() {
            None => break,
            Some(Ok(v)) => v,
            Some(Err(e)) => {
                return Err(Refused::Malformed(format!(
                    "malformed JSON: {e} (send NDJSON, a JSON array of objects, or one object)"
                )))
            }
        };
        n += 1;
        let size = values.byte_offset().saturating_sub(start);
        match value {
            Json::Object(map) => out.push(object_record(&map, size)),
            Json::Array(items) => {
                let each = size / items.len().max(1);
                for (i, item) in items.into_iter().enumerate() {
                    match item {
                        Json::Object(map) => out.push(object_record(&map, each)),
                        other => {
                            return Err(Refused::Malformed(format!(
                                "element {i} of JSON array {n} is {}, not an object",
                                type_name(&other)
                            )))
                        }
                    }
                    if out.len() > max_events {
                        return Err(Refused::TooMany);
                    }
                }
            }
            other => {
                return Err(Refused::Malformed(format!(
                    "JSON value {n} is {}, not an object (send objects, one per line, or an array of them)",
                    type_name(&other)
                )))
            }
        }
        if out.len() > max_events {
            return Err(Refused::TooMany);
        }
    }
    Ok(out)
}

fn type_name(v: &Json<'_>) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "an array",
        Json::Object(_) => "an object",
    }
}

/// One event per non-blank line; a line that starts with a tab or spaces, or with
/// `Caused by:`, continues the event before (a Java stack trace under a `PatternLayout`
/// line stays one event).
fn text(body: &[u8], max_events: usize) -> Result<Vec<Record>, Refused> {
    let mut events: Vec<(String, bool)> = Vec::new();
    for line in body.split_inclusive(|b| *b == b'\n') {
        let line = trim_newline(line);
        let text = utf8_lossy(line);
        let replaced = matches!(text, std::borrow::Cow::Owned(_));
        if text.trim().is_empty() {
            continue;
        }
        let continues = text.starts_with([' ', '\t']) || text.starts_with("Caused by:");
        match events.last_mut() {
            Some((event, bad)) if continues => {
                event.push('\n');
                event.push_str(&text);
                *bad |= replaced;
            }
            _ => events.push((text.into_owned(), replaced)),
        }
        if events.len() > max_events {
            return Err(Refused::TooMany);
        }
    }
    Ok(events
        .into_iter()
        .map(|(event, replaced)| {
            let mut r = text_record(&event);
            if replaced {
                r.mark_invalid_utf8();
            }
            r
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(rs: &[Record]) -> Vec<&str> {
        rs.iter().map(Record::message_str).collect()
    }

    /// `decode` with no event limit to speak of.
    fn decode(ct: Option<&str>, body: &[u8]) -> Result<Vec<Record>, String> {
        super::decode(ct, body, 1_000_000).map_err(|e| match e {
            Refused::Malformed(m) => m,
            Refused::TooMany => "too many".to_owned(),
        })
    }

    #[test]
    fn every_body_shape_becomes_its_events() {
        let nd = decode(
            Some("application/x-ndjson"),
            b"{\"message\":\"a\"}\n{\"message\":\"b\"}\n",
        )
        .unwrap();
        assert_eq!(messages(&nd), ["a", "b"]);
        let arr = decode(None, b" [{\"msg\":\"a\"},{\"msg\":\"b\"}]").unwrap();
        assert_eq!(messages(&arr), ["a", "b"]);
        let pretty = b"{\r\n  \"instant\" : {\r\n    \"epochSecond\" : 1700000000,\r\n    \"nanoOfSecond\" : 5\r\n  },\r\n  \"thread\" : \"main\",\r\n  \"level\" : \"WARN\",\r\n  \"loggerName\" : \"com.example.App\",\r\n  \"message\" : \"hi\",\r\n  \"endOfBatch\" : false,\r\n  \"loggerFqcn\" : \"org.apache.logging.log4j.spi.AbstractLogger\",\r\n  \"contextMap\" : { \"user\" : \"u1\" }\r\n}\r\n";
        let one = decode(Some("application/json; charset=UTF-8"), pretty).unwrap();
        assert_eq!(one.len(), 1);
        let r = &one[0];
        assert_eq!(
            (r.message_str(), r.target(), r.level()),
            ("hi", "com.example.App", logship::Level::Warn)
        );
        assert_eq!(r.timestamp_nanos(), 1_700_000_000_000_000_005);
        let fields = format!("{:?}", r.entries().collect::<Vec<_>>());
        assert!(
            fields.contains("thread") && fields.contains("user"),
            "{fields}"
        );
        assert!(
            !fields.contains("loggerFqcn") && !fields.contains("contextMap"),
            "{fields}"
        );
        let text = decode(
            Some("text/plain"),
            b"one\r\n\r\ntwo\n\tat x.y(Z.java:1)\nCaused by: E\n",
        )
        .unwrap();
        assert_eq!(
            messages(&text),
            ["one", "two\n\tat x.y(Z.java:1)\nCaused by: E"]
        );
    }

    #[test]
    fn a_malformed_body_is_refused_whole_naming_where() {
        let e = decode(None, b"{\"a\":1}\n{\"a\":\n").unwrap_err();
        assert!(e.contains("line 3") || e.contains("line 2"), "{e}");
        assert!(decode(None, b"[1]")
            .unwrap_err()
            .contains("a number, not an object"));
        assert!(decode(Some("application/json"), b"\"x\"")
            .unwrap_err()
            .contains("a string"));
    }

    #[test]
    fn a_body_of_more_events_than_the_queue_holds_is_refused_before_it_is_all_decoded() {
        let limit = 1000;
        let n = |k: usize| -> Vec<u8> { b"{\"a\":1}\n".repeat(k) };
        assert_eq!(
            super::decode(None, &n(limit), limit).map(|r| r.len()),
            Ok(limit)
        );
        assert_eq!(
            super::decode(None, &n(limit + 1), limit).err(),
            Some(Refused::TooMany)
        );
        let array = |k: usize| format!("[{}]", vec!["{\"a\":1}"; k].join(",")).into_bytes();
        assert_eq!(
            super::decode(None, &array(limit), limit).map(|r| r.len()),
            Ok(limit)
        );
        assert_eq!(
            super::decode(None, &array(limit + 1), limit).err(),
            Some(Refused::TooMany)
        );
        let text = |k: usize| b"line\n".repeat(k);
        let ct = Some("text/plain");
        assert_eq!(
            super::decode(ct, &text(limit), limit).map(|r| r.len()),
            Ok(limit)
        );
        assert_eq!(
            super::decode(ct, &text(limit + 1), limit).err(),
            Some(Refused::TooMany)
        );
        // One event whose tree is huge: the value budget stops it too.
        let wide = format!("{{\"a\":[{}]}}", vec!["{}"; 2 * VALUES_PER_EVENT].join(","));
        assert_eq!(
            super::decode(None, wide.as_bytes(), 1).err(),
            Some(Refused::TooMany)
        );
        assert_eq!(
            super::decode(None, wide.as_bytes(), 3).map(|r| r.len()),
            Ok(1)
        );
        // Outside a decode the budget is gone: the same body parses with no limit.
        assert!(crate::lines::Json::parse(&wide).is_ok());
    }

    #[test]
    fn text_and_byte_bodies_read_alike_and_bad_utf8_is_refused_naming_where() {
        // Valid UTF-8 (read as text): non-ASCII and escapes come through unchanged.
        let ok = decode(None, "{\"msg\":\"café \\\"q\\\" \\u00e9\"}".as_bytes()).unwrap();
        assert_eq!(messages(&ok), ["café \"q\" é"]);
        // Not UTF-8 (read as bytes): refused whole, the error says where.
        let mut bad = b"{\"msg\":\"a\"}\n{\"msg\":\"".to_vec();
        bad.extend_from_slice(&[0xff, b'"', b'}']);
        let e = decode(None, &bad).unwrap_err();
        assert!(e.contains("malformed JSON") && e.contains("line 2"), "{e}");
    }
}
