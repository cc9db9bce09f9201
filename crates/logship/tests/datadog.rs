//! Datadog end to end against the intake's strict emulation of it: documented shape and
//! units, at most 1,000 entries per request, an event over 1 MB capped and counted, and the
//! key never shown.

mod common;

use common::vendors::*;
use common::*;
use logship::Vendor;

#[test]
fn datadog_entries_arrive_as_documented_within_1000_per_request() {
    let intake = vendor_intake();
    let n = 5000;
    let logship = ship(
        vendor_builder(&intake, Vendor::Datadog),
        (0..n).map(|i| event(i, 50)),
    );
    assert_clean(&intake, &logship, n);
    let requests = intake.requests();
    assert!(requests.len() >= 5);
    for r in &requests {
        assert_eq!(r.path, "/api/v2/logs");
        assert_eq!(r.header("dd-api-key"), Some(KEY));
        assert!(
            r.events <= 1000 && r.decoded_bytes <= 5_000_000,
            "{} events",
            r.events
        );
    }
    let start = now_ms() - 60_000;
    for e in intake.events() {
        let v = &e.value;
        let i = v["seq"].as_u64().unwrap();
        assert_eq!(
            v["status"],
            if i.is_multiple_of(10) {
                "error"
            } else {
                "info"
            }
        );
        let ts = v["timestamp"].as_u64().unwrap();
        assert!(
            ts > start && ts <= now_ms(),
            "timestamp {ts} is not epoch ms"
        );
        assert_eq!(v["service"], "checkout");
        assert_eq!(v["ddsource"], "rust-test");
        assert_eq!(v["hostname"], "web-1");
        assert_eq!(v["ddtags"], "env:prod,team:pay");
        assert_eq!(v["amount"], 12.5);
        assert!(v["message"]
            .as_str()
            .unwrap()
            .starts_with(&format!("payment {i} ")));
    }
}

#[test]
fn datadog_caps_an_event_over_1_mb_and_counts_it() {
    let intake = vendor_intake();
    let mut big = event(0, 0);
    big.field("blob", "b".repeat(1_500_000).as_str());
    let logship = ship(
        vendor_builder(&intake, Vendor::Datadog).max_event_bytes(8 * 1024 * 1024),
        [big, event(1, 10)],
    );
    assert_clean(&intake, &logship, 2);
    assert_eq!(logship.stats().truncated, 1);
    let capped = intake
        .events()
        .into_iter()
        .find(|e| e.value["seq"] == 0)
        .unwrap();
    assert_eq!(capped.value["logship.truncated"], true);
    assert!(serde_json::to_vec(&capped.value).unwrap().len() <= 1_000_000);
}
