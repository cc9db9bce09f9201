//! The Dynatrace encoder and answers, checked against docs/wire-formats.md section 4.

use crate::config::Vendor;
use crate::vendors::answer::Outcome;
use crate::vendors::testutil::TestFacts;
use crate::vendors::testutil::{assert_auth_header, assert_responses, body, url_for};

/// How this vendor's bodies look, for the tests that run over every vendor.
pub(crate) const FACTS: TestFacts = TestFacts::plain("\"logger.name\":");

#[test]
fn responses_match_wire_formats_md() {
    use Outcome::*;
    assert_responses(
        Vendor::Dynatrace,
        &[
            (204, Delivered),
            (200, Partial),
            (400, Permanent),
            (401, Permanent),
            (402, Permanent),
            (413, TooLarge),
            (429, Retry),
            (501, Permanent),
            (502, Retry),
            (503, Retry),
            (504, Retry),
        ],
    );
}

#[test]
fn an_endpoint_without_a_path_gets_the_standard_path() {
    let url = |e| url_for(Vendor::Dynatrace, e);
    assert_eq!(
        url("https://x.live.dynatrace.com"),
        "https://x.live.dynatrace.com/api/v2/logs/ingest"
    );
}

#[test]
fn the_body_is_an_array_of_records() {
    let v: serde_json::Value =
        serde_json::from_str(&body(Vendor::Dynatrace, Some("https://x"))).unwrap();
    let r = &v[1];
    assert_eq!(r["content"], "paid \"x\"");
    assert_eq!(r["timestamp"], "2024-05-31T16:08:37.123Z");
    assert_eq!(r["severity"], "WARN");
    assert_eq!(r["log.source"], "rust");
    assert_eq!(r["service.name"], "checkout");
    assert_eq!(r["host.name"], "web-1");
    assert_eq!(r["field.status"], "shadowed");
    assert_eq!(r["env"], "prod");
}

#[test]
fn the_auth_header_carries_the_key_and_debug_never_shows_it() {
    assert_auth_header(Vendor::Dynatrace, "Authorization", "Api-Token k-123");
}
