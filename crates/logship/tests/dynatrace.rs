//! Dynatrace end to end against the intake's strict emulation of it: at most 50,000
//! records per request, and partial success counted and not resent.

mod common;

use common::vendors::*;
use common::*;
use logship::Vendor;
use logship_intake::Fault;

#[test]
fn dynatrace_records_arrive_within_50000_per_request() {
    let intake = vendor_intake();
    let n = 60_000;
    let logship = ship(
        vendor_builder(&intake, Vendor::Dynatrace),
        (0..n).map(|i| event(i, 0)),
    );
    assert_clean(&intake, &logship, n);
    let requests = intake.requests();
    assert!(requests.len() >= 2);
    for r in &requests {
        assert_eq!(r.path, "/api/v2/logs/ingest");
        assert_eq!(
            r.header("authorization"),
            Some(format!("Api-Token {KEY}").as_str())
        );
        assert!(r.events <= 50_000 && r.decoded_bytes <= 10_000_000);
        assert_eq!(r.status, 204);
    }
    let e = intake
        .events()
        .into_iter()
        .find(|e| e.value["seq"] == 10)
        .unwrap()
        .value;
    assert_eq!(e["severity"], "ERROR");
    assert_eq!(e["log.source"], "rust-test");
    assert_eq!(e["service.name"], "checkout");
    assert_eq!(e["host.name"], "web-1");
    assert!(e["content"].as_str().unwrap().starts_with("payment 10"));
    assert!(e["timestamp"].as_str().unwrap().ends_with('Z'));
}

#[test]
fn dynatrace_partial_success_is_counted_and_not_resent() {
    let intake = vendor_intake();
    intake.fail_next(
        1,
        Fault::Status {
            status: 200,
            headers: vec![],
            body: r#"{"details":{"code":200,"message":"1 record too large"}}"#.into(),
        },
    );
    let logship = ship(
        vendor_builder(&intake, Vendor::Dynatrace),
        (0..5).map(|i| event(i, 0)),
    );
    let stats = logship.stats();
    assert_eq!(stats.partial_requests, 1);
    assert_eq!(stats.events_delivered, 5);
    assert_eq!(stats.retries, 0);
    assert_eq!(intake.requests().len(), 1);
}
