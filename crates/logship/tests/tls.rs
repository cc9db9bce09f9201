//! HTTPS end to end against the intake serving real TLS (rustls) with a CA generated in
//! the test: trust through `tls_ca_file`, refusal without it (a clear error, events
//! spilled, not lost, no quick retries), hostname mismatch, expired and not-yet-valid
//! certificates, mutual TLS, and the wrong scheme either way. Every target is 127.0.0.1.

mod common;

use std::time::{Duration, Instant};

use common::{numbered, received_seqs, TempDir, WAIT};
use logship::{BuildError, Builder, Health, Logship};
use logship_intake::{Intake, IntakeConfig, IssuedCert, ThrowawayCa, TlsServer, Validity};

const KEY: &str = "tls-test-api-key-6f1c";

/// A CA, and its certificate written to a file in `dir`.
fn ca_in(dir: &TempDir, name: &str) -> (ThrowawayCa, std::path::PathBuf) {
    std::fs::create_dir_all(dir.path()).unwrap();
    let ca = ThrowawayCa::new(name).unwrap();
    let path = dir.path().join(format!("{name}.pem"));
    std::fs::write(&path, ca.cert_pem()).unwrap();
    (ca, path)
}

fn https_intake(cert: &IssuedCert, client_ca: Option<&str>) -> Intake {
    let tls = TlsServer::from_pem(&cert.cert_pem, &cert.key_pem, client_ca).unwrap();
    Intake::start(IntakeConfig {
        tls: Some(tls),
        ..IntakeConfig::default()
    })
    .unwrap()
}

fn builder_for(url: String) -> Builder {
    Logship::builder()
        .endpoint(url)
        .linger(Duration::from_millis(20))
        .report_to_stderr(false)
        .spill(false)
}

/// Ships `n` numbered events through `builder` and shuts down.
fn ship(builder: Builder, n: usize) -> Logship {
    common::ship(builder, (0..n).map(numbered))
}

#[test]
fn https_delivers_every_event_when_the_ca_is_trusted_through_tls_ca_file() {
    let dir = TempDir::new("tls-ca-file");
    let (ca, ca_file) = ca_in(&dir, "ca");
    let intake = https_intake(&ca.server_cert(&["127.0.0.1", "localhost"]).unwrap(), None);
    assert!(intake.url("").starts_with("https://"));
    let logship = ship(
        builder_for(intake.url("/logs"))
            .tls_ca_file(&ca_file)
            .max_batch_records(10),
        200,
    );
    let stats = logship.stats();
    assert_eq!(stats.events_delivered, 200, "{stats:?}");
    assert_eq!(received_seqs(&intake), (0..200).collect::<Vec<u64>>());
    assert_eq!(stats.health, Health::Healthy);
    assert!(!stats.tls_verify_disabled);
    let s = intake.stats();
    // 20 requests over kept-alive connections: handshakes are per connection.
    assert!(s.requests >= 20);
    assert!(
        s.tls_handshakes >= 1 && s.tls_handshakes <= 16,
        "one handshake per connection, not per request: {s:?}"
    );
    assert_eq!(s.tls_handshake_failures, 0);
    // localhost resolves to the same intake and is in the certificate too.
    let url = intake.url("/logs").replace("127.0.0.1", "localhost");
    let logship = ship(builder_for(url).tls_ca_file(&ca_file), 5);
    assert_eq!(logship.stats().events_delivered, 5);
}

