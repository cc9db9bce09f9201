//! Defaults, `Config::validate`'s messages, `Debug` without secrets, loopback URLs.

use std::time::Duration;

use crate::config::{is_loopback_url, Config};

fn valid() -> Config {
    Config {
        endpoint: Some("http://127.0.0.1:9/logs".into()),
        ..Config::default()
    }
}

#[test]
fn defaults_follow_the_java_appender() {
    let c = Config::default();
    assert_eq!(c.max_batch_records, 200);
    assert_eq!(c.max_batch_bytes, 1 << 20);
    assert_eq!(c.linger, Duration::from_secs(1));
    assert_eq!(c.queue_capacity, 10_000);
    assert!(c.gzip);
    assert_eq!(c.max_retries, 3);
    assert_eq!(c.max_in_flight, 16);
    assert!(c.adaptive_concurrency);
    valid().validate().unwrap();
}

#[test]
fn bad_values_name_the_field_and_the_allowed_range() {
    let cases: Vec<(Config, &str)> = vec![
        (
            Config {
                endpoint: None,
                ..valid()
            },
            "endpoint = (none): an endpoint URL is required",
        ),
        (
            Config {
                endpoint: Some("ftp://x/y".into()),
                ..valid()
            },
            "endpoint = ftp://x/y: must start with http:// or https://",
        ),
        (
            Config {
                linger: Duration::from_secs(3600),
                ..valid()
            },
            "linger_ms = 3600000: must be 0..=600000 milliseconds",
        ),
        (
            Config {
                max_batch_records: 0,
                ..valid()
            },
            "max_batch_records = 0: must be 1..=1000000",
        ),
        (
            Config {
                max_in_flight: 0,
                ..valid()
            },
            "max_in_flight = 0: must be 1..=64",
        ),
        (
            Config {
                gzip_level: 12,
                ..valid()
            },
            "gzip_level = 12: must be 0..=9",
        ),
        (
            Config {
                headers: vec![("Bad Name".into(), "v".into())],
                ..valid()
            },
            "header = Bad Name: is not a valid HTTP header name",
        ),
    ];
    for (config, want) in cases {
        let err = config.validate().unwrap_err().to_string();
        assert!(err.starts_with(want), "got {err:?}, want {want:?}");
    }
}

#[test]
fn debug_hides_header_values_and_url_secrets() {
    let c = Config {
        endpoint: Some("https://user:pw@host.example/p?api_key=sk123".into()),
        headers: vec![("Authorization".into(), "Bearer sk123".into())],
        ..Config::default()
    };
    let shown = format!("{c:?}");
    assert!(!shown.contains("sk123"), "{shown}");
    assert!(!shown.contains("pw"), "{shown}");
    assert!(shown.contains("host.example"));
}

#[test]
fn loopback_detection() {
    assert!(is_loopback_url("http://127.0.0.1:8/x"));
    assert!(is_loopback_url("http://localhost/x"));
    assert!(!is_loopback_url("http://example.com/x"));
}
