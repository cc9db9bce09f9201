//! The Elasticsearch / OpenSearch `_bulk` encoder, auth and per-item answers, checked
//! against docs/wire-formats.md section 7.

use crate::capture::record::{Level, Record};
use crate::config::{Config, Vendor};
use crate::support::secret::Secret;
use crate::vendors::codec::Codec;
use crate::vendors::testutil::{body, with_endpoint, SAMPLE_ID};

use super::*;
use crate::vendors::testutil::TestFacts;

/// How this vendor's bodies look, for the tests that run over every vendor.
pub(crate) const FACTS: TestFacts = TestFacts {
    id_marker: "\"_id\":",
    ..TestFacts::plain("\"log.logger\":")
};
#[test]
fn body_is_create_pairs_with_a_final_newline() {
    let text = body(Vendor::Elasticsearch, Some("http://es:9200"));
    assert!(text.ends_with("}\n"), "the last line ends with a newline");
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4, "an action and a source line per event");
    assert_eq!(
        lines[0],
        serde_json::json!({"create": {"_index": "logs-logship-default", "_id": SAMPLE_ID}})
    );
    let d = &lines[1];
    assert_eq!(d["@timestamp"], "2024-05-31T16:08:37.123Z");
    assert_eq!(d["message"], "paid \"x\"");
    assert_eq!(d["log.level"], "WARN");
    assert_eq!(d["log.logger"], "app::pay");
    assert_eq!(d["service.name"], "checkout");
    assert_eq!(d["host.name"], "web-1");
    assert_eq!(d["event.dataset"], "rust");
    assert_eq!(
        d["labels"],
        serde_json::json!({"env": "prod", "team": "pay"})
    );
    assert_eq!(d["order_id"], 42);
    assert_eq!(d["status"], "shadowed", "status is not reserved in ECS");
    assert_eq!(d["id"], 7);
    let codec = Codec::new(&with_endpoint(Vendor::Elasticsearch, "http://es:9200")).unwrap();
    assert_eq!(
        codec.url(),
        "http://es:9200/_bulk?filter_path=errors,items.*.status,items.*.error.type,items.*.error.reason"
    );
    let codec = Codec::new(&with_endpoint(
        Vendor::Elasticsearch,
        "http://es:9200?pipeline=logs",
    ))
    .unwrap();
    assert!(
        codec
            .url()
            .starts_with("http://es:9200/_bulk?pipeline=logs&filter_path=errors,items.*.status,"),
        "{}",
        codec.url()
    );
    assert_eq!(codec.content_type(), "application/x-ndjson");
}

#[test]
fn reserved_and_metadata_fields_are_renamed() {
    let mut r = Record::new(Level::Info, "t");
    r.message("m")
        .field("_id", "mine")
        .field("log", "text")
        .field("message", "dup")
        .field("@timestamp", "x");
    let codec = Codec::new(&with_endpoint(Vendor::Elasticsearch, "http://es:9200")).unwrap();
    let text = String::from_utf8(codec.encode(&[r])).unwrap();
    let doc: serde_json::Value = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
    assert_eq!(doc["field._id"], "mine");
    assert_eq!(doc["field.log"], "text");
    assert_eq!(doc["field.message"], "dup");
    assert_eq!(doc["field.@timestamp"], "x");
    assert_eq!(doc["message"], "m");
    assert!(doc.get("_id").is_none());
}

