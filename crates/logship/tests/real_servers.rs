//! Through real third-party servers from Debian's packages, started by the test on
//! 127.0.0.1: nginx terminating TLS in front of the intake (its own 413 for a body over
//! `client_max_body_size`, kept-alive connections it closes after `keepalive_requests`),
//! and tinyproxy as a forward proxy (CONNECT to an HTTPS intake and to a plain one, with
//! and without proxy authentication). Skipped locally when a program is missing; a
//! failure under `CI=true` (`.ci/run` installs them).

mod common;

use std::time::Duration;

use common::{numbered, received_seqs, TempDir};
use logship::{Builder, Health, Logship};
use logship_intake::external::{self, NginxSettings};
use logship_intake::{Intake, IntakeConfig, ThrowawayCa, TlsServer};

const KEY: &str = "real-servers-api-key-93ab";
const PROXY_PASSWORD: &str = "proxy-pw-7d41e";

fn ca_file(dir: &TempDir, ca: &ThrowawayCa) -> std::path::PathBuf {
    std::fs::create_dir_all(dir.path()).unwrap();
    let path = dir.path().join("ca.pem");
    std::fs::write(&path, ca.cert_pem()).unwrap();
    path
}

fn builder_for(url: String) -> Builder {
    Logship::builder()
        .endpoint(url)
        .linger(Duration::from_millis(20))
        .report_to_stderr(false)
        .spill(false)
        // No proxy from the environment of whoever runs the tests.
        .proxy("none")
}

/// nginx with TLS in front of a plain intake.
fn nginx_in_front(
    intake: &Intake,
    ca: &ThrowawayCa,
    max_body: usize,
    keepalive: u32,
) -> Option<external::ExternalServer> {
    let nginx = external::require("nginx")?;
    let cert = ca.server_cert(&["127.0.0.1", "localhost"]).unwrap();
    let settings = NginxSettings {
        cert_pem: cert.cert_pem,
        key_pem: cert.key_pem,
        client_max_body_size: max_body,
        keepalive_requests: keepalive,
    };
    Some(external::nginx_tls_proxy(&nginx, intake.addr().port(), &settings).unwrap())
}

#[test]
fn through_nginx_tls_every_event_arrives_exactly_once_while_nginx_closes_kept_alive_connections() {
    let intake = common::intake();
    let dir = TempDir::new("nginx-keepalive");
    let ca = ThrowawayCa::new("nginx-ca").unwrap();
    let ca_path = ca_file(&dir, &ca);
    let Some(nginx) = nginx_in_front(&intake, &ca, 1024 * 1024, 3) else {
        return;
    };
    let url = format!("https://127.0.0.1:{}/logs", nginx.port);
    let logship = common::ship(
        builder_for(url)
            .tls_ca_file(&ca_path)
            .api_key(KEY)
            .max_batch_records(10)
            .max_retries(5),
        (0..3000).map(numbered),
    );
    let stats = logship.stats();
    assert_eq!(stats.events_delivered, 3000, "{stats:?}\n{}", nginx.logs());
    assert_eq!(
        received_seqs(&intake),
        (0..3000).collect::<Vec<u64>>(),
        "exactly once"
    );
    assert_eq!(stats.health, Health::Healthy);
    // 300 requests at 3 per connection: nginx closed at least 100 connections under us.
    assert!(stats.requests >= 300, "{stats:?}");
    common::assert_no_secret(&logship, KEY);
}

