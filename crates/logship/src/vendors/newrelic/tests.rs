//! The New Relic encoder, URLs and answers, checked against docs/wire-formats.md
//! section 3.

use crate::config::Vendor;
use crate::vendors::answer::Outcome;
use crate::vendors::codec::Codec;
use crate::vendors::testutil::TestFacts;
use crate::vendors::testutil::{
    assert_auth_header, assert_responses, body, config, url_for, with_endpoint,
};

/// How this vendor's bodies look, for the tests that run over every vendor.
pub(crate) const FACTS: TestFacts = TestFacts::plain("\"logger.name\":");

#[test]
fn responses_match_wire_formats_md() {
    use Outcome::*;
    assert_responses(
        Vendor::NewRelic,
        &[
            (202, Delivered),
            (400, Permanent),
            (403, Permanent),
            (404, Permanent),
            (408, Retry),
            (411, Permanent),
            (413, TooLarge),
            (415, Permanent),
            (429, Retry),
            (500, Retry),
        ],
    );
}

#[test]
fn default_urls_per_region() {
    let nr = |region: &str| {
        let mut c = config(Vendor::NewRelic);
        c.region = Some(region.into());
        Codec::new(&c).unwrap().url().to_owned()
    };
    assert_eq!(nr("us"), "https://log-api.newrelic.com/log/v1");
    assert_eq!(nr("eu"), "https://log-api.eu.newrelic.com/log/v1");
    assert_eq!(nr("jp"), "https://log-api.jp.nr-data.net/log/v1");
    assert_eq!(nr("fedramp"), "https://gov-log-api.newrelic.com/log/v1");
}

#[test]
fn an_endpoint_without_a_path_gets_the_standard_path() {
    let url = |e| url_for(Vendor::NewRelic, e);
    assert_eq!(
        url("http://127.0.0.1:9/custom"),
        "http://127.0.0.1:9/custom"
    );
}

#[test]
fn validation_names_the_field_and_the_fix() {
    let mut c = config(Vendor::NewRelic);
    c.region = Some("asia".into());
    assert_eq!(
        c.validate().unwrap_err().to_string(),
        "region = asia: is not a New Relic region (use one of: us, eu, jp, fedramp)"
    );
}

#[test]
fn the_body_is_the_detailed_format_in_milliseconds() {
    let v: serde_json::Value = serde_json::from_str(&body(Vendor::NewRelic, None)).unwrap();
    let block = &v[0];
    assert_eq!(
        block["common"]["attributes"],
        serde_json::json!({"hostname": "web-1", "service": "checkout", "logtype": "rust", "env": "prod", "team": "pay"})
    );
    let log = &block["logs"][0];
    assert_eq!(log["timestamp"], 1_717_171_717_123u64);
    assert_eq!(log["message"], "paid \"x\"");
    assert_eq!(log["attributes"]["level"], "WARN");
    assert_eq!(log["attributes"]["status"], "shadowed");
    assert_eq!(log["attributes"]["id"], 7);
    for value in log["attributes"].as_object().unwrap().values() {
        assert!(!value.is_array() && !value.is_object());
    }
}

#[test]
fn the_auth_header_carries_the_key_and_debug_never_shows_it() {
    assert_auth_header(Vendor::NewRelic, "Api-Key", "k-123");
}

#[test]
fn batches_for_a_wire_limited_intake_follow_the_observed_compression_ratio() {
    let mut c = config(Vendor::NewRelic);
    c.max_batch_bytes = 64 << 20;
    let codec = Codec::new(&c).unwrap();
    // Before any compression is seen, a batch may not exceed the wire limit raw.
    assert_eq!(codec.max_body_now(), 1_000_000);
    codec.note_compression(6_000_000, 1_000_000);
    assert_eq!(
        codec.max_body_now(),
        5_100_000,
        "6x ratio with 15% headroom"
    );
    codec.note_compression(1_000, 2_000); // incompressible: never below the wire limit
    assert_eq!(codec.max_body_now(), 1_000_000);
    // Intakes without a wire limit keep their raw limit.
    let plain = Codec::new(&with_endpoint(Vendor::Ndjson, "http://x")).unwrap();
    plain.note_compression(6_000_000, 1_000_000);
    assert_eq!(plain.max_body_now(), 1 << 20);
}
