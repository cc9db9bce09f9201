//! OTLP bodies decoded with the official `opentelemetry-proto` types.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Instant;

use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
use opentelemetry_proto::tonic::common::v1::KeyValue;
use prost::Message;

use crate::batch::Batcher;
use crate::capture::record::{Level, Record};
use crate::config::{Config, Vendor};
use crate::vendors::answer::Outcome;
use crate::vendors::codec::Codec;
use crate::vendors::testutil::TestFacts;
use crate::OtlpEncoding;

/// How this vendor's bodies look, for the tests that run over every vendor.
pub(crate) const FACTS: TestFacts = TestFacts {
    id_marker: "log.record.uid",
    logger_always: true,
    unique_names: Some(unique_names),
    ..TestFacts::plain("\"scope\":{\"name\":")
};

fn codec(encoding: OtlpEncoding) -> Codec {
    Codec::new(&Config {
        vendor: Vendor::Otlp,
        endpoint: Some("http://collector:4318".into()),
        hostname: Some("web-1".into()),
        service: Some("checkout".into()),
        tags: vec!["env:prod".into(), "team:pay".into()],
        otlp: crate::vendors::otlp::options::OtlpOptions { encoding },
        ..Config::default()
    })
    .unwrap()
}

fn rec(target: &str, level: Level, msg: &str) -> Record {
    let mut r = Record::new(level, target);
    r.set_timestamp_nanos(1_717_171_717_123_456_789)
        .message(msg);
    r
}

/// Records covering every value type, spans, ids, duplicates and scope changes.
fn sample() -> Vec<Record> {
    let mut a = rec("app::pay", Level::Warn, "paid \"x\" ü\n");
    a.field("order_id", 42u64)
        .field("big", u64::MAX)
        .field("neg", -7i64)
        .field("ratio", 0.25f64)
        .field("nan", f64::NAN)
        .field("ok", true)
        .field("dup", "first")
        .field("dup", "second")
        .span("request")
        .field("trace_id", "4bf92f3577b34da6a3ce929d0e0e4736")
        .field("span_id", "00f067aa0ba902b7")
        .field("id", 7i64)
        .span("request")
        .field("id", 8i64);
    let mut b = rec("app::pay", Level::Info, "second in scope");
    b.field("trace_id", "not-hex");
    let c = rec("app::db", Level::Error, "");
    let d = rec("app::pay", Level::Trace, "back to pay");
    let e = rec("app::pay", Level::Debug, &"long ".repeat(40));
    vec![a, b, c, d, e]
}

fn decode(encoding: OtlpEncoding, body: &[u8]) -> ExportLogsServiceRequest {
    match encoding {
        OtlpEncoding::Protobuf => ExportLogsServiceRequest::decode(body).expect("protobuf"),
        OtlpEncoding::Json => serde_json::from_slice(body).expect("OTLP JSON"),
    }
}

fn attr<'a>(attrs: &'a [KeyValue], key: &str) -> Option<&'a Any> {
    let mut found = attrs.iter().filter(|kv| kv.key == key);
    let kv = found.next()?;
    assert!(found.next().is_none(), "duplicate attribute {key}");
    kv.value.as_ref()?.value.as_ref()
}

#[test]
fn both_encodings_carry_the_same_request() {
    let records = sample();
    let proto = decode(
        OtlpEncoding::Protobuf,
        &codec(OtlpEncoding::Protobuf).encode(&records),
    );
    let json = decode(
        OtlpEncoding::Json,
        &codec(OtlpEncoding::Json).encode(&records),
    );
    assert_eq!(proto, json);
}

