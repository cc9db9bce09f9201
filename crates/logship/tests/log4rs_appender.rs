//! The log4rs appender (`kind: batch_http`) as log4rs builds it from a configuration
//! file: bad options fail with the field, the value and the fix; the environment fills
//! secrets and overrides the file; secrets never show; an invalid appender fails
//! `init_file`; dropping the appender never waits for its pipeline.

use log4rs::append::Append as _;
use log4rs::config::{Deserialize as _, Deserializers};
use logship::log4rs::{init_file, BatchHttpAppender, BatchHttpAppenderDeserializer, Log4rsError};

fn table(yaml_like_toml: &str) -> toml::Table {
    yaml_like_toml.parse().expect("test table")
}

fn deserializer(vars: &'static [(&'static str, &'static str)]) -> BatchHttpAppenderDeserializer {
    BatchHttpAppenderDeserializer::with_env(move |v| {
        vars.iter()
            .find(|(k, _)| *k == v)
            .map(|(_, x)| (*x).to_owned())
    })
}

/// Builds an appender from `map` the way log4rs does, returning the error text.
fn error_of(map: &str, vars: &'static [(&'static str, &'static str)]) -> String {
    match deserializer(vars).deserialize(table(map), &Deserializers::empty()) {
        Ok(_) => panic!("{map} was accepted"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn bad_options_fail_with_the_field_the_value_and_the_fix() {
    let from = "[from file log4rs configuration, kind: batch_http]";
    for (map, want) in [
        (
            "linger_ms = -5",
            format!("linger_ms = -5: must be 0..=600000 milliseconds (set linger_ms to a whole number from 0 to 600000) {from}"),
        ),
        (
            "lingerMilis = 5",
            format!("key = lingerMilis: is not a logship option (did you mean lingerMillis?) {from}"),
        ),
        (
            "vendor = \"datadog\"",
            "invalid logship configuration: api_key = (none): vendor datadog needs an API key (set api_key or DD_API_KEY)".to_owned(),
        ),
        (
            "encoder = { pattern = \"{m}\" }",
            "encoder = (given): is not used: logship sends each event as structured JSON in the vendor's format (remove encoder from this appender)".to_owned(),
        ),
        (
            "vendor = \"datadog\"\napi_key = \"${env:MISSING_KEY}\"",
            format!("api_key = [redacted]: environment variable MISSING_KEY is not set (set MISSING_KEY, or give a default: ${{env:MISSING_KEY:-value}}) {from}"),
        ),
    ] {
        assert_eq!(error_of(map, &[]), want, "for {map}");
    }
}

#[test]
fn the_environment_fills_secrets_and_overrides_the_file() {
    let builder = deserializer(&[
        ("DD_KEY_FOR_TEST", "k-from-env"),
        ("LOGSHIP_SERVICE", "from-env"),
    ])
    .builder(table(
        "vendor = \"datadog\"\napiKey = \"${env:DD_KEY_FOR_TEST}\"\nservice = \"from-file\"\nsite = \"${env:NO_SUCH_VAR:-datadoghq.eu}\"",
    ))
    .unwrap();
    let c = builder.config();
    assert_eq!(c.api_key.as_ref().map(|k| k.expose()), Some("k-from-env"));
    assert_eq!(c.service.as_deref(), Some("from-env"));
    assert_eq!(c.site.as_deref(), Some("datadoghq.eu"));
    // The vendor's own variable supplies a missing key, as `build` does.
    let builder = deserializer(&[("DD_API_KEY", "k-dd")])
        .builder(table("vendor = \"datadog\""))
        .unwrap();
    assert_eq!(
        builder.config().api_key.as_ref().map(|k| k.expose()),
        Some("k-dd")
    );
}

#[test]
fn secrets_never_show_in_debug_or_errors() {
    let secret = "sk-very-secret-123";
    let map = format!("vendor = \"datadog\"\napi_key = \"{secret}\"\nlinger_ms = 999999999");
    let error = error_of(&map, &[]);
    assert!(error.contains("linger_ms"), "{error}");
    assert!(!error.contains(secret), "{error}");
    let builder = deserializer(&[])
        .builder(table(&format!(
            "vendor = \"datadog\"\napi_key = \"{secret}\"\nendpoint = \"http://127.0.0.1:1\"\nspill_enabled = false\nreport_to_stderr = false"
        )))
        .unwrap();
    assert!(!format!("{builder:?}").contains(secret));
    let appender = BatchHttpAppender::build(builder).unwrap();
    let shown = format!("{appender:?}");
    assert!(shown.contains("BatchHttpAppender"), "{shown}");
    assert!(!shown.contains(secret), "{shown}");
}

#[test]
fn init_file_refuses_an_invalid_appender_instead_of_running_without_it() {
    let dir = std::env::temp_dir().join(format!("logship-log4rs-init-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("log4rs.yaml");
    std::fs::write(
        &path,
        "appenders:\n  ship:\n    kind: batch_http\n    vendor: datadog\n    apiKey: k\n    maxBatchRecords: 0\nroot:\n  appenders: [ship]\n",
    )
    .unwrap();
    let err = init_file(&path).expect_err("invalid appender");
    let text = err.to_string();
    assert!(matches!(err, Log4rsError::InvalidAppender { .. }), "{text}");
    assert!(
        text.contains("max_batch_records = 0: must be 1..=1000000"),
        "{text}"
    );
    assert!(text.contains(&path.display().to_string()), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn dropping_the_appender_returns_before_its_pipeline_has_stopped() {
    // The intake is a dead address and the shutdown timeout long: a drop that waited
    // for the shutdown would take 60 s; instead the pipeline stops on its own thread.
    let builder = deserializer(&[])
        .builder(table(
            "endpoint = \"http://127.0.0.1:1/logs\"\nspill_enabled = false\nreport_to_stderr = false\nshutdown_timeout_ms = 60000\nmax_retries = 100",
        ))
        .unwrap();
    let appender = BatchHttpAppender::build(builder).unwrap();
    let logship = appender.logship().clone();
    let record = log::Record::builder()
        .args(format_args!("held"))
        .level(log::Level::Info)
        .target("t")
        .build();
    appender.append(&record).unwrap();
    drop(appender);
    // The shutdown began (the pipeline refuses new events) but could not finish: the
    // event is still pending because the endpoint refuses connections.
    let mut r = logship::Record::new(logship::Level::Info, "t");
    r.message("after");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while logship.push(r.clone()).is_ok() {
        assert!(std::time::Instant::now() < deadline, "shutdown never began");
        std::thread::yield_now();
    }
    assert!(logship.stats().pending() > 0, "{:?}", logship.stats());
}
