//! Property test: no encoder ever writes a name twice into one object.
//!
//! Random records (nested spans with repeated names, fields recorded several times,
//! names that vendors reserve, names that only collide once made query-safe in the label
//! alphabet) are encoded by every intake's encoder, in each of its body encodings, in
//! both `span_fields` modes and with tags that collide with each other and with reserved
//! names. Each body is read back with a JSON parser that rejects a duplicate name in any
//! object at any depth, or, for a binary encoding, decoded by the vendor's own check
//! (`TestFacts::unique_names`). The generator is seeded, so a failure names the case that
//! reproduces it.

use crate::capture::record::{Level, Record};
use crate::config::{Config, SpanFields, Vendor};
use crate::support::secret::Secret;
use crate::vendors::codec::Codec;
use crate::vendors::testutil::check_json;
use crate::vendors::{prefer_json, test_facts};

/// Names that collide: with each other, with what vendors reserve, in the label alphabet.
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

/// Every vendor in each of its body encodings and both `span_fields` modes.
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
            let mut content_types = Vec::new();
            for json in [false, true] {
                let mut config = Config {
                    vendor,
                    endpoint: Some("http://127.0.0.1:9".into()),
                    api_key: Some(Secret::new("k")),
                    service: Some("svc".into()),
                    hostname: Some("web-1".into()),
                    tags: tags.clone(),
                    span_fields: mode,
                    ..Config::default()
                };
                prefer_json(&mut config, json);
                let content_type = Codec::new(&config).expect("valid").content_type();
                if !content_types.contains(&content_type) {
                    content_types.push(content_type);
                    out.push(config);
                }
            }
        }
    }
    out
}

fn check_body(config: &Config, body: &[u8]) -> Result<(), String> {
    match test_facts(config.vendor).unique_names {
        Some(check) => check(config, body),
        None => check_json(body).and_then(|n| {
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
    assert!(
        configs.len() > Vendor::ALL.len() * 2,
        "a binary encoding too"
    );
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
                    "seed {seed}, {:?} {:?} {}: {e}\nrecords: {records:?}\nbody: {}",
                    config.vendor,
                    config.span_fields,
                    codec.content_type(),
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
