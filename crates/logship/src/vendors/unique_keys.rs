//! Property test: no encoder ever writes a name twice into one object.
//!
//! Random records (nested spans with repeated names, fields recorded several times,
//! names that vendors reserve, names that only collide once Loki makes them query-safe)
//! are encoded by every intake's encoder, in both `span_fields` modes and with tags that
//! collide with each other and with reserved names. Each body is read back with a JSON
//! parser that rejects a duplicate name in any object at any depth; OTLP bodies are
//! decoded with the official types and every attribute list is checked for unique keys.
//! The generator is seeded, so a failure names the case that reproduces it.

use std::collections::HashSet;
use std::fmt;

use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use prost::Message;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use super::Codec;
use crate::config::{Config, OtlpEncoding, OtlpOptions, SpanFields, Vendor};
use crate::capture::record::{Level, Record};
use crate::support::secret::Secret;

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
fn check_json(body: &[u8]) -> Result<usize, String> {
    let mut n = 0;
    for v in serde_json::Deserializer::from_slice(body).into_iter::<Strict>() {
        v.map_err(|e| e.to_string())?;
        n += 1;
    }
    Ok(n)
}

fn check_attrs(attrs: &[KeyValue], what: &str) -> Result<(), String> {
    let mut seen = HashSet::new();
    for kv in attrs {
        if !seen.insert(kv.key.as_str()) {
            return Err(format!("duplicate attribute {:?} in {what}", kv.key));
        }
    }
    Ok(())
}

fn check_otlp(request: &ExportLogsServiceRequest) -> Result<(), String> {
    for rl in &request.resource_logs {
        if let Some(r) = &rl.resource {
            check_attrs(&r.attributes, "resource")?;
        }
        for sl in &rl.scope_logs {
            for lr in &sl.log_records {
                check_attrs(&lr.attributes, "log record")?;
            }
        }
    }
    Ok(())
}

/// Names that collide: with each other, with what vendors reserve, after Loki's mapping.
const KEYS: &[&str] = &[
    "id",
    "user",
    "message",
    "status",
    "level",
    "hostname",
    "target",
    "content",
    "service",
    "service.name",
    "log.level",
    "log",
    "_id",
    "name",
    "spans",
    "timestamp",
    "env",
    "field.status",
    "field.id",
    "tag.env",
    "a.b",
    "a_b",
    "a-b",
    "1a",
    "",
    "logger.name",
    "trace_id",
    "span_id",
    "error",
    "error.kind",
    "error.type",
    "error.message",
    "exception.type",
    "exception_message",
    "error.class",
    "logship.id",
    "logship_id",
    "log.record.uid",
];
const SPANS: &[&str] = &["request", "db", "a", "log", "field", "request.db"];

fn random_record(rng: &mut fastrand::Rng) -> Record {
    let mut r = Record::new(Level::Info, "app::t");
    r.set_timestamp_nanos(1_717_171_717_000_000_000 + rng.u64(..1_000_000_000));
    r.message("m");
    let field = |r: &mut Record, rng: &mut fastrand::Rng| {
        let key = KEYS[rng.usize(..KEYS.len())];
        match rng.u8(..4) {
            0 => r.field(key, rng.i64(..)),
            1 => r.field(key, "v"),
            2 => r.field(key, rng.bool()),
            _ => r.field(key, "4bf92f3577b34da6a3ce929d0e0e4736"),
        };
    };
    for _ in 0..rng.usize(..8) {
        field(&mut r, rng);
    }
    for _ in 0..rng.usize(..3) {
        let key = KEYS[rng.usize(..KEYS.len())];
        r.error(key, &std::io::Error::other("boom"));
    }
    for _ in 0..rng.usize(..5) {
        r.span(SPANS[rng.usize(..SPANS.len())]);
        for _ in 0..rng.usize(..6) {
            field(&mut r, rng);
        }
    }
    if rng.u8(..8) == 0 {
        // Truncation appends its own markers; they must not collide either.
        r.field("logship.truncated", "user's own");
        return r.truncated(64);
    }
    r
}

