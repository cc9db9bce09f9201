//! Files: Java aliases, `${env:VAR}`, exact error messages, secrets, examples, "did you
//! mean", loading.

use std::path::PathBuf;
use std::time::Duration;

use super::{from_file, Check};
use crate::config::keys;
use crate::config::suggest::{distance, suggest};
use crate::config::{example_toml, Config, Vendor};
use crate::support::secret::Secret;

#[test]
fn java_appender_names_are_aliases() {
    let cases: &[(&str, Check)] = &[
        ("maxBatchRecords = 9", |c| c.max_batch_records == 9),
        ("maxBatchBytes = 4096", |c| c.max_batch_bytes == 4096),
        ("lingerMillis = 33", |c| {
            c.linger == Duration::from_millis(33)
        }),
        ("queueCapacity = 77", |c| c.queue_capacity == 77),
        ("gzip = false", |c| !c.gzip),
        ("maxRetries = 8", |c| c.max_retries == 8),
        ("spillEnabled = false", |c| !c.spill_enabled),
        ("vendor = \"newrelic\"", |c| c.vendor == Vendor::NewRelic),
        ("site = \"us5.datadoghq.com\"", |c| {
            c.site.as_deref() == Some("us5.datadoghq.com")
        }),
        ("apiKey = \"ak\"", |c| {
            c.api_key.as_ref().map(Secret::expose) == Some("ak")
        }),
        ("service = \"s\"", |c| c.service.as_deref() == Some("s")),
        ("source = \"java\"", |c| c.source.as_deref() == Some("java")),
    ];
    for (line, check) in cases {
        let r = from_file(line, &[]).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert!(check(&r.config), "{line}");
    }
}

#[test]
fn env_substitution_in_strings() {
    let env = [("SVC", "payments"), ("DIR", "/var/spill")];
    let r = from_file(
        "service = \"${env:SVC}-api\"\nsource = \"${env:NOPE:-rust}\"\n\
         spill_dir = \"${env:DIR}\"\nlinger_ms = \"${env:LINGER:-250}\"\n\
         tags = [\"svc:${env:SVC}\"]\n[headers]\nX-Svc = \"${env:SVC}\"",
        &env,
    )
    .expect("valid");
    let c = &r.config;
    assert_eq!(c.service.as_deref(), Some("payments-api"));
    assert_eq!(c.source.as_deref(), Some("rust"));
    assert_eq!(c.spill_dir, Some(PathBuf::from("/var/spill")));
    assert_eq!(c.linger, Duration::from_millis(250));
    assert_eq!(c.tags, ["svc:payments"]);
    assert_eq!(c.headers[0].1.expose(), "payments");
}

#[test]
fn bad_inputs_fail_with_an_exact_message() {
    let f = "[from file logship.toml]";
    type Vars = &'static [(&'static str, &'static str)];
    let cases: Vec<(&str, Vars, String)> = vec![
        (
            "lingr_ms = 5",
            &[],
            format!("key = lingr_ms: is not a logship option (did you mean linger_ms?) {f}"),
        ),
        (
            "maxBatchRecord = 5",
            &[],
            format!("key = maxBatchRecord: is not a logship option (did you mean maxBatchRecords?) {f}"),
        ),
        (
            "colour = \"red\"",
            &[],
            format!("key = colour: is not a logship option (`logship config example` lists every option) {f}"),
        ),
        (
            "linger_ms = -5",
            &[],
            format!("linger_ms = -5: must be 0..=600000 milliseconds (set linger_ms to a whole number from 0 to 600000) {f}"),
        ),
        (
            "max_in_flight = 65",
            &[],
            format!("max_in_flight = 65: must be 1..=64 (set max_in_flight to a whole number from 1 to 64) {f}"),
        ),
        (
            "linger_ms = true",
            &[],
            format!("linger_ms = true: must be a whole number 0..=600000 milliseconds, got a boolean (set linger_ms to a whole number from 0 to 600000) {f}"),
        ),
        (
            "max_batch_bytes = 1.5",
            &[],
            format!("max_batch_bytes = 1.5: must be a whole number 1024..=268435456 bytes, got a float (set max_batch_bytes to a whole number from 1024 to 268435456) {f}"),
        ),
        (
            "gzip = \"maybe\"",
            &[],
            format!("gzip = \"maybe\": must be true or false, got a string (write gzip = true or gzip = false) {f}"),
        ),
        (
            "service = 5",
            &[],
            format!("service = 5: must be a string, got an integer {f}"),
        ),
        (
            "vendor = \"datadg\"",
            &[],
            format!("vendor = \"datadg\": unknown vendor; choose one of: ndjson, json, datadog, splunk, newrelic, dynatrace, loki, elasticsearch, otlp, kafka (did you mean datadog?) {f}"),
        ),
        (
            "spill_fsync = \"sometimes\"",
            &[],
            format!("spill_fsync = \"sometimes\": must be one of on_segment_close, always, never {f}"),
        ),
        (
            "spill_full = \"drop-oldst\"",
            &[],
            format!("spill_full = \"drop-oldst\": must be one of drop_oldest, drop_newest (did you mean drop_oldest?) {f}"),
        ),
        (
            "service = \"${env:SERVICE_NAME}\"",
            &[],
            format!("service = ${{env:SERVICE_NAME}}: environment variable SERVICE_NAME is not set (set SERVICE_NAME, or give a default: ${{env:SERVICE_NAME:-value}}) {f}"),
        ),
        (
            "api_key = \"${env:MY_KEY}\"",
            &[],
            format!("api_key = [redacted]: environment variable MY_KEY is not set (set MY_KEY, or give a default: ${{env:MY_KEY:-value}}) {f}"),
        ),
        (
            "max_retries = 3\nmaxRetries = 4",
            &[],
            format!("max_retries = maxRetries, max_retries: is set twice under two names (keep one of them) {f}"),
        ),
        (
            "",
            &[("LOGSHIP_LINGER_MS", "soon")],
            "linger_ms = soon: must be a whole number 0..=600000 milliseconds (set linger_ms to a whole number from 0 to 600000) [from env LOGSHIP_LINGER_MS]".to_owned(),
        ),
        (
            "",
            &[("LOGSHIP_SPILL_FULL", "keep")],
            "spill_full = keep: must be one of drop_oldest, drop_newest [from env LOGSHIP_SPILL_FULL]".to_owned(),
        ),
        (
            "linger_ms = ",
            &[],
            "config = logship.toml: is not valid TOML at line 1: string values must be quoted, expected literal string (see `logship config example` for the format)".to_owned(),
        ),
    ];
    for (text, env, want) in cases {
        let err = from_file(text, env).expect_err(text).to_string();
        assert_eq!(err, want, "for {text:?} / {env:?}");
    }
}

