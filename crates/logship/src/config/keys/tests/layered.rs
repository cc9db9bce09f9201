//! Precedence, origins, the vendor's own API-key variable and the OpenTelemetry variables.

use std::time::Duration;

use super::{env_of, from_file};
use crate::config::{Config, Layered, Origin, Vendor};
use crate::support::secret::Secret;
use crate::OtlpEncoding;

#[test]
fn precedence_is_default_then_file_then_env_then_explicit() {
    let file = "linger_ms = 100\nmax_retries = 5\nservice = \"from-file\"\ngzip_level = 4\n";
    let env = [
        ("LOGSHIP_MAX_RETRIES", "6"),
        ("LOGSHIP_SERVICE", "from-env"),
    ];
    // Registered in reverse order: precedence does not depend on call order.
    let r = Layered::new()
        .explicit(|b| b.service("explicit"))
        .env(env_of(&env))
        .toml_str("f.toml", file)
        .resolve()
        .expect("valid");
    let c = &r.config;
    assert_eq!(c.max_batch_records, 200, "default");
    assert_eq!(c.linger, Duration::from_millis(100), "file");
    assert_eq!(c.gzip_level, 4, "file");
    assert_eq!(c.max_retries, 6, "env over file");
    assert_eq!(c.service.as_deref(), Some("explicit"), "explicit over env");
    let origins: Vec<(&str, String)> = ["max_batch_records", "linger_ms", "max_retries", "service"]
        .iter()
        .map(|k| (*k, r.origin(k).to_string()))
        .collect();
    assert_eq!(
        origins,
        [
            ("max_batch_records", "default".to_owned()),
            ("linger_ms", "file f.toml".to_owned()),
            ("max_retries", "env LOGSHIP_MAX_RETRIES".to_owned()),
            ("service", "explicit".to_owned()),
        ]
    );
}

#[test]
fn the_vendors_own_api_key_variable_wins_over_logship_api_key() {
    let env = [("DD_API_KEY", "dd"), ("LOGSHIP_API_KEY", "ls")];
    let r = from_file("vendor = \"datadog\"\napi_key = \"file\"", &env).expect("valid");
    assert_eq!(r.config.api_key.as_ref().map(Secret::expose), Some("dd"));
    assert_eq!(r.origin("api_key"), Origin::Env("DD_API_KEY".into()));
    let r = from_file("api_key = \"file\"", &env).expect("valid");
    assert_eq!(r.config.api_key.as_ref().map(Secret::expose), Some("ls"));
}

/// The OpenTelemetry SDK's variables of a typical Kubernetes deployment.
const OTEL_ENV: &[(&str, &str)] = &[
    ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4318"),
    ("OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Bearer%20tok3n"),
    ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
    ("OTEL_EXPORTER_OTLP_TIMEOUT", "2500"),
    ("OTEL_SERVICE_NAME", "checkout"),
    (
        "OTEL_RESOURCE_ATTRIBUTES",
        "deployment.environment=prod,k8s.pod.name=web-7",
    ),
];

#[test]
fn with_vendor_otlp_the_opentelemetry_variables_set_what_the_file_does_not() {
    let file = "vendor = \"otlp\"\nendpoint = \"http://file:4318\"\ntags = [\"deployment.environment:dev\", \"team:pay\"]\n";
    let r = from_file(file, OTEL_ENV).expect("valid");
    let c = &r.config;
    assert_eq!(c.endpoint.as_deref(), Some("http://collector:4318/v1/logs"));
    let headers: Vec<(&str, &str)> = c
        .headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.expose()))
        .collect();
    assert_eq!(headers, [("Authorization", "Bearer tok3n")]);
    assert_eq!(c.otlp.encoding, OtlpEncoding::Json);
    assert_eq!(c.request_timeout, Duration::from_millis(2500));
    assert_eq!(c.service.as_deref(), Some("checkout"));
    // Merged per key: the environment's value wins, the file's other tags stay.
    assert_eq!(
        c.tags,
        [
            "team:pay",
            "deployment.environment:prod",
            "k8s.pod.name:web-7"
        ]
    );
    for (key, var) in [
        ("endpoint", "OTEL_EXPORTER_OTLP_ENDPOINT"),
        ("headers", "OTEL_EXPORTER_OTLP_HEADERS"),
        ("otlp_encoding", "OTEL_EXPORTER_OTLP_PROTOCOL"),
        ("request_timeout_ms", "OTEL_EXPORTER_OTLP_TIMEOUT"),
        ("service", "OTEL_SERVICE_NAME"),
        ("tags", "OTEL_RESOURCE_ATTRIBUTES"),
    ] {
        assert_eq!(r.origin(key), Origin::Env(var.into()), "{key}");
    }
    assert!(c.validate().is_ok());
    assert!(!format!("{r:?}").contains("tok3n"));
}

#[test]
fn logship_variables_and_explicit_settings_win_over_the_opentelemetry_ones() {
    let mut env = OTEL_ENV.to_vec();
    env.push(("LOGSHIP_ENDPOINT", "http://logship-env:4318"));
    let r = Layered::new()
        .env(env_of(&env))
        // The vendor comes from a flag, as with `logship ship --vendor otlp`: the
        // OpenTelemetry variables still apply.
        .explicit(|b| b.vendor(Vendor::Otlp).service("explicit"))
        .resolve()
        .expect("valid");
    assert_eq!(
        r.config.endpoint.as_deref(),
        Some("http://logship-env:4318")
    );
    assert_eq!(r.origin("endpoint"), Origin::Env("LOGSHIP_ENDPOINT".into()));
    assert_eq!(r.config.service.as_deref(), Some("explicit"));
    assert_eq!(r.origin("service"), Origin::Explicit);
    assert_eq!(r.config.otlp.encoding, OtlpEncoding::Json);
}

#[test]
fn other_vendors_ignore_the_opentelemetry_variables() {
    let r = from_file("endpoint = \"http://127.0.0.1:9/logs\"", OTEL_ENV).expect("valid");
    assert_eq!(
        r.config.endpoint.as_deref(),
        Some("http://127.0.0.1:9/logs")
    );
    assert!(r.config.headers.is_empty());
    assert_eq!(r.config.service, None);
    assert_eq!(r.config.request_timeout, Config::default().request_timeout);
    let mut direct = Config::default();
    direct.apply_env(env_of(OTEL_ENV)).expect("valid");
    assert_eq!(direct.endpoint, None);
}

#[test]
fn a_bad_opentelemetry_value_fails_naming_the_option_and_the_variable() {
    let cases = [
        (
            ("OTEL_EXPORTER_OTLP_TIMEOUT", "0"),
            "request_timeout_ms = 0: must be 1..=3600000 milliseconds",
        ),
        (
            ("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", "grpc"),
            "otlp_encoding = grpc: logship speaks OTLP/HTTP, not OTLP/gRPC",
        ),
    ];
    for ((var, value), message) in cases {
        let e = from_file("vendor = \"otlp\"", &[(var, value)]).unwrap_err();
        let text = e.to_string();
        assert!(text.starts_with(message), "{text}");
        assert!(text.ends_with(&format!("[from env {var}]")), "{text}");
    }
    // Config::apply_env reads them too once the vendor is otlp.
    let mut c = Config {
        vendor: Vendor::Otlp,
        ..Config::default()
    };
    c.apply_env(env_of(OTEL_ENV)).expect("valid");
    assert_eq!(c.endpoint.as_deref(), Some("http://collector:4318/v1/logs"));
}
