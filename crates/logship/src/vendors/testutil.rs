//! What the vendors' tests share: a configuration for any vendor, a sample record, the
//! body a codec writes for it, a JSON reader that refuses a name written twice, and the
//! facts each vendor folder states for the tests that run over every vendor. Test builds
//! only.

use std::collections::HashSet;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::capture::record::{EventId, Level, Record};
use crate::config::{Config, Vendor};
use crate::support::secret::Secret;
use crate::vendors::answer::Outcome;
use crate::vendors::codec::Codec;

pub(crate) fn config(vendor: Vendor) -> Config {
    Config {
        vendor,
        api_key: Some(Secret::new("k-123")),
        hostname: Some("web-1".into()),
        service: Some("checkout".into()),
        tags: vec!["env:prod".into(), "team:pay".into()],
        ..Config::default()
    }
}

pub(crate) fn with_endpoint(vendor: Vendor, endpoint: &str) -> Config {
    Config {
        endpoint: Some(endpoint.into()),
        ..config(vendor)
    }
}

pub(crate) fn sample() -> Record {
    let mut r = Record::new(Level::Warn, "app::pay");
    r.set_id(Some(EventId::from_parts(0xabc, 1)))
        .set_timestamp_nanos(1_717_171_717_123_456_789)
        .message("paid \"x\"")
        .field("order_id", 42u64)
        .field("status", "shadowed")
        .span("request")
        .field("id", 7i64);
    r
}

/// The id of [`sample`], as every vendor writes it.
pub(crate) const SAMPLE_ID: &str = "0000000000000abc0000000000000001";

pub(crate) fn body(vendor: Vendor, endpoint: Option<&str>) -> String {
    let mut c = config(vendor);
    c.endpoint = endpoint.map(str::to_owned);
    let codec = Codec::new(&c).unwrap();
    String::from_utf8(codec.encode(&[sample(), sample()])).unwrap()
}

/// Asserts what each answer status means for `vendor` (its table in
/// docs/wire-formats.md).
pub(crate) fn assert_responses(vendor: Vendor, cases: &[(u16, Outcome)]) {
    let codec = Codec::new(&with_endpoint(vendor, "https://intake.example")).unwrap();
    for &(status, want) in cases {
        assert_eq!(codec.classify(status, b""), want, "{vendor:?} {status}");
    }
}

/// Asserts that `vendor`'s header `name` carries `value` (made from the key `k-123`) and
/// that the codec's `Debug` never shows the key.
pub(crate) fn assert_auth_header(vendor: Vendor, name: &str, value: &str) {
    let codec = Codec::new(&with_endpoint(vendor, "https://x")).unwrap();
    let header = codec.headers().iter().find(|(n, _)| n == name).unwrap();
    assert_eq!(header.1.expose(), value);
    assert!(!format!("{codec:?}").contains("k-123"));
}

/// The URL `vendor`'s requests go to for `endpoint`.
pub(crate) fn url_for(vendor: Vendor, endpoint: &str) -> String {
    Codec::new(&with_endpoint(vendor, endpoint))
        .unwrap()
        .url()
        .to_owned()
}

/// Checks one body in a configuration's encoding: `Err` says what is wrong.
pub(crate) type BodyCheck = fn(&Config, &[u8]) -> Result<(), String>;

/// What a vendor's bodies look like, for the tests that run over every vendor (each
/// vendor folder's `tests::FACTS`).
pub(crate) struct TestFacts {
    /// What stands before the event's id in a body (its name, as written).
    pub id_marker: &'static str,
    /// What stands before the logger's name in a body (`"<key>":`).
    pub logger_key: &'static str,
    /// Whether the logger's member is written even for an event without a logger (with
    /// an empty name), because the body shape requires it.
    pub logger_always: bool,
    /// Checks that no object or attribute list of a body in `config`'s encoding holds a
    /// name twice; `None`: every JSON value of the body, read strictly.
    pub unique_names: Option<BodyCheck>,
}

impl TestFacts {
    /// A vendor that writes the id as `logship.id` and the logger under `logger_key`.
    pub(crate) const fn plain(logger_key: &'static str) -> TestFacts {
        TestFacts {
            id_marker: "\"logship.id\":",
            logger_key,
            logger_always: false,
            unique_names: None,
        }
    }
}

/// A JSON value read by a parser that fails on a duplicate name in any object.
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
                return Err(de::Error::custom(format!("duplicate key {key:?}")));
            }
            map.next_value::<Strict>()?;
        }
        Ok(Strict)
    }
}

/// Every JSON value in `body` (one, or several concatenated / newline-delimited),
/// each parsed strictly.
pub(crate) fn check_json(body: &[u8]) -> Result<usize, String> {
    let mut n = 0;
    for v in serde_json::Deserializer::from_slice(body).into_iter::<Strict>() {
        v.map_err(|e| e.to_string())?;
        n += 1;
    }
    Ok(n)
}
