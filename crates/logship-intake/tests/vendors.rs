//! End-to-end tests of the vendor intake emulations (Datadog, Splunk HEC,
//! New Relic, Dynatrace) through raw HTTP/1.1 over `TcpStream`.
//!
//! Each test reads as a specification of what the real intake answers
//! (status and body, from VENDORS.md) and of what the intake records:
//! accepted events, violations, and authentication failures. Every request
//! is answered only after its outcome is recorded, so no waiting is needed.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use logship_intake::{Fault, Intake, IntakeConfig};
use serde_json::{json, Value};

const DD: &str = "/api/v2/logs";
const HEC: &str = "/services/collector/event";
const NR: &str = "/log/v1";
const DT: &str = "/api/v2/logs/ingest";
const GUID: &str = "0f2b6c1e-3a4d-4e5f-8a9b-0c1d2e3f4a5b";

fn start() -> Intake {
    Intake::start(IntakeConfig::default()).expect("start intake")
}

fn start_with_key(key: &str) -> Intake {
    Intake::start(IntakeConfig {
        api_key: Some(key.to_string()),
        ..IntakeConfig::default()
    })
    .expect("start intake")
}

/// A parsed HTTP response.
#[derive(Debug)]
struct Resp {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Resp {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| {
            panic!(
                "body {:?} is not JSON: {e}",
                String::from_utf8_lossy(&self.body)
            )
        })
    }
}

/// A raw HTTP/1.1 client on one keep-alive connection.
struct Client {
    writer: TcpStream,
    reader: BufReader<TcpStream>,
}

impl Client {
    fn connect(intake: &Intake) -> Client {
        let stream = TcpStream::connect(intake.addr()).expect("connect");
        // Only a safety net so a broken server fails the test instead of hanging it.
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        let reader = BufReader::new(stream.try_clone().unwrap());
        Client {
            writer: stream,
            reader,
        }
    }

