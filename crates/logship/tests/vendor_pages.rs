//! `docs/vendor-events.md`: one real event per vendor, as each strict intake received it.
//!
//! The same event (an error with a source chain, inside a span, with a trace context,
//! `env` and `version`) is shipped to every vendor's strict emulation; the page shows the
//! request line, the headers that matter (credentials hidden) and the event as the intake
//! decoded it. The page is generated, never written by hand: this test fails when the page
//! differs from what the intakes receive today. `LOGSHIP_BLESS=1 cargo test -p logship
//! --test vendor_pages` rewrites it.

mod common;

use std::fmt::{self, Write as _};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use common::vendors::*;
use common::*;
use logship::{Level, OtlpEncoding, Record, Vendor};
use serde_json::Value;

#[derive(Debug)]
struct CardDeclined {
    source: std::io::Error,
}

impl fmt::Display for CardDeclined {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("card declined")
    }
}

impl std::error::Error for CardDeclined {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// The event time the page shows (2026-12-01T16:00:00.123Z), in milliseconds.
const PAGE_TIME_MS: u64 = 1_796_140_800_123;

/// The event time actually shipped: this second, with the page's 123 ms. The strict
/// intakes refuse times too far in the past (Datadog: 18 h), so a fixed time would make
/// the test fail a day after it was blessed; the page is written with [`PAGE_TIME_MS`]
/// in its place (see [`at_page_time`]).
fn shipped_ms() -> u64 {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    now.as_secs() * 1000 + PAGE_TIME_MS % 1000
}

/// `ms` as RFC 3339 with milliseconds (`2026-12-01T16:00:00.123Z`), as the vendors
/// that take text times receive it.
fn rfc3339_ms(ms: u64) -> String {
    logship::rfc3339_millis(ms * 1_000_000)
}

/// `text` with every form of the shipped time the vendors use (epoch nanoseconds,
/// milliseconds, seconds with a fraction, RFC 3339) replaced by the same form of
/// [`PAGE_TIME_MS`]. Nanoseconds first: the milliseconds are their prefix.
fn at_page_time(text: &str, shipped_ms: u64) -> String {
    let forms = |ms: u64| {
        [
            format!("{}", u128::from(ms) * 1_000_000),
            format!("{ms}"),
            format!("{}.{:03}", ms / 1000, ms % 1000),
            rfc3339_ms(ms),
        ]
    };
    let mut out = text.to_owned();
    for (from, to) in forms(shipped_ms).iter().zip(forms(PAGE_TIME_MS)) {
        out = out.replace(from.as_str(), &to);
    }
    out
}

#[test]
fn the_page_time_reads_back_in_every_form() {
    assert_eq!(rfc3339_ms(PAGE_TIME_MS), "2026-12-01T16:00:00.123Z");
    assert_eq!(rfc3339_ms(951_782_400_000), "2000-02-29T00:00:00.000Z");
    let shipped = 1_900_000_000_123;
    let text = format!(
        "{} {} {} {}",
        u128::from(shipped) * 1_000_000,
        shipped,
        "1900000000.123",
        rfc3339_ms(shipped)
    );
    assert_eq!(
        at_page_time(&text, shipped),
        "1796140800123000000 1796140800123 1796140800.123 2026-12-01T16:00:00.123Z"
    );
}

/// The one event every vendor receives, at `ms`.
fn event(ms: u64) -> Record {
    let error = CardDeclined {
        source: std::io::Error::new(std::io::ErrorKind::TimedOut, "issuer did not answer"),
    };
    let mut r = Record::new(Level::Error, "shop::checkout");
    r.set_timestamp(UNIX_EPOCH + Duration::from_millis(ms))
        .message("payment failed for order o-1042")
        .field("order_id", "o-1042")
        .field("amount_cents", 1299u64)
        .error("error", &error)
        .span("request")
        .field("request_id", "r-7")
        .field("trace_id", "4bf92f3577b34da6a3ce929d0e0e4736")
        .field("span_id", "00f067aa0ba902b7");
    r
}

/// Headers shown on the page; any other is left out. Credentials are replaced.
const SHOWN: &[&str] = &[
    "content-type",
    "content-encoding",
    "dd-api-key",
    "authorization",
    "api-key",
    "x-splunk-request-channel",
    "x-scope-orgid",
];

/// Header values that identify a credential or a process, replaced on the page.
fn shown_value(name: &str, value: &str) -> String {
    match name {
        "dd-api-key" | "api-key" => "<api key>".into(),
        "authorization" => match value.split_once(' ') {
            Some((scheme, _)) => format!("{scheme} <credentials>"),
            None => "<credentials>".into(),
        },
        "x-splunk-request-channel" => "<channel GUID of the process>".into(),
        _ => value.into(),
    }
}

/// Ships [`event`] to `vendor` and renders its section of the page.
fn section(title: &str, vendor: Vendor, otlp: Option<OtlpEncoding>, note: &str) -> String {
    let shipped = shipped_ms();
    let intake = vendor_intake();
    let builder = vendor_builder(&intake, vendor)
        .env("prod")
        .version("1.4.2")
        .gzip(false);
    let builder = for_vendor(builder, vendor, otlp);
    let logship = ship(builder, [event(shipped)]);
    assert_clean(&intake, &logship, 1);
    let requests = intake.requests();
    let request = &requests[0];
    let mut out = format!(
        "## {title}\n\n{note}\n\n```http\n{} {}\n",
        request.method, request.path
    );
    for (name, value) in &request.headers {
        let name = name.to_ascii_lowercase();
        if SHOWN.contains(&name.as_str()) {
            let _ = writeln!(out, "{name}: {}", shown_value(&name, value));
        }
    }
    let decoded = intake.events().remove(0).value;
    let pretty = serde_json::to_string_pretty(&scrub(decoded)).unwrap();
    let _ = write!(out, "```\n\n```json\n{pretty}\n```\n\n");
    at_page_time(&out, shipped)
}

/// Replaces the values that differ from run to run: the event id (its process prefix is
/// random), under each vendor's name for it, at any depth.
fn scrub(mut v: Value) -> Value {
    const ID_NAMES: &[&str] = &["logship.id", "logship_id", "log.record.uid", "_id"];
    let mut stack = vec![&mut v];
    while let Some(node) = stack.pop() {
        if let Value::Object(map) = node {
            for (key, child) in map.iter_mut() {
                if ID_NAMES.contains(&key.as_str()) && child.is_string() {
                    *child = Value::String("<event id: 32 hex digits>".into());
                } else {
                    stack.push(child);
                }
            }
        }
    }
    v
}

fn page() -> String {
    let mut page = String::from(
        "# One event per vendor, as it arrives\n\n\
         Generated by `crates/logship/tests/vendor_pages.rs` (`LOGSHIP_BLESS=1 cargo test -p \
         logship --test vendor_pages`), never edited by hand: the same event, an `ERROR` \
         with an error and its source chain, inside a span `request`, with a W3C trace \
         context and `env`/`version` set, shipped by logship to each vendor's strict \
         emulation in `logship-intake`, and shown as that intake decoded it (compression is \
         off here only so the request is readable; it is on by default). Field by field, \
         the mapping is in [vendors.md](vendors.md).\n\n\
         The event, as the application logged it (with `tracing`):\n\n\
         ```rust\n\
         let span = tracing::error_span!(\"request\", request_id = \"r-7\", trace_id = \"4bf92f35...\", span_id = \"00f067aa0ba902b7\");\n\
         span.in_scope(|| tracing::error!(order_id = \"o-1042\", amount_cents = 1299, error = &err as &dyn Error, \"payment failed for order o-1042\"));\n\
         // err: CardDeclined (\"card declined\"), caused by io::Error (\"issuer did not answer\")\n\
         ```\n\n",
    );
    let cases: &[(&str, Vendor, Option<OtlpEncoding>, &str)] = &[
        ("Datadog", Vendor::Datadog, None, "Logs API v2: a JSON array of events."),
        ("Splunk HEC", Vendor::Splunk, None, "`/services/collector/event`: one JSON object per event, concatenated."),
        ("New Relic", Vendor::NewRelic, None, "Log API: the detailed JSON form (`common` + `logs`); shown is one entry of `logs`."),
        ("Dynatrace", Vendor::Dynatrace, None, "Log ingest v2: a JSON array of records."),
        ("Grafana Loki", Vendor::Loki, None, "Push API, JSON: shown is the intake's view of one entry (its line, its stream's labels, its structured metadata)."),
        ("Elasticsearch / OpenSearch", Vendor::Elasticsearch, None, "`_bulk` NDJSON: a `create` action line carrying the event id as `_id` (a replay meets 409, counted as already delivered), then the document (ECS field names); shown is the document."),
        ("OpenTelemetry (OTLP/HTTP protobuf)", Vendor::Otlp, Some(OtlpEncoding::Protobuf), "`/v1/logs`, protobuf: shown is the intake's JSON view of the decoded `LogRecord` (resource and scope alongside)."),
        ("OpenTelemetry (OTLP/HTTP JSON)", Vendor::Otlp, Some(OtlpEncoding::Json), "`/v1/logs`, the protobuf JSON mapping: shown is the intake's view of the decoded `LogRecord`."),
        ("Generic NDJSON", Vendor::Ndjson, None, "Any URL: one JSON object per line, spans kept nested."),
    ];
    for (title, vendor, otlp, note) in cases {
        page.push_str(&section(title, *vendor, *otlp, note));
    }
    page.pop();
    page
}

#[test]
fn the_vendor_events_page_shows_what_each_intake_receives_today() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/vendor-events.md");
    let page = page();
    if std::env::var_os("LOGSHIP_BLESS").is_some() {
        std::fs::write(&path, &page).unwrap();
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == page,
        "docs/vendor-events.md is not what the intakes receive today; run \
         `LOGSHIP_BLESS=1 cargo test -p logship --test vendor_pages` and review the diff.\n\
         --- generated ---\n{page}"
    );
}