#[test]
fn nginx_answers_its_own_413_for_a_body_over_client_max_body_size_and_the_batch_is_split() {
    let intake = common::intake();
    let dir = TempDir::new("nginx-413");
    let ca = ThrowawayCa::new("nginx-ca").unwrap();
    let ca_path = ca_file(&dir, &ca);
    let Some(nginx) = nginx_in_front(&intake, &ca, 16 * 1024, 100) else {
        return;
    };
    let url = format!("https://127.0.0.1:{}/logs", nginx.port);
    // A misconfigured batch size: 200 events of ~1 KiB, uncompressed, is ~200 KiB.
    let padding = "x".repeat(1000);
    let logship = common::ship(
        builder_for(url)
            .tls_ca_file(&ca_path)
            .gzip(false)
            .max_batch_records(200)
            .max_batch_bytes(4 * 1024 * 1024)
            .linger(Duration::from_millis(200)),
        (0..200).map(|i| {
            let mut r = numbered(i);
            r.field("pad", padding.as_str());
            r
        }),
    );
    let stats = logship.stats();
    assert!(stats.splits >= 4, "nginx's 413 split the batch: {stats:?}");
    assert_eq!(stats.events_delivered, 200, "{stats:?}");
    assert_eq!(received_seqs(&intake), (0..200).collect::<Vec<u64>>());
    let access = std::fs::read_to_string(nginx.dir.join("access.log")).unwrap_or_default();
    assert!(
        access.contains("\" 413 "),
        "nginx itself answered 413:\n{access}"
    );
}

#[test]
fn plain_http_to_nginxs_tls_port_says_use_https() {
    let intake = common::intake();
    let dir = TempDir::new("nginx-scheme");
    let ca = ThrowawayCa::new("nginx-ca").unwrap();
    let _ = ca_file(&dir, &ca);
    let Some(nginx) = nginx_in_front(&intake, &ca, 1024 * 1024, 100) else {
        return;
    };
    let url = format!("http://127.0.0.1:{}/logs", nginx.port);
    let logship = common::ship(builder_for(url).max_retries(0), (0..3).map(numbered));
    let stats = logship.stats();
    assert_eq!(stats.events_failed, 3, "{stats:?}");
    assert_eq!(stats.dead_lettered, 0);
    assert_eq!(stats.health, Health::Failing);
    let e = stats.last_error.unwrap_or_default();
    assert!(
        e.contains("serves HTTPS") && e.contains("use https://"),
        "{e}"
    );
}

fn https_intake(ca: &ThrowawayCa) -> Intake {
    let cert = ca.server_cert(&["127.0.0.1"]).unwrap();
    Intake::start(IntakeConfig {
        tls: Some(TlsServer::from_pem(&cert.cert_pem, &cert.key_pem, None).unwrap()),
        ..IntakeConfig::default()
    })
    .unwrap()
}

/// The requests tinyproxy logged as carried.
fn connects(proxy: &external::ExternalServer, target_port: u16) -> usize {
    let log = std::fs::read_to_string(proxy.dir.join("tinyproxy.log")).unwrap_or_default();
    log.lines()
        .filter(|l| l.contains(&format!("CONNECT 127.0.0.1:{target_port}")))
        .count()
}

#[test]
fn through_tinyproxy_https_and_plain_http_are_tunnelled_with_connect() {
    let Some(program) = external::require("tinyproxy") else {
        return;
    };
    let proxy = external::tinyproxy(&program, None).unwrap();
    let dir = TempDir::new("proxy-open");
    let ca = ThrowawayCa::new("proxy-ca").unwrap();
    let ca_path = ca_file(&dir, &ca);
    let tls = https_intake(&ca);
    let logship = common::ship(
        builder_for(tls.url("/logs"))
            .proxy(format!("http://127.0.0.1:{}", proxy.port))
            .tls_ca_file(&ca_path),
        (0..100).map(numbered),
    );
    assert_eq!(
        logship.stats().events_delivered,
        100,
        "{:?}\n{}",
        logship.stats(),
        proxy.logs()
    );
    assert_eq!(received_seqs(&tls), (0..100).collect::<Vec<u64>>());
    assert!(connects(&proxy, tls.addr().port()) >= 1, "{}", proxy.logs());

    let plain = common::intake();
    let logship = common::ship(
        builder_for(plain.url("/logs")).proxy(format!("127.0.0.1:{}", proxy.port)),
        (0..100).map(numbered),
    );
    assert_eq!(
        logship.stats().events_delivered,
        100,
        "{:?}",
        logship.stats()
    );
    assert!(
        connects(&proxy, plain.addr().port()) >= 1,
        "{}",
        proxy.logs()
    );
}

