//! `logship ship --listen http://127.0.0.1:0`: the real binary, real sockets on
//! loopback, the in-process strict intake behind it. Each test reads the listener's port
//! from its `logship: listening on http://...` line, sends real HTTP requests, and
//! accounts for every event (unique ids): none lost, the summary and exit code truthful.

mod common;

use std::collections::BTreeSet;
use std::io::{Read, Write};
use std::net::TcpStream;

use std::time::Duration;

use common::{logship, temp_path, ShipProcess};
use logship_intake::{Intake, IntakeConfig};

/// Generous bound for things that take seconds, so a hang fails instead of stalling.
const WAIT: Duration = Duration::from_secs(60);

/// A running `logship ship --listen http://...` and its port.
struct Listener {
    ship: ShipProcess,
    port: u16,
}

impl Listener {
    fn start(intake: &Intake, extra: &[&str]) -> Listener {
        Listener::start_on(intake, "http://127.0.0.1:0", extra)
    }

    /// Listens on `url` (a fixed port: a restart on the same address).
    fn start_on(intake: &Intake, url: &str, extra: &[&str]) -> Listener {
        let mut args = vec!["--listen", url];
        args.extend_from_slice(extra);
        let ship = ShipProcess::start(&intake.url("/"), &args, Duration::from_secs(120));
        let port = ship.port("http");
        Listener { ship, port }
    }

    /// SIGTERM; the exit code and stderr.
    fn stop(&mut self) -> (Option<i32>, Vec<String>) {
        self.ship.stop()
    }

    /// Sends `sig` (which must stop it); the exit code and stderr.
    fn stop_with(&mut self, sig: &str) -> (Option<i32>, Vec<String>) {
        self.ship.stop_with(sig)
    }
}

/// One request on a fresh connection; (status, headers+body text).
fn post(port: u16, path: &str, headers: &[(&str, &str)], body: &[u8]) -> (u16, String) {
    let (status, text) = try_post(port, path, headers, body).expect("connect");
    let status = status.unwrap_or_else(|| panic!("no status in {text:?}"));
    (status, text)
}

