//! Real clients from PyPI against the decoders: the bytes they were captured sending
//! (`tests/fixtures/clients/captured/`, headers without credentials) replayed through
//! [`decode`]. The same clients run live against the real listener in
//! `tests/listen_clients.rs`.

use std::path::PathBuf;

use logship::Record;

use super::*;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/clients")
}

/// Replays every captured request of `client` (`N.json` headers + `N.body`).
fn replay(client: &str) -> Vec<Record> {
    let dir = fixtures().join("captured").join(client);
    let mut records = Vec::new();
    for i in 0.. {
        let Ok(meta) = std::fs::read_to_string(dir.join(format!("{i}.json"))) else {
            break;
        };
        let meta: serde_json::Value = serde_json::from_str(&meta).expect("capture metadata");
        let body = std::fs::read(dir.join(format!("{i}.body"))).expect("capture body");
        let headers: Vec<(String, String)> = meta["headers"]
            .as_object()
            .expect("headers")
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_owned()))
            .collect();
        let path = meta["path"].as_str().expect("path");
        let vendor = route(path).expect("a vendor path");
        let req = Request {
            method: "POST",
            path,
            query: None,
            headers: &headers,
            body: &body,
            max_events: 1_000_000,
            max_body: 10 << 20,
        };
        match decode(vendor, &req) {
            Decoded::Events(r, a) => {
                assert!((200..300).contains(&a.status), "{client} {i}: {}", a.status);
                records.extend(r);
            }
            Decoded::Answer(a) => panic!(
                "{client} {i} refused: {} {}",
                a.status,
                String::from_utf8_lossy(&a.body)
            ),
        }
    }
    records
}

fn messages(records: &[Record]) -> Vec<String> {
    records.iter().map(|r| r.message_str().to_owned()).collect()
}

fn numbered(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("event {i}")).collect()
}

#[test]
fn captured_requests_of_real_clients_decode() {
    let otel = replay("otel");
    assert_eq!(messages(&otel), numbered(3));
    assert!(otel
        .iter()
        .all(|r| r.level() == logship::Level::Warn && r.target() == "otel.client"));
    let dd = replay("datadog");
    assert_eq!(messages(&dd), numbered(3));
    assert!(dd.iter().all(|r| r.level() == logship::Level::Warn));
    let splunk = replay("splunk");
    assert_eq!(messages(&splunk), numbered(3));
}
