//! New Relic end to end against the intake's strict emulation of it: 1 MB on the wire
//! never exceeded, with or without gzip, and the key never shown.

mod common;

use common::vendors::*;
use common::*;
use logship::{Record, Vendor};

#[test]
fn new_relic_900_kb_events_never_exceed_1_mb_on_the_wire() {
    let intake = vendor_intake();
    // Text gzip can barely shrink: a pseudo-random alphabet soup.
    let mut rng = fastrand::Rng::with_seed(7);
    let blob = |rng: &mut fastrand::Rng| -> String {
        (0..900 * 1024).map(|_| rng.alphanumeric()).collect()
    };
    let events: Vec<Record> = (0..6)
        .map(|i| {
            let mut r = event(i, 0);
            r.field("blob", blob(&mut rng).as_str());
            r
        })
        .collect();
    let logship = ship(vendor_builder(&intake, Vendor::NewRelic), events);
    assert_clean(&intake, &logship, 6);
    assert_eq!(
        logship.stats().truncated,
        0,
        "900 KiB fits New Relic's limit once compressed"
    );
    for r in intake.requests() {
        assert_eq!(r.path, "/log/v1");
        assert_eq!(r.header("api-key"), Some(KEY));
        assert!(
            r.body_bytes <= 1_000_000,
            "{} bytes on the wire",
            r.body_bytes
        );
    }
    for e in intake.events() {
        let v = &e.value;
        assert!(v["timestamp"].as_u64().unwrap() > now_ms() - 60_000);
        assert_eq!(
            v["attributes"]["level"],
            if v["attributes"]["seq"] == 0 {
                "ERROR"
            } else {
                "INFO"
            }
        );
        assert_eq!(v["common"]["service"], "checkout");
        assert_eq!(v["common"]["hostname"], "web-1");
        assert_eq!(v["common"]["env"], "prod");
    }
}

#[test]
fn new_relic_without_gzip_still_keeps_each_request_under_1_mb() {
    let intake = vendor_intake();
    let n = 400;
    let logship = ship(
        vendor_builder(&intake, Vendor::NewRelic).gzip(false),
        (0..n).map(|i| event(i, 10_000)),
    );
    assert_clean(&intake, &logship, n);
    assert!(intake.requests().len() >= 4);
    for r in intake.requests() {
        assert!(r.body_bytes <= 1_000_000, "{} bytes", r.body_bytes);
        assert_eq!(r.header("content-encoding"), None);
    }
}