/// One request; `Err` when nobody listens, no status when the answer was cut off.
fn try_post(
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
fn status_of(answer: &str) -> Option<u16> {
    answer.split(' ').nth(1).and_then(|c| c.parse().ok())
}

fn intake() -> Intake {
    Intake::start(IntakeConfig::default()).expect("intake")
}

/// The received events' JSON, by message.
fn event(intake: &Intake, message: &str) -> serde_json::Value {
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

fn summary(stderr: &[String]) -> String {
    stderr
        .iter()
        .find(|l| l.contains("shipped"))
        .cloned()
        .expect("summary")
}

/// What Log4j2 2.x's `JsonLayout` (`properties="true"`, pretty, `eventEol` on) writes.
const JSON_LAYOUT: &str = "{\r\n  \"instant\" : {\r\n    \"epochSecond\" : 1764600000,\r\n    \"nanoOfSecond\" : 123000000\r\n  },\r\n  \"thread\" : \"http-nio-8080-exec-1\",\r\n  \"level\" : \"ERROR\",\r\n  \"loggerName\" : \"com.example.Hello\",\r\n  \"message\" : \"payment failed\",\r\n  \"thrown\" : {\r\n    \"commonElementCount\" : 0,\r\n    \"localizedMessage\" : \"card declined\",\r\n    \"message\" : \"card declined\",\r\n    \"name\" : \"java.lang.IllegalStateException\",\r\n    \"extendedStackTrace\" : [ {\r\n      \"class\" : \"com.example.Hello\",\r\n      \"method\" : \"pay\",\r\n      \"file\" : \"Hello.java\",\r\n      \"line\" : 42,\r\n      \"exact\" : false,\r\n      \"location\" : \"classes/\",\r\n      \"version\" : \"?\"\r\n    } ]\r\n  },\r\n  \"endOfBatch\" : false,\r\n  \"loggerFqcn\" : \"org.apache.logging.log4j.spi.AbstractLogger\",\r\n  \"contextMap\" : {\r\n    \"requestId\" : \"r-7\"\r\n  },\r\n  \"threadId\" : 31,\r\n  \"threadPriority\" : 5\r\n}\r\n";

#[test]
fn every_body_shape_arrives_with_its_level_logger_thread_and_message() {
    let intake = intake();
    let mut l = Listener::start(&intake, &["--no-spill"]);
    let nd = b"{\"message\":\"nd-1\",\"level\":\"warn\",\"logger\":\"app.db\",\"thread\":\"t1\"}\n{\"message\":\"nd-2\"}\n";
    assert_eq!(
        post(l.port, "/", &[("Content-Type", "application/x-ndjson")], nd).0,
        200
    );
    let arr = b"[{\"msg\":\"arr-1\",\"severity\":\"DEBUG\"},{\"msg\":\"arr-2\"}]";
    let (status, text) = post(
        l.port,
        "/logs",
        &[("Content-Type", "application/json")],
        arr,
    );
    assert_eq!(status, 200);
    assert!(text.contains("{\"accepted\":2}"), "{text}");
    assert_eq!(
        post(
            l.port,
            "/",
            &[("Content-Type", "text/plain")],
            b"text-1\r\ntext-2\n"
        )
        .0,
        200
    );
    let (status, text) = post(
        l.port,
        "/",
        &[("Content-Type", "application/json; charset=UTF-8")],
        JSON_LAYOUT.as_bytes(),
    );
    assert_eq!(status, 200, "{text}");
    let compact: String = JSON_LAYOUT
        .replace("\r\n", "")
        .replace("payment failed", "compact one");
    assert_eq!(post(l.port, "/", &[], compact.as_bytes()).0, 200);
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(b"{\"message\":\"gz-1\"}\n").unwrap();
    let gz = gz.finish().unwrap();
    assert_eq!(
        post(l.port, "/", &[("Content-Encoding", "gzip")], &gz).0,
        200
    );
    assert!(intake.wait_for_events(9, WAIT), "{}", intake.stats().events);
    let (code, stderr) = l.stop();
    assert_eq!(code, Some(0), "{stderr:?}");

    let nd1 = event(&intake, "nd-1");
    assert_eq!(nd1["level"], "WARN", "{nd1}");
    assert_eq!(nd1["target"], "app.db", "{nd1}");
    assert_eq!(nd1["thread"], "t1", "{nd1}");
    assert_eq!(event(&intake, "arr-1")["level"], "DEBUG");
    event(&intake, "text-1");
    event(&intake, "text-2");
    event(&intake, "gz-1");
    for m in ["payment failed", "compact one"] {
        let j = event(&intake, m);
        assert_eq!(j["level"], "ERROR", "{j}");
        assert_eq!(j["target"], "com.example.Hello", "{j}");
        assert_eq!(j["thread"], "http-nio-8080-exec-1", "{j}");
        assert_eq!(j["requestId"], "r-7", "{j}");
        assert!(
            j.get("loggerFqcn").is_none() && j.get("endOfBatch").is_none(),
            "{j}"
        );
        let text = j.to_string();
        assert!(
            text.contains("card declined") && text.contains("IllegalStateException"),
            "{j}"
        );
        assert!(text.contains("Hello.pay(Hello.java:42)"), "{j}");
        assert!(
            j["timestamp"]
                .as_str()
                .is_some_and(|t| t.starts_with("2025-12-01T14:40:00.123")),
            "{j}"
        );
    }
    assert_eq!(intake.stats().events, 9);
    let s = summary(&stderr);
    assert!(s.contains("shipped 9 of 9 events"), "{s}");
}

#[test]
fn malformed_oversized_and_unauthorized_bodies_are_refused_and_nothing_is_lost() {
    let intake = intake();
    let mut l = Listener::start(
        &intake,
        &[
            "--no-spill",
            "--listen-token",
            "tok-s3cret",
            "--listen-max-body-bytes",
            "4096",
        ],
    );
    let auth = [("Authorization", "Bearer tok-s3cret")];
    let (status, text) = post(
        l.port,
        "/",
        &auth,
        b"{\"message\":\"ok-1\"}\n{\"message\": oops}\n",
    );
    assert_eq!(status, 400, "{text}");
    assert!(text.contains("line 2"), "{text}");
    let (status, text) = post(
        l.port,
        "/",
        &[("Authorization", "Bearer tok-guess")],
        b"{\"message\":\"x\"}",
    );
    assert_eq!(status, 401, "{text}");
    assert!(
        !text.contains("tok-s3cret") && !text.contains("tok-guess"),
        "{text}"
    );
    assert_eq!(post(l.port, "/", &[], b"{\"message\":\"x\"}").0, 401);
    let big = vec![b'a'; 5000];
    assert_eq!(post(l.port, "/", &auth, &big).0, 413);
    // A gzip bomb: 64 KiB of zeros compressed far below the limit.
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    gz.write_all(&vec![b' '; 64 * 1024]).unwrap();
    let bomb = gz.finish().unwrap();
    assert!(bomb.len() < 4096);
    let (status, text) = post(l.port, "/", &[auth[0], ("Content-Encoding", "gzip")], &bomb);
    assert_eq!(status, 413, "{text}");
    assert_eq!(
        post(
            l.port,
            "/",
            &[("X-Logship-Token", "tok-s3cret")],
            b"{\"message\":\"ok-2\"}"
        )
        .0,
        200
    );
    assert!(intake.wait_for_events(1, WAIT));
    let (code, stderr) = l.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    assert_eq!(
        intake.stats().events,
        1,
        "only the good request's event arrives"
    );
    event(&intake, "ok-2");
    assert!(
        stderr.iter().all(|l| !l.contains("tok-s3cret")),
        "{stderr:?}"
    );
    let s = summary(&stderr);
    assert!(s.contains("shipped 1 of 1 events"), "{s}");
    assert!(
        s.contains("1 requests malformed (400)")
            && s.contains("2 requests too large: over the body limit, or of more events than the queue holds (413)"),
        "{s}"
    );
}

/// Posts `id`s on one keep-alive connection each, resending on 503 until accepted;
/// returns how many 503s it saw.
fn send_until_accepted(port: u16, ids: std::ops::Range<u64>) -> u64 {
    let mut busy = 0;
    for id in ids {
        loop {
            let body = format!("{{\"message\":\"id-{id:06}\"}}\n");
            let (status, text) = post(port, "/", &[], body.as_bytes());
            match status {
                200 => break,
                503 => {
                    assert!(text.contains("Retry-After: 1"), "{text}");
                    busy += 1;
                    if busy > 100_000 {
                        panic!("never accepted");
                    }
                }
                other => panic!("status {other}: {text}"),
            }
        }
    }
    busy
}

fn ids(intake: &Intake) -> BTreeSet<u64> {
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

#[test]
fn a_full_queue_answers_503_with_retry_after_and_everything_sent_again_arrives() {
    let intake = intake();
    intake.pause(); // answers held: the pipeline's queue fills
    let mut l = Listener::start(
        &intake,
        &[
            "--no-spill",
            "--queue-capacity",
            "8",
            "--max-batch-records",
            "4",
            "--shutdown-timeout-ms",
            "30000",
        ],
    );
    // Fill until the first 503.
    let mut sent = 0u64;
    let mut saw_busy = false;
    while !saw_busy {
        let body = format!("{{\"message\":\"id-{sent:06}\"}}\n");
        let (status, text) = post(l.port, "/", &[], body.as_bytes());
        match status {
            200 => sent += 1,
            503 => {
                assert!(text.contains("Retry-After: 1"), "{text}");
                saw_busy = true;
            }
            other => panic!("{other}: {text}"),
        }
        assert!(sent < 10_000, "the queue never filled");
    }
    intake.resume();
    // The refused one and more, resent until accepted.
    send_until_accepted(l.port, sent..sent + 50);
    let total = sent + 50;
    assert!(intake.wait_for_events(total as usize, WAIT));
    let (code, stderr) = l.stop();
    let got = ids(&intake);
    let missing: Vec<u64> = (0..total).filter(|i| !got.contains(i)).collect();
    assert!(missing.is_empty(), "missing {missing:?}");
    assert_eq!(code, Some(0), "a 503 is not a loss: {stderr:?}");
    let s = summary(&stderr);
    assert!(s.contains("refused with 503"), "{s}");
    assert!(
        s.contains("; 0 dropped,"),
        "a refused event is resent, not dropped: {s}"
    );
}

#[test]
fn a_slow_client_is_closed_at_the_header_timeout_while_others_are_served() {
    let intake = intake();
    let mut l = Listener::start(
        &intake,
        &["--no-spill", "--listen-header-timeout-ms", "500"],
    );
    let mut slow = TcpStream::connect(("127.0.0.1", l.port)).unwrap();
    slow.write_all(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Le")
        .unwrap();
    // Served meanwhile.
    assert_eq!(post(l.port, "/", &[], b"{\"message\":\"fast\"}").0, 200);
    slow.set_read_timeout(Some(WAIT)).unwrap();
    let started = std::time::Instant::now();
    let mut out = String::new();
    let _ = slow.read_to_string(&mut out);
    assert!(out.starts_with("HTTP/1.1 408"), "{out:?}");
    assert!(started.elapsed() < Duration::from_secs(30));
    let (code, stderr) = l.stop();
    assert_eq!(code, Some(0));
    assert!(
        summary(&stderr).contains("1 connections too slow, closed (408)"),
        "{stderr:?}"
    );
}

#[test]
fn connections_over_the_limit_are_answered_503() {
    let intake = intake();
    let mut l = Listener::start(&intake, &["--no-spill", "--listen-max-connections", "2"]);
    let mut held: Vec<TcpStream> = Vec::new();
    for _ in 0..2 {
        let mut s = TcpStream::connect(("127.0.0.1", l.port)).unwrap();
        // A first request on each: the connection is surely counted once answered.
        s.write_all(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}")
            .unwrap();
        let mut buf = [0u8; 12];
        s.read_exact(&mut buf).unwrap();
        assert_eq!(&buf, b"HTTP/1.1 200");
        held.push(s);
    }
    let (status, text) = post(l.port, "/", &[], b"{}");
    assert_eq!(status, 503, "{text}");
    drop(held);
    let (code, stderr) = l.stop();
    assert_eq!(code, Some(0));
    assert!(
        summary(&stderr).contains("connections over the limit"),
        "{stderr:?}"
    );
}

#[test]
fn sigterm_while_clients_send_every_event_answered_2xx_is_delivered_or_spilled() {
    let intake = intake();
    intake.set_delay(Duration::from_millis(30));
    let spill = temp_path("listen-spill");
    let mut l = Listener::start(
        &intake,
        &[
            "--spill-dir",
            spill.to_str().unwrap(),
            "--shutdown-timeout-ms",
            "20000",
        ],
    );
    let port = l.port;
    let sender = std::thread::spawn(move || {
        let mut acked = Vec::new();
        for id in 0..100_000u64 {
            let body = format!("{{\"message\":\"id-{id:06}\"}}\n");
            let mut s = match TcpStream::connect(("127.0.0.1", port)) {
                Ok(s) => s,
                Err(_) => break,
            };
            s.set_read_timeout(Some(WAIT)).unwrap();
            let head = format!(
                "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            if s.write_all(head.as_bytes())
                .and_then(|_| s.write_all(body.as_bytes()))
                .is_err()
            {
                break;
            }
            let mut out = Vec::new();
            let _ = s.read_to_end(&mut out);
            if out.starts_with(b"HTTP/1.1 200") {
                acked.push(id);
            } else if out.is_empty() || out.starts_with(b"HTTP/1.1 503") {
                break;
            }
        }
        acked
    });
    assert!(intake.wait_for_events(200, WAIT));
    let (code, stderr) = l.stop();
    let acked = sender.join().unwrap();
    assert!(acked.len() >= 200);
    assert!(matches!(code, Some(0) | Some(3)), "{code:?} {stderr:?}");
    let got = ids(&intake);
    let spilled = stderr
        .iter()
        .any(|l| l.contains("written to the spill directory"));
    if !spilled {
        let missing: Vec<u64> = acked.iter().copied().filter(|i| !got.contains(i)).collect();
        assert!(
            missing.is_empty(),
            "answered 200 but not delivered: {missing:?}"
        );
    }
    let _ = std::fs::remove_dir_all(&spill);
}

#[test]
fn sighup_without_follow_stops_like_sigterm_and_delivers_what_was_received() {
    let intake = intake();
    let mut l = Listener::start(&intake, &["--no-spill"]);
    assert_eq!(
        post(l.port, "/", &[], b"{\"message\":\"before-hup\"}").0,
        200
    );
    // Nothing to rescan: no follow message, a summary, exit 0, the event delivered.
    let (code, stderr) = l.stop_with("HUP");
    assert_eq!(code, Some(0), "{stderr:?}");
    assert!(
        !stderr.iter().any(|line| line.contains("rescan")),
        "{stderr:?}"
    );
    assert!(
        summary(&stderr).contains("shipped 1 of 1 events"),
        "{stderr:?}"
    );
    event(&intake, "before-hup");
}

#[test]
fn a_listener_restart_while_a_client_sends_loses_nothing_the_client_was_answered_for() {
    const N: u64 = 400;
    let intake = intake();
    let spill = temp_path("listen-restart-spill");
    let spill_arg = spill.to_str().unwrap().to_owned();
    let mut first = Listener::start(&intake, &["--spill-dir", &spill_arg]);
    let port = first.port;
    // The client sends ids one request at a time and sends a request again until it is
    // answered 2xx, as a client with retries does: refused connections (nobody listens
    // during the restart), cut-off answers and 503s are all sent again. Past N/2 it waits
    // for the first listener to have stopped, so that the second one surely serves the
    // second half whatever the machine's speed.
    let (stopped, first_stopped) = std::sync::mpsc::channel::<()>();
    let client = std::thread::spawn(move || {
        let mut answered = Vec::new();
        let mut retries = 0u64;
        for id in 0..N {
            if id == N / 2 {
                first_stopped.recv().expect("the test signals the stop");
            }
            let body = format!("{{\"message\":\"id-{id:06}\"}}\n");
            loop {
                match try_post(port, "/", &[], body.as_bytes()) {
                    Ok((Some(200), _)) => break,
                    Ok((Some(503), _)) | Ok((None, _)) | Err(_) => {
                        retries += 1;
                        assert!(retries < 200_000, "never accepted");
                        // A client's pause before sending again, not synchronisation.
                        std::thread::sleep(Duration::from_millis(2));
                    }
                    Ok((Some(other), text)) => panic!("status {other}: {text}"),
                }
            }
            answered.push(id);
        }
        (answered, retries)
    });
    // Restart once a quarter of the ids have arrived, while the client goes on.
    assert!(intake.wait_for_events(N as usize / 4, WAIT));
    let (code, stderr) = first.stop();
    assert!(matches!(code, Some(0) | Some(3)), "{stderr:?}");
    stopped.send(()).expect("client waiting");
    let mut second = Listener::start_on(
        &intake,
        &format!("http://127.0.0.1:{port}"),
        &["--spill-dir", &spill_arg],
    );
    let (answered, retries) = client.join().expect("client");
    assert_eq!(answered.len() as u64, N);
    // The intake is healthy: the second run delivers what it received and whatever the
    // first one spilled (replayed at its start), and says so with exit 0.
    let (code, stderr) = second.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    let got = ids(&intake);
    let missing: Vec<u64> = (0..N).filter(|id| !got.contains(id)).collect();
    assert!(
        missing.is_empty(),
        "missing {missing:?} after {retries} retries"
    );
    let _ = std::fs::remove_dir_all(spill);
}

#[test]
fn follow_and_listen_run_in_one_process() {
    let intake = intake();
    let dir = temp_path("listen-follow");
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("app.log");
    std::fs::write(&log, "from-file\n").unwrap();
    let mut l = Listener::start(
        &intake,
        &[
            "--no-spill",
            "--follow",
            log.to_str().unwrap(),
            "--no-checkpoint",
        ],
    );
    assert_eq!(
        post(l.port, "/", &[], b"{\"message\":\"from-http\"}").0,
        200
    );
    assert!(intake.wait_for_events(2, WAIT));
    let (code, stderr) = l.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    event(&intake, "from-file");
    event(&intake, "from-http");
    let s = summary(&stderr);
    assert!(
        s.contains("shipped 2 of 2 events")
            && s.contains("file opens")
            && s.contains("HTTP requests"),
        "{s}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_port_in_use_or_a_bad_url_is_a_usage_error_naming_it() {
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", taken.local_addr().unwrap());
    let out = logship()
        .args(["ship", "--no-spill", "--listen", &url])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("cannot listen on {url}")), "{err}");
    let out = logship()
        .args(["ship", "--no-spill", "--listen", "htp://127.0.0.1:0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("did you mean http://"));
}

#[test]
fn ack_delivered_answers_only_once_the_events_are_at_the_intake() {
    let intake = intake();
    let mut l = Listener::start(
        &intake,
        &[
            "--no-spill",
            "--listen-ack",
            "delivered",
            "--listen-ack-timeout-ms",
            "700",
        ],
    );
    // Delivered before the answer: the intake holds the event when 200 arrives.
    let (status, text) = post(l.port, "/", &[], b"{\"message\":\"acked-1\"}");
    assert_eq!(status, 200, "{text}");
    event(&intake, "acked-1");
    // An intake that does not answer: 503 with Retry-After at the ack timeout.
    intake.pause();
    let (status, text) = post(l.port, "/", &[], b"{\"message\":\"acked-2\"}");
    assert_eq!(status, 503, "{text}");
    assert!(text.contains("Retry-After: 1"), "{text}");
    intake.resume();
    assert!(intake.wait_for_events(2, WAIT));
    let (code, stderr) = l.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    assert!(
        summary(&stderr).contains("not delivered within --listen-ack-timeout-ms"),
        "{stderr:?}"
    );
}

/// A request sent the way curl and the JDK send a large one: the head with
/// `Expect: 100-continue`, the body only once the server has answered `100 Continue`.
/// The interim answer and the final status.
fn post_expecting_continue(port: u16, body: &[u8]) -> (String, u16) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(WAIT)).expect("timeout");
    let head = format!(
        "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-ndjson\r\nContent-Length: {}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes()).expect("head");
    // Read the interim answer alone: the body is not sent until it has come.
    let mut interim = Vec::new();
    let mut byte = [0u8; 1];
    while !interim.ends_with(b"\r\n\r\n") {
        let n = s.read(&mut byte).expect("interim answer");
        assert_eq!(n, 1, "closed before 100 Continue: {interim:?}");
        interim.push(byte[0]);
    }
    s.write_all(body).expect("body");
    let mut rest = Vec::new();
    let _ = s.read_to_end(&mut rest);
    let text = String::from_utf8_lossy(&rest);
    let status = status_of(&text).unwrap_or_else(|| panic!("no final status in {text:?}"));
    (String::from_utf8_lossy(&interim).into_owned(), status)
}

#[test]
fn deflate_bodies_and_expect_100_continue_are_read_and_bad_encodings_refused() {
    use flate2::write::{DeflateEncoder, ZlibEncoder};
    let intake = intake();
    let mut l = Listener::start(&intake, &["--no-spill", "--listen-max-body-bytes", "65536"]);
    // RFC 9110's deflate (zlib), and the raw deflate some clients send under that name.
    let mut z = ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(b"{\"message\":\"zlib-1\",\"level\":\"error\"}\n")
        .unwrap();
    let zlib = z.finish().unwrap();
    let mut d = DeflateEncoder::new(Vec::new(), flate2::Compression::default());
    d.write_all(b"{\"message\":\"raw-deflate-1\"}\n").unwrap();
    let raw = d.finish().unwrap();
    for body in [&zlib, &raw] {
        let (status, text) = post(l.port, "/", &[("Content-Encoding", "deflate")], body);
        assert_eq!(status, 200, "{text}");
    }
    let (interim, status) = post_expecting_continue(l.port, b"{\"message\":\"expect-1\"}\n");
    assert!(interim.starts_with("HTTP/1.1 100"), "{interim:?}");
    assert_eq!(status, 200);

    // Hostile: a deflate bomb (1 MiB of zeros in about 1 KiB) over the 64 KiB limit,
    // bytes that are no deflate stream, and an encoding nobody can read here.
    let mut bomb = ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    bomb.write_all(&vec![0u8; 1 << 20]).unwrap();
    let bomb = bomb.finish().unwrap();
    assert!(bomb.len() < 4096, "{}", bomb.len());
    let (status, text) = post(l.port, "/", &[("Content-Encoding", "deflate")], &bomb);
    assert_eq!(status, 413, "{text}");
    let (status, text) = post(
        l.port,
        "/",
        &[("Content-Encoding", "deflate")],
        b"\x78\x9c not deflate at all",
    );
    assert_eq!(status, 400, "{text}");
    let (status, text) = post(l.port, "/", &[("Content-Encoding", "br")], b"x");
    assert_eq!(status, 415, "{text}");
    assert!(text.contains("gzip, deflate or identity"), "{text}");

    assert!(intake.wait_for_events(3, WAIT), "{}", intake.stats().events);
    let (code, stderr) = l.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    assert_eq!(event(&intake, "zlib-1")["level"], "ERROR");
    event(&intake, "raw-deflate-1");
    event(&intake, "expect-1");
    assert_eq!(
        intake.stats().events,
        3,
        "nothing of the refused bodies shipped"
    );
    let s = summary(&stderr);
    assert!(s.contains("shipped 3 of 3 events"), "{s}");
}

#[test]
fn events_received_without_a_logger_reach_the_vendor_without_a_made_up_one() {
    // The strict Datadog emulation behind the listener: what it decodes is what Datadog
    // would index. Each input names a logger for one event and none for the other.
    let key = "no-logger-key-0123";
    let intake = Intake::start(IntakeConfig {
        api_key: Some(key.into()),
        ..IntakeConfig::default()
    })
    .expect("intake");
    let mut ship = ShipProcess::start(
        &intake.url(""),
        &[
            "--listen",
            "http://127.0.0.1:0",
            "--vendor",
            "datadog",
            "--api-key",
            key,
            "--no-spill",
        ],
        Duration::from_secs(120),
    );
    let port = ship.port("http");
    let json = [("Content-Type", "application/json")];
    let dd = br#"[{"message":"dd-none","service":"svc"},{"message":"dd-named","logger.name":"com.x.Dd"}]"#;
    assert_eq!(post(port, "/api/v2/logs", &json, dd).0, 202);
    let otlp = br#"{"resourceLogs":[{"resource":{},"scopeLogs":[{"logRecords":[{"body":{"stringValue":"otlp-none"}}]},{"scope":{"name":"com.x.Otlp"},"logRecords":[{"body":{"stringValue":"otlp-named"}}]}]}]}"#;
    assert_eq!(post(port, "/v1/logs", &json, otlp).0, 200);
    // Datadog refuses events more than 18 h old: a Loki entry of now.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .expect("after 1970")
        .as_nanos();
    let loki =
        format!(r#"{{"streams":[{{"stream":{{"app":"a"}},"values":[["{now}","loki-none"]]}}]}}"#);
    assert_eq!(
        post(port, "/loki/api/v1/push", &json, loki.as_bytes()).0,
        204
    );
    let text = [("Content-Type", "text/plain")];
    assert_eq!(post(port, "/", &text, b"text-none\n").0, 200);
    let nd = b"{\"message\":\"nd-named\",\"logger\":\"com.x.Nd\"}\n{\"message\":\"nd-none\"}\n";
    assert_eq!(post(port, "/", &[], nd).0, 200);
    let arrived = intake.wait_for_events(8, WAIT);
    let (code, stderr) = ship.stop();
    assert!(arrived, "{} events: {stderr:?}", intake.stats().events);
    assert_eq!(code, Some(0), "{stderr:?}");
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
    assert!(intake.requests().iter().all(|r| r.vendor == "datadog"));

    for m in ["dd-none", "otlp-none", "loki-none", "text-none", "nd-none"] {
        let j = event(&intake, m);
        assert!(j.get("logger.name").is_none(), "{m}: {j}");
        assert!(!j.to_string().contains("logship::"), "{m}: {j}");
    }
    for (m, logger) in [
        ("dd-named", "com.x.Dd"),
        ("otlp-named", "com.x.Otlp"),
        ("nd-named", "com.x.Nd"),
    ] {
        let j = event(&intake, m);
        assert_eq!(j["logger.name"], logger, "{m}: {j}");
    }
    assert!(
        summary(&stderr).contains("shipped 8 of 8 events"),
        "{stderr:?}"
    );
}

/// Peak resident memory of process `pid`, KiB (`VmHWM`).
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("status");
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM")
}

#[test]
fn a_request_of_more_events_than_the_queue_holds_is_answered_413_on_every_route_and_nothing_of_it_is_queued(
) {
    use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
    use opentelemetry_proto::tonic::logs::v1::{LogRecord, ResourceLogs, ScopeLogs};
    use prost::Message;

    let intake = intake();
    let mut l = Listener::start(&intake, &["--no-spill", "--queue-capacity", "100"]);
    let json = [("Content-Type", "application/json")];
    let nd = |n: usize, tag: &str| -> Vec<u8> {
        (0..n)
            .map(|i| format!("{{\"message\":\"{tag}-{i}\"}}\n"))
            .collect::<String>()
            .into_bytes()
    };
    let array = |n: usize| format!("[{}]", vec!["{\"message\":\"dd\"}"; n].join(","));
    let otlp = |n: usize| {
        ExportLogsServiceRequest {
            resource_logs: vec![ResourceLogs {
                scope_logs: vec![ScopeLogs {
                    log_records: vec![LogRecord::default(); n],
                    ..ScopeLogs::default()
                }],
                ..ResourceLogs::default()
            }],
        }
        .encode_to_vec()
    };
    let proto = [("Content-Type", "application/x-protobuf")];
    let text = [("Content-Type", "text/plain")];

    // One over the queue: 413, the fix named, in each route's own shape.
    let (status, answer) = post(l.port, "/", &[], &nd(101, "over"));
    assert_eq!(status, 413, "{answer}");
    assert!(answer.contains("more than 100 events") && answer.contains("queue_capacity"));
    let (status, answer) = post(l.port, "/api/v2/logs", &json, array(101).as_bytes());
    assert_eq!(status, 413, "{answer}");
    assert!(
        answer.contains("\"errors\""),
        "Datadog's error shape: {answer}"
    );
    let (status, answer) = post(l.port, "/v1/logs", &proto, &otlp(101));
    assert_eq!(status, 413, "{answer}");
    let raw = "x\n".repeat(101);
    let (status, answer) = post(l.port, "/services/collector/raw", &text, raw.as_bytes());
    assert_eq!(status, 413, "{answer}");
    assert!(
        answer.contains("\"code\":413"),
        "HEC's error shape: {answer}"
    );
    // A snappy block that says it holds 4 GiB: refused before anything is allocated.
    let claim = [0xff, 0xff, 0xff, 0xff, 0x0f, 0x00, b'a'];
    let (status, answer) = post(l.port, "/loki/api/v1/push", &proto, &claim);
    assert_eq!(status, 413, "{answer}");

    // At the limit: accepted.
    assert_eq!(post(l.port, "/", &[], &nd(100, "fits")).0, 200);
    assert!(
        intake.wait_for_events(100, WAIT),
        "{}",
        intake.stats().events
    );
    let (code, stderr) = l.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    assert_eq!(
        intake.stats().events,
        100,
        "nothing of a refused request queued"
    );
    assert!(intake.events().iter().all(|e| e.value["message"]
        .as_str()
        .is_some_and(|m| m.starts_with("fits-"))));
    let s = summary(&stderr);
    assert!(
        s.contains("shipped 100 of 100 events") && s.contains("5 requests too large"),
        "{s}"
    );
}

#[test]
fn ten_mib_of_the_smallest_events_is_refused_without_taking_the_hosts_memory() {
    // 10 MiB of one-character lines is 5 million events: decoded whole, they took 838 MiB
    // (735 MiB for a JSON array of tiny objects, 2.6 GiB for empty OTLP records, 478 MiB
    // for a Loki push of tiny entries). Refused, they take under 100 MiB.
    let intake = intake();
    let mut l = Listener::start(&intake, &["--no-spill"]);
    let text = [("Content-Type", "text/plain")];
    // Each body just under the 10 MiB limit, so it is decoded, not refused for its size.
    let lines = "a\n".repeat((5 << 20) - 1024);
    assert_eq!(post(l.port, "/", &text, lines.as_bytes()).0, 413);
    let tiny = format!("[{}]", vec!["{\"a\":1}"; 1_300_000].join(","));
    assert_eq!(post(l.port, "/", &[], tiny.as_bytes()).0, 413);
    let empty_records: Vec<u8> = {
        let scope: Vec<u8> = [0x12, 0x00].repeat((5 << 20) - 1024);
        let mut scope_logs = vec![0x12];
        scope_logs.extend(varint(scope.len()));
        scope_logs.extend(scope);
        let mut body = vec![0x0a];
        body.extend(varint(scope_logs.len()));
        body.extend(scope_logs);
        body
    };
    let proto = [("Content-Type", "application/x-protobuf")];
    assert_eq!(post(l.port, "/v1/logs", &proto, &empty_records).0, 413);
    let entries = vec!["[\"1\",\"x\"]"; 1_000_000].join(",");
    let loki = format!(r#"{{"streams":[{{"stream":{{"a":"b"}},"values":[{entries}]}}]}}"#);
    let json = [("Content-Type", "application/json")];
    assert_eq!(
        post(l.port, "/loki/api/v1/push", &json, loki.as_bytes()).0,
        413
    );
    let peak = peak_rss_kib(l.ship.child.id());
    let (code, stderr) = l.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    assert!(
        peak < 200 * 1024,
        "peak RSS {} MiB while refusing four 10 MiB bodies",
        peak / 1024
    );
}

/// A protobuf base-128 varint.
fn varint(mut n: usize) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return out;
        }
        out.push(byte | 0x80);
    }
}
