//! Duplicate names in JSON bodies: a violation at every vendor.
//!
//! Why it exists: a JSON object with a name written twice is read differently by each
//! parser (first wins, last wins, or an error like Elasticsearch's), so whatever the
//! real intake does with it, the event a user sees is not the one logship meant to send.
//! The strict intake therefore records a duplicate name in any object, at any depth, of
//! any JSON body it accepts, as a protocol violation. It never changes the answer.

use std::collections::HashSet;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use super::shared::{decode_body_with, media_type, MAX_DECODED_BODY};
use super::Protocol;
use logship_http::Request;

/// A JSON value read by a parser that fails on a duplicate name.
struct Strict;

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Strict, D::Error> {
        d.deserialize_any(StrictVisitor)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Strict;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Strict, E> {
        Ok(Strict)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Strict, E> {
        Ok(Strict)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Strict, E> {
        Ok(Strict)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Strict, E> {
        Ok(Strict)
    }
    fn visit_str<E>(self, _: &str) -> Result<Strict, E> {
        Ok(Strict)
    }
    fn visit_unit<E>(self) -> Result<Strict, E> {
        Ok(Strict)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Strict, A::Error> {
        while seq.next_element::<Strict>()?.is_some() {}
        Ok(Strict)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Strict, A::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(de::Error::custom(format!("duplicate name {key:?}")));
            }
            map.next_value::<Strict>()?;
        }
        Ok(Strict)
    }
}

/// The first duplicate name in `body` (one JSON value, or several concatenated or
/// newline-delimited), as a violation message; `None` when there is none or the body is
/// not JSON (the vendor's own decoder reports that).
pub(crate) fn duplicate_name(body: &[u8]) -> Option<String> {
    for value in serde_json::Deserializer::from_slice(body).into_iter::<Strict>() {
        match value {
            Ok(_) => {}
            Err(e) if e.to_string().starts_with("duplicate name") => {
                return Some(format!("JSON object with a {e}"));
            }
            Err(_) => return None,
        }
    }
    None
}

/// The duplicate-name violation of an accepted request, if its body is JSON.
pub(crate) fn check(protocol: Protocol, req: &Request) -> Option<String> {
    if protocol == Protocol::Otlp && media_type(req).as_deref() != Some("application/json") {
        return None; // protobuf: the OTLP decoder checks attribute keys itself
    }
    let body = decode_body_with(req, true, MAX_DECODED_BODY).ok()?;
    duplicate_name(&body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_are_found_at_any_depth_and_across_values() {
        assert_eq!(duplicate_name(br#"{"a":1,"b":{"a":[{"c":1}]}}"#), None);
        assert!(duplicate_name(br#"{"a":1,"a":2}"#)
            .unwrap()
            .contains("\"a\""));
        assert!(duplicate_name(br#"[{"x":{"y":1,"y":1}}]"#).is_some());
        assert!(duplicate_name(b"{\"a\":1}\n{\"b\":1,\"b\":2}\n").is_some());
        assert_eq!(duplicate_name(b"{\"a\":1}{\"a\":1}"), None);
        assert_eq!(duplicate_name(b"not json"), None);
    }
}