    /// Sends a request with `Content-Length` and the given headers, and
    /// reads the response.
    fn request(&mut self, method: &str, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Resp {
        self.writer
            .write_all(&common::request_bytes(method, path, headers, body))
            .expect("write request");
        self.read_response()
    }

    fn post(&mut self, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Resp {
        self.request("POST", path, headers, body)
    }

    /// Reads one response (a 204 has no `Content-Length` and no body).
    fn read_response(&mut self) -> Resp {
        let mut line = String::new();
        self.reader.read_line(&mut line).expect("status line");
        let mut parts = line.trim_end().splitn(3, ' ');
        assert_eq!(parts.next(), Some("HTTP/1.1"), "status line {line:?}");
        let status: u16 = parts.next().unwrap().parse().unwrap();
        let mut headers = Vec::new();
        loop {
            let mut h = String::new();
            self.reader.read_line(&mut h).expect("header line");
            let h = h.trim_end();
            if h.is_empty() {
                break;
            }
            let (k, v) = h.split_once(':').expect("header has ':'");
            headers.push((k.trim().to_string(), v.trim().to_string()));
        }
        let len = headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
            .map(|(_, v)| v.parse::<usize>().unwrap());
        let len = match (status, len) {
            (204, None) => 0,
            (204, Some(_)) => panic!("a 204 response must not carry Content-Length"),
            (_, len) => len.expect("response has Content-Length"),
        };
        let mut body = vec![0; len];
        self.reader.read_exact(&mut body).expect("response body");
        Resp {
            status,
            headers,
            body,
        }
    }
}

fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

fn zlib(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64
}

fn bytes(v: &Value) -> Vec<u8> {
    v.to_string().into_bytes()
}

/// A refusal case: request headers, body, expected status, violation text.
type Case = (
    Vec<(&'static str, &'static str)>,
    Vec<u8>,
    u16,
    &'static str,
);

/// Sends a request that must be refused with `status` and exactly one new
/// violation containing `needle`, accepting no event. Returns the response.
fn expect_violation(
    intake: &Intake,
    client: &mut Client,
    (path, headers, body): (&str, &[(&str, &str)], &[u8]),
    status: u16,
    needle: &str,
) -> Resp {
    let before = intake.violations().len();
    let events_before = intake.stats().events;
    let resp = client.post(path, headers, body);
    let context = format!(
        "case {needle:?}: answered {} {}",
        resp.status,
        String::from_utf8_lossy(&resp.body)
    );
    assert_eq!(resp.status, status, "{context}");
    let violations = intake.violations();
    assert_eq!(violations.len(), before + 1, "{context}; {violations:?}");
    assert!(
        violations[before].contains(needle),
        "{context}; violation {:?}",
        violations[before]
    );
    assert_eq!(intake.stats().events, events_before, "{context}");
    resp
}

/// Sends a request that must be refused for its credential: `status`, no
/// violation, one more auth failure, no event. Returns the response.
fn expect_auth_failure(
    intake: &Intake,
    client: &mut Client,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    status: u16,
) -> Resp {
    let before = intake.stats();
    let resp = client.post(path, headers, body);
    let after = intake.stats();
    assert_eq!(resp.status, status, "{headers:?}: {:?}", resp.json());
    assert_eq!(after.auth_failures, before.auth_failures + 1, "{headers:?}");
    assert_eq!(after.violations, before.violations, "{headers:?}");
    assert_eq!(after.events, before.events, "{headers:?}");
    assert_eq!(after.rejected_requests, before.rejected_requests + 1);
    resp
}

// ---------------------------------------------------------------- Datadog

const DD_JSON: [(&str, &str); 2] = [("Content-Type", "application/json"), ("DD-API-KEY", "k")];

fn dd_entry(message: &str) -> Value {
    json!({
        "ddsource": "rust", "ddtags": "env:test,version:1", "hostname": "web-1",
        "service": "checkout", "status": "info", "message": message,
        "timestamp": now_ms(), "order_id": 42
    })
}

#[test]
fn datadog_accepts_a_valid_batch_with_202_and_records_each_entry() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let batch = json!([dd_entry("a"), dd_entry("b")]);
    let resp = c.post(DD, &DD_JSON, &bytes(&batch));
    assert_eq!(resp.status, 202);
    assert_eq!(resp.json(), json!({}));

    // gzip and zlib-wrapped deflate, with a charset parameter.
    for (encoding, body) in [
        ("gzip", gzip(&bytes(&batch))),
        ("deflate", zlib(&bytes(&batch))),
    ] {
        let headers = [
            ("Content-Type", "application/json; charset=utf-8"),
            ("Content-Encoding", encoding),
            ("DD-API-KEY", "k"),
        ];
        assert_eq!(c.post(DD, &headers, &body).status, 202, "{encoding}");
    }
    // A single object is tolerated.
    assert_eq!(c.post(DD, &DD_JSON, &bytes(&dd_entry("c"))).status, 202);

    let events = intake.events();
    assert_eq!(events.len(), 7);
    assert_eq!(events[0].value, batch[0]);
    assert_eq!(events[6].value["message"], "c");
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
    let requests = intake.requests();
    assert!(requests.iter().all(|r| r.vendor == "datadog"));
}

#[test]
fn datadog_refuses_a_missing_key_with_401_and_a_wrong_key_with_403() {
    let intake = start_with_key("secret");
    let mut c = Client::connect(&intake);
    let body = bytes(&json!([dd_entry("x")]));
    let ct = ("Content-Type", "application/json");

    let resp = expect_auth_failure(&intake, &mut c, DD, &[ct], &body, 401);
    assert_eq!(resp.json()["errors"][0]["status"], "401");
    let resp = expect_auth_failure(&intake, &mut c, DD, &[ct, ("DD-API-KEY", "")], &body, 401);
    assert_eq!(resp.json()["errors"][0]["status"], "401");
    let resp = expect_auth_failure(
        &intake,
        &mut c,
        DD,
        &[ct, ("DD-API-KEY", "nope")],
        &body,
        403,
    );
    let err = resp.json();
    assert_eq!(err["errors"][0]["status"], "403");
    assert_eq!(err["errors"][0]["title"], "Forbidden");
    assert!(err["errors"][0]["detail"].is_string());

    assert_eq!(
        c.post(DD, &[ct, ("DD-API-KEY", "secret")], &body).status,
        202
    );
    // Changing the key at run time takes effect for the next request.
    intake.set_api_key(Some("rotated".into()));
    expect_auth_failure(
        &intake,
        &mut c,
        DD,
        &[ct, ("DD-API-KEY", "secret")],
        &body,
        403,
    );
    intake.set_api_key(None);
    assert_eq!(
        c.post(DD, &[ct, ("DD-API-KEY", "anything")], &body).status,
        202
    );
    assert_eq!(intake.stats().auth_failures, 4);
}

#[test]
fn datadog_validation_breaches_get_their_status_and_a_violation() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let now = now_ms();
    let with = |key: &str, value: Value| {
        let mut e = dd_entry("m");
        e[key] = value;
        bytes(&json!([e]))
    };
    let mut no_message = dd_entry("m");
    no_message.as_object_mut().unwrap().remove("message");
    let cases: Vec<Case> = vec![
        (
            vec![("Content-Type", "text/plain"), ("DD-API-KEY", "k")],
            bytes(&json!([dd_entry("m")])),
            415,
            "Content-Type",
        ),
        (
            vec![("DD-API-KEY", "k")],
            bytes(&json!([dd_entry("m")])),
            415,
            "missing Content-Type",
        ),
        (
            vec![
                ("Content-Type", "application/json"),
                ("Content-Encoding", "br"),
                ("DD-API-KEY", "k"),
            ],
            b"[]".to_vec(),
            415,
            "Content-Encoding",
        ),
        (
            DD_JSON.to_vec(),
            b"[{\"message\":".to_vec(),
            400,
            "not valid JSON",
        ),
        (
            DD_JSON.to_vec(),
            b"[\"just a string\"]".to_vec(),
            400,
            "element 0",
        ),
        (
            DD_JSON.to_vec(),
            bytes(&json!([no_message])),
            400,
            "message is missing",
        ),
        (
            DD_JSON.to_vec(),
            with("message", json!(5)),
            400,
            "message is a number",
        ),
        (
            DD_JSON.to_vec(),
            with("status", json!(3)),
            400,
            "status is a number",
        ),
        (
            DD_JSON.to_vec(),
            with("ddtags", json!(["env:a", "v:1"])),
            400,
            "ddtags is a array",
        ),
        (
            DD_JSON.to_vec(),
            with("hostname", json!(1)),
            400,
            "hostname",
        ),
        (
            DD_JSON.to_vec(),
            with("service", json!({"a": 1})),
            400,
            "service",
        ),
        (
            DD_JSON.to_vec(),
            with("ddsource", json!(true)),
            400,
            "ddsource",
        ),
        (
            DD_JSON.to_vec(),
            with("timestamp", json!(now / 1000)),
            400,
            "looks like epoch seconds",
        ),
        (
            DD_JSON.to_vec(),
            with("timestamp", json!("2026-01-01T00:00:00Z")),
            400,
            "timestamp is a string",
        ),
        (
            DD_JSON.to_vec(),
            with("timestamp", json!(now - 19 * 3_600_000)),
            400,
            "18 h in the past",
        ),
        (
            DD_JSON.to_vec(),
            with("timestamp", json!(now + 3 * 3_600_000)),
            400,
            "2 h in the future",
        ),
    ];
    for (headers, body, status, needle) in cases {
        let resp = expect_violation(&intake, &mut c, (DD, &headers, &body), status, needle);
        let err = resp.json();
        assert_eq!(err["errors"][0]["status"], status.to_string(), "{needle}");
    }
    // Boundaries of the time window are inside it.
    let body = with("timestamp", json!(now - 17 * 3_600_000));
    assert_eq!(c.post(DD, &DD_JSON, &body).status, 202);
    let resp = c.request("GET", DD, &DD_JSON, b"");
    assert_eq!(resp.status, 405);
    assert_eq!(resp.json()["errors"][0]["status"], "405");
}

