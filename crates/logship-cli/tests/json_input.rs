//! `logship ship --format json` against the real output of JSON loggers: each line's
//! timestamp, level, message and logger are read under the keys each library writes, and
//! nested objects arrive as dotted names.
//!
//! The fixtures in `tests/fixtures/json-input/` were written by the real libraries
//! (`generate.sh` there regenerates them: Log4j2 `JsonLayout`, logstash-logback-encoder,
//! python-json-logger, Python ecs-logging, pino, bunyan); tracing-subscriber's JSON
//! formatter runs live in the test. RFC 3339 times are checked against GNU `date`, an
//! independent reader. The end-to-end test ships a fixture through the CLI to the strict
//! intake. Must never: compare against values derived with the code under test.

mod common;

use std::io::Write;
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use logship::{Entry, Level, Record};
use logship_intake::{Intake, IntakeConfig};
use serde_json::Value;

#[path = "../src/lines.rs"]
#[allow(dead_code)]
mod lines;

fn fixture(name: &str) -> Vec<String> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/json-input")
        .join(name);
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
        .lines()
        .map(str::to_owned)
        .collect()
}

fn fields(r: &Record) -> Vec<(String, String)> {
    r.entries()
        .filter_map(|e| match e {
            Entry::Field(k, v) => Some((k.to_owned(), format!("{v:?}"))),
            _ => None,
        })
        .collect()
}

fn field(r: &Record, key: &str) -> Option<String> {
    fields(r)
        .into_iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v)
}

/// Unix nanoseconds of an RFC 3339 text, as GNU `date` reads it.
fn date_nanos(text: &str) -> u64 {
    let out = Command::new("date")
        .args(["-u", "-d", text, "+%s%N"])
        .output()
        .expect("run date");
    assert!(out.status.success(), "date -d {text}");
    String::from_utf8_lossy(&out.stdout)
        .trim()
        .parse()
        .expect("date prints digits")
}

/// What one fixture must read as: its logger, and where its time is in the raw line.
struct Lib {
    file: &'static str,
    logger: &'static str,
    time: fn(&Value) -> u64,
    /// Keys the reader consumes: none of them may stay a field.
    consumed: &'static [&'static str],
}

fn rfc3339_at(key: &'static str) -> impl Fn(&Value) -> u64 {
    move |v| date_nanos(v[key].as_str().expect("a time text"))
}

const LIBS: &[Lib] = &[
    Lib {
        file: "log4j2-jsonlayout.ndjson",
        logger: "com.example.checkout.PaymentService",
        time: |v| {
            v["instant"]["epochSecond"].as_u64().unwrap() * 1_000_000_000
                + v["instant"]["nanoOfSecond"].as_u64().unwrap()
        },
        consumed: &[
            "level",
            "message",
            "loggerName",
            "instant.epochSecond",
            "instant.nanoOfSecond",
        ],
    },
    Lib {
        file: "logstash-logback.ndjson",
        logger: "com.example.checkout.PaymentService",
        time: |v| rfc3339_at("@timestamp")(v),
        consumed: &["level", "message", "logger_name", "@timestamp"],
    },
    Lib {
        file: "python-json-logger.ndjson",
        logger: "checkout.payments",
        time: |v| rfc3339_at("timestamp")(v),
        consumed: &["levelname", "message", "name", "timestamp"],
    },
    Lib {
        file: "python-ecs-logging.ndjson",
        logger: "checkout.ecs",
        time: |v| rfc3339_at("@timestamp")(v),
        consumed: &["log.level", "message", "log.logger", "@timestamp"],
    },
    Lib {
        file: "pino.ndjson",
        logger: "checkout",
        time: |v| v["time"].as_u64().unwrap() * 1_000_000,
        consumed: &["level", "msg", "name", "time"],
    },
    Lib {
        file: "bunyan.ndjson",
        logger: "checkout",
        time: |v| rfc3339_at("time")(v),
        consumed: &["level", "msg", "name", "time"],
    },
];

