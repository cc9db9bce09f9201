//! The message key of each event (`kafka_key`): none, a pipeline attribute, a field, or a
//! template of them (`{service}-{host}`).
//!
//! Why it exists: the key picks the partition, so events with one key stay in order; the
//! choice is read once at start-up into pieces (the pipeline's fixed values resolved then)
//! and applied per event into a reused buffer. A key is capped at [`MAX_KEY_BYTES`] (the
//! message keeps room for it by construction). Must never read anything but the record and
//! the pipeline's attributes.

// Without a transport compiled in (no `kafka` feature) only the tests use these.
#![cfg_attr(not(feature = "kafka"), allow(dead_code))]

use crate::capture::record::{Entry, Record, Value};
use crate::error::ConfigError;
use crate::vendors::context::Context;

/// The longest key written: longer ones are cut (on a character boundary). Part of the room
/// every message keeps beside its event (`MESSAGE_ROOM`).
pub(crate) const MAX_KEY_BYTES: usize = 256;

/// One piece of a key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Piece {
    /// Text written as is (a template's literal part).
    Text(String),
    /// The pipeline's `service`.
    Service,
    /// The pipeline's host name.
    Host,
    /// The event's level.
    Level,
    /// The event's target (logger name).
    Target,
    /// The value of the event's field of this name.
    Field(String),
}

/// Where each message's key comes from: its pieces, in order (none: no key, the producer
/// spreads messages over the partitions).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct KeySource {
    pieces: Vec<Piece>,
}

/// The fix of every `kafka_key` error.
const FIX: &str = "use none, service, host, level, target, field:NAME (e.g. field:user_id) or a template such as {service}-{host} or {service}/{user_id} ({{ and }} for braces)";

/// The piece a name stands for (a bare name or one inside `{}`).
fn named(name: &str) -> Piece {
    match name {
        "service" => Piece::Service,
        "host" => Piece::Host,
        "level" => Piece::Level,
        "target" => Piece::Target,
        _ => Piece::Field(name.to_owned()),
    }
}

impl KeySource {
    /// Reads `kafka_key`.
    pub(crate) fn parse(text: &str) -> Result<KeySource, ConfigError> {
        let bad = |why: &str| ConfigError::new("kafka_key", text, why).fix(FIX);
        let pieces = match text {
            "" | "none" => Vec::new(),
            "service" | "host" | "level" | "target" => vec![named(text)],
            _ if text.contains(['{', '}']) => template(text).map_err(|why| bad(&why))?,
            _ => match text.strip_prefix("field:") {
                Some(name) if !name.is_empty() => vec![Piece::Field(name.to_owned())],
                _ => return Err(bad("is not a key source")),
            },
        };
        Ok(KeySource { pieces })
    }
}

/// The pieces of a template: `{name}` placeholders between literal text.
fn template(text: &str) -> Result<Vec<Piece>, String> {
    let mut pieces = Vec::new();
    let mut literal = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '{' if chars.as_str().starts_with('{') => {
                chars.next();
                literal.push('{');
            }
            '}' if chars.as_str().starts_with('}') => {
                chars.next();
                literal.push('}');
            }
            '{' => {
                let rest = chars.as_str();
                let Some(end) = rest.find('}') else {
                    return Err("has a { without its }".into());
                };
                let name = &rest[..end];
                if name.is_empty() || name.contains('{') {
                    return Err(format!("has an empty or nested placeholder {{{name}}}"));
                }
                if name.starts_with("field:") {
                    return Err(format!(
                        "writes {{{name}}}: inside a template a field is just {{NAME}}"
                    ));
                }
                if !literal.is_empty() {
                    pieces.push(Piece::Text(std::mem::take(&mut literal)));
                }
                pieces.push(named(name));
                chars = rest[end + 1..].chars();
            }
            '}' => return Err("has a } without its {".into()),
            c => literal.push(c),
        }
    }
    if !pieces.iter().any(|p| !matches!(p, Piece::Text(_))) {
        return Err("is a template without a {placeholder}".into());
    }
    if !literal.is_empty() {
        pieces.push(Piece::Text(literal));
    }
    Ok(pieces)
}

/// The key source with the pipeline's fixed values resolved.
#[derive(Debug)]
pub(crate) struct Keyer {
    pieces: Vec<Piece>,
}