#[test]
fn datadog_enforces_the_entry_count_and_decoded_size_limits() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let entries = |n: usize| {
        bytes(&Value::Array(
            (0..n).map(|i| dd_entry(&i.to_string())).collect(),
        ))
    };

    assert_eq!(c.post(DD, &DD_JSON, &entries(1000)).status, 202);
    expect_violation(
        &intake,
        &mut c,
        (DD, &DD_JSON, &entries(1001)),
        400,
        "more than 1000 entries",
    );

    // 5,000,000 bytes decoded is the limit, whatever the wire size.
    let big = |total: usize| {
        let skeleton = bytes(&json!([{ "message": "" }])).len();
        let msg = "x".repeat(total - skeleton);
        let body = bytes(&json!([{ "message": msg }]));
        assert_eq!(body.len(), total);
        gzip(&body)
    };
    let gz = [
        ("Content-Type", "application/json"),
        ("Content-Encoding", "gzip"),
        ("DD-API-KEY", "k"),
    ];
    // An entry this big is over 1 MB: accepted but recorded (see the next test).
    let before = intake.violations().len();
    assert_eq!(c.post(DD, &gz, &big(5_000_000)).status, 202);
    assert_eq!(intake.violations().len(), before + 1);
    let resp = expect_violation(&intake, &mut c, (DD, &gz, &big(5_000_001)), 413, "5000000");
    assert_eq!(resp.json()["errors"][0]["status"], "413");
}