#[test]
fn an_untrusted_ca_keeps_the_events_in_the_spill_says_what_to_do_and_retries_at_the_ceiling() {
    let dir = TempDir::new("tls-untrusted");
    let (ca, ca_file) = ca_in(&dir, "ca");
    let intake = https_intake(&ca.server_cert(&["127.0.0.1"]).unwrap(), None);
    let spill = dir.path().join("spill");
    let ceiling = Duration::from_millis(300);
    let started = Instant::now();
    let logship = ship(
        builder_for(intake.url("/logs"))
            .api_key(KEY)
            .spill_dir(&spill)
            .max_retries(2)
            .retry_backoff(Duration::from_millis(1), ceiling)
            .max_batch_records(1000),
        30,
    );
    let took = started.elapsed();
    let stats = logship.stats();
    assert_eq!(stats.events_delivered, 0);
    assert_eq!(stats.events_spilled, 30, "kept, not lost: {stats:?}");
    assert_eq!(stats.lost(), 0, "{stats:?}");
    assert_eq!(stats.health, Health::Failing);
    assert_eq!(stats.retries, 2);
    // Each retry waited the ceiling, not the 1 ms initial backoff.
    assert!(took >= ceiling * 2, "took {took:?}");
    let error = stats.last_error.clone().unwrap_or_default();
    assert!(
        error.contains("signed by a CA this machine does not trust")
            && error.contains("tls_ca_file")
            && error.contains("127.0.0.1"),
        "{error}"
    );
    assert!(intake.events().is_empty());
    assert!(intake.stats().tls_handshake_failures >= 1);
    common::assert_no_secret(&logship, KEY);
    drop(logship);
    // Trusting the CA, the next run replays what was kept: nothing was lost.
    let (logship, guard) = builder_for(intake.url("/logs"))
        .api_key(KEY)
        .spill_dir(&spill)
        .tls_ca_file(&ca_file)
        .build()
        .unwrap();
    assert!(intake.wait_for_events(30, WAIT), "{:?}", logship.stats());
    drop(guard);
    assert_eq!(received_seqs(&intake), (0..30).collect::<Vec<u64>>());
    for file in walk(&spill) {
        let bytes = std::fs::read(&file).unwrap_or_default();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(KEY),
            "API key in spill file {file:?}"
        );
    }
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = entry.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// Ships 3 events to `intake` trusting `ca_file`, no retries; returns the last error.
fn failure_of(builder: Builder) -> (logship::Stats, String) {
    let logship = ship(builder.max_retries(0), 3);
    let stats = logship.stats();
    assert_eq!(stats.events_delivered, 0, "{stats:?}");
    assert_eq!(stats.events_failed, 3, "no spill here: counted, {stats:?}");
    assert_eq!(stats.health, Health::Failing, "{stats:?}");
    let e = stats.last_error.clone().unwrap_or_default();
    (stats, e)
}

#[test]
fn a_certificate_for_another_name_is_a_hostname_mismatch() {
    let dir = TempDir::new("tls-name");
    let (ca, ca_file) = ca_in(&dir, "ca");
    let intake = https_intake(&ca.server_cert(&["logs.example.internal"]).unwrap(), None);
    let (_, e) = failure_of(builder_for(intake.url("/logs")).tls_ca_file(&ca_file));
    assert!(
        e.contains("not valid for the name 127.0.0.1") && e.contains("hostname mismatch"),
        "{e}"
    );
}

#[test]
fn expired_and_not_yet_valid_certificates_are_named_as_such() {
    let dir = TempDir::new("tls-dates");
    let (ca, ca_file) = ca_in(&dir, "ca");
    for (validity, words) in [
        (Validity::Expired, "has expired"),
        (Validity::NotYetValid, "is not valid yet"),
    ] {
        let cert = ca.issue(&["127.0.0.1"], validity, false).unwrap();
        let intake = https_intake(&cert, None);
        let (_, e) = failure_of(builder_for(intake.url("/logs")).tls_ca_file(&ca_file));
        assert!(
            e.contains(words) && e.contains("127.0.0.1"),
            "{validity:?}: {e}"
        );
    }
}

#[test]
fn mutual_tls_delivers_with_the_client_certificate_and_says_so_without_it() {
    let dir = TempDir::new("tls-mtls");
    let (ca, ca_file) = ca_in(&dir, "ca");
    let (client_ca, _) = ca_in(&dir, "client-ca");
    let intake = https_intake(
        &ca.server_cert(&["127.0.0.1"]).unwrap(),
        Some(client_ca.cert_pem()),
    );
    let client = client_ca.client_cert("app-1").unwrap();
    let (cert_file, key_file) = (dir.path().join("client.pem"), dir.path().join("client.key"));
    std::fs::write(&cert_file, &client.cert_pem).unwrap();
    std::fs::write(&key_file, &client.key_pem).unwrap();

    let logship = ship(
        builder_for(intake.url("/logs"))
            .tls_ca_file(&ca_file)
            .tls_client_cert(&cert_file, &key_file),
        20,
    );
    assert_eq!(
        logship.stats().events_delivered,
        20,
        "{:?}",
        logship.stats()
    );
    // The key's contents appear nowhere.
    let key_body: String = client.key_pem.lines().nth(1).unwrap().to_owned();
    common::assert_no_secret(&logship, &key_body);

    let (_, e) = failure_of(builder_for(intake.url("/logs")).tls_ca_file(&ca_file));
    assert!(
        e.contains("client certificate") && e.contains("tls_client_cert"),
        "{e}"
    );

    // A client certificate from a CA the server does not trust is refused by the server.
    let stranger = ca.client_cert("stranger").unwrap();
    let (sc, sk) = (dir.path().join("s.pem"), dir.path().join("s.key"));
    std::fs::write(&sc, &stranger.cert_pem).unwrap();
    std::fs::write(&sk, &stranger.key_pem).unwrap();
    let (_, e) = failure_of(
        builder_for(intake.url("/logs"))
            .tls_ca_file(&ca_file)
            .tls_client_cert(&sc, &sk),
    );
    assert!(e.contains("refused the client certificate"), "{e}");
}

