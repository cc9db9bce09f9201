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

/// The events of a body, or what is wrong with it (for a 400).
pub(crate) fn decode(content_type: Option<&str>, body: &[u8]) -> Result<Vec<Record>, String> {
    match kind(content_type, body) {
        Kind::Json => json(body),
        Kind::Text => Ok(text(body)),
    }
}

fn json(body: &[u8]) -> Result<Vec<Record>, String> {
    let mut out = Vec::new();
    let mut values = serde_json::Deserializer::from_slice(body).into_iter::<Json<'_>>();
    let mut n = 0usize;
    loop {
        let start = values.byte_offset();
        let value = match values.next() {
            None => break,
            Some(Ok(v)) => v,
            Some(Err(e)) => {
                return Err(format!(
                    "malformed JSON: {e} (send NDJSON, a JSON array of objects, or one object)"
                ))
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
                            return Err(format!(
                                "element {i} of JSON array {n} is {}, not an object",
                                type_name(&other)
                            ))
                        }
                    }
                }
            }
            other => {
                return Err(format!(
                    "JSON value {n} is {}, not an object (send objects, one per line, or an array of them)",
                    type_name(&other)
                ))
            }
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
fn text(body: &[u8]) -> Vec<Record> {
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
    }
    events
        .into_iter()
        .map(|(event, replaced)| {
            let mut r = text_record(&event);
            if replaced {
                r.mark_invalid_utf8();
            }
            r
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(rs: &[Record]) -> Vec<&str> {
        rs.iter().map(Record::message_str).collect()
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
}
