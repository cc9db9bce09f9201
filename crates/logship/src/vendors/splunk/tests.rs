//! The Splunk HEC encoder, channel and answers, checked against docs/wire-formats.md
//! section 2.

use super::options::is_guid;
use super::{channel, classify, new_guid};
use crate::config::{Config, Vendor};
use crate::vendors::answer::Outcome;
use crate::vendors::testutil::TestFacts;
use crate::vendors::testutil::{
    assert_auth_header, assert_responses, body, config, url_for, SAMPLE_ID,
};

/// How this vendor's bodies look, for the tests that run over every vendor.
pub(crate) const FACTS: TestFacts = TestFacts::plain("\"logger\":");

#[test]
fn responses_match_wire_formats_md() {
    use Outcome::*;
    assert_responses(
        Vendor::Splunk,
        &[
            (200, Delivered),
            (401, Permanent),
            (403, Permanent),
            (400, Permanent),
            (413, TooLarge),
            (500, Retry),
            (503, Retry),
        ],
    );
}

#[test]
fn an_endpoint_without_a_path_gets_the_standard_path() {
    let url = |e| url_for(Vendor::Splunk, e);
    assert_eq!(
        url("https://hec:8088"),
        "https://hec:8088/services/collector/event"
    );
    assert_eq!(
        url("https://hec:8088/"),
        "https://hec:8088/services/collector/event"
    );
}

#[test]
fn an_endpoint_is_required() {
    let c = config(Vendor::Splunk);
    assert!(c.validate().unwrap_err().to_string().starts_with("endpoint = (none): an endpoint URL is required (set endpoint to the intake's URL, e.g. https://splunk.example.com:8088"));
}

#[test]
fn the_token_comes_from_splunk_hec_token_then_logship_api_key() {
    let mut c = config(Vendor::Splunk);
    c.api_key = None;
    let env = |vars: &'static [(&'static str, &'static str)]| {
        move |k: &str| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    };
    assert_eq!(
        c.resolve_api_key(env(&[("SPLUNK_HEC_TOKEN", "a"), ("LOGSHIP_API_KEY", "b")]))
            .unwrap()
            .expose(),
        "a"
    );
    assert_eq!(
        c.resolve_api_key(env(&[("LOGSHIP_API_KEY", "b")]))
            .unwrap()
            .expose(),
        "b"
    );
    assert!(c.resolve_api_key(env(&[("DD_API_KEY", "c")])).is_none());
    c.api_key = Some("explicit".into());
    assert_eq!(
        c.resolve_api_key(env(&[("SPLUNK_HEC_TOKEN", "a")]))
            .unwrap()
            .expose(),
        "explicit"
    );
}

#[test]
fn the_body_is_concatenated_events_with_seconds() {
    let text = body(Vendor::Splunk, Some("https://hec:8088"));
    assert!(!text.starts_with('['));
    let events: Vec<serde_json::Value> = serde_json::Deserializer::from_str(&text)
        .into_iter()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(events.len(), 2);
    let e = &events[0];
    assert_eq!(e["time"].as_f64().unwrap(), 1_717_171_717.123);
    assert_eq!(e["host"], "web-1");
    assert_eq!(e["source"], "rust");
    assert_eq!(e["sourcetype"], "_json");
    assert_eq!(e["event"]["message"], "paid \"x\"");
    assert_eq!(e["event"]["level"], "WARN");
    assert_eq!(e["event"]["order_id"], 42);
    assert_eq!(
        e["fields"],
        serde_json::json!({"service": "checkout", "env": "prod", "team": "pay", "logship.id": SAMPLE_ID})
    );
}

#[test]
fn the_auth_header_carries_the_key_and_debug_never_shows_it() {
    assert_auth_header(Vendor::Splunk, "Authorization", "Splunk k-123");
}

#[test]
fn generated_channels_are_guids() {
    for _ in 0..100 {
        let g = new_guid();
        assert!(is_guid(&g), "{g}");
    }
}

#[test]
fn a_channel_is_always_sent_and_one_per_process() {
    let mut config = Config::default();
    let first = channel(&config);
    assert!(is_guid(&first), "{first}");
    config.splunk.channel = Some("auto".into());
    assert_eq!(channel(&config), first, "auto is the process's channel");
    let own = "0f8b3c2a-1111-4222-8333-444455556666";
    config.splunk.channel = Some(own.into());
    assert_eq!(channel(&config), own);
}

#[test]
fn invalid_event_number_isolates_one_event() {
    let body = r#"{"text":"Invalid data format","code":6,"invalid-event-number":3}"#;
    assert_eq!(classify(400, body), Outcome::RejectEvent(3));
    assert_eq!(
        classify(400, r#"{"text":"Incorrect index","code":7}"#),
        Outcome::Permanent
    );
}