#[test]
fn datadog_accepts_an_entry_over_1_mb_but_records_a_violation() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let huge = dd_entry(&"y".repeat(1_000_001));
    let body = bytes(&json!([dd_entry("small"), huge]));
    let resp = c.post(DD, &DD_JSON, &body);
    assert_eq!(resp.status, 202);
    assert_eq!(resp.json(), json!({}));
    assert_eq!(intake.events().len(), 2, "both entries are accepted");
    let violations = intake.violations();
    assert_eq!(violations.len(), 1, "{violations:?}");
    assert!(
        violations[0].contains("entry 1 over 1 MB"),
        "{}",
        violations[0]
    );
    assert!(violations[0].contains("truncates"), "{}", violations[0]);
}

// ---------------------------------------------------------------- Splunk HEC

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

// ---------------------------------------------------------------- New Relic

const NR_JSON: [(&str, &str); 2] = [("Content-Type", "application/json"), ("Api-Key", "lic")];

fn nr_log(message: &str) -> Value {
    json!({"timestamp": now_ms(), "message": message, "attributes": {"level": "INFO", "order.id": 42, "ok": true}})
}

#[test]
fn newrelic_accepts_the_detailed_format_and_records_logs_with_common_attributes() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let body = json!([
        {"common": {"attributes": {"service": "checkout", "hostname": "web-1"}},
         "logs": [nr_log("paid"), nr_log("shipped")]},
        {"logs": [nr_log("bare")]}
    ]);
    let resp = c.post(NR, &NR_JSON, &bytes(&body));
    assert_eq!(resp.status, 202);
    let id = resp.json()["requestId"]
        .as_str()
        .expect("requestId")
        .to_string();
    let groups: Vec<usize> = id.split('-').map(str::len).collect();
    assert_eq!(groups, [8, 4, 4, 4, 12], "uuid-like: {id}");
    assert!(id.chars().all(|ch| ch == '-' || ch.is_ascii_hexdigit()));

    // gzip, also announced by the `gzip` content type alone.
    let gz = [
        ("Content-Type", "application/json"),
        ("Content-Encoding", "gzip"),
        ("Api-Key", "lic"),
    ];
    let resp = c.post(NR, &gz, &gzip(&bytes(&body)));
    assert_eq!(resp.status, 202);
    assert_ne!(
        resp.json()["requestId"].as_str(),
        Some(id.as_str()),
        "ids are unique"
    );
    let gz_type = [("Content-Type", "gzip"), ("Api-Key", "lic")];
    assert_eq!(c.post(NR, &gz_type, &gzip(&bytes(&body))).status, 202);
    assert_eq!(
        c.post(
            NR,
            &[("Content-Type", "json"), ("Api-Key", "lic")],
            &bytes(&body)
        )
        .status,
        202
    );

    let events = intake.events();
    assert_eq!(events.len(), 12);
    let mut expected = body[0]["logs"][0].clone();
    expected["common"] = json!({"service": "checkout", "hostname": "web-1"});
    assert_eq!(events[0].value, expected);
    assert_eq!(events[2].value["message"], "bare");
    assert_eq!(events[2].value["common"], json!({}));
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
    assert!(intake.requests().iter().all(|r| r.vendor == "newrelic"));
}

