//! Every vendor cuts an event over its per-event limit the same way: every field kept,
//! only the message shortened, the encoded event within a few bytes of the limit, and
//! the bytes cut counted in `logship.truncated_bytes` (issue 32, item 7).

use std::sync::Arc;
use std::time::Instant;

use crate::batch::Batcher;
use crate::capture::record::{Entry, Level, Record, Value, MARKER};
use crate::config::Vendor;
use crate::vendors::codec::Codec;
use crate::vendors::prefer_json;
use crate::vendors::testutil::with_endpoint;

/// Encoded bytes a cut may leave unused: one character escaped at its widest (`\u0001`
/// is 6 bytes) plus the count's digits shrinking, and the fitter's own tolerance (16).
const MARGIN: usize = 32;

/// Values no encoder writes on its own, to find each field in a body.
const FIELDS: [(&str, &str); 4] = [
    ("host", "host-7f3a"),
    ("log.file.path", "/var/log/app-7f3a.log"),
    ("service", "svc-7f3a"),
    ("request_id", "req-7f3a"),
];

fn field<'a>(r: &'a Record, key: &str) -> Option<Value<'a>> {
    r.entries().find_map(|e| match e {
        Entry::Field(k, v) if k == key => Some(v),
        _ => None,
    })
}

fn record(message: &str) -> Record {
    let mut r = Record::new(Level::Warn, "app.orders");
    // Fields before and after the message: both must stay.
    r.field("host", "host-7f3a").message(message);
    for (k, v) in &FIELDS[1..] {
        r.field(k, *v);
    }
    r.field("attempt", 3u64);
    r
}

/// Pushes `message`'s event through `vendor`'s batcher; returns the cut record, the
/// encoded length of that event, the codec's per-event limit and the body.
fn ship(vendor: Vendor, json: bool, message: &str) -> (Record, usize, usize, Vec<u8>, bool) {
    let mut c = with_endpoint(vendor, "http://127.0.0.1:9/");
    prefer_json(&mut c, json);
    let codec = Arc::new(Codec::new(&c).unwrap());
    let limit = codec.limits().max_event_bytes;
    let mut b = Batcher::new(codec.clone(), c.max_event_bytes);
    let mut out = Vec::new();
    let effects = b.push(record(message), Instant::now(), &mut |x| out.push(x));
    assert!(effects.truncated, "{vendor:?}");
    b.cut(&mut |x| out.push(x));
    let batch = out.pop().unwrap();
    let cut = batch.records[0].clone();
    let mut body = Vec::new();
    codec.open(&mut body);
    let before = body.len();
    codec.push(&mut body, &cut, None);
    let line_limited = codec.fit_line(&record(message)).is_some();
    (cut, body.len() - before, limit, batch.body, line_limited)
}

fn check(vendor: Vendor, json: bool, message: &str, what: &str) {
    let (cut, len, limit, body, line_limit) = ship(vendor, json, message);
    let ctx = format!("{vendor:?} (json {json}), {what}");
    assert!(len <= limit, "{ctx}: {len} over {limit}");
    let kept = cut.message_str();
    assert!(kept.ends_with(MARKER), "{ctx}");
    let kept = &kept[..kept.len() - MARKER.len()];
    assert!(message.starts_with(kept), "{ctx}: not a prefix");
    // As close as the encoding allows: to the event limit, or to a vendor's line limit.
    let line_limited = line_limit && kept.len() + MARKER.len() + MARGIN >= 256 * 1024;
    assert!(
        limit - len <= MARGIN || line_limited,
        "{ctx}: {len} bytes, {} under the limit {limit}",
        limit - len
    );
    assert_eq!(
        field(&cut, "logship.truncated_bytes"),
        Some(Value::U64((message.len() - kept.len()) as u64)),
        "{ctx}"
    );
    assert_eq!(field(&cut, "logship.truncated"), Some(Value::Bool(true)));
    assert_eq!(
        (cut.level(), cut.target()),
        (Level::Warn, "app.orders"),
        "{ctx}"
    );
    for (k, v) in FIELDS {
        assert_eq!(field(&cut, k), Some(Value::Str(v)), "{ctx}: {k}");
        let found = body.windows(v.len()).any(|w| w == v.as_bytes());
        assert!(found, "{ctx}: {v} not in the body");
    }
    assert_eq!(field(&cut, "attempt"), Some(Value::U64(3)), "{ctx}");
    assert!(
        body.windows(10).any(|w| w == b"app.orders"),
        "{ctx}: logger"
    );
}

