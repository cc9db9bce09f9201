//! The Datadog encoder, URLs and answers, checked against docs/wire-formats.md section 1.

use crate::capture::record::{Level, Record};
use crate::config::{Config, SpanFields, Vendor};
use crate::vendors::answer::Outcome;
use crate::vendors::codec::Codec;
use crate::vendors::testutil::TestFacts;
use crate::vendors::testutil::{assert_auth_header, assert_responses, body, config, url_for};

/// How this vendor's bodies look, for the tests that run over every vendor.
pub(crate) const FACTS: TestFacts = TestFacts::plain("\"logger.name\":");

#[test]
fn responses_match_wire_formats_md() {
    use Outcome::*;
    assert_responses(
        Vendor::Datadog,
        &[
            (202, Delivered),
            (400, Permanent),
            (401, Permanent),
            (403, Permanent),
            (408, Retry),
            (413, TooLarge),
            (429, Retry),
            (500, Retry),
            (503, Retry),
        ],
    );
}

#[test]
fn default_urls_per_site() {
    let dd = |site: Option<&str>| {
        let mut c = config(Vendor::Datadog);
        c.site = site.map(str::to_owned);
        Codec::new(&c).unwrap().url().to_owned()
    };
    assert_eq!(
        dd(None),
        "https://http-intake.logs.datadoghq.com/api/v2/logs"
    );
    assert_eq!(
        dd(Some("datadoghq.eu")),
        "https://http-intake.logs.datadoghq.eu/api/v2/logs"
    );
    assert_eq!(
        dd(Some("us2.ddog-gov.com")),
        "https://http-intake.logs.us2.ddog-gov.com/api/v2/logs"
    );
}

#[test]
fn an_endpoint_without_a_path_gets_the_standard_path() {
    let url = |e| url_for(Vendor::Datadog, e);
    assert_eq!(url("http://127.0.0.1:9"), "http://127.0.0.1:9/api/v2/logs");
}

#[test]
fn validation_names_the_field_and_the_fix() {
    let mut c = config(Vendor::Datadog);
    c.api_key = None;
    assert_eq!(
        c.validate().unwrap_err().to_string(),
        "api_key = (none): vendor datadog needs an API key (set api_key or DD_API_KEY)"
    );
    let mut c = config(Vendor::Datadog);
    c.site = Some("datadog.com".into());
    assert!(c
        .validate()
        .unwrap_err()
        .to_string()
        .starts_with("site = datadog.com: is not a Datadog site (use one of: datadoghq.com,"));
}

#[test]
fn the_body_is_an_array_of_documented_entries() {
    let v: serde_json::Value = serde_json::from_str(&body(Vendor::Datadog, None)).unwrap();
    let e = &v[0];
    assert_eq!(v.as_array().unwrap().len(), 2);
    assert_eq!(e["message"], "paid \"x\"");
    assert_eq!(e["status"], "warning");
    assert_eq!(e["timestamp"], 1_717_171_717_123u64);
    assert_eq!(e["service"], "checkout");
    assert_eq!(e["ddsource"], "rust");
    assert_eq!(e["hostname"], "web-1");
    assert_eq!(e["ddtags"], "env:prod,team:pay");
    assert_eq!(e["logger.name"], "app::pay");
    assert_eq!(e["order_id"], 42);
    assert_eq!(e["field.status"], "shadowed");
    assert_eq!(e["id"], 7, "span fields at the root");
}

#[test]
fn the_auth_header_carries_the_key_and_debug_never_shows_it() {
    assert_auth_header(Vendor::Datadog, "DD-API-KEY", "k-123");
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
        crate::vendors::testutil::check_json(&body).unwrap();
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

#[test]
fn an_events_source_hint_is_its_ddsource_unless_source_is_configured() {
    let encode = |source: Option<&str>| {
        let mut c = config(Vendor::Datadog);
        c.source = source.map(str::to_owned);
        let mut hinted = Record::new(Level::Info, "com.x.A");
        hinted
            .message("m")
            .source_hint("java")
            .field("source", "own");
        let mut plain = Record::new(Level::Info, "t");
        plain.message("m");
        let body = Codec::new(&c).unwrap().encode(&[hinted, plain]);
        let text = String::from_utf8(body).unwrap();
        assert_eq!(text.matches("\"ddsource\"").count(), 2, "{text}");
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert!(
            v[0].get("logship.source").is_none(),
            "the hint is no attribute"
        );
        assert_eq!(v[0]["field.source"], "own");
        (v[0]["ddsource"].clone(), v[1]["ddsource"].clone())
    };
    assert_eq!(encode(None), ("java".into(), "rust".into()));
    assert_eq!(encode(Some("mule")), ("mule".into(), "mule".into()));
}
