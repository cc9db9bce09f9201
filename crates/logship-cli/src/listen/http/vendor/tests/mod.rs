//! The vendor decoders on real wire payloads (each vendor's own format, built as its
//! clients build it) and on hostile ones, each answered as the vendor answers: one file
//! per vendor, the helpers they share and the routing here.

mod datadog;
mod loki;
mod otlp;
mod splunk;

use logship::{Entry, Level, Record};
use opentelemetry_proto::tonic::collector::logs::v1::{
    ExportLogsServiceRequest, ExportLogsServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::{
    any_value, AnyValue, InstrumentationScope, KeyValue, KeyValueList,
};
use opentelemetry_proto::tonic::logs::v1::{LogRecord, ResourceLogs, ScopeLogs};
use opentelemetry_proto::tonic::resource::v1::Resource;
use prost::Message;
use serde_json::Value;

use super::*;

/// A request of `method` on `target` (path and query).
fn req<'a>(
    method: &'a str,
    target: &'a str,
    headers: &'a [(String, String)],
    body: &'a [u8],
) -> Request<'a> {
    let (path, query) = match target.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (target, None),
    };
    Request {
        method,
        path,
        query,
        headers,
        body,
        max_events: 1_000_000,
        max_body: 10 << 20,
    }
}

fn headers(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_ascii_lowercase(), (*v).to_owned()))
        .collect()
}

/// Decodes `body` POSTed to `target` with `pairs` as headers.
fn post(target: &str, pairs: &[(&str, &str)], body: &[u8]) -> Decoded {
    let h = headers(pairs);
    let (path, _) = target.split_once('?').unwrap_or((target, ""));
    let vendor = route(path).expect("a vendor path");
    decode(vendor, &req("POST", target, &h, body))
}

/// The events and answer of an accepted request.
fn events(d: Decoded) -> (Vec<Record>, Answer) {
    match d {
        Decoded::Events(r, a) => (r, a),
        Decoded::Answer(a) => panic!("refused: {} {}", a.status, String::from_utf8_lossy(&a.body)),
    }
}

/// The answer of a request that carried no events.
fn answer(d: Decoded) -> Answer {
    match d {
        Decoded::Answer(a) => a,
        Decoded::Events(r, _) => panic!("accepted {} events", r.len()),
    }
}

fn json(a: &Answer) -> Value {
    serde_json::from_slice(&a.body).expect("a JSON answer")
}

/// The record's fields as `(name, Debug of value)`.
fn fields(r: &Record) -> Vec<(String, String)> {
    r.entries()
        .filter_map(|e| match e {
            Entry::Field(k, v) => Some((k.to_owned(), format!("{v:?}"))),
            _ => None,
        })
        .collect()
}

/// The string field `name`.
fn field(r: &Record, name: &str) -> Option<String> {
    r.entries().find_map(|e| match e {
        Entry::Field(k, logship::Value::Str(s)) if k == name => Some(s.to_owned()),
        _ => None,
    })
}

const T0_MS: u64 = 1_796_133_600_123; // 2026-12-01T14:00:00.123Z

#[test]
fn routes_each_vendor_path() {
    assert_eq!(route("/api/v2/logs"), Some(Vendor::Datadog));
    assert_eq!(route("/v1/input"), Some(Vendor::Datadog));
    assert_eq!(route("/v1/input/abc"), Some(Vendor::Datadog));
    assert_eq!(route("/services/collector"), Some(Vendor::SplunkEvent));
    assert_eq!(
        route("/services/collector/event"),
        Some(Vendor::SplunkEvent)
    );
    assert_eq!(
        route("/services/collector/event/1.0"),
        Some(Vendor::SplunkEvent)
    );
    assert_eq!(route("/services/collector/raw"), Some(Vendor::SplunkRaw));
    assert_eq!(
        route("/services/collector/health"),
        Some(Vendor::SplunkHealth)
    );
    assert_eq!(route("/v1/logs"), Some(Vendor::Otlp));
    assert_eq!(route("/loki/api/v1/push"), Some(Vendor::Loki));
    for other in [
        "/",
        "/logs",
        "/api/v2/logsx",
        "/v1/input/a/b",
        "/services/collectorx",
    ] {
        assert_eq!(route(other), None, "{other}");
    }
}
