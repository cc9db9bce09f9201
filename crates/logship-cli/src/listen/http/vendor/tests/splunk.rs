//! Splunk HEC: concatenated event envelopes, raw lines, the health check, credentials,
//! and errors with HEC's codes and event numbers.

use super::*;

#[test]
fn splunk_concatenated_envelopes_with_and_without_separators() {
    let body = br#"{"time":1796133600.5,"host":"web-1","source":"checkout","sourcetype":"_json","index":"main","event":{"message":"paid","severity":"WARN","logger":"shop.Pay","thread":"main"},"fields":{"env":"prod","team":["a","b"]}}{"time":"1796133601","event":"plain string event"}
{"event":"{\"message\":\"inner\",\"level\":\"error\"}"}"#;
    let (r, ok) = events(post(
        "/services/collector/event",
        &[("Authorization", "Splunk t")],
        body,
    ));
    assert_eq!(ok.status, 200);
    assert_eq!(json(&ok), serde_json::json!({"text":"Success","code":0}));
    assert_eq!(r.len(), 3);
    assert_eq!(r[0].message_str(), "paid");
    assert_eq!(r[0].level(), Level::Warn);
    assert_eq!(r[0].target(), "shop.Pay");
    assert_eq!(r[0].timestamp_nanos(), 1_796_133_600_500_000_000);
    for (k, v) in [
        ("host", "web-1"),
        ("source", "checkout"),
        ("sourcetype", "_json"),
        ("index", "main"),
        ("env", "prod"),
        ("thread", "main"),
    ] {
        assert_eq!(field(&r[0], k).as_deref(), Some(v), "{k}");
    }
    assert_eq!(r[1].message_str(), "plain string event");
    assert_eq!(r[1].timestamp_nanos(), 1_796_133_601_000_000_000);
    assert_eq!((r[2].message_str(), r[2].level()), ("inner", Level::Error));
    let (r, _) = events(post(
        "/services/collector",
        &[],
        br#"{"event":"a"} {"event":"b"}"#,
    ));
    assert_eq!(r.len(), 2);
}

#[test]
fn splunk_errors_carry_hec_codes_statuses_and_event_numbers() {
    let cases: [(&[u8], u16, u64, Option<u64>); 8] = [
        (b"", 400, 5, None),
        (b"   \n", 400, 5, None),
        (br#"{"event":"ok"}{"event":"#, 400, 6, Some(1)),
        (br#"{"event":"ok"}[1]"#, 400, 6, Some(1)),
        (
            br#"{"event":"ok"}{"time":"soon","event":"x"}"#,
            400,
            6,
            Some(1),
        ),
        (br#"{"host":"h"}"#, 400, 12, Some(0)),
        (br#"{"event":"ok"}{"event":""}"#, 400, 13, Some(1)),
        (br#"{"event":{}}"#, 400, 13, Some(0)),
    ];
    for (body, status, code, event) in cases {
        let a = answer(post("/services/collector/event", &[], body));
        let v = json(&a);
        assert_eq!(
            (a.status, v["code"].as_u64()),
            (status, Some(code)),
            "{}",
            String::from_utf8_lossy(body)
        );
        assert_eq!(v["invalid-event-number"].as_u64(), event);
    }
    assert_eq!(
        json(&answer(post("/services/collector/event", &[], b"x")))["text"],
        "Invalid data format"
    );
    let b = busy(Vendor::SplunkEvent, 2);
    assert_eq!((b.status, json(&b)["code"].as_u64()), (503, Some(9)));
    assert!(b.headers.contains(&("Retry-After".into(), "2".into())));
    assert_eq!(
        json(&unauthorized(Vendor::SplunkEvent)),
        serde_json::json!({"text":"Invalid token","code":4})
    );
    assert_eq!(missing_credential(Vendor::SplunkRaw).status, 401);
    assert_eq!(json(&missing_credential(Vendor::SplunkRaw))["code"], 2);
    assert_eq!(too_large(Vendor::SplunkEvent, 10).status, 413);
    let a = answer(post("/services/collector/ack", &[], br#"{"acks":[0]}"#));
    assert_eq!((a.status, json(&a)["code"].as_u64()), (400, Some(14)));
}

#[test]
fn splunk_raw_health_and_credentials() {
    let (r, ok) = events(post(
        "/services/collector/raw?sourcetype=app%20log&host=h1&channel=0aeeac95-ac74-4aa9-b30d-6c4c0ac581ba",
        &[("X-Splunk-Request-Channel", "0aeeac95-ac74-4aa9-b30d-6c4c0ac581ba")],
        b"first line\r\n{\"message\":\"json line\",\"level\":\"debug\"}\n\nlast",
    ));
    assert_eq!(json(&ok)["code"], 0);
    assert_eq!(
        r.iter().map(Record::message_str).collect::<Vec<_>>(),
        ["first line", "json line", "last"]
    );
    assert_eq!(r[1].level(), Level::Debug);
    assert_eq!(field(&r[0], "sourcetype").as_deref(), Some("app log"));
    assert_eq!(field(&r[2], "host").as_deref(), Some("h1"));
    let (r, _) = events(post("/services/collector/raw", &[], b"bad \xff utf8"));
    assert!(fields(&r[0])
        .iter()
        .any(|(k, _)| k == "logship.invalid_utf8"));
    assert_eq!(
        json(&answer(post("/services/collector/raw", &[], b"")))["code"],
        5
    );
    let h = headers(&[]);
    let a = answer(decode(
        Vendor::SplunkHealth,
        &req("GET", "/services/collector/health", &h, b""),
    ));
    assert_eq!(
        (a.status, json(&a)),
        (200, serde_json::json!({"text":"HEC is healthy","code":17}))
    );
    for (auth, want) in [
        ("Splunk abc", Some("abc")),
        ("Bearer xyz", Some("xyz")),
        // Basic: HEC reads the password as the token, whatever the user name.
        ("Basic eDp0b2s=", Some("tok")),
        ("Basic OnRvaw==", Some("tok")),
        ("Basic Zm9v", None),
        ("Basic !!!", None),
        ("Splunk ", None),
    ] {
        let h = headers(&[("Authorization", auth)]);
        assert_eq!(
            credential(
                Vendor::SplunkEvent,
                &req("POST", "/services/collector", &h, b"")
            )
            .as_deref(),
            want,
            "{auth}"
        );
    }
    assert_eq!(
        credential(
            Vendor::SplunkRaw,
            &req("POST", "/services/collector/raw?token=q", &h, b"")
        )
        .as_deref(),
        Some("q")
    );
    let a = answer(decode(
        Vendor::SplunkEvent,
        &req("GET", "/services/collector/event", &h, b""),
    ));
    assert_eq!(a.status, 405);
}
