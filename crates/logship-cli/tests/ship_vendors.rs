//! `logship ship --vendor V` for every vendor: delivered to the strict intake with zero
//! violations, each vendor's own variables and API-key rules honoured, bad vendor
//! options refused at start naming the field.

mod common;

use std::io::{Read, Write};
use std::process::Stdio;

use common::{logship, run, run_with_stdin, stderr, stdout, WATCHDOG};
use logship_intake::{Intake, IntakeConfig};

const VENDOR_KEY: &str = "cli-vendor-key-0123";

/// `logship ship --vendor V` to the intake's emulation of V: every line arrives, no
/// violation, exit 0, the key never printed.
fn ship_to_vendor(vendor: &str, extra: &[&str], message_at: &str) {
    let intake = Intake::start(IntakeConfig {
        api_key: Some(VENDOR_KEY.into()),
        ..IntakeConfig::default()
    })
    .expect("start intake");
    let n = 2500;
    let input: String = (0..n).map(|i| format!("{vendor} line {i}\n")).collect();
    let endpoint = intake.url("");
    let mut args = vec![
        "ship",
        "--vendor",
        vendor,
        "--endpoint",
        &endpoint,
        "--api-key",
        VENDOR_KEY,
        "--service",
        "cli-test",
        "--hostname",
        "host-1",
        "--tags",
        "env:ci,team:x",
    ];
    args.extend_from_slice(extra);
    let out = run(&args, input.as_bytes());
    let err = stderr(&out);
    assert!(out.status.success(), "{vendor}: {err}");
    assert!(err.contains(&format!("shipped {n} of {n} events")), "{err}");
    assert!(!err.contains(VENDOR_KEY) && !stdout(&out).contains(VENDOR_KEY));
    assert!(
        intake.violations().is_empty(),
        "{vendor}: {:?}",
        intake.violations()
    );
    assert_eq!(intake.stats().events, n as u64);
    let mut want: Vec<String> = (0..n).map(|i| format!("{vendor} line {i}")).collect();
    want.sort();
    assert_eq!(intake.sorted_strings_at(message_at), want);
    assert!(intake.requests().iter().all(|r| r.vendor == vendor));
}

#[test]
fn ship_to_datadog_delivers_with_zero_violations() {
    ship_to_vendor(
        "datadog",
        &[
            "--max-batch-records",
            "100000",
            "--max-batch-bytes",
            "100000000",
        ],
        "/message",
    );
}

#[test]
fn ship_to_splunk_delivers_with_zero_violations() {
    ship_to_vendor(
        "splunk",
        &["--splunk-channel", "auto", "--splunk-index", "main"],
        "/event/message",
    );
}

#[test]
fn ship_to_new_relic_delivers_with_zero_violations() {
    ship_to_vendor("newrelic", &["--region", "eu"], "/message");
}

#[test]
fn ship_to_dynatrace_delivers_with_zero_violations() {
    ship_to_vendor("dynatrace", &["--no-gzip"], "/content");
}

#[test]
fn ship_to_loki_delivers_with_zero_violations() {
    // The intake plays a gateway checking basic auth whose password is the key.
    ship_to_vendor(
        "loki",
        &[
            "--username",
            "123456",
            "--password",
            VENDOR_KEY,
            "--tenant-id",
            "team-a",
            "--loki-labels",
            "env=ci,team=x",
        ],
        "/line",
    );
}

#[test]
fn a_bad_loki_label_fails_at_start_naming_the_field() {
    let out = run(
        &[
            "ship",
            "--vendor",
            "loki",
            "--endpoint",
            "http://127.0.0.1:1",
            "--loki-labels",
            "env=ci,__x=1",
        ],
        b"",
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("loki_labels = __x=1: label name \"__x\" starts with \"__\", which Loki reserves (rename it, e.g. x)"),
        "{err}"
    );
}

#[test]
fn ship_to_otlp_delivers_with_zero_violations_in_both_encodings() {
    ship_to_vendor("otlp", &[], "/message");
    ship_to_vendor("otlp", &["--otlp-encoding", "json"], "/message");
}

#[test]
fn ship_to_otlp_reads_the_opentelemetry_sdk_variables() {
    let intake = Intake::start(IntakeConfig::default()).expect("start intake");
    let n = 300;
    let input: String = (0..n).map(|i| format!("otel line {i}\n")).collect();
    let out = run_with_stdin(
        logship()
            .args(["ship", "--vendor", "otlp"])
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", intake.url(""))
            .env("OTEL_EXPORTER_OTLP_HEADERS", "x-gateway-token=t0ken%3D1")
            .env("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json")
            .env("OTEL_SERVICE_NAME", "checkout")
            .env(
                "OTEL_RESOURCE_ATTRIBUTES",
                "deployment.environment=prod,k8s.pod.name=web-7",
            ),
        input.as_bytes(),
        WATCHDOG,
    );
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert!(err.contains(&format!("shipped {n} of {n} events")), "{err}");
    assert!(!err.contains("t0ken"), "{err}");
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
    let requests = intake.requests();
    assert!(!requests.is_empty());
    for r in &requests {
        assert_eq!(r.path, "/v1/logs");
        assert_eq!(r.header("content-type"), Some("application/json"));
        assert_eq!(r.header("x-gateway-token"), Some("t0ken=1"));
    }
    let events = intake.events();
    assert_eq!(events.len(), n);
    for e in &events {
        assert_eq!(e.value["service.name"], "checkout");
        assert_eq!(e.value["resource"]["deployment.environment"], "prod");
        assert_eq!(e.value["resource"]["k8s.pod.name"], "web-7");
    }
    // The same variables with a gRPC protocol fail at start naming the variable and fix.
    let out = run_with_stdin(
        logship()
            .args(["ship", "--vendor", "otlp"])
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4317")
            .env("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
        b"",
        WATCHDOG,
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("otlp_encoding = grpc") && err.contains("OTEL_EXPORTER_OTLP_PROTOCOL"),
        "{err}"
    );
}

#[test]
fn a_vendor_without_an_api_key_fails_at_start_naming_the_variable() {
    let mut child = logship()
        .args(["ship", "--vendor", "datadog"])
        .env_remove("DD_API_KEY")
        .env_remove("LOGSHIP_API_KEY")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let done = common::watchdog(&child, WATCHDOG);
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("read");
    let status = child.wait().expect("wait");
    let _ = done.send(());
    assert_eq!(status.code(), Some(2), "{err}");
    assert!(
        err.contains("api_key") && err.contains("DD_API_KEY"),
        "{err}"
    );
}

#[test]
fn the_api_key_can_come_from_the_vendors_own_variable() {
    let intake = Intake::start(IntakeConfig {
        api_key: Some(VENDOR_KEY.into()),
        ..IntakeConfig::default()
    })
    .expect("start intake");
    let endpoint = intake.url("");
    let mut child = logship()
        .args(["ship", "--vendor", "newrelic", "--endpoint", &endpoint])
        .env("NEW_RELIC_LICENSE_KEY", VENDOR_KEY)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let done = common::watchdog(&child, WATCHDOG);
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"one\ntwo\n")
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    let _ = done.send(());
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(intake.stats().events, 2);
    assert_eq!(intake.stats().auth_failures, 0);
}
