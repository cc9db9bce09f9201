//! `logship ship --listen http://127.0.0.1:0`, start, stop and restart: SIGTERM while
//! clients send delivers or spills every event answered 2xx; SIGHUP without --follow
//! stops like SIGTERM; a restart loses nothing a client was answered for; follow and
//! listen share one process; a port in use or a bad URL is exit 2; `--listen-ack
//! delivered` answers only once events are at the intake. The real binary, real sockets
//! on loopback, the in-process strict intake behind it (harness: `common/listen.rs`).

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use common::listen::*;
use common::{logship, temp_path};

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
fn a_run_that_spilled_in_an_outage_and_replayed_it_all_says_delivered_and_exits_0() {
    // Found by the soak: such a run said "N events of this run wait in the spill
    // directory" and exited 3, though the spill was empty.
    const N: usize = 50;
    let intake = intake();
    intake.fail_next(
        1,
        logship_intake::Fault::json(503, "{\"error\":\"outage\"}"),
    );
    let spill = temp_path("listen-outage-replayed");
    let spill_arg = spill.to_str().unwrap().to_owned();
    let mut l = Listener::start(&intake, &["--spill-dir", &spill_arg, "--max-retries", "0"]);
    let body: String = (0..N)
        .map(|id| format!("{{\"message\":\"id-{id:06}\"}}\n"))
        .collect();
    let (status, text) = post(l.port, "/", &[], body.as_bytes());
    assert_eq!(status, 200, "{text}");
    // The one batch met the 503, was spilled (no retries), and is replayed to the intake.
    assert!(
        intake.wait_for_events(N, WAIT),
        "the spilled batch was replayed"
    );
    let (code, stderr) = l.stop();
    let summary = summary(&stderr);
    assert!(
        summary.contains("50 written to the spill directory"),
        "{summary}"
    );
    let outcome = stderr
        .iter()
        .find(|l| l.contains("outcome:"))
        .expect("outcome");
    assert!(
        outcome.starts_with("logship: outcome: delivered: every event read was delivered"),
        "{outcome}"
    );
    assert!(
        outcome.contains("spilled during an outage and replayed"),
        "{outcome}"
    );
    assert_eq!(code, Some(0), "{stderr:?}");
    assert_eq!(ids(&intake).len(), N);
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