impl Keyer {
    /// The keyer of a validated `kafka_key`: `service` and `host` become text now, or make
    /// every key absent when the pipeline has no service.
    pub(crate) fn new(source: KeySource, ctx: &Context) -> Keyer {
        let mut pieces = Vec::with_capacity(source.pieces.len());
        for piece in source.pieces {
            let fixed = match piece {
                Piece::Service => match &ctx.service {
                    Some(s) => s.clone(),
                    None => return Keyer { pieces: Vec::new() },
                },
                Piece::Host => ctx.hostname.clone(),
                other => {
                    pieces.push(other);
                    continue;
                }
            };
            // Neighbouring text joins into one piece.
            match pieces.last_mut() {
                Some(Piece::Text(t)) => t.push_str(&fixed),
                _ => pieces.push(Piece::Text(fixed)),
            }
        }
        Keyer { pieces }
    }

    /// Writes the key of `record` into `out` (cleared first); false when it has none: no
    /// source, or a field it names is absent from the event.
    pub(crate) fn key(&self, record: &Record, out: &mut Vec<u8>) -> bool {
        out.clear();
        if self.pieces.is_empty() {
            return false;
        }
        for piece in &self.pieces {
            match piece {
                Piece::Text(t) => out.extend_from_slice(t.as_bytes()),
                Piece::Level => out.extend_from_slice(record.level().as_str().as_bytes()),
                Piece::Target => out.extend_from_slice(record.target().as_bytes()),
                Piece::Field(name) => {
                    let found = record.entries().find_map(|e| match e {
                        Entry::Field(k, v) if k == name => Some(v),
                        _ => None,
                    });
                    match found {
                        Some(Value::Str(s)) => out.extend_from_slice(s.as_bytes()),
                        Some(v) => crate::support::json::value(out, v),
                        None => return false,
                    }
                }
                // Resolved into text by `new`.
                Piece::Service | Piece::Host => {}
            }
            if out.len() > MAX_KEY_BYTES {
                break;
            }
        }
        cap(out);
        true
    }
}

/// Cuts `out` to [`MAX_KEY_BYTES`] on a character boundary.
fn cap(out: &mut Vec<u8>) {
    if out.len() <= MAX_KEY_BYTES {
        return;
    }
    let mut end = MAX_KEY_BYTES;
    // A UTF-8 continuation byte is 0b10xx_xxxx: step back to the start of its character.
    while end > 0 && out[end] & 0xC0 == 0x80 {
        end -= 1;
    }
    out.truncate(end);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::record::Level;
    use crate::config::Config;

    fn ctx(service: Option<&str>) -> Context {
        Context::of(&Config {
            service: service.map(str::to_owned),
            hostname: Some("web-1".into()),
            ..Config::default()
        })
    }

    fn key_of(text: &str, service: Option<&str>, r: &Record) -> Option<String> {
        let mut out = Vec::new();
        Keyer::new(KeySource::parse(text).unwrap(), &ctx(service))
            .key(r, &mut out)
            .then(|| String::from_utf8(out).unwrap())
    }

    #[test]
    fn each_source_keys_as_documented() {
        let mut r = Record::new(Level::Warn, "app::pay");
        r.message("m").field("user", "u-7").field("n", 42u64);
        let key = |text: &str| key_of(text, Some("checkout"), &r);
        assert_eq!(key("none"), None);
        for (text, want) in [
            ("service", "checkout"),
            ("host", "web-1"),
            ("level", "WARN"),
            ("target", "app::pay"),
            ("field:user", "u-7"),
            ("field:n", "42"),
            ("{service}-{host}", "checkout-web-1"),
            ("{service}/{user}", "checkout/u-7"),
            ("t:{level}:{n}", "t:WARN:42"),
            ("{{{user}}}", "{u-7}"),
            ("{target}", "app::pay"),
        ] {
            assert_eq!(key(text).as_deref(), Some(want), "{text}");
        }
        assert_eq!(key("field:absent"), None);
        assert_eq!(key("{service}-{absent}"), None, "a named field is absent");
        assert_eq!(key_of("{service}-{host}", None, &r), None, "no service");
        assert_eq!(key_of("host", None, &r).as_deref(), Some("web-1"));
    }

    #[test]
    fn bad_keys_name_the_fix() {
        for bad in [
            "field:",
            "tenant",
            "{service",
            "service}",
            "{}",
            "{a{b}}",
            "plain {{text}}",
            "{field:user}",
        ] {
            let e = KeySource::parse(bad).unwrap_err().to_string();
            assert!(
                e.contains("kafka_key") && e.contains("{service}-{host}"),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn a_huge_field_makes_a_capped_key_cut_on_a_character() {
        let mut r = Record::new(Level::Info, "t");
        let long = "é".repeat(1000);
        r.field("user", long.as_str());
        let k = key_of("{user}", None, &r).unwrap();
        assert!(
            k.len() <= MAX_KEY_BYTES && k.len() >= MAX_KEY_BYTES - 1,
            "{}",
            k.len()
        );
        assert!(k.chars().all(|c| c == 'é'));
    }
}