#[test]
fn newrelic_refuses_a_missing_or_wrong_key_with_403_and_accepts_every_key_location() {
    let intake = start_with_key("lic");
    let mut c = Client::connect(&intake);
    let body = bytes(&json!([{"logs": [nr_log("x")]}]));
    let ct = ("Content-Type", "application/json");

    expect_auth_failure(&intake, &mut c, NR, &[ct], &body, 403);
    expect_auth_failure(&intake, &mut c, NR, &[ct, ("Api-Key", "wrong")], &body, 403);
    expect_auth_failure(&intake, &mut c, "/log/v1?Api-Key=wrong", &[ct], &body, 403);
    for (path, headers) in [
        (NR, vec![ct, ("Api-Key", "lic")]),
        (NR, vec![ct, ("X-License-Key", "lic")]),
        (NR, vec![ct, ("License-Key", "lic")]),
        ("/log/v1?Api-Key=lic", vec![ct]),
    ] {
        assert_eq!(
            c.post(path, &headers, &body).status,
            202,
            "{path} {headers:?}"
        );
    }
    assert_eq!(intake.stats().auth_failures, 3);
    assert!(intake.violations().is_empty());
}

#[test]
fn newrelic_requires_one_of_its_content_types() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let body = bytes(&json!([{"logs": [nr_log("x")]}]));
    expect_violation(
        &intake,
        &mut c,
        (
            NR,
            &[("Content-Type", "text/plain"), ("Api-Key", "k")],
            &body,
        ),
        415,
        "Content-Type",
    );
    expect_violation(
        &intake,
        &mut c,
        (
            NR,
            &[("Content-Type", "application/x-ndjson"), ("Api-Key", "k")],
            &body,
        ),
        415,
        "Content-Type",
    );
    expect_violation(
        &intake,
        &mut c,
        (NR, &[("Api-Key", "k")], &body),
        415,
        "missing Content-Type",
    );
}

#[test]
fn newrelic_limits_the_body_as_sent_on_the_wire() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let sized = |total: usize| {
        let skeleton = bytes(&json!([{"logs": [{"message": ""}]}])).len();
        let body = bytes(&json!([{"logs": [{"message": "z".repeat(total - skeleton)}]}]));
        assert_eq!(body.len(), total);
        body
    };
    assert_eq!(c.post(NR, &NR_JSON, &sized(1_000_000)).status, 202);
    let resp = expect_violation(
        &intake,
        &mut c,
        (NR, &NR_JSON, &sized(1_000_001)),
        413,
        "as sent",
    );
    assert_eq!(resp.status, 413);
    // Compressed below the limit: fine even though it inflates to 3 MB.
    let gz = [
        ("Content-Type", "application/json"),
        ("Content-Encoding", "gzip"),
        ("Api-Key", "k"),
    ];
    let small_wire = gzip(&sized(3_000_000));
    assert!(small_wire.len() < 1_000_000);
    assert_eq!(c.post(NR, &gz, &small_wire).status, 202);
    let requests = intake.requests();
    let last = requests.last().unwrap();
    assert_eq!(last.body_bytes, small_wire.len());
    assert_eq!(last.decoded_bytes, 3_000_000);
}

#[test]
fn newrelic_tolerates_the_simple_format_but_records_a_violation() {
    let intake = start();
    let mut c = Client::connect(&intake);
    for (body, n) in [
        (json!(nr_log("one")), 1),
        (json!([nr_log("a"), nr_log("b")]), 2),
        (json!({"logs": [nr_log("block")]}), 1),
    ] {
        let before = intake.violations().len();
        let resp = c.post(NR, &NR_JSON, &bytes(&body));
        assert_eq!(resp.status, 202);
        let violations = intake.violations();
        assert_eq!(violations.len(), before + 1);
        assert!(
            violations[before].contains("use the detailed format"),
            "{}",
            violations[before]
        );
        assert_eq!(intake.requests().last().unwrap().events, n);
    }
    assert_eq!(intake.events()[0].value["common"], json!({}));
}

#[test]
fn newrelic_validation_breaches_get_400_and_a_violation() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let block = |log: Value| bytes(&json!([{"logs": [log]}]));
    let with = |key: &str, value: Value| {
        let mut log = nr_log("m");
        log[key] = value;
        block(log)
    };
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (block(json!({"timestamp": now_ms()})), "message is missing"),
        (with("message", json!(1)), "message is a number"),
        (
            with("timestamp", json!(now_ms() / 1000)),
            "looks like epoch seconds",
        ),
        (
            with("timestamp", json!("2026-01-01T00:00:00Z")),
            "timestamp is a string",
        ),
        (
            with("attributes", json!({"tags": ["a", "b"]})),
            "New Relic does not support arrays",
        ),
        (
            with("attributes", json!({"user": {"id": 1}})),
            "\"user\" is a object",
        ),
        (with("attributes", json!({"n": null})), "\"n\" is a null"),
        (with("attributes", json!("flat")), "attributes is a string"),
        (
            bytes(&json!([{"common": {"attributes": {"t": [1]}}, "logs": [nr_log("m")]}])),
            "common.attributes",
        ),
        (
            bytes(&json!([{"logs": [nr_log("m")]}, {"common": {}}])),
            "block 1 has no `logs`",
        ),
        (bytes(&json!([{"logs": "nope"}])), "`logs` is not an array"),
        (bytes(&json!("text")), "not an array of blocks"),
        (b"[{".to_vec(), "not valid JSON"),
    ];
    for (body, needle) in cases {
        expect_violation(&intake, &mut c, (NR, &NR_JSON, &body), 400, needle);
    }
}

