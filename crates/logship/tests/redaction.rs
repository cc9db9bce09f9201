//! Redaction end to end (issue 17 part 4): what the rules redact never reaches any
//! vendor's strict intake over real HTTP, the spill files on disk, or the stats; near-misses
//! arrive untouched; spill files an unredacted run left are redacted when replayed.

mod common;

use std::time::Duration;

use common::vendors::*;
use common::*;
use logship::{Builder, Level, Logship, Record};

const JWT: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
const AWS_SECRET: &str = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
const PEM: &str =
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAsecretkeybody\n-----END RSA PRIVATE KEY-----";

/// Text that must not arrive anywhere (each from one rule).
const SECRETS: &[&str] = &[
    "4111 1111 1111 1111",
    "4111111111111111",
    "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    "sk-live-abc123XYZ",
    "AKIAIOSFODNN7EXAMPLE",
    AWS_SECRET,
    "MIIEowIBAAKCAQEAsecretkeybody",
    "hunter2-pass",
    "span-secret-value-9",
    "cookie-value-77",
    "order-424242",
];

/// Near-misses that must arrive as they were.
const KEPT: &[&str] = &[
    "4111111111111112",
    "the bearer of bad news",
    "AKIAIOSFODNN7EXAMPL ",
    "-----BEGIN CERTIFICATE-----",
    "tokens_left",
];

fn secret_event(i: usize) -> Record {
    let mut r = Record::new(Level::Warn, "payments");
    r.message(&format!(
        "event {i}: card 4111 1111 1111 1111 via Bearer sk-live-abc123XYZ key AKIAIOSFODNN7EXAMPLE order-424242 ({})",
        KEPT.join(" | ")
    ))
    .field("seq", i as u64)
    .field("password", "hunter2-pass")
    .field("session", JWT)
    .field("pan", 4111111111111111u64)
    .field("config", format!("aws_secret_access_key = {AWS_SECRET}").as_str())
    .field("pem", PEM)
    .field("tokens_left", 12u64)
    .span("request")
    .field("api_key", "span-secret-value-9")
    .field("Set-Cookie", "cookie-value-77");
    r
}

fn redacting(b: Builder) -> Builder {
    b.redact(true).redact_regex("order-[0-9]{6}")
}

fn assert_clean(what: &str, text: &str) {
    for s in SECRETS {
        assert!(!text.contains(s), "{what}: {s:?} leaked in {text}");
    }
}

#[test]
fn no_secret_reaches_any_vendors_intake_and_near_misses_do() {
    let n = 20;
    for (vendor, encoding) in every_vendor() {
        let intake = vendor_intake();
        let builder = for_vendor(vendor_builder(&intake, vendor), vendor, encoding);
        let logship = ship(redacting(builder), (0..n).map(secret_event));
        let events = intake.events();
        assert_eq!(events.len(), n, "{vendor:?}");
        let all =
            serde_json::to_string(&events.iter().map(|e| &e.value).collect::<Vec<_>>()).unwrap();
        assert_clean(&format!("{vendor:?} intake"), &all);
        for kept in [
            "4111111111111112",
            "the bearer of bad news",
            "CERTIFICATE",
            "redacted:card",
        ] {
            assert!(all.contains(kept), "{vendor:?}: {kept:?} missing in {all}");
        }
        let stats = logship.stats();
        assert_eq!(stats.events_redacted, n as u64, "{stats:?}");
        // Per event: password, api_key, Set-Cookie by name; 2 cards (message, pan);
        // 1 JWT; 1 bearer; 1 AWS key id; 1 AWS secret; 1 PEM; 1 regex.
        let per = |rule: &str| stats.redactions.get(rule).copied().unwrap_or(0) / n as u64;
        assert_eq!(
            [
                per("field"),
                per("card"),
                per("jwt"),
                per("bearer"),
                per("aws_key_id")
            ],
            [3, 2, 1, 1, 1],
            "{vendor:?} {:?}",
            stats.redactions
        );
        assert_eq!(
            [per("aws_secret"), per("private_key"), per("regex1")],
            [1, 1, 1]
        );
        assert_eq!(stats.events_delivered, n as u64);
        for s in SECRETS {
            assert_no_secret(&logship, s);
        }
    }
}

#[test]
fn off_by_default_nothing_is_changed() {
    let intake = intake();
    let logship = ship(builder(&intake), [secret_event(0)]);
    let all = serde_json::to_string(&intake.events()[0].value).unwrap();
    assert!(
        all.contains("hunter2-pass") && all.contains("4111 1111 1111 1111"),
        "{all}"
    );
    assert_eq!(logship.stats().events_redacted, 0);
    assert!(logship.stats().redactions.is_empty());
}