#[test]
fn records_map_to_the_log_data_model() {
    for encoding in [OtlpEncoding::Protobuf, OtlpEncoding::Json] {
        let req = decode(encoding, &codec(encoding).encode(&sample()));
        assert_eq!(req.resource_logs.len(), 1);
        let rl = &req.resource_logs[0];
        let res = &rl.resource.as_ref().unwrap().attributes;
        assert_eq!(
            attr(res, "service.name"),
            Some(&Any::StringValue("checkout".into()))
        );
        assert_eq!(
            attr(res, "host.name"),
            Some(&Any::StringValue("web-1".into()))
        );
        assert_eq!(attr(res, "env"), Some(&Any::StringValue("prod".into())));
        // Consecutive records with the same target share a scope.
        let scopes: Vec<(&str, usize)> = rl
            .scope_logs
            .iter()
            .map(|s| (s.scope.as_ref().unwrap().name.as_str(), s.log_records.len()))
            .collect();
        assert_eq!(
            scopes,
            [("app::pay", 2), ("app::db", 1), ("app::pay", 2)],
            "{encoding:?}"
        );
        let r = &rl.scope_logs[0].log_records[0];
        assert_eq!(r.time_unix_nano, 1_717_171_717_123_456_789);
        assert_eq!(r.observed_time_unix_nano, 1_717_171_717_123_456_789);
        assert_eq!((r.severity_number, r.severity_text.as_str()), (13, "WARN"));
        let body = r.body.as_ref().unwrap().value.as_ref().unwrap();
        assert_eq!(body, &Any::StringValue("paid \"x\" ü\n".into()));
        let a = &r.attributes;
        assert_eq!(attr(a, "order_id"), Some(&Any::IntValue(42)));
        assert_eq!(
            attr(a, "big"),
            Some(&Any::StringValue(u64::MAX.to_string()))
        );
        assert_eq!(attr(a, "neg"), Some(&Any::IntValue(-7)));
        assert_eq!(attr(a, "ratio"), Some(&Any::DoubleValue(0.25)));
        assert_eq!(attr(a, "nan"), Some(&Any::StringValue("NaN".into())));
        assert_eq!(attr(a, "ok"), Some(&Any::BoolValue(true)));
        assert_eq!(attr(a, "dup"), Some(&Any::StringValue("second".into())));
        assert_eq!(
            attr(a, "id"),
            Some(&Any::IntValue(8)),
            "innermost span wins"
        );
        assert_eq!(attr(a, "trace_id"), None);
        assert_eq!(
            r.trace_id,
            [
                0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e,
                0x47, 0x36
            ]
        );
        assert_eq!(r.span_id, [0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7]);
        // An id that is not hex stays an attribute.
        let r = &rl.scope_logs[0].log_records[1];
        assert!(r.trace_id.is_empty());
        assert_eq!(
            attr(&r.attributes, "trace_id"),
            Some(&Any::StringValue("not-hex".into()))
        );
        let levels: Vec<i32> = rl
            .scope_logs
            .iter()
            .flat_map(|s| s.log_records.iter().map(|r| r.severity_number))
            .collect();
        assert_eq!(levels, [13, 9, 17, 1, 5]);
    }
}

#[test]
fn an_empty_batch_is_a_valid_request() {
    for encoding in [OtlpEncoding::Protobuf, OtlpEncoding::Json] {
        let req = decode(encoding, &codec(encoding).encode(&[]));
        assert!(req.resource_logs[0].scope_logs.is_empty());
    }
}

#[test]
fn batches_are_exact_and_within_the_byte_limit() {
    for encoding in [OtlpEncoding::Protobuf, OtlpEncoding::Json] {
        let config = Config {
            vendor: Vendor::Otlp,
            endpoint: Some("http://127.0.0.1:1".into()),
            otlp: crate::vendors::otlp::options::OtlpOptions { encoding },
            max_batch_bytes: 4096,
            max_batch_records: 10_000,
            ..Config::default()
        };
        let codec = Arc::new(Codec::new(&config).unwrap());
        let mut b = Batcher::new(Arc::clone(&codec), 1 << 20);
        let mut out = Vec::new();
        for i in 0..300 {
            let target = ["a", "a", "b"][i % 3];
            let r = rec(target, Level::Info, &"x".repeat(i % 150));
            b.push(r, Instant::now(), &mut |x| out.push(x));
        }
        b.cut(&mut |x| out.push(x));
        assert!(out.len() > 5);
        let mut total = 0;
        for batch in &out {
            assert!(batch.body.len() <= 4096, "{}", batch.body.len());
            assert_eq!(batch.body, codec.encode(&batch.records));
            let req = decode(encoding, &batch.body);
            let n: usize = req.resource_logs[0]
                .scope_logs
                .iter()
                .map(|s| s.log_records.len())
                .sum();
            assert_eq!(n, batch.records.len());
            total += n;
        }
        assert_eq!(total, 300);
    }
}