#[test]
fn real_library_output_reads_time_level_message_and_logger() {
    for lib in LIBS {
        let lines = fixture(lib.file);
        assert_eq!(lines.len(), 3, "{}", lib.file);
        let want = [
            (Level::Info, "user logged in"),
            (Level::Warn, "disk low: 12 MB free"),
            (Level::Error, "payment failed"),
        ];
        for (line, (level, message)) in lines.iter().zip(want) {
            let what = format!("{}: {line}", lib.file);
            let raw: Value = serde_json::from_str(line).expect("fixture line is JSON");
            let r = lines::json_record(line).expect("a JSON object is a record");
            assert_eq!(r.level(), level, "{what}");
            // logstash-logback-encoder appends structured arguments to the message.
            assert!(
                r.message_str().starts_with(message),
                "{what}: {:?}",
                r.message_str()
            );
            assert_eq!(r.target(), lib.logger, "{what}");
            assert_eq!(r.timestamp_nanos(), (lib.time)(&raw), "{what}");
            let f = fields(&r);
            for key in lib.consumed {
                assert!(
                    f.iter().all(|(k, _)| k != key),
                    "{what}: {key} left as a field"
                );
            }
            assert!(
                f.iter().all(|(k, _)| !k.is_empty()),
                "{what}: a field without a name"
            );
        }
        // The first event's own fields, nested objects as dotted names.
        let first = lines::json_record(&lines[0]).unwrap();
        match lib.file {
            "log4j2-jsonlayout.ndjson" => {
                // The MDC (`contextMap`) entries are fields under their own names.
                assert_eq!(
                    field(&first, "request_id").as_deref(),
                    Some("Str(\"r-123\")")
                );
                assert_eq!(field(&first, "contextMap.request_id"), None);
            }
            "logstash-logback.ndjson" => {
                assert_eq!(
                    field(&first, "request_id").as_deref(),
                    Some("Str(\"r-123\")")
                );
                assert_eq!(field(&first, "user_id").as_deref(), Some("I64(42)"));
            }
            _ => {
                assert_eq!(
                    field(&first, "user_id").as_deref(),
                    Some("I64(42)"),
                    "{}",
                    lib.file
                );
                assert_eq!(
                    field(&first, "http.method").as_deref(),
                    Some("Str(\"GET\")"),
                    "{}",
                    lib.file
                );
                assert_eq!(field(&first, "http.status").as_deref(), Some("I64(200)"));
            }
        }
        // The error event's exception arrives as its own dotted fields, not one string.
        let error = lines::json_record(&lines[2]).unwrap();
        let has = |key: &str| field(&error, key).is_some();
        let ok = match lib.file {
            // Log4j2's `thrown` is the event's error (with its cause chain), its class
            // and frames as fields.
            "log4j2-jsonlayout.ndjson" => {
                has("thrown.name")
                    && error.first_error().is_some()
                    && field(&error, "thrown.extendedStackTrace")
                        .is_some_and(|t| t.contains("gateway timed out"))
            }
            "logstash-logback.ndjson" => has("stack_trace"),
            "python-json-logger.ndjson" => has("exc_info"),
            "python-ecs-logging.ndjson" => has("error.type") && has("error.stack_trace"),
            _ => has("err.message") && has("err.stack"),
        };
        assert!(ok, "{}: {:?}", lib.file, fields(&error));
    }
}

/// A writer tracing-subscriber's formatter writes into.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Buffer {
    type Writer = Buffer;
    fn make_writer(&'a self) -> Buffer {
        self.clone()
    }
}

fn now_nanos() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("clock after 1970")
        .as_nanos() as u64
}

#[test]
fn tracing_subscriber_json_reads_its_message_fields_and_spans() {
    let buffer = Buffer::default();
    let subscriber = tracing_subscriber::fmt()
        .json()
        .with_current_span(true)
        .with_span_list(true)
        .with_writer(buffer.clone())
        .finish();
    let before = now_nanos();
    tracing::subscriber::with_default(subscriber, || {
        let span = tracing::info_span!("request", request_id = "r-1");
        let _entered = span.enter();
        tracing::warn!(user_id = 42, ok = true, "disk low");
        tracing::error!("no fields");
    });
    let after = now_nanos();
    let text = String::from_utf8(buffer.0.lock().unwrap().clone()).expect("UTF-8");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");

    let r = lines::json_record(lines[0]).expect("object");
    assert_eq!(r.message_str(), "disk low", "{}", lines[0]);
    assert_eq!(r.level(), Level::Warn);
    assert_eq!(r.target(), "json_input");
    // tracing-subscriber writes microseconds: the time read is the event's, to that.
    assert!(
        r.timestamp_nanos() + 1_000 >= before && r.timestamp_nanos() <= after,
        "{} not in {before}..={after}",
        r.timestamp_nanos()
    );
    // The event's own fields at the root (lifted from `fields`), the span as structure.
    assert_eq!(field(&r, "user_id").as_deref(), Some("I64(42)"));
    assert_eq!(field(&r, "ok").as_deref(), Some("Bool(true)"));
    assert_eq!(
        field(&r, "span.request_id").as_deref(),
        Some("Str(\"r-1\")")
    );
    assert_eq!(field(&r, "span.name").as_deref(), Some("Str(\"request\")"));
    assert!(field(&r, "fields.message").is_none() && field(&r, "message").is_none());
    assert!(field(&r, "timestamp").is_none() && field(&r, "level").is_none());

    let r = lines::json_record(lines[1]).expect("object");
    assert_eq!(r.message_str(), "no fields");
    assert_eq!(r.level(), Level::Error);
}

