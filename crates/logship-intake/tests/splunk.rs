//! The Splunk HTTP Event Collector emulation (`/services/collector/...`) through raw
//! HTTP/1.1 over `TcpStream`.
//!
//! Each test reads as a specification of what the real intake answers
//! (status and body, as the vendor documents them) and of what the intake records:
//! accepted events, violations, and authentication failures. Every request
//! is answered only after its outcome is recorded, so no waiting is needed.

mod common;

use common::{
    bytes, expect_auth_failure, expect_violation, gzip, start, start_with_key, Client, HEC,
};
use logship_intake::{Intake, IntakeConfig};
use serde_json::json;

const GUID: &str = "0f2b6c1e-3a4d-4e5f-8a9b-0c1d2e3f4a5b";

fn hec_headers(token: &str) -> Vec<(&'static str, String)> {
    vec![
        ("Content-Type", "application/json".to_string()),
        ("Authorization", format!("Splunk {token}")),
    ]
}

fn hv<'a>(headers: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    headers.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

#[test]
fn splunk_accepts_concatenated_envelopes_on_every_event_path() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let headers = hec_headers("tok");
    let a = json!({"time": 1717171717.123, "host": "web-1", "source": "checkout",
                   "sourcetype": "_json", "index": "main",
                   "event": {"msg": "paid", "level": "INFO"},
                   "fields": {"env": "prod", "tags": ["a", "b"]}});
    let b = json!({"time": 1717171717, "event": "plain string event"});
    let body = format!("{a}\n{b}  \r\n{a}{b}");
    let with_channel = format!("/services/collector/event/1.0?channel={GUID}");
    for path in ["/services/collector", HEC, with_channel.as_str()] {
        let resp = c.post(path, &hv(&headers), body.as_bytes());
        assert_eq!(resp.status, 200, "{path}: {:?}", resp.json());
        assert_eq!(resp.json(), json!({"text": "Success", "code": 0}));
    }
    let mut gz = hv(&headers);
    gz.push(("Content-Encoding", "gzip"));
    gz.push(("X-Splunk-Request-Channel", GUID));
    assert_eq!(c.post(HEC, &gz, &gzip(body.as_bytes())).status, 200);

    let events = intake.events();
    assert_eq!(events.len(), 16);
    assert_eq!(events[0].value, a, "the whole envelope is recorded");
    assert_eq!(events[1].value, b);
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
    assert!(intake.requests().iter().all(|r| r.vendor == "splunk"));
}

#[test]
fn splunk_health_endpoint_reports_healthy() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let resp = c.request("GET", "/services/collector/health", &[], b"");
    assert_eq!(resp.status, 200);
    assert_eq!(resp.json(), json!({"text": "HEC is healthy", "code": 17}));
    assert_eq!(intake.stats().auth_failures, 0);
    assert!(intake.violations().is_empty());
    assert!(intake.events().is_empty());
}

#[test]
fn splunk_auth_failures_get_codes_2_3_and_4() {
    let intake = start_with_key("guid-token");
    let mut c = Client::connect(&intake);
    let body = br#"{"event":"x"}"#;
    let ct = ("Content-Type", "application/json");

    let resp = expect_auth_failure(&intake, &mut c, HEC, &[ct], body, 401);
    assert_eq!(resp.json(), json!({"text": "Token is required", "code": 2}));
    let resp = expect_auth_failure(
        &intake,
        &mut c,
        HEC,
        &[ct, ("Authorization", "Bearer guid-token")],
        body,
        401,
    );
    assert_eq!(
        resp.json(),
        json!({"text": "Invalid authorization", "code": 3})
    );
    let resp = expect_auth_failure(
        &intake,
        &mut c,
        HEC,
        &[ct, ("Authorization", "guid-token")],
        body,
        401,
    );
    assert_eq!(resp.json()["code"], 3);
    let resp = expect_auth_failure(
        &intake,
        &mut c,
        HEC,
        &[ct, ("Authorization", "Splunk wrong")],
        body,
        403,
    );
    assert_eq!(resp.json(), json!({"text": "Invalid token", "code": 4}));

    assert_eq!(
        c.post(HEC, &[ct, ("Authorization", "Splunk guid-token")], body)
            .status,
        200
    );
    assert_eq!(intake.stats().auth_failures, 4);
    assert!(intake.violations().is_empty());
}