#[test]
fn tinyproxy_with_basic_auth_takes_the_right_password_and_a_407_says_check_the_credentials() {
    let Some(program) = external::require("tinyproxy") else {
        return;
    };
    let proxy = external::tinyproxy(&program, Some(("shipper", PROXY_PASSWORD))).unwrap();
    let dir = TempDir::new("proxy-auth");
    let ca = ThrowawayCa::new("proxy-ca").unwrap();
    let ca_path = ca_file(&dir, &ca);
    let tls = https_intake(&ca);
    let good = format!("http://shipper:{PROXY_PASSWORD}@127.0.0.1:{}", proxy.port);
    let logship = common::ship(
        builder_for(tls.url("/logs"))
            .proxy(good.clone())
            .tls_ca_file(&ca_path)
            .api_key(KEY),
        (0..50).map(numbered),
    );
    assert_eq!(
        logship.stats().events_delivered,
        50,
        "{:?}\n{}",
        logship.stats(),
        proxy.logs()
    );
    common::assert_no_secret(&logship, PROXY_PASSWORD);
    assert!(!format!("{:?}", logship.stats()).contains(PROXY_PASSWORD));

    // The wrong password: a 407, worded, events spilled (not lost), nothing leaks.
    let spill = dir.path().join("spill");
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let seen2 = seen.clone();
    let bad = format!(
        "http://shipper:wrong-{PROXY_PASSWORD}@127.0.0.1:{}",
        proxy.port
    );
    let b = builder_for(tls.url("/logs"))
        .proxy(bad)
        .tls_ca_file(&ca_path)
        .api_key(KEY)
        .spill_dir(&spill)
        .max_retries(1)
        .retry_backoff(Duration::from_millis(1), Duration::from_millis(50))
        .on_error(move |e| seen2.lock().unwrap().push(e.message.clone()));
    assert!(!format!("{:?}", b.config()).contains(PROXY_PASSWORD));
    let logship = common::ship(b, (0..20).map(numbered));
    let stats = logship.stats();
    assert_eq!(stats.events_spilled, 20, "{stats:?}");
    assert_eq!(stats.lost(), 0);
    assert_eq!(stats.health, Health::Failing);
    let e = stats.last_error.clone().unwrap_or_default();
    // tinyproxy answers wrong credentials with 401, missing ones with 407.
    assert!(
        e.contains("401") && e.contains("check the proxy credentials"),
        "{e}"
    );
    common::assert_no_secret(&logship, PROXY_PASSWORD);
    for message in seen.lock().unwrap().iter() {
        assert!(
            !message.contains(PROXY_PASSWORD) && !message.contains(KEY),
            "{message}"
        );
    }
    drop(logship);
    let logship = common::ship(
        builder_for(tls.url("/logs"))
            .proxy(format!("http://127.0.0.1:{}", proxy.port))
            .tls_ca_file(&ca_path)
            .max_retries(0),
        (0..2).map(numbered),
    );
    let e = logship.stats().last_error.unwrap_or_default();
    assert!(
        e.contains("407") && e.contains("check the proxy credentials"),
        "{e}"
    );
    for entry in std::fs::read_dir(&spill).unwrap().flatten() {
        let bytes = std::fs::read(entry.path()).unwrap_or_default();
        let text = String::from_utf8_lossy(&bytes);
        assert!(!text.contains(PROXY_PASSWORD) && !text.contains(KEY));
    }
}

#[test]
fn an_unreachable_proxy_is_named_and_the_events_are_kept() {
    let dir = TempDir::new("proxy-dead");
    let plain = common::intake();
    let logship = common::ship(
        builder_for(plain.url("/logs"))
            .proxy(format!("http://u:{PROXY_PASSWORD}@127.0.0.1:1"))
            .spill_dir(dir.path())
            .max_retries(0),
        (0..5).map(numbered),
    );
    let stats = logship.stats();
    assert_eq!(stats.events_spilled, 5, "{stats:?}");
    let e = stats.last_error.clone().unwrap_or_default();
    assert!(e.contains("proxy 127.0.0.1:1 is unreachable"), "{e}");
    common::assert_no_secret(&logship, PROXY_PASSWORD);
}
