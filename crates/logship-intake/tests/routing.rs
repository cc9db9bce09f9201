//! Routing shared by the vendor emulations (Datadog, Splunk HEC, New Relic, Dynatrace),
//! through raw HTTP/1.1 over `TcpStream`: paths that are not a vendor's stay generic, and
//! each vendor endpoint refuses chunked bodies and other methods in its own answer shape.
//!
//! Each test reads as a specification of what the real intake answers
//! (status and body, as the vendor documents them) and of what the intake records:
//! accepted events, violations, and authentication failures. Every request
//! is answered only after its outcome is recorded, so no waiting is needed.

mod common;

use std::io::Write;

use common::{start, Client, DD, DT, HEC};
use serde_json::json;

#[test]
fn generic_paths_are_unchanged_and_recorded_as_generic() {
    let intake = start();
    let mut c = Client::connect(&intake);
    for path in [
        "/logs",
        "/api/v2/logs/",
        "/services/collector/raw",
        "/log/v2",
    ] {
        let resp = c.post(
            path,
            &[("Content-Type", "application/json")],
            b"[{\"m\":1}]",
        );
        assert_eq!(resp.status, 200, "{path}");
        assert_eq!(resp.json(), json!({"accepted": 1}));
    }
    assert!(intake.requests().iter().all(|r| r.vendor == "generic"));
    assert_eq!(intake.stats().auth_failures, 0);
}

#[test]
fn vendor_endpoints_reject_chunked_bodies_and_other_methods_in_their_own_shape() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let resp = c.request(
        "PUT",
        HEC,
        &[("Authorization", "Splunk t")],
        br#"{"event":"x"}"#,
    );
    assert_eq!(resp.status, 405);
    assert_eq!(resp.header("allow"), Some("POST"));
    assert_eq!(resp.json()["code"], 405);
    let resp = c.request("GET", DT, &[], b"");
    assert_eq!(resp.status, 405);
    assert_eq!(resp.json()["error"]["code"], 405);

    let raw = format!(
        "POST {DD} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nDD-API-KEY: k\r\n\
         Transfer-Encoding: chunked\r\n\r\n2\r\n[]\r\n0\r\n\r\n"
    );
    c.writer.write_all(raw.as_bytes()).unwrap();
    let resp = c.read_response();
    assert_eq!(resp.status, 411);
    assert_eq!(resp.json()["errors"][0]["status"], "411");
    assert_eq!(intake.stats().violations, 3);
}