#[test]
fn secrets_never_show_in_errors_or_debug() {
    let secret = "sk-live-SECRET";
    let good = [
        format!("api_key = \"{secret}\""),
        format!("apiKey = \"{secret}\""),
        format!("[headers]\nAuthorization = \"Bearer {secret}\""),
    ];
    for text in &good {
        let r = from_file(text, &[]).expect("valid");
        let shown = format!("{:?} {:?}", r.config, r.config.effective_values());
        assert!(!shown.contains(secret), "{shown}");
        assert!(shown.contains("[redacted]"), "{shown}");
    }
    let r = from_file("", &[("LOGSHIP_API_KEY", secret)]).expect("valid");
    assert!(!format!("{r:?}").contains(secret));
    let bad: &[(&str, &[(&str, &str)])] = &[
        ("api_key = 5", &[]),
        ("api_key = [\"sk-live-SECRET\"]", &[]),
        ("[headers]\nAuthorization = 7\nX = \"sk-live-SECRET\"", &[]),
        ("headers = \"sk-live-SECRET\"", &[]),
        ("", &[("LOGSHIP_HEADERS", "sk-live-SECRET")]),
        ("api_key = \"sk-live-SECRET${env:NOPE}\"", &[]),
        ("api_key = \"sk-live-SECRET", &[]),
        (
            "endpoint = \"https://u:sk-live-SECRET@h/x?k=sk-live-SECRET\"\nlinger_ms = -1",
            &[],
        ),
    ];
    for (text, env) in bad {
        let err = from_file(text, env).map(|r| r.config.validate());
        let shown = format!(
            "{err:?} {}",
            match &err {
                Err(e) | Ok(Err(e)) => e.to_string(),
                Ok(Ok(())) => String::new(),
            }
        );
        assert!(!shown.contains(secret), "{text}: {shown}");
    }
}

#[test]
fn examples_pass_validation_for_every_vendor() {
    for vendor in Vendor::ALL {
        // As a user runs it: with the vendor's key variable set.
        let env: Vec<(&str, &str)> = vendor
            .api_key_env()
            .map(|var| (var, "0123456789abcdef0123456789abcdef"))
            .into_iter()
            .collect();
        let r = from_file(&example_toml(*vendor), &env)
            .unwrap_or_else(|e| panic!("{}: {e}", vendor.name()));
        assert_eq!(r.config.vendor, *vendor);
        r.config
            .validate()
            .unwrap_or_else(|e| panic!("{}: {e}", vendor.name()));
    }
}

#[test]
fn an_example_used_without_its_key_variable_fails_naming_the_variable() {
    for vendor in Vendor::ALL {
        let Some(var) = vendor.api_key_env() else {
            continue;
        };
        let r = from_file(&example_toml(*vendor), &[])
            .unwrap_or_else(|e| panic!("{}: {e}", vendor.name()));
        let err = r
            .config
            .validate()
            .expect_err("the placeholder is not a key");
        let text = err.to_string();
        assert!(
            text.starts_with(
                "api_key = replace-with-your-key: is the example configuration's placeholder"
            ),
            "{text}"
        );
        assert!(text.contains(var), "the fix names {var}: {text}");
    }
}

#[test]
fn suggestions_use_edit_distance() {
    assert_eq!(distance("kitten", "sitting"), 3);
    assert_eq!(
        suggest("queue_capacty", keys::all().map(|k| k.name)),
        Some("queue_capacity")
    );
    assert_eq!(
        suggest("linger-ms", keys::all().map(|k| k.name)),
        Some("linger_ms")
    );
    assert_eq!(suggest("zzzzzz", keys::all().map(|k| k.name)), None);
}

#[test]
fn loading_a_file_and_a_missing_one() {
    let dir = std::env::temp_dir().join(format!("logship-config-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("mkdir");
    let path = dir.join("logship.toml");
    std::fs::write(&path, "linger_ms = 42\n").expect("write");
    assert_eq!(
        Config::load(&path).expect("load").linger,
        Duration::from_millis(42)
    );
    assert_eq!(
        Config::from_toml_str("max_retries = 1")
            .expect("parse")
            .max_retries,
        1
    );
    let missing = dir.join("missing.toml");
    let err = Config::load(&missing).expect_err("missing").to_string();
    assert!(
        err.starts_with(&format!("config = {}: cannot be read", missing.display())),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_examples_show_every_key_of_the_table() {
    let all: String = Vendor::ALL.iter().map(|v| example_toml(*v)).collect();
    for key in keys::all() {
        let name = key.name.rsplit('.').next().unwrap_or(key.name);
        let shown = all.contains(&format!("{name} = ")) || all.contains(&format!("[{name}]"));
        assert!(shown, "no example shows {}", key.name);
    }
}