#[test]
fn only_the_specs_retryable_statuses_are_retried() {
    for encoding in [OtlpEncoding::Protobuf, OtlpEncoding::Json] {
        let c = codec(encoding);
        for (status, want) in [
            (200, Outcome::Delivered),
            (202, Outcome::Delivered),
            (429, Outcome::Retry),
            (502, Outcome::Retry),
            (503, Outcome::Retry),
            (504, Outcome::Retry),
            (500, Outcome::Permanent),
            (501, Outcome::Permanent),
            (400, Outcome::Permanent),
            (401, Outcome::Permanent),
            (403, Outcome::Permanent),
            (408, Outcome::Permanent),
            (413, Outcome::TooLarge),
        ] {
            assert_eq!(c.classify(status, b""), want, "{status}");
        }
    }
}

#[test]
fn partial_success_counts_rejected_records() {
    let json = codec(OtlpEncoding::Json);
    let body = br#"{"partialSuccess":{"rejectedLogRecords":"3","errorMessage":"too old"}}"#;
    assert_eq!(json.classify(200, body), Outcome::PartialRejected(3));
    let warning = br#"{"partialSuccess":{"rejectedLogRecords":0,"errorMessage":"slow down"}}"#;
    assert_eq!(json.classify(200, warning), Outcome::Delivered);
    assert_eq!(json.classify(200, b"{}"), Outcome::Delivered);
    // Counts that are not counts are not success.
    for bad in [
        r#"{"partialSuccess":{"rejectedLogRecords":-5}}"#,
        r#"{"partialSuccess":{"rejectedLogRecords":"-5"}}"#,
        r#"{"partialSuccess":{"rejectedLogRecords":"99999999999999999999999"}}"#,
        r#"{"partialSuccess":{"rejectedLogRecords":18446744073709551615}}"#,
        r#"{"partialSuccess":{"rejectedLogRecords":1.5}}"#,
        r#"{"partialSuccess":{"rejectedLogRecords":"lots"}}"#,
    ] {
        assert_eq!(json.classify(200, bad.as_bytes()), Outcome::Retry, "{bad}");
    }
    let proto = codec(OtlpEncoding::Protobuf);
    let response = opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceResponse {
        partial_success: Some(
            opentelemetry_proto::tonic::collector::logs::v1::ExportLogsPartialSuccess {
                rejected_log_records: 300,
                error_message: "too old".into(),
            },
        ),
    };
    assert_eq!(
        proto.classify(200, &response.encode_to_vec()),
        Outcome::PartialRejected(300)
    );
    assert_eq!(proto.classify(200, b""), Outcome::Delivered);
}

#[test]
fn the_standard_path_and_content_types() {
    let c = codec(OtlpEncoding::Protobuf);
    assert_eq!(c.url(), "http://collector:4318/v1/logs");
    assert_eq!(c.content_type(), "application/x-protobuf");
    assert_eq!(codec(OtlpEncoding::Json).content_type(), "application/json");
    assert!(c.headers().is_empty());
}

/// No attribute list of a body (protobuf, or JSON read strictly first) holds a key twice.
fn unique_names(config: &Config, body: &[u8]) -> Result<(), String> {
    let request: ExportLogsServiceRequest = match config.otlp.encoding {
        OtlpEncoding::Protobuf => {
            ExportLogsServiceRequest::decode(body).map_err(|e| e.to_string())?
        }
        OtlpEncoding::Json => {
            crate::vendors::testutil::check_json(body)?;
            serde_json::from_slice(body).map_err(|e| e.to_string())?
        }
    };
    check_otlp(&request)
}

fn check_attrs(attrs: &[KeyValue], what: &str) -> Result<(), String> {
    let mut seen = HashSet::new();
    for kv in attrs {
        if !seen.insert(kv.key.as_str()) {
            return Err(format!("duplicate attribute {:?} in {what}", kv.key));
        }
    }
    Ok(())
}

fn check_otlp(request: &ExportLogsServiceRequest) -> Result<(), String> {
    for rl in &request.resource_logs {
        if let Some(r) = &rl.resource {
            check_attrs(&r.attributes, "resource")?;
        }
        for sl in &rl.scope_logs {
            for lr in &sl.log_records {
                check_attrs(&lr.attributes, "log record")?;
            }
        }
    }
    Ok(())
}