#[test]
fn auth_is_basic_or_api_key_or_none_and_never_shown() {
    let es = |username: Option<&str>, password: Option<&str>, key: Option<&str>| Config {
        username: username.map(str::to_owned),
        password: password.map(Secret::new),
        api_key: key.map(Secret::new),
        ..with_endpoint(Vendor::Elasticsearch, "http://es:9200")
    };
    let auth = |c: &Config| {
        c.validate().unwrap();
        let codec = Codec::new(c).unwrap();
        assert!(!format!("{codec:?} {c:?}").contains("s3cret"));
        codec
            .headers()
            .iter()
            .find(|(n, _)| n == "Authorization")
            .map(|(_, v)| v.expose().to_owned())
    };
    assert_eq!(
        auth(&es(Some("elastic"), Some("s3cret"), None)).as_deref(),
        Some("Basic ZWxhc3RpYzpzM2NyZXQ=")
    );
    assert_eq!(
        auth(&es(None, None, Some("s3cret=="))).as_deref(),
        Some("ApiKey s3cret==")
    );
    assert_eq!(auth(&es(None, None, None)), None, "auth is optional");
    for (c, want) in [
        (
            es(Some("elastic"), None, None),
            "password = (none): basic auth needs a password",
        ),
        (
            es(None, Some("s3cret"), None),
            "username = (none): basic auth needs a username",
        ),
        (
            es(Some("elastic"), Some("s3cret"), Some("k")),
            "api_key = [redacted]: both an API key and a username/password are set",
        ),
        (
            es(Some("a:b"), Some("s3cret"), None),
            "username = a:b: may not contain ':'",
        ),
    ] {
        let err = c.validate().unwrap_err().to_string();
        assert!(err.starts_with(want), "{err}");
        assert!(!err.contains("s3cret"), "{err}");
    }
}

#[test]
fn date_patterns_name_the_index_per_event() {
    let c = Config {
        elasticsearch: crate::vendors::elasticsearch::options::ElasticsearchOptions {
            index: Some("logs-%Y.%m.%d".into()),
        },
        ..with_endpoint(Vendor::Elasticsearch, "http://es:9200")
    };
    c.validate().unwrap();
    let codec = Codec::new(&c).unwrap();
    let at = |nanos: u64| {
        let mut r = Record::new(Level::Info, "t");
        r.set_id(None).set_timestamp_nanos(nanos).message("m");
        r
    };
    // 2024-05-31T23:59:59.999Z and one millisecond later.
    let text = String::from_utf8(
        codec.encode(&[at(1_717_199_999_999_000_000), at(1_717_200_000_000_000_000)]),
    )
    .unwrap();
    let actions: Vec<&str> = text.lines().step_by(2).collect();
    assert_eq!(
        actions,
        [
            r#"{"create":{"_index":"logs-2024.05.31"}}"#,
            r#"{"create":{"_index":"logs-2024.06.01"}}"#
        ]
    );
    let bad = Config {
        elasticsearch: crate::vendors::elasticsearch::options::ElasticsearchOptions {
            index: Some("Logs-%Y".into()),
        },
        ..c
    };
    assert!(bad
        .validate()
        .unwrap_err()
        .to_string()
        .starts_with("index = Logs-%Y: must be lower case"));
}

#[test]
fn basic_auth_is_user_colon_password_in_standard_base64() {
    let config = Config {
        username: Some("elastic".into()),
        password: Some(crate::support::secret::Secret::new("changeme")),
        ..Config::default()
    };
    assert_eq!(
        authorization(&config).as_deref(),
        Some("Basic ZWxhc3RpYzpjaGFuZ2VtZQ==")
    );
}

#[test]
fn date_patterns_expand_in_utc() {
    // 2024-05-31T13:08:37.123Z
    let t = 1_717_160_917_123_000_000;
    let name = IndexName::parse("logs-%Y.%m.%d").unwrap();
    assert!(name.is_dated());
    assert_eq!(name.render(t), "logs-2024.05.31");
    assert_eq!(
        IndexName::parse("app-%Y-%m-%d-%H").unwrap().render(t),
        "app-2024-05-31-13"
    );
    assert_eq!(
        IndexName::parse("a%%b").unwrap().render(t),
        "a%b",
        "%% is a literal percent"
    );
    assert!(!IndexName::parse("logs-app-default").unwrap().is_dated());
}

#[test]
fn bad_index_names_are_refused_with_the_reason() {
    for (name, problem) in [
        ("Logs", "lower case"),
        ("logs %Y", "may not contain ' '"),
        ("_logs", "may not start"),
        ("logs-%j", "unknown date directive %j"),
        ("logs-%", "lone %"),
        ("", "empty"),
        ("a/b", "may not contain '/'"),
    ] {
        let err = IndexName::parse(name).unwrap_err().to_string();
        assert!(err.contains(problem), "{name}: {err}");
    }
}