fn configs() -> Vec<Config> {
    let tags: Vec<String> = [
        "env:a",
        "env:b",
        "service:x",
        "hostname:h",
        "status:s",
        "target:t",
        "content:c",
        "a.b:1",
        "a_b:2",
        "service.name:n",
        "logship.id:t",
        "logship_id:t",
        "flag",
    ]
    .map(String::from)
    .to_vec();
    let mut out = Vec::new();
    for &vendor in Vendor::ALL {
        for mode in [SpanFields::Root, SpanFields::Prefixed] {
            for encoding in [OtlpEncoding::Protobuf, OtlpEncoding::Json] {
                if vendor != Vendor::Otlp && encoding == OtlpEncoding::Json {
                    continue;
                }
                out.push(Config {
                    vendor,
                    endpoint: Some("http://127.0.0.1:9".into()),
                    api_key: Some(Secret::new("k")),
                    service: Some("svc".into()),
                    hostname: Some("web-1".into()),
                    tags: tags.clone(),
                    span_fields: mode,
                    otlp: OtlpOptions { encoding },
                    ..Config::default()
                });
            }
        }
    }
    out
}

fn check_body(config: &Config, body: &[u8]) -> Result<(), String> {
    match (config.vendor, config.otlp.encoding) {
        (Vendor::Otlp, OtlpEncoding::Protobuf) => {
            let request = ExportLogsServiceRequest::decode(body).map_err(|e| e.to_string())?;
            check_otlp(&request)
        }
        (Vendor::Otlp, OtlpEncoding::Json) => {
            check_json(body)?;
            let request: ExportLogsServiceRequest =
                serde_json::from_slice(body).map_err(|e| e.to_string())?;
            check_otlp(&request)
        }
        _ => check_json(body).and_then(|n| {
            if n == 0 {
                Err("no JSON value in the body".into())
            } else {
                Ok(())
            }
        }),
    }
}

#[test]
fn no_encoder_writes_a_name_twice() {
    let configs = configs();
    assert_eq!(configs.len(), Vendor::ALL.len() * 2 + 2);
    for seed in 0..300u64 {
        let mut rng = fastrand::Rng::with_seed(seed);
        let records: Vec<Record> = (0..1 + rng.usize(..4))
            .map(|_| random_record(&mut rng))
            .collect();
        for config in &configs {
            let codec = Codec::new(config).expect("test configuration is valid");
            let body = codec.encode(&records);
            if let Err(e) = check_body(config, &body) {
                panic!(
                    "seed {seed}, {:?} {:?} {:?}: {e}\nrecords: {records:?}\nbody: {}",
                    config.vendor,
                    config.span_fields,
                    config.otlp.encoding,
                    String::from_utf8_lossy(&body)
                );
            }
        }
    }
}

#[test]
fn the_strict_parser_rejects_duplicates_at_any_depth() {
    assert!(check_json(br#"{"a":1,"b":{"c":[{"d":1}]}}"#).is_ok());
    assert!(check_json(br#"{"a":1,"a":2}"#).is_err());
    assert!(check_json(br#"[{"x":{"y":1,"y":1}}]"#).is_err());
    assert!(check_json(b"{\"a\":1}\n{\"a\":1}\n").is_ok());
}

#[test]
fn a_span_field_recorded_twice_arrives_once_with_its_last_value() {
    for mode in [SpanFields::Root, SpanFields::Prefixed] {
        let config = Config {
            vendor: Vendor::Datadog,
            endpoint: Some("http://127.0.0.1:9".into()),
            span_fields: mode,
            ..Config::default()
        };
        let mut r = Record::new(Level::Info, "t");
        r.message("m")
            .field("user", "event")
            .span("request")
            .field("user", "span")
            .field("id", 1i64)
            .span("request")
            .field("id", 2i64)
            .field("id", 3i64);
        let body = Codec::new(&config).unwrap().encode(&[r]);
        check_json(&body).unwrap();
        let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        let (id, user) = match mode {
            SpanFields::Root => ("id", "user"),
            SpanFields::Prefixed => ("request.id", "request.user"),
        };
        assert_eq!(v[0][id], 3, "{mode:?}: innermost, last value");
        match mode {
            SpanFields::Root => assert_eq!(v[0][user], "event", "the event's own wins"),
            SpanFields::Prefixed => assert_eq!(v[0][user], "span"),
        }
    }
}