#[test]
fn every_vendor_keeps_every_field_and_cuts_only_the_message_to_its_limit() {
    let ascii = "x".repeat(3 << 20);
    // Two-, three- and four-byte characters, so that the cut falls inside one.
    let wide = "é中🚀".repeat(400_000);
    // Each escapes to six bytes in JSON (one in a binary encoding).
    let control = "\u{1}".repeat(3 << 20);
    for &vendor in Vendor::ALL {
        for json in [false, true] {
            check(vendor, json, &ascii, "ascii");
            check(vendor, json, &wide, "multi-byte UTF-8");
            check(vendor, json, &control, "\\u0001");
        }
    }
}

#[test]
fn a_huge_field_is_cut_after_the_message_and_every_field_is_kept() {
    let mut r = Record::new(Level::Error, "app.orders");
    r.message("short message")
        .field("host", "host-7f3a")
        .field("payload", "p".repeat(2 << 20).as_str())
        .field("log.file.path", "/var/log/app.log");
    let cut = r.truncated(64 * 1024);
    assert!(cut.size() <= 64 * 1024, "{}", cut.size());
    assert_eq!(field(&cut, "host"), Some(Value::Str("host-7f3a")));
    assert_eq!(
        field(&cut, "log.file.path"),
        Some(Value::Str("/var/log/app.log"))
    );
    let Some(Value::Str(payload)) = field(&cut, "payload") else {
        panic!("payload left out")
    };
    assert!(payload.ends_with(MARKER) && payload.len() > 60 * 1024);
    assert_eq!(cut.message_str(), "…[truncated]");
    let kept = payload.len() - MARKER.len();
    assert_eq!(
        field(&cut, "logship.truncated_bytes"),
        Some(Value::U64((13 + (2 << 20) - kept) as u64))
    );
}

#[test]
fn an_event_whose_fields_alone_are_over_keeps_what_fits_and_counts_the_rest() {
    let mut r = Record::new(Level::Error, "app.orders");
    r.message("m").field("host", "h");
    for i in 0..5_000 {
        r.field(&format!("k{i:05}-{}", "n".repeat(40)), i as u64);
    }
    let before = r.size();
    let cut = r.truncated(8 * 1024);
    assert!(cut.size() <= 8 * 1024 + 64, "{}", cut.size());
    assert_eq!(cut.level(), Level::Error);
    assert_eq!(
        field(&cut, "host"),
        Some(Value::Str("h")),
        "early fields stay"
    );
    let Some(Value::U64(n)) = field(&cut, "logship.truncated_bytes") else {
        panic!("no count")
    };
    // Everything left out is counted: what is kept plus what was cut is the whole.
    let kept_entries = cut.size() as u64;
    assert!(
        n + kept_entries >= before as u64 - 200,
        "{n} {kept_entries} {before}"
    );
}

#[test]
fn a_cut_of_a_cut_adds_up_the_bytes_and_keeps_the_first_size() {
    let mut r = Record::new(Level::Info, "t");
    r.message(&"x".repeat(100_000))
        .field("logship.truncated", true)
        .field("logship.original_bytes", 5_000_000u64)
        .field("logship.truncated_bytes", 4_899_000u64);
    let once = r.with_message_cut(60_000);
    let twice = once.with_message_cut(10_000);
    assert_eq!(
        field(&twice, "logship.original_bytes"),
        Some(Value::U64(5_000_000))
    );
    assert_eq!(
        field(&twice, "logship.truncated_bytes"),
        Some(Value::U64(4_899_000 + 90_000))
    );
    let marks = twice
        .entries()
        .filter(|e| matches!(e, Entry::Field(k, _) if k.starts_with("logship.")))
        .count();
    assert_eq!(marks, 3);
}
