//! The harness of the `--listen http://` tests (`tests/listen_http_*.rs`): the real
//! `logship ship --listen http://127.0.0.1:0` behind which the in-process strict intake
//! runs, real HTTP requests on loopback, and the accounting every test makes (each event
//! carries a unique id: none lost, the summary and exit code truthful).

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use super::{logship, temp_path, ShipProcess};
use logship_intake::{Intake, IntakeConfig};

/// Generous bound for things that take seconds, so a hang fails instead of stalling.
pub const WAIT: Duration = Duration::from_secs(60);

/// A running `logship ship --listen http://...` and its port.
pub struct Listener {
    /// The process.
    pub ship: ShipProcess,
    /// Its HTTP listener's port.
    pub port: u16,
}

impl Listener {
    pub fn start(intake: &Intake, extra: &[&str]) -> Listener {
        Listener::start_on(intake, "http://127.0.0.1:0", extra)
    }

    /// Listens on `url` (a fixed port: a restart on the same address).
    pub fn start_on(intake: &Intake, url: &str, extra: &[&str]) -> Listener {
        let mut args = vec!["--listen", url];
        args.extend_from_slice(extra);
        let ship = ShipProcess::start(&intake.url("/"), &args, Duration::from_secs(120));
        let port = ship.port("http");
        Listener { ship, port }
    }

    /// SIGTERM; the exit code and stderr.
    pub fn stop(&mut self) -> (Option<i32>, Vec<String>) {
        self.ship.stop()
    }

    /// Sends `sig` (which must stop it); the exit code and stderr.
    pub fn stop_with(&mut self, sig: &str) -> (Option<i32>, Vec<String>) {
        self.ship.stop_with(sig)
    }
}

/// One request on a fresh connection; (status, headers+body text).
pub fn post(port: u16, path: &str, headers: &[(&str, &str)], body: &[u8]) -> (u16, String) {
    let (status, text) = try_post(port, path, headers, body).expect("connect");
    let status = status.unwrap_or_else(|| panic!("no status in {text:?}"));
    (status, text)
}

/// One request; `Err` when nobody listens, no status when the answer was cut off.
pub fn try_post(
    port: u16,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> std::io::Result<(Option<u16>, String)> {
    let mut s = TcpStream::connect(("127.0.0.1", port))?;
    s.set_read_timeout(Some(WAIT))?;
    let mut head = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: {}\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    // The server may answer (413) and close before reading the body: ignore that.
    let _ = s.write_all(head.as_bytes());
    let _ = s.write_all(body);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let text = String::from_utf8_lossy(&out).into_owned();
    Ok((status_of(&text), text))
}

/// The status code of an answer's status line (`HTTP/1.1 200 OK`).
pub fn status_of(answer: &str) -> Option<u16> {
    answer.split(' ').nth(1).and_then(|c| c.parse().ok())
}

pub fn intake() -> Intake {
    Intake::start(IntakeConfig::default()).expect("intake")
}

/// The received events' JSON, by message.
pub fn event(intake: &Intake, message: &str) -> serde_json::Value {
    intake
        .events()
        .into_iter()
        .map(|e| e.value)
        .find(|v| v.get("message").and_then(|m| m.as_str()) == Some(message))
        .unwrap_or_else(|| {
            panic!(
                "no event {message:?} in {:?}",
                intake.events().iter().map(|e| &e.value).collect::<Vec<_>>()
            )
        })
}

pub fn summary(stderr: &[String]) -> String {
    stderr
        .iter()
        .find(|l| l.contains("shipped"))
        .cloned()
        .expect("summary")
}

/// What Log4j2 2.x's `JsonLayout` (`properties="true"`, pretty, `eventEol` on) writes.
pub const JSON_LAYOUT: &str = "{\r\n  \"instant\" : {\r\n    \"epochSecond\" : 1764600000,\r\n    \"nanoOfSecond\" : 123000000\r\n  },\r\n  \"thread\" : \"http-nio-8080-exec-1\",\r\n  \"level\" : \"ERROR\",\r\n  \"loggerName\" : \"com.example.Hello\",\r\n  \"message\" : \"payment failed\",\r\n  \"thrown\" : {\r\n    \"commonElementCount\" : 0,\r\n    \"localizedMessage\" : \"card declined\",\r\n    \"message\" : \"card declined\",\r\n    \"name\" : \"java.lang.IllegalStateException\",\r\n    \"extendedStackTrace\" : [ {\r\n      \"class\" : \"com.example.Hello\",\r\n      \"method\" : \"pay\",\r\n      \"file\" : \"Hello.java\",\r\n      \"line\" : 42,\r\n      \"exact\" : false,\r\n      \"location\" : \"classes/\",\r\n      \"version\" : \"?\"\r\n    } ]\r\n  },\r\n  \"endOfBatch\" : false,\r\n  \"loggerFqcn\" : \"org.apache.logging.log4j.spi.AbstractLogger\",\r\n  \"contextMap\" : {\r\n    \"requestId\" : \"r-7\"\r\n  },\r\n  \"threadId\" : 31,\r\n  \"threadPriority\" : 5\r\n}\r\n";

pub fn ids(intake: &Intake) -> BTreeSet<u64> {
    intake
        .events()
        .iter()
        .filter_map(|e| {
            e.value
                .get("message")?
                .as_str()?
                .strip_prefix("id-")?
                .parse()
                .ok()
        })
        .collect()
}
