//! Real clients from PyPI against the decoders: the bytes they were captured sending
//! (`tests/fixtures/clients/captured/`, headers without credentials), and the clients
//! themselves run live against a small loopback HTTP harness that answers with
//! [`decode`]'s answers (the real listener replaces the harness once merged).
//!
//! The live test needs the venv `.ci/run` installs (`$LOGSHIP_CLIENTS_VENV`, else
//! `/work/venv19`): it skips with a message when missing, and fails when `CI=true`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Mutex};

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

/// The venv's python, or why the test cannot run.
fn python() -> Option<PathBuf> {
    let venv = std::env::var_os("LOGSHIP_CLIENTS_VENV")
        .map_or_else(|| PathBuf::from("/work/venv19"), PathBuf::from);
    let python = venv.join("bin/python");
    if python.exists() {
        return Some(python);
    }
    let why = format!(
        "the PyPI clients' venv {} is missing (.ci/run installs it)",
        venv.display()
    );
    assert!(std::env::var("CI").as_deref() != Ok("true"), "{why}");
    eprintln!("skipped: {why}");
    None
}

/// A one-request-at-a-time HTTP/1.1 server on 127.0.0.1 answering with the decoders.
fn harness() -> (String, Arc<Mutex<Vec<Record>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let received = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&received);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let sink = Arc::clone(&sink);
            std::thread::spawn(move || serve(stream, &sink));
        }
    });
    (url, received)
}

fn serve(stream: TcpStream, sink: &Mutex<Vec<Record>>) {
    let mut reader = BufReader::new(stream.try_clone().expect("clone"));
    let mut out = stream;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let mut parts = line.split_whitespace();
        let (method, target) = (
            parts.next().unwrap_or("").to_owned(),
            parts.next().unwrap_or("/").to_owned(),
        );
        let mut headers = Vec::new();
        loop {
            let mut h = String::new();
            if reader.read_line(&mut h).unwrap_or(0) == 0 || h.trim().is_empty() {
                break;
            }
            if let Some((k, v)) = h.split_once(':') {
                headers.push((k.trim().to_ascii_lowercase(), v.trim().to_owned()));
            }
        }
        let len = headers
            .iter()
            .find(|(k, _)| k == "content-length")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0);
        let mut body = vec![0; len];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        // None of these clients compresses by default (the server decompresses).
        let (path, query) = match target.split_once('?') {
            Some((p, q)) => (p.to_owned(), Some(q.to_owned())),
            None => (target.clone(), None),
        };
        let req = Request {
            method: &method,
            path: &path,
            query: query.as_deref(),
            headers: &headers,
            body: &body,
        };
        let answer = match route(&path).map(|v| decode(v, &req)) {
            Some(Decoded::Events(r, a)) => {
                sink.lock().expect("sink").extend(r);
                a
            }
            Some(Decoded::Answer(a)) => a,
            None => Answer::empty(404),
        };
        let mut head = format!(
            "HTTP/1.1 {} X\r\nContent-Length: {}\r\n",
            answer.status,
            answer.body.len()
        );
        for (k, v) in &answer.headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        if out
            .write_all(head.as_bytes())
            .and_then(|()| out.write_all(&answer.body))
            .is_err()
        {
            return;
        }
    }
}

#[test]
fn real_pypi_clients_are_accepted_live() {
    let Some(python) = python() else { return };
    for (script, n) in [
        ("otel_logs.py", 5),
        ("datadog_logs.py", 5),
        ("splunk_hec.py", 5),
    ] {
        let (url, received) = harness();
        let status = Command::new(&python)
            .arg(fixtures().join(script))
            .arg(&url)
            .arg(n.to_string())
            .status()
            .expect("run the client");
        assert!(status.success(), "{script}: {status}");
        let got = messages(&received.lock().expect("records"));
        assert_eq!(got, numbered(n), "{script}");
    }
}