// ---------------------------------------------------------------- Dynatrace

const DT_JSON: [(&str, &str); 2] = [
    ("Content-Type", "application/json; charset=utf-8"),
    ("Authorization", "Api-Token dt0c01.abc"),
];

fn dt_record(content: &str) -> Value {
    json!({"timestamp": "2026-01-17T22:12:31.000Z", "severity": "error", "content": content,
           "log.source": "checkout", "service.name": "checkout"})
}

#[test]
fn dynatrace_accepts_valid_records_with_204_and_no_body() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let batch =
        json!([dt_record("a"), {"content": "b", "timestamp": now_ms(), "loglevel": "INFO"}]);
    let resp = c.post(DT, &DT_JSON, &bytes(&batch));
    assert_eq!(resp.status, 204);
    assert!(resp.body.is_empty());
    assert!(resp.header("content-length").is_none());

    assert_eq!(
        c.post(DT, &DT_JSON, &bytes(&dt_record("single"))).status,
        204
    );
    let lines = format!("{}\n{}\n", dt_record("l1"), dt_record("l2"));
    for ct in [
        "application/jsonl",
        "application/jsonlines",
        "application/jsonlines+json",
        "application/x-ndjson",
        "application/x-jsonlines",
    ] {
        let headers = [("Content-Type", ct), ("Authorization", "Api-Token t")];
        assert_eq!(c.post(DT, &headers, lines.as_bytes()).status, 204, "{ct}");
    }
    let gz = [
        ("Content-Type", "application/json"),
        ("Content-Encoding", "gzip"),
        ("Authorization", "Api-Token t"),
    ];
    assert_eq!(c.post(DT, &gz, &gzip(&bytes(&batch))).status, 204);

    let events = intake.events();
    assert_eq!(events.len(), 2 + 1 + 10 + 2);
    assert_eq!(events[0].value, batch[0]);
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
    assert!(intake.requests().iter().all(|r| r.vendor == "dynatrace"));
}

#[test]
fn dynatrace_routes_the_environment_path_and_nothing_deeper() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let body = bytes(&json!([dt_record("env")]));
    let resp = c.post(
        "/e/abc12345/api/v2/logs/ingest?structure=raw",
        &DT_JSON,
        &body,
    );
    assert_eq!(resp.status, 204);
    // Not a Dynatrace path: the generic protocol answers.
    let resp = c.post("/e/a/b/api/v2/logs/ingest", &DT_JSON, &body);
    assert_eq!(resp.status, 200);
    assert_eq!(resp.json(), json!({"accepted": 1}));
    let vendors: Vec<String> = intake.requests().into_iter().map(|r| r.vendor).collect();
    assert_eq!(vendors, ["dynatrace", "generic"]);
}

#[test]
fn dynatrace_refuses_a_missing_or_wrong_token_with_401() {
    let intake = start_with_key("dt0c01.secret");
    let mut c = Client::connect(&intake);
    let body = bytes(&json!([dt_record("x")]));
    let ct = ("Content-Type", "application/json");
    for headers in [
        vec![ct],
        vec![ct, ("Authorization", "Api-Token wrong")],
        vec![ct, ("Authorization", "Basic dt0c01.secret")],
        vec![ct, ("Authorization", "dt0c01.secret")],
    ] {
        let resp = expect_auth_failure(&intake, &mut c, DT, &headers, &body, 401);
        let err = resp.json();
        assert_eq!(err["error"]["code"], 401, "{headers:?}");
        assert!(err["error"]["message"].is_string());
    }
    assert_eq!(
        c.post(
            DT,
            &[ct, ("Authorization", "Api-Token dt0c01.secret")],
            &body
        )
        .status,
        204
    );
    assert_eq!(intake.stats().auth_failures, 4);
}

