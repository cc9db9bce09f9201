//! The listener's input parsers as fuzz targets (issue 32, item 14): the HTTP request
//! parser against httparse, the OTLP body's decode price against prost's real decode, and
//! one JSON line's flattening against its bound.
//!
//! Must never: depend on anything but the input, or take more than milliseconds on a
//! few-KB input.

use std::io::BufReader;

use prost::Message;

use crate::lines;

#[path = "../../crates/logship-cli/src/listen/http/vendor/otlp_cost.rs"]
#[allow(dead_code)]
mod otlp_cost;

/// The protobuf wire reader `otlp_cost` shares with the listener's event counter.
#[path = "../../crates/logship-cli/src/listen/http/vendor/wire_count.rs"]
#[allow(dead_code)]
mod wire_count;

/// Target `http_request`: `logship_http::read_request` on any bytes never panics, never
/// returns a body over its limit, and whatever it accepts httparse (a strict, widely
/// deployed parser) accepts too, with the same method, target and headers: no request is
/// framed by a rule a proxy in front of logship would read differently.
pub fn http_request(data: &[u8]) {
    const MAX_BODY: u64 = 4096;
    let mut reader = BufReader::new(data);
    let parsed = logship_http::read_request(&mut reader, &mut Vec::new(), MAX_BODY);
    let Ok(Some(ours)) = parsed else { return };
    assert!(ours.body.len() as u64 <= MAX_BODY);
    assert!(
        !(ours.chunked && ours.content_length.is_some()),
        "both framings accepted"
    );
    let mut headers = [httparse::EMPTY_HEADER; 256];
    let mut theirs = httparse::Request::new(&mut headers);
    let status = theirs.parse(data);
    assert!(
        matches!(status, Ok(httparse::Status::Complete(_))),
        "accepted what httparse refuses ({status:?})"
    );
    assert_eq!(theirs.method, Some(ours.method.as_str()));
    assert_eq!(theirs.path, Some(ours.target.as_str()));
    assert_eq!(theirs.headers.len(), ours.headers.len());
    for (t, (name, value)) in theirs.headers.iter().zip(&ours.headers) {
        assert_eq!(&t.name.to_ascii_lowercase(), name);
        if let Ok(v) = std::str::from_utf8(t.value) {
            assert_eq!(v, value);
        }
    }
}

/// Target `otlp_cost`: pricing any bytes never panics, and when prost decodes them as an
/// `ExportLogsServiceRequest`, the price is at least what the decoded containers take
/// (so a body priced under the budget cannot decode past it). The same bytes read as
/// OTLP JSON: when serde decodes them, the streaming price counts every log record, or
/// refuses the bytes (the listener then answers 400 and decodes nothing).
pub fn otlp_cost(data: &[u8]) {
    use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
    use opentelemetry_proto::tonic::logs::v1::{LogRecord, ResourceLogs, ScopeLogs};
    use std::mem::size_of;
    let json = otlp_cost::json_price(data, usize::MAX, usize::MAX);
    if let Ok(request) = serde_json::from_slice::<ExportLogsServiceRequest>(data) {
        let records: usize = request
            .resource_logs
            .iter()
            .flat_map(|r| &r.scope_logs)
            .map(|s| s.log_records.len())
            .sum();
        if let Ok(json) = json {
            assert!(json.records >= records, "{json:?} for {records} records");
        }
    }
    let price = otlp_cost::decoded_bytes(data, usize::MAX);
    // The listener skips pricing a body too short to reach the budget: that rests on this.
    if let Some(price) = price {
        let most = data
            .len()
            .saturating_mul(otlp_cost::MAX_PRICE_PER_WIRE_BYTE);
        assert!(
            price <= most,
            "priced {price}, over {most} for {} bytes",
            data.len()
        );
    }
    let Ok(request) = ExportLogsServiceRequest::decode(data) else {
        return;
    };
    let price = price.expect("what prost decodes walks");
    let mut floor = request.resource_logs.len() * size_of::<ResourceLogs>();
    for rl in &request.resource_logs {
        floor += rl.scope_logs.len() * size_of::<ScopeLogs>();
        for sl in &rl.scope_logs {
            floor += sl.log_records.len() * size_of::<LogRecord>();
            for r in &sl.log_records {
                floor += r.severity_text.len() + r.trace_id.len() + r.span_id.len();
            }
        }
    }
    assert!(price >= floor, "priced {price}, decoded {floor}");
    // Stopping early never prices lower than the stop.
    if let Some(stopped) = otlp_cost::decoded_bytes(data, price / 2) {
        assert!(stopped > price / 2 || stopped == price);
    }
}

/// Target `json_flatten`: the whole input as one JSON line. Never a panic; the event's
/// field names take at most 4 bytes per byte of the line plus 2 KiB (a name copies its
/// parents': unbounded, 200 KB of nested long keys asked for gigabytes).
pub fn json_flatten(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Some(record) = lines::json_record(&text) else {
        return;
    };
    assert_names_bounded(&record, &text);
}

/// The record's field names take at most 4 bytes per byte of `text` (the line it was
/// read from) plus 2 KiB, the flattening's bound (and a little for Log4j2's own names).
pub fn assert_names_bounded(record: &logship::Record, text: &str) {
    let names: usize = record
        .entries()
        .filter_map(|e| match e {
            logship::Entry::Field(k, _) => Some(k.len()),
            _ => None,
        })
        .sum();
    assert!(
        names <= 4 * text.len() + 2048 + 64,
        "{names} name bytes from a {}-byte line",
        text.len()
    );
}