/// Every byte of every file under `dir`, lossily as text.
fn files_text(dir: &std::path::Path) -> String {
    let mut out = String::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push_str(&String::from_utf8_lossy(&std::fs::read(&p).unwrap()));
            }
        }
    }
    out
}

fn spilling(b: Builder, dir: &TempDir) -> Builder {
    b.spill_dir(dir.path())
        .max_retries(0)
        .retry_backoff(Duration::from_millis(1), Duration::from_millis(5))
        .shutdown_timeout(WAIT)
}

#[test]
fn nothing_redacted_reaches_the_spill_files_and_what_an_unredacted_run_spilled_is_redacted_on_replay(
) {
    let n = 50;
    // With redaction on and the intake down, everything is spilled: no secret on disk.
    let dir = TempDir::new("redact-spill");
    let down = Logship::builder()
        .endpoint(dead_endpoint())
        .report_to_stderr(false);
    let logship = ship(redacting(spilling(down, &dir)), (0..n).map(secret_event));
    assert_eq!(
        logship.stats().events_spilled,
        n as u64,
        "{:?}",
        logship.stats()
    );
    let disk = files_text(dir.path());
    assert!(disk.contains("redacted:card"), "the spill holds the events");
    assert_clean("spill", &disk);

    // A run without redaction spills the secrets (the control: the check above can fail).
    let raw = TempDir::new("redact-raw-spill");
    let down = Logship::builder()
        .endpoint(dead_endpoint())
        .report_to_stderr(false);
    ship(spilling(down, &raw), (0..n).map(secret_event));
    assert!(files_text(raw.path()).contains("hunter2-pass"));

    // The next run, with redaction on, replays it: the intake gets no secret.
    let intake = intake();
    let up = Logship::builder()
        .endpoint(intake.url("/logs"))
        .report_to_stderr(false);
    let (logship, guard) = redacting(spilling(up, &raw)).build().unwrap();
    assert!(logship.wait_spill_drained(WAIT));
    drop(guard);
    let events = intake.events();
    assert_eq!(events.len(), n);
    let all = serde_json::to_string(&events.iter().map(|e| &e.value).collect::<Vec<_>>()).unwrap();
    assert_clean("replayed", &all);
    assert_eq!(logship.stats().events_redacted, n as u64);
}

#[test]
fn bad_rules_fail_the_build_naming_the_option() {
    let intake = intake();
    let err = builder(&intake)
        .redact_regex("(unclosed")
        .build()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("redact_regexes") && err.contains("(unclosed"),
        "{err}"
    );
    let err = builder(&intake)
        .redact_patterns(["card", "iban"])
        .build()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("redact_patterns") && err.contains("iban"),
        "{err}"
    );
    let err = builder(&intake)
        .redact(true)
        .redact_action(logship::RedactAction::Hash)
        .build()
        .unwrap_err()
        .to_string();
    assert!(err.contains("redact_hash_key"), "{err}");
    let key = "too-short-key";
    let err = builder(&intake)
        .redact(true)
        .redact_action(logship::RedactAction::Hash)
        .redact_hash_key(key)
        .build()
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("redact_hash_key") && !err.contains(key),
        "{err}"
    );
    // An unknown action in a file names the key.
    let err = logship::Config::from_toml_str("redact = true\nredact_action = \"blur\"")
        .unwrap_err()
        .to_string();
    assert!(err.contains("redact_action"), "{err}");
}

#[test]
fn hashed_values_correlate_across_events_and_hide_the_key() {
    let intake = intake();
    let key = "hash-key-0123456789abcdef";
    let b = redacting(builder(&intake))
        .redact_action(logship::RedactAction::Hash)
        .redact_hash_key(key);
    let logship = ship(b, (0..3).map(secret_event));
    let events = intake.events();
    let pw: Vec<String> = events
        .iter()
        .map(|e| e.value["password"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert!(pw[0].starts_with("[hmac:") && pw[0].len() == 23, "{pw:?}");
    assert!(pw.iter().all(|p| *p == pw[0]), "{pw:?}");
    let all = serde_json::to_string(&events.iter().map(|e| &e.value).collect::<Vec<_>>()).unwrap();
    assert_clean("hashed", &all);
    assert!(!all.contains(key));
    assert_no_secret(&logship, key);
}