#[test]
fn dynatrace_validation_breaches_get_their_status_and_a_violation() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let with = |key: &str, value: Value| {
        let mut r = dt_record("m");
        r[key] = value;
        bytes(&json!([r]))
    };
    let mut no_content = dt_record("m");
    no_content.as_object_mut().unwrap().remove("content");
    let auth = ("Authorization", "Api-Token t");
    let cases: Vec<Case> = vec![
        (
            vec![("Content-Type", "application/xml"), auth],
            bytes(&json!([dt_record("m")])),
            415,
            "Content-Type",
        ),
        (
            vec![auth],
            bytes(&json!([dt_record("m")])),
            415,
            "missing Content-Type",
        ),
        (
            DT_JSON.to_vec(),
            bytes(&json!([no_content])),
            400,
            "content is missing",
        ),
        (
            DT_JSON.to_vec(),
            with("content", json!({"a": 1})),
            400,
            "content is a object",
        ),
        (
            DT_JSON.to_vec(),
            with("timestamp", json!("17/01/2026 22:12")),
            400,
            "neither RFC 3339",
        ),
        (
            DT_JSON.to_vec(),
            with("timestamp", json!(now_ms() / 1000)),
            400,
            "looks like epoch seconds",
        ),
        (
            DT_JSON.to_vec(),
            with("timestamp", json!(1.5)),
            400,
            "timestamp",
        ),
        (
            DT_JSON.to_vec(),
            with("severity", json!(3)),
            400,
            "severity is a number",
        ),
        (
            DT_JSON.to_vec(),
            with("loglevel", json!(["x"])),
            400,
            "loglevel",
        ),
        (DT_JSON.to_vec(), b"[]".to_vec(), 400, "empty batch"),
        (DT_JSON.to_vec(), b"[1]".to_vec(), 400, "element 0"),
        (DT_JSON.to_vec(), b"{".to_vec(), 400, "not valid JSON"),
    ];
    for (headers, body, status, needle) in cases {
        let resp = expect_violation(&intake, &mut c, (DT, &headers, &body), status, needle);
        assert_eq!(resp.json()["error"]["code"], status, "{needle}");
    }
}

#[test]
fn dynatrace_enforces_the_record_count_and_decoded_size_limits() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let records = |n: usize| bytes(&Value::Array(vec![json!({"content": "r"}); n]));
    assert_eq!(c.post(DT, &DT_JSON, &records(50_000)).status, 204);
    let resp = expect_violation(
        &intake,
        &mut c,
        (DT, &DT_JSON, &records(50_001)),
        413,
        "at most 50000",
    );
    assert_eq!(resp.json()["error"]["code"], 413);

    let sized = |total: usize| {
        let skeleton = bytes(&json!([{"content": ""}])).len();
        gzip(&bytes(&json!([{"content": "q".repeat(total - skeleton)}])))
    };
    let gz = [
        ("Content-Type", "application/json"),
        ("Content-Encoding", "gzip"),
        ("Authorization", "Api-Token t"),
    ];
    assert_eq!(c.post(DT, &gz, &sized(10_000_000)).status, 204);
    expect_violation(
        &intake,
        &mut c,
        (DT, &gz, &sized(10_000_001)),
        413,
        "10000000",
    );
}

#[test]
fn dynatrace_partial_success_can_be_injected_as_a_200_fault() {
    let intake = start();
    let mut c = Client::connect(&intake);
    let body = r#"{"details":{"code":200,"message":"1 record too big"}}"#;
    intake.fail_next(1, Fault::json(200, body));
    let resp = c.post(DT, &DT_JSON, &bytes(&json!([dt_record("x")])));
    assert_eq!(resp.status, 200);
    assert_eq!(resp.header("content-type"), Some("application/json"));
    assert_eq!(resp.json()["details"]["code"], 200);
    let stats = intake.stats();
    assert_eq!(stats.rejected_requests, 0, "a 2xx fault is not a rejection");
    assert_eq!(stats.events, 0, "faulted requests record no events");
    // The next request is handled normally.
    assert_eq!(
        c.post(DT, &DT_JSON, &bytes(&json!([dt_record("y")])))
            .status,
        204
    );
}

// ---------------------------------------------------------------- shared

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