#[test]
fn https_to_a_plain_port_and_http_to_a_tls_port_say_which() {
    let dir = TempDir::new("tls-scheme");
    let (ca, ca_file) = ca_in(&dir, "ca");
    let plain = common::intake();
    let https_url = plain.url("/logs").replace("http://", "https://");
    let (_, e) = failure_of(builder_for(https_url).tls_ca_file(&ca_file));
    assert!(e.contains("plain HTTP") && e.contains("use http://"), "{e}");

    let tls = https_intake(&ca.server_cert(&["127.0.0.1"]).unwrap(), None);
    let http_url = tls.url("/logs").replace("https://", "http://");
    let (_, e) = failure_of(builder_for(http_url).tls_ca_file(&ca_file));
    assert!(e.contains("not HTTP") && e.contains("use https://"), "{e}");
}

#[test]
fn tls_verify_false_delivers_to_any_certificate_and_says_so_in_stats() {
    let dir = TempDir::new("tls-noverify");
    let (ca, _) = ca_in(&dir, "ca");
    let intake = https_intake(
        &ca.issue(&["elsewhere"], Validity::Expired, false).unwrap(),
        None,
    );
    let logship = ship(builder_for(intake.url("/logs")).tls_verify(false), 10);
    let stats = logship.stats();
    assert_eq!(stats.events_delivered, 10, "{stats:?}");
    assert!(stats.tls_verify_disabled);
    let json = serde_json::to_value(&stats).unwrap();
    assert_eq!(json["tls_verify_disabled"], true);
}

fn build_error(builder: Builder) -> String {
    match builder.build() {
        Err(BuildError::Config(e)) => e.to_string(),
        Err(other) => panic!("expected a configuration error, got {other}"),
        Ok(_) => panic!("expected the build to fail"),
    }
}

#[test]
fn missing_or_unparsable_certificate_files_fail_the_build_naming_option_and_file() {
    let dir = TempDir::new("tls-files");
    std::fs::create_dir_all(dir.path()).unwrap();
    let b = || builder_for("https://127.0.0.1:9/logs".into());
    let missing = dir.path().join("nope.pem");
    let e = build_error(b().tls_ca_file(&missing));
    assert!(e.contains("tls_ca_file") && e.contains("nope.pem"), "{e}");
    let garbage = dir.path().join("garbage.pem");
    std::fs::write(&garbage, "this is not PEM\n").unwrap();
    let e = build_error(b().tls_ca_file(&garbage));
    assert!(
        e.contains("tls_ca_file") && e.contains("garbage.pem"),
        "{e}"
    );
    let broken = dir.path().join("broken.pem");
    std::fs::write(
        &broken,
        "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n",
    )
    .unwrap();
    let e = build_error(b().tls_ca_file(&broken));
    assert!(e.contains("tls_ca_file") && e.contains("broken.pem"), "{e}");

    let ca = ThrowawayCa::new("c").unwrap();
    let client = ca.client_cert("x").unwrap();
    let cert = dir.path().join("c.pem");
    std::fs::write(&cert, &client.cert_pem).unwrap();
    // The key file holds a certificate, not a key: named, and nothing of it shown.
    let e = build_error(b().tls_client_cert(&cert, &cert));
    assert!(e.contains("tls_client_key") && e.contains("c.pem"), "{e}");
    let e = build_error(b().tls_client_cert(&cert, dir.path().join("no.key")));
    assert!(e.contains("tls_client_key") && e.contains("no.key"), "{e}");
    let mut config = b().config().clone();
    config.tls_client_cert = Some(cert.clone());
    let e = build_error(Builder::from_config(config));
    assert!(
        e.contains("tls_client_cert") && e.contains("needs tls_client_key"),
        "{e}"
    );
    // Debug of a configuration with a client key shows the path, never the contents.
    let key = dir.path().join("k.key");
    std::fs::write(&key, &client.key_pem).unwrap();
    let shown = format!("{:?}", b().tls_client_cert(&cert, &key).config());
    let key_body = client.key_pem.lines().nth(1).unwrap();
    assert!(
        !shown.contains(key_body) && shown.contains("k.key"),
        "{shown}"
    );
}