/// The whole CLI: a real fixture through `logship ship --format json` to the strict
/// Elasticsearch and Datadog intakes, where the vendor's own fields carry what was read.
#[test]
fn ship_json_sends_each_line_own_time_level_and_logger() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/json-input/python-ecs-logging.ndjson");
    let input = std::fs::read(&path).expect("fixture");
    let first: Value =
        serde_json::from_str(fixture("python-ecs-logging.ndjson")[0].as_str()).unwrap();
    let first_time = first["@timestamp"].as_str().unwrap().to_owned();

    let intake = Intake::start(IntakeConfig {
        api_key: Some("key-0123456789abcdef".into()),
        ..IntakeConfig::default()
    })
    .expect("intake");
    let out = common::run_with_stdin(
        common::logship()
            .args(["ship", "--format", "json", "--vendor", "elasticsearch"])
            .args(["--endpoint", &intake.url("")])
            .env("LOGSHIP_API_KEY", "key-0123456789abcdef"),
        &input,
        Duration::from_secs(60),
    );
    assert!(
        out.status.success(),
        "stderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
    let events: Vec<Value> = intake.events().into_iter().map(|e| e.value).collect();
    assert_eq!(events.len(), 3, "{events:#?}");
    let e = events
        .iter()
        .find(|e| e["message"] == "user logged in")
        .unwrap_or_else(|| panic!("{events:#?}"));
    assert_eq!(e["@timestamp"], Value::String(first_time.clone()), "{e:#}");
    assert_eq!(e["log.level"], "INFO", "{e:#}");
    assert_eq!(e["log.logger"], "checkout.ecs", "{e:#}");
    assert_eq!(e["http.method"], "GET", "{e:#}");
    assert_eq!(e["http.status"], 200, "{e:#}");
}

/// Arrays (and `null`) in a JSON line stay structure for the vendors whose bodies are
/// JSON, and become an OTLP `ArrayValue` (elements one level deep: a nested object is its
/// JSON text); Loki's structured metadata takes their JSON text. Every strict intake
/// accepts the result.
#[test]
fn arrays_in_json_lines_arrive_as_arrays() {
    let line = r#"{"message":"batch done","level":"info","tags":["a","b",{"c":1}],"ids":[1,2,3],"gone":null,"empty":{},"bad":"[not json"}"#;
    let key = "key-0123456789abcdef";
    // (vendor, where the event's fields are, whether arrays stay arrays)
    let cases: &[(&str, &str, bool)] = &[
        ("ndjson", "", true),
        ("datadog", "", true),
        ("splunk", "/event", true),
        ("newrelic", "/attributes", false),
        ("dynatrace", "", true),
        ("elasticsearch", "", true),
        ("loki", "/metadata", false),
        ("otlp", "/attributes", true),
        ("otlp-json", "/attributes", true),
    ];
    for &(name, at, structure) in cases {
        let vendor = name.trim_end_matches("-json");
        let intake = Intake::start(IntakeConfig {
            api_key: Some(key.into()),
            ..IntakeConfig::default()
        })
        .expect("intake");
        let mut cmd = common::logship();
        cmd.args(["ship", "--format", "json", "--vendor", vendor])
            .args(["--endpoint", &intake.url("")])
            .env("LOGSHIP_API_KEY", key);
        if vendor == "loki" {
            cmd.args(["--username", "123456"])
                .env("LOGSHIP_PASSWORD", key);
        }
        if name == "otlp-json" {
            cmd.args(["--otlp-encoding", "json"]);
        }
        let out = common::run_with_stdin(&mut cmd, line.as_bytes(), Duration::from_secs(60));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{vendor}: {stderr}");
        assert!(
            intake.violations().is_empty(),
            "{vendor}: {:?}",
            intake.violations()
        );
        let events = intake.events();
        assert_eq!(events.len(), 1, "{vendor}");
        let fields = events[0].value.pointer(at).cloned().unwrap_or_default();
        let tags = serde_json::json!(["a", "b", {"c": 1}]);
        if vendor == "otlp" {
            assert_eq!(
                fields["tags"],
                serde_json::json!(["a", "b", r#"{"c":1}"#]),
                "{fields:#}"
            );
            assert_eq!(fields["ids"], serde_json::json!([1, 2, 3]), "{fields:#}");
            assert_eq!(fields["gone"], Value::Null, "{fields:#}");
        } else if structure {
            assert_eq!(fields["tags"], tags, "{vendor}: {fields:#}");
            assert_eq!(
                fields["ids"],
                serde_json::json!([1, 2, 3]),
                "{vendor}: {fields:#}"
            );
            assert_eq!(fields["gone"], Value::Null, "{vendor}: {fields:#}");
            assert!(
                fields.get("gone").is_some(),
                "{vendor}: null is kept: {fields:#}"
            );
        } else {
            let text = fields["tags"]
                .as_str()
                .unwrap_or_else(|| panic!("{vendor}: {fields:#}"));
            assert_eq!(
                serde_json::from_str::<Value>(text).unwrap(),
                tags,
                "{vendor}"
            );
        }
        assert_eq!(
            fields["bad"], "[not json",
            "{vendor}: a string stays a string"
        );
    }
}
