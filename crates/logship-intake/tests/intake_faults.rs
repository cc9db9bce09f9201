//! End-to-end tests of the faults the intake serves on request (fail next, close, pause,
//! delay, down, the control endpoints) and of its concurrency, through raw HTTP/1.1 over
//! `TcpStream`. Synchronisation uses the intake's condvar waits, barriers and channels,
//! never sleeps.

mod common;

use std::sync::mpsc;
use std::sync::{Arc, Barrier};
use std::thread;
use std::time::{Duration, Instant};

use common::{start, Client};
use logship_intake::{Fault, Intake, IntakeConfig};
use serde_json::{json, Value};

/// Generous bound for waits that should succeed almost immediately.
const WAIT: Duration = Duration::from_secs(10);

#[test]
fn fail_next_serves_the_fault_then_normal_handling_resumes() {
    let intake = start();
    intake.fail_next(
        2,
        Fault::Status {
            status: 503,
            headers: vec![("Retry-After".into(), "7".into())],
            body: r#"{"error":"overloaded"}"#.into(),
        },
    );
    let mut c = Client::connect(&intake);
    for i in 0..2 {
        let resp = c.post_typed(
            "/logs",
            "application/x-ndjson",
            format!("{{\"try\":{i}}}\n").as_bytes(),
        );
        assert_eq!(resp.status, 503);
        assert_eq!(resp.header("retry-after"), Some("7"));
        assert_eq!(resp.body, br#"{"error":"overloaded"}"#);
    }
    let resp = c.post_typed("/logs", "application/x-ndjson", b"{\"try\":2}\n");
    assert_eq!(resp.status, 200);
    let values: Vec<Value> = intake.events().into_iter().map(|e| e.value).collect();
    assert_eq!(
        values,
        vec![json!({"try": 2})],
        "faulted requests' events are not accepted"
    );
    let statuses: Vec<u16> = intake.requests().iter().map(|r| r.status).collect();
    assert_eq!(statuses, vec![503, 503, 200]);
    let stats = intake.stats();
    assert_eq!(
        (stats.requests, stats.rejected_requests, stats.events),
        (3, 2, 1)
    );
    assert!(intake.violations().is_empty());
}

#[test]
fn close_connection_fault_drops_the_socket_unanswered() {
    let intake = start();
    intake.fail_next(1, Fault::CloseConnection);
    let mut c = Client::connect(&intake);
    c.send(
        "POST",
        "/logs",
        &[("Content-Type", "application/x-ndjson")],
        b"{\"a\":1}\n",
    );
    assert!(c.is_closed_by_server());
    let mut c = Client::connect(&intake);
    let resp = c.post_typed("/logs", "application/x-ndjson", b"{\"a\":2}\n");
    assert_eq!(resp.status, 200);
    let requests = intake.requests();
    assert_eq!(
        requests.iter().map(|r| r.status).collect::<Vec<_>>(),
        vec![0, 200]
    );
    assert_ne!(requests[0].connection_id, requests[1].connection_id);
    assert_eq!(intake.events().len(), 1);
    assert_eq!(intake.stats().rejected_requests, 1);
}

#[test]
fn pause_holds_the_response_until_resume() {
    let intake = start();
    intake.pause();
    let addr = intake.addr();
    let (tx, rx) = mpsc::channel();
    let client = thread::spawn(move || {
        let mut c = Client::connect_to(addr);
        let resp = c.post_typed("/logs", "application/x-ndjson", b"{\"held\":true}\n");
        tx.send(resp.status).unwrap();
    });
    assert!(intake.wait_for_requests(1, WAIT));
    // The request is read and in flight, but not answered nor accepted yet.
    assert_eq!(rx.try_recv(), Err(mpsc::TryRecvError::Empty));
    assert_eq!(intake.requests()[0].status, 0);
    assert!(intake.events().is_empty());
    assert_eq!(intake.max_concurrency(), 1);
    intake.resume();
    assert_eq!(rx.recv_timeout(WAIT), Ok(200));
    client.join().unwrap();
    assert_eq!(intake.requests()[0].status, 200);
    assert_eq!(intake.events().len(), 1);
}

#[test]
fn max_concurrency_counts_parallel_requests_with_a_delay() {
    let intake = start();
    intake.set_delay(Duration::from_millis(20));
    // Pausing guarantees all four requests overlap regardless of scheduling.
    intake.pause();
    let barrier = Arc::new(Barrier::new(4));
    let addr = intake.addr();
    let clients: Vec<_> = (0..4)
        .map(|i| {
            let barrier = Arc::clone(&barrier);
            thread::spawn(move || {
                let mut c = Client::connect_to(addr);
                barrier.wait();
                c.post_typed(
                    "/logs",
                    "application/x-ndjson",
                    format!("{{\"client\":{i}}}\n").as_bytes(),
                )
                .status
            })
        })
        .collect();
    assert!(intake.wait_for_requests(4, WAIT));
    assert_eq!(intake.max_concurrency(), 4);
    intake.resume();
    for c in clients {
        assert_eq!(c.join().unwrap(), 200);
    }
    assert!(intake.wait_for_events(4, WAIT));
    assert_eq!(intake.max_concurrency(), 4);
    assert_eq!(intake.stats().max_concurrency, 4);
    assert_eq!(intake.stats().connections, 4);
    let mut conns: Vec<u64> = intake.requests().iter().map(|r| r.connection_id).collect();
    conns.sort_unstable();
    conns.dedup();
    assert_eq!(conns.len(), 4);
    // Sequential requests never overlap: the peak does not grow.
    let mut c = Client::connect(&intake);
    intake.set_delay(Duration::ZERO);
    for _ in 0..3 {
        assert_eq!(c.post_typed("/logs", "application/json", b"{}").status, 200);
    }
    assert_eq!(intake.max_concurrency(), 4);
}

/// Regression: ids were once taken before the state lock, so concurrent requests could be
/// recorded out of id order and `commit` (a binary search by id) missed them, leaving
/// their recorded status at 0 although the client got 200.
#[test]
fn concurrent_requests_are_recorded_in_id_order_with_their_final_status() {
    let intake = start();
    let (threads, per_thread) = (8, 100);
    let barrier = Arc::new(Barrier::new(threads));
    let addr = intake.addr();
    let clients: Vec<_> = (0..threads)
        .map(|i| {
            let barrier = Arc::clone(&barrier);
            thread::spawn(move || {
                let mut c = Client::connect_to(addr);
                barrier.wait();
                (0..per_thread)
                    .map(|j| {
                        let body = format!("{{\"client\":{i},\"n\":{j}}}\n");
                        c.post_typed("/logs", "application/x-ndjson", body.as_bytes())
                            .status
                    })
                    .collect::<Vec<u16>>()
            })
        })
        .collect();
    for c in clients {
        assert!(c.join().unwrap().iter().all(|&s| s == 200));
    }
    let requests = intake.requests();
    assert_eq!(requests.len(), threads * per_thread);
    assert!(requests.windows(2).all(|w| w[0].id < w[1].id));
    let unanswered: Vec<_> = requests.iter().filter(|r| r.status != 200).collect();
    assert!(
        unanswered.is_empty(),
        "{} records kept status {:?}",
        unanswered.len(),
        unanswered.first().map(|r| r.status)
    );
    assert!(requests.iter().all(|r| r.events == 1));
}

#[test]
fn delay_postpones_every_answer() {
    let intake = Intake::start(IntakeConfig {
        delay: Duration::from_millis(150),
        ..IntakeConfig::default()
    })
    .unwrap();
    let mut c = Client::connect(&intake);
    let started = Instant::now();
    assert_eq!(c.post_typed("/logs", "application/json", b"{}").status, 200);
    // A lower bound only: the server waits at least the delay before answering.
    assert!(started.elapsed() >= Duration::from_millis(150));
}

#[test]
fn control_endpoints_drive_the_intake_over_http() {
    let intake = start();
    let mut ctl = Client::connect(&intake);
    let mut data = Client::connect(&intake);

    assert_eq!(
        data.post_typed("/logs", "application/json", b"[{},{}]")
            .status,
        200
    );
    let stats = ctl.request("GET", "/_intake/stats", &[], b"");
    assert_eq!(stats.status, 200);
    let s = stats.json();
    assert_eq!(
        (s["requests"].clone(), s["events"].clone()),
        (json!(1), json!(2))
    );
    assert_eq!(
        s["connections"],
        json!(1),
        "control connections are not counted"
    );
    for key in [
        "bytes_wire",
        "bytes_decoded",
        "rejected_requests",
        "violations",
        "max_concurrency",
    ] {
        assert!(s.get(key).is_some(), "stats JSON lacks {key}: {s}");
    }

    // fail with Retry-After and a JSON body.
    let resp = ctl.request(
        "POST",
        "/_intake/fail?count=1&status=429&retry_after=3",
        &[],
        br#"{"error":"slow down"}"#,
    );
    assert_eq!(resp.status, 200);
    let resp = data.post_typed("/logs", "application/json", b"{}");
    assert_eq!(resp.status, 429);
    assert_eq!(resp.header("retry-after"), Some("3"));
    assert_eq!(resp.json(), json!({"error": "slow down"}));
    let resp = data.post_typed("/logs", "application/json", b"{}");
    assert_eq!(resp.status, 200);

    // clear_faults drops what is still queued: the next request is answered normally.
    let resp = ctl.request("POST", "/_intake/fail?count=40&status=500", &[], b"");
    assert_eq!(resp.status, 200);
    assert_eq!(
        data.post_typed("/logs", "application/json", b"{}").status,
        500
    );
    let resp = ctl.request("POST", "/_intake/clear_faults", &[], b"");
    assert_eq!(resp.status, 200);
    assert_eq!(
        data.post_typed("/logs", "application/json", b"{}").status,
        200
    );

    // close
    assert_eq!(
        ctl.request("POST", "/_intake/close?count=1", &[], b"")
            .status,
        200
    );
    data.send(
        "POST",
        "/logs",
        &[("Content-Type", "application/json")],
        b"{}",
    );
    assert!(data.is_closed_by_server());
    let mut data = Client::connect(&intake);

    // pause / resume: control keeps answering while data requests are held.
    assert_eq!(ctl.request("POST", "/_intake/pause", &[], b"").status, 200);
    let before = intake.stats().requests as usize;
    let addr = intake.addr();
    let (tx, rx) = mpsc::channel();
    let held = thread::spawn(move || {
        let mut c = Client::connect_to(addr);
        tx.send(c.post_typed("/logs", "application/json", b"{}").status)
            .unwrap();
    });
    assert!(intake.wait_for_requests(before + 1, WAIT));
    assert_eq!(ctl.request("GET", "/_intake/stats", &[], b"").status, 200);
    assert_eq!(rx.try_recv(), Err(mpsc::TryRecvError::Empty));
    assert_eq!(ctl.request("POST", "/_intake/resume", &[], b"").status, 200);
    assert_eq!(rx.recv_timeout(WAIT), Ok(200));
    held.join().unwrap();

    // delay (lower bound only)
    assert_eq!(
        ctl.request("POST", "/_intake/delay?ms=100", &[], b"")
            .status,
        200
    );
    let started = Instant::now();
    assert_eq!(
        data.post_typed("/logs", "application/json", b"{}").status,
        200
    );
    assert!(started.elapsed() >= Duration::from_millis(100));
    assert_eq!(
        ctl.request("POST", "/_intake/delay?ms=0", &[], b"").status,
        200
    );

    // reset
    assert_eq!(ctl.request("POST", "/_intake/reset", &[], b"").status, 200);
    assert!(intake.events().is_empty());
    assert!(intake.requests().is_empty());
    let s = ctl.request("GET", "/_intake/stats", &[], b"").json();
    assert_eq!(s["requests"], json!(0));
    assert_eq!(s["events"], json!(0));

    // errors in control requests are answered, not recorded as violations
    assert_eq!(ctl.request("GET", "/_intake/nope", &[], b"").status, 404);
    assert_eq!(ctl.request("GET", "/_intake/reset", &[], b"").status, 405);
    assert_eq!(
        ctl.request("POST", "/_intake/fail?status=abc", &[], b"")
            .status,
        400
    );
    assert_eq!(ctl.request("POST", "/_intake/delay", &[], b"").status, 400);
    assert!(intake.violations().is_empty());
    assert_eq!(
        intake.stats().requests,
        0,
        "control requests are not intake requests"
    );
}

#[test]
fn drop_does_not_hang_with_idle_paused_and_delayed_connections() {
    let intake = start();
    let idle = Client::connect(&intake);
    // The held request first waits out a huge delay, then would wait for resume.
    intake.set_delay(Duration::from_secs(3600));
    intake.pause();
    let addr = intake.addr();
    let held = thread::spawn(move || {
        let mut c = Client::connect_to(addr);
        c.send(
            "POST",
            "/logs",
            &[("Content-Type", "application/json")],
            b"{}",
        );
        c.is_closed_by_server()
    });
    assert!(intake.wait_for_requests(1, WAIT));
    drop(intake);
    assert!(
        held.join().unwrap(),
        "held request is released by closing its socket"
    );
    let mut idle = idle;
    assert!(
        idle.is_closed_by_server(),
        "idle keep-alive connection is closed on drop"
    );
}

#[test]
fn down_drops_new_and_pooled_connections_until_it_comes_back() {
    let intake = start();
    let mut pooled = Client::connect(&intake);
    assert_eq!(
        pooled
            .post_typed("/logs", "application/x-ndjson", b"{\"a\":1}\n")
            .status,
        200
    );
    intake.set_down(true);
    // A new connection is closed before anything is read.
    let mut fresh = Client::connect(&intake);
    fresh.send(
        "POST",
        "/logs",
        &[("Content-Type", "application/x-ndjson")],
        b"{\"a\":2}\n",
    );
    assert!(fresh.is_closed_by_server());
    // A request on a connection opened before is dropped unanswered.
    pooled.send(
        "POST",
        "/logs",
        &[("Content-Type", "application/x-ndjson")],
        b"{\"a\":3}\n",
    );
    assert!(pooled.is_closed_by_server());
    intake.set_down(false);
    let mut back = Client::connect(&intake);
    assert_eq!(
        back.post_typed("/logs", "application/x-ndjson", b"{\"a\":4}\n")
            .status,
        200
    );
    let values: Vec<i64> = intake
        .events()
        .iter()
        .map(|e| e.value["a"].as_i64().unwrap())
        .collect();
    assert_eq!(values, vec![1, 4]);
}