#[test]
fn a_bulk_answer_splits_into_retry_and_rejected() {
    let body = r#"{"took":3,"errors":true,"items":[
        {"create":{"_index":"logs","status":201,"result":"created"}},
        {"create":{"_index":"logs","status":429,"error":{"type":"es_rejected_execution_exception","reason":"queue full"}}},
        {"create":{"_index":"logs","status":400,"error":{"type":"mapper_parsing_exception","reason":"failed to parse field [n]"}}},
        {"create":{"_index":"logs","status":503,"error":{"type":"unavailable_shards_exception","reason":"primary shard is not active"}}},
        {"create":{"_index":"logs","status":409,"error":{"type":"version_conflict_engine_exception","reason":"exists"}}},
        {"create":{"_index":"logs","status":409,"error":{"type":"some_other_conflict","reason":"?"}}}
    ]}"#;
    assert_eq!(classify(200, body), Outcome::Items);
    let r = items(body, 6).unwrap();
    assert_eq!(r.retry, vec![1, 3]);
    // A version conflict on `create` is the document already stored: delivered, once.
    assert_eq!(r.already_delivered, 1);
    assert_eq!(r.rejected, vec![2, 5], "another 409 is still a rejection");
    assert_eq!(r.rejected_status, Some(400));
    assert_eq!(
        r.retry_error.as_deref(),
        Some("429 es_rejected_execution_exception: queue full")
    );
    assert!(r
        .rejected_error
        .unwrap()
        .contains("mapper_parsing_exception"));
    assert!(items(body, 5).is_none(), "one item per event sent");
    assert!(items("not json", 6).is_none());
}

#[test]
fn the_filter_path_joins_any_query_string() {
    let f = FILTER_PATH;
    for (url, want) in [
        ("http://es:9200/_bulk", format!("http://es:9200/_bulk?{f}")),
        ("http://es:9200/_bulk?", format!("http://es:9200/_bulk?{f}")),
        (
            "https://es/logs/_bulk?pipeline=p&refresh=false",
            format!("https://es/logs/_bulk?pipeline=p&refresh=false&{f}"),
        ),
        (
            "http://es/_bulk?filter_path=took&pipeline=p",
            format!("http://es/_bulk?pipeline=p&{f}"),
        ),
        ("http://es/_bulk#x", format!("http://es/_bulk?{f}#x")),
    ] {
        assert_eq!(with_filter_path(url), want, "{url}");
    }
}

#[test]
fn a_filtered_bulk_answer_reads_like_a_full_one() {
    let body = r#"{"errors":true,"items":[
        {"create":{"status":201}},
        {"create":{"status":429,"error":{"type":"es_rejected_execution_exception","reason":"queue full"}}},
        {"create":{"status":400,"error":{"type":"mapper_parsing_exception","reason":"failed to parse field [n]"}}}
    ]}"#;
    assert_eq!(classify(200, body), Outcome::Items);
    let r = items(body, 3).unwrap();
    assert_eq!(r.retry, vec![1]);
    assert_eq!(r.rejected, vec![2]);
    assert_eq!(
        r.retry_error.as_deref(),
        Some("429 es_rejected_execution_exception: queue full")
    );
    let ok = r#"{"errors":false,"items":[{"create":{"status":201}}]}"#;
    assert_eq!(classify(200, ok), Outcome::Delivered);
}

#[test]
fn statuses_map_to_outcomes() {
    let ok = r#"{"took":1,"errors":false,"items":[{"create":{"status":201}}]}"#;
    assert_eq!(classify(200, ok), Outcome::Delivered);
    assert_eq!(classify(200, r#"{"errors":true}"#), Outcome::Items);
    for (status, want) in [
        (401, Outcome::Permanent),
        (403, Outcome::Permanent),
        (400, Outcome::Permanent),
        (406, Outcome::Permanent),
        (413, Outcome::TooLarge),
        (429, Outcome::Retry),
        (500, Outcome::Retry),
        (501, Outcome::Permanent),
        (503, Outcome::Retry),
    ] {
        assert_eq!(classify(status, "{}"), want, "{status}");
    }
}