#[test]
fn splunk_rejects_an_array_body_as_invalid_data_format() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let headers = hec_headers("t");
    let body = br#"[{"event":"a"},{"event":"b"}]"#;
    let resp = expect_violation(&intake, &mut c, (HEC, &hv(&headers), body), 400, "array");
    assert_eq!(
        resp.json(),
        json!({"text": "Invalid data format", "code": 6, "invalid-event-number": 0})
    );
}

#[test]
fn splunk_reports_the_0_based_invalid_event_number() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let headers = hec_headers("t");
    let h = hv(&headers);
    let ok = r#"{"event":"fine"}"#;
    let cases: Vec<(String, u16, usize, &str)> = vec![
        (format!(r#"{ok}{ok}{{"host":"h"}}"#), 12, 2, "no `event`"),
        (
            format!(r#"{ok} {{"event":""}}"#),
            13,
            1,
            "empty `event` string",
        ),
        (
            format!(r#"{ok}{ok}{ok}{{"event":{{}}}}"#),
            13,
            3,
            "empty `event` object",
        ),
        (
            format!(r#"{ok}{{"event":"x","time":1717171717123}}"#),
            6,
            1,
            "looks like epoch milliseconds",
        ),
        (
            r#"{"event":"x","time":"1717171717"}"#.to_string(),
            6,
            0,
            "not a number",
        ),
        (
            format!(r#"{ok}{{"event":"x","host":5}}"#),
            6,
            1,
            "`host` is a number",
        ),
        (
            format!(r#"{ok}{{"event":"x","source":[]}}"#),
            6,
            1,
            "`source`",
        ),
        (
            r#"{"event":"x","sourcetype":{}}"#.to_string(),
            6,
            0,
            "`sourcetype`",
        ),
        (
            format!(r#"{ok}{ok}{{"event":"x","index":1}}"#),
            6,
            2,
            "`index`",
        ),
        (format!(r#"{ok}{{"event": "#), 6, 1, "not valid JSON"),
        (format!(r#"{ok} 42"#), 6, 1, "not an object"),
    ];
    for (body, code, index, needle) in cases {
        let resp = expect_violation(&intake, &mut c, (HEC, &h, body.as_bytes()), 400, needle);
        let v = resp.json();
        assert_eq!(v["code"], code, "{needle}: {v}");
        assert_eq!(v["invalid-event-number"], index, "{needle}: {v}");
        assert!(v["text"].is_string());
    }
    // Fractional seconds are fine.
    let resp = c.post(HEC, &h, br#"{"event":"x","time":1433188255.500}"#);
    assert_eq!(resp.status, 200);
}

#[test]
fn splunk_indexed_fields_channel_and_empty_body_rules() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let headers = hec_headers("t");
    let h = hv(&headers);
    for (fields, needle) in [
        (json!({"a": {"nested": "x"}}), "\"a\""),
        (json!({"n": 5}), "\"n\""),
        (json!({"arr": ["ok", 1]}), "\"arr\""),
        (json!(["not", "an object"]), "not an object"),
    ] {
        let body = bytes(&json!({"event": "x", "fields": fields}));
        let resp = expect_violation(&intake, &mut c, (HEC, &h, &body), 400, needle);
        assert_eq!(resp.json()["code"], 15);
    }

    let mut bad_channel = h.clone();
    bad_channel.push(("X-Splunk-Request-Channel", "not-a-guid"));
    let resp = expect_violation(
        &intake,
        &mut c,
        (HEC, &bad_channel, br#"{"event":"x"}"#),
        400,
        "GUID",
    );
    assert_eq!(
        resp.json(),
        json!({"text": "Invalid data channel", "code": 11})
    );

    let resp = expect_violation(&intake, &mut c, (HEC, &h, b" \n"), 400, "No data");
    assert_eq!(resp.json()["code"], 5);
}

#[test]
fn splunk_enforces_max_content_length_on_the_decoded_body() {
    // Default: 1,000,000 decoded bytes, even when the wire size is small.
    let intake = start();
    let mut c = Client::connect(&intake);
    let headers = hec_headers("t");
    let mut gz = hv(&headers);
    gz.push(("Content-Encoding", "gzip"));
    let sized = |total: usize| {
        let skeleton = br#"{"event":""}"#.len();
        format!(r#"{{"event":"{}"}}"#, "x".repeat(total - skeleton)).into_bytes()
    };
    assert_eq!(c.post(HEC, &gz, &gzip(&sized(1_000_000))).status, 200);
    let resp = expect_violation(
        &intake,
        &mut c,
        (HEC, &gz, &gzip(&sized(1_000_001))),
        413,
        "1000000",
    );
    assert_eq!(resp.json()["code"], 413);

    // Configurable.
    let intake = Intake::start(IntakeConfig {
        splunk_max_content_length: 100,
        ..IntakeConfig::default()
    })
    .unwrap();
    let mut c = Client::connect(&intake);
    assert_eq!(c.post(HEC, &hv(&headers), &sized(100)).status, 200);
    expect_violation(
        &intake,
        &mut c,
        (HEC, &hv(&headers), &sized(101)),
        413,
        "100 byte limit",
    );
}

#[test]
fn with_indexer_acknowledgement_a_channel_is_required_answers_carry_ack_ids_and_the_ack_endpoint_confirms(
) {
    let intake = start();
    let mut c = Client::connect(&intake);
    let headers = hec_headers("tok");
    let ack = "/services/collector/ack";
    let event = br#"{"event":"e"}"#;
    // Off (the default): no channel needed, no ackId, and the ack endpoint says so.
    let resp = c.post(HEC, &hv(&headers), event);
    assert_eq!(resp.json(), json!({"text": "Success", "code": 0}));
    let mut with_channel = hv(&headers);
    with_channel.push(("X-Splunk-Request-Channel", GUID));
    let resp = expect_violation(
        &intake,
        &mut c,
        (ack, &with_channel, br#"{"acks":[0]}"#),
        400,
        "indexer acknowledgement is off",
    );
    assert_eq!(resp.json(), json!({"text": "ACK is disabled", "code": 14}));

    intake.set_splunk_ack(logship_intake::AckMode {
        enabled: true,
        lose_every: 2,
    });
    let resp = expect_violation(
        &intake,
        &mut c,
        (HEC, &hv(&headers), event),
        400,
        "names no channel",
    );
    assert_eq!(
        resp.json(),
        json!({"text": "Data channel is missing", "code": 10})
    );
    for id in 0..4 {
        let resp = c.post(HEC, &with_channel, event);
        assert_eq!(
            resp.json(),
            json!({"text": "Success", "code": 0, "ackId": id})
        );
    }
    // The channel may come as a query parameter; ids count per channel.
    let other = "1f2b6c1e-3a4d-4e5f-8a9b-0c1d2e3f4a5b";
    let resp = c.post(&format!("{HEC}?channel={other}"), &hv(&headers), event);
    assert_eq!(resp.json()["ackId"], 0);

    // Every 2nd id is lost; a confirmed id is reported once, unknown ones are false.
    let resp = c.post(ack, &with_channel, br#"{"acks":[0,1,2,3,9]}"#);
    assert_eq!(resp.status, 200);
    assert_eq!(
        resp.json(),
        json!({"acks": {"0": true, "1": false, "2": true, "3": false, "9": false}})
    );
    let resp = c.post(ack, &with_channel, br#"{"acks":[0,2]}"#);
    assert_eq!(resp.json(), json!({"acks": {"0": false, "2": false}}));
    expect_violation(
        &intake,
        &mut c,
        (ack, &hv(&headers), br#"{"acks":[0]}"#),
        400,
        "names no channel",
    );
    let resp = expect_violation(
        &intake,
        &mut c,
        (ack, &with_channel, br#"{"acks":"all"}"#),
        400,
        "acknowledgement query",
    );
    assert_eq!(resp.json()["code"], 6);

    // Ack queries take their own faults, never the event requests' ones.
    intake.fail_splunk_ack_queries(1, logship_intake::Fault::json(503, "{}"));
    assert_eq!(c.post(HEC, &with_channel, event).status, 200);
    assert_eq!(c.post(ack, &with_channel, br#"{"acks":[4]}"#).status, 503);
    assert_eq!(
        c.post(ack, &with_channel, br#"{"acks":[4]}"#).json(),
        json!({"acks": {"4": true}}),
        "the faulted query did not use the ack up"
    );
    let stats = intake.stats().splunk_ack;
    assert_eq!(
        (stats.issued, stats.lost, stats.confirmed, stats.queries),
        (6, 2, 3, 4)
    );
    assert_eq!(stats.missing_channel, 2);
}
