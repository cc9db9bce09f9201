//! Splunk HEC indexer acknowledgement end to end, against the intake's strict emulation of
//! an ack-enabled token (real HTTP over loopback): a channel is always sent; with
//! `splunk_ack` an event counts as delivered only once `/services/collector/ack`
//! confirmed it; lost acks are resent (duplicates bounded by the counted resends); one
//! query asks about many batches; a broken ack endpoint (garbage, 5xx, hanging) neither
//! panics nor hangs; at the shutdown deadline unconfirmed batches are spilled.

mod common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use common::vendors::*;
use common::*;
use logship::{Logship, SplunkOptions, Stats, Vendor};
use logship_intake::{AckMode, Fault, Intake, IntakeConfig, WireFault};

/// An intake emulating a token with indexer acknowledgement on, losing every
/// `lose_every`th ackId (0: none).
fn ack_intake(lose_every: u64) -> Intake {
    Intake::start(IntakeConfig {
        api_key: Some(KEY.into()),
        splunk_ack: AckMode {
            enabled: true,
            lose_every,
        },
        ..IntakeConfig::default()
    })
    .unwrap()
}

/// Splunk with acknowledgement on and batches of at most `per_batch` events.
fn ack_builder(intake: &Intake, timeout: Duration, per_batch: usize) -> logship::Builder {
    vendor_builder(intake, Vendor::Splunk)
        .splunk(SplunkOptions::default().ack(true).ack_timeout(timeout))
        .max_batch_records(per_batch)
}

/// Event requests (not ack queries) the intake received.
fn event_requests(intake: &Intake) -> usize {
    intake
        .requests()
        .iter()
        .filter(|r| r.path.starts_with("/services/collector/event"))
        .count()
}

/// The `seq` of every event received, sorted (duplicates included).
fn seqs(intake: &Intake) -> Vec<u64> {
    let mut seqs: Vec<u64> = intake
        .events()
        .iter()
        .filter_map(|e| e.value["event"]["seq"].as_u64())
        .collect();
    seqs.sort_unstable();
    seqs
}

/// Every one of `0..n` arrived at least once.
fn assert_all_arrived(intake: &Intake, n: usize) {
    let mut unique = seqs(intake);
    unique.dedup();
    assert_eq!(unique, (0..n as u64).collect::<Vec<_>>());
}

fn push_all(logship: &Logship, n: usize) {
    for i in 0..n {
        logship.push(event(i, 20)).unwrap();
    }
}

/// One raw HTTP/1.1 POST on a fresh connection; the whole response.
fn raw_post(intake: &Intake, path: &str, headers: &str, body: &str) -> String {
    let mut stream = TcpStream::connect(intake.addr()).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: x\r\nAuthorization: Splunk {KEY}\r\n{headers}Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(head.as_bytes()).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    response
}

#[test]
fn a_channel_is_always_sent_so_a_strict_ack_token_accepts_logship() {
    let intake = ack_intake(0);
    // The strict intake refuses a request without a channel, as Splunk does.
    let hello = r#"{"event":"hello"}"#;
    let refused = raw_post(&intake, "/services/collector/event", "", hello);
    assert!(refused.starts_with("HTTP/1.1 400"), "{refused}");
    assert!(
        refused.contains(r#"{"code":10,"text":"Data channel is missing"}"#)
            || refused.contains(r#"{"text":"Data channel is missing","code":10}"#),
        "{refused}"
    );
    let channel = "X-Splunk-Request-Channel: 0f8b3c2a-1111-4222-8333-444455556666\r\n";
    let accepted = raw_post(&intake, "/services/collector/event", channel, hello);
    assert!(accepted.contains(r#""ackId":0"#), "{accepted}");
    intake.reset();

    // logship without any channel configured, and without ack: a channel all the same.
    let n = 50;
    let logship = ship(
        vendor_builder(&intake, Vendor::Splunk).max_batch_records(10),
        (0..n).map(|i| event(i, 20)),
    );
    assert_clean(&intake, &logship, n);
    let requests = intake.requests();
    assert!(requests.len() >= 5);
    let first = requests[0].header("x-splunk-request-channel").unwrap();
    assert_eq!(first.len(), 36, "a GUID: {first}");
    for r in &requests {
        assert_eq!(r.header("x-splunk-request-channel"), Some(first));
    }
    assert_eq!(intake.stats().splunk_ack.missing_channel, 0);
}

#[test]
fn with_splunk_ack_events_count_as_delivered_once_confirmed_and_one_query_covers_many_batches() {
    let intake = ack_intake(0);
    // A long timeout: polls every 2 s, so all 50 batches are out before the first one.
    let (logship, guard) = ack_builder(&intake, Duration::from_secs(60), 10)
        .build()
        .unwrap();
    let n = 500;
    push_all(&logship, n);
    assert!(intake.wait_for_events(n, WAIT));
    // A flush waits for the acknowledgements (and asks for them at once).
    logship.flush(WAIT).unwrap();
    let stats = logship.stats();
    assert_eq!(stats.events_delivered as usize, n, "{stats:?}");
    assert_eq!(stats.events_awaiting_ack, 0);
    assert_eq!(stats.ack_resends, 0);
    let batches = event_requests(&intake);
    assert!(batches >= 50, "{batches} requests");
    let acks = intake.stats().splunk_ack;
    assert_eq!(acks.issued as usize, batches);
    assert_eq!(acks.confirmed as usize, batches, "{acks:?}");
    assert_eq!(stats.ack_polls, acks.queries);
    assert!(
        acks.queries * 5 <= batches as u64,
        "{} queries for {batches} batches: polling is not batched",
        acks.queries
    );
    assert!(acks.ids_queried >= batches as u64);
    drop(guard);
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
    assert_eq!(intake.stats().events as usize, n, "nothing sent twice");
}

#[test]
fn an_unconfirmed_batch_is_not_delivered_and_at_the_shutdown_deadline_it_is_spilled() {
    // Every ack is lost: nothing is ever confirmed.
    let intake = ack_intake(1);
    let dir = TempDir::new("splunk-ack-shutdown");
    let (logship, _guard) = ack_builder(&intake, Duration::from_secs(60), 10)
        .spill(true)
        .spill_dir(dir.path())
        .build()
        .unwrap();
    let n = 100;
    push_all(&logship, n);
    assert!(intake.wait_for_events(n, WAIT));
    assert!(wait_for_stats(&logship, WAIT, |s| s.events_awaiting_ack
        == n as u64
        && s.ack_polls >= 1));
    assert!(
        logship.flush(Duration::from_millis(300)).is_err(),
        "a flush cannot succeed without acks"
    );
    let stats = logship.stats();
    assert_eq!(stats.events_delivered, 0, "a 200 alone is not delivered");
    let started = Instant::now();
    let report = logship.shutdown(Duration::from_secs(1));
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "shutdown is bounded"
    );
    assert!(!report.complete);
    let s = &report.stats;
    assert_eq!(s.events_delivered, 0, "{s:?}");
    assert_eq!(s.events_spilled as usize, n, "{s:?}");
    assert_eq!((s.lost(), s.pending(), s.events_awaiting_ack), (0, 0, 0));

    // The next run replays them, and counts them once Splunk confirms them.
    intake.set_splunk_ack(AckMode {
        enabled: true,
        lose_every: 0,
    });
    intake.reset();
    let (next, guard) = ack_builder(&intake, Duration::from_secs(60), 10)
        .spill(true)
        .spill_dir(dir.path())
        .build()
        .unwrap();
    assert!(next.wait_spill_drained(WAIT));
    assert!(wait_for_stats(&next, WAIT, |s| s.events_replayed == n as u64));
    assert_all_arrived(&intake, n);
    assert!(intake.stats().splunk_ack.confirmed >= 1);
    drop(guard);
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
}

#[test]
fn lost_acks_are_resent_and_every_event_is_delivered_exactly_once_in_the_counts() {
    // Every third ackId is never confirmed.
    let intake = ack_intake(3);
    let n = 300;
    let logship = ship(
        ack_builder(&intake, Duration::from_millis(300), 10).max_retries(10),
        (0..n).map(|i| event(i, 20)),
    );
    let s: Stats = logship.stats();
    assert_eq!(s.events_delivered as usize, n, "{s:?}");
    assert_eq!((s.events_failed, s.events_abandoned), (0, 0), "{s:?}");
    assert!(s.ack_resends > 0, "{s:?}");
    let received = intake.stats().events;
    let duplicates = received - n as u64;
    assert!(duplicates > 0);
    assert_eq!(
        duplicates, s.ack_resends,
        "each resent event arrives once more, and nothing else does"
    );
    assert_all_arrived(&intake, n);
    let acks = intake.stats().splunk_ack;
    assert!(acks.lost > 0 && acks.lost as usize <= event_requests(&intake) / 3 + 1);
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
}

#[test]
fn a_broken_ack_endpoint_is_a_failed_poll_never_a_confirmation_nor_a_panic() {
    let intake = ack_intake(0);
    let garbage = [
        Fault::json(200, "<html>not json</html>"),
        Fault::json(200, r#"{"acks":{"0":"yes","1":1}}"#),
        Fault::json(200, r#"{"acks":[0,1,2]}"#),
        Fault::json(503, r#"{"text":"Server is busy","code":9}"#),
        Fault::json(500, ""),
        Fault::CloseConnection,
        Fault::Wire(WireFault::HugeBody {
            status: 200,
            bytes: 64 << 20,
            chunked: false,
        }),
    ];
    for fault in &garbage {
        intake.fail_splunk_ack_queries(1, fault.clone());
    }
    let n = 100;
    let logship = ship(
        ack_builder(&intake, Duration::from_secs(30), 10),
        (0..n).map(|i| event(i, 20)),
    );
    let s = logship.stats();
    assert_eq!(s.events_delivered as usize, n, "{s:?}");
    assert!(
        s.ack_poll_failures >= garbage.len() as u64,
        "each bad answer is a failed poll: {s:?}"
    );
    assert_eq!(s.ack_resends, 0, "confirmed by a later poll in time");
    assert_eq!(intake.stats().events as usize, n);
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
}

#[test]
fn a_hanging_ack_endpoint_costs_a_request_timeout_then_the_batches_are_resent() {
    let intake = ack_intake(0);
    intake.fail_splunk_ack_queries(2, Fault::Wire(WireFault::NeverAnswer));
    let n = 50;
    let started = Instant::now();
    let logship = ship(
        ack_builder(&intake, Duration::from_millis(500), 10)
            .timeouts(Duration::from_secs(1), Duration::from_secs(1)),
        (0..n).map(|i| event(i, 20)),
    );
    assert!(started.elapsed() < WAIT, "bounded by the request timeout");
    let s = logship.stats();
    assert_eq!(s.events_delivered as usize, n, "{s:?}");
    assert!(s.ack_poll_failures >= 2, "{s:?}");
    let received = intake.stats().events;
    assert_eq!(received - n as u64, s.ack_resends, "{s:?}");
    assert_all_arrived(&intake, n);
}

#[test]
fn an_ack_endpoint_failing_for_good_ends_in_the_spill_not_in_a_hang() {
    let intake = ack_intake(0);
    intake.fail_splunk_ack_queries(
        1_000_000,
        Fault::json(503, r#"{"text":"HEC is unhealthy","code":19}"#),
    );
    let dir = TempDir::new("splunk-ack-failing");
    let n = 40;
    let started = Instant::now();
    let logship = ship(
        ack_builder(&intake, Duration::from_millis(200), 10)
            .max_retries(1)
            .spill(true)
            .spill_dir(dir.path())
            .shutdown_timeout(Duration::from_secs(5)),
        (0..n).map(|i| event(i, 20)),
    );
    assert!(started.elapsed() < WAIT);
    let s = logship.stats();
    assert_eq!(s.events_delivered, 0, "never confirmed: {s:?}");
    assert_eq!(s.events_spilled as usize, n, "{s:?}");
    assert_eq!((s.lost(), s.pending()), (0, 0), "{s:?}");
    assert!(s.ack_poll_failures > 0);
}

#[test]
fn batches_awaiting_acks_are_capped_then_the_senders_wait() {
    // Nothing is ever confirmed; one event per batch; 4 senders.
    let intake = ack_intake(1);
    let (logship, _guard) = ack_builder(&intake, Duration::from_secs(60), 1)
        .max_in_flight(4)
        .linger(Duration::from_millis(1))
        .build()
        .unwrap();
    let n = 400;
    push_all(&logship, n);
    // 256 batches wait (the cap), and each of the 4 senders holds at most one more.
    assert!(wait_for_stats(&logship, WAIT, |s| s.events_awaiting_ack >= 256));
    assert_eq!(logship.stats().events_awaiting_ack, 256, "the cap is exact");
    let report = logship.shutdown(Duration::from_secs(1));
    let sent = intake.stats().events;
    assert!(
        (256..=260).contains(&sent),
        "{sent} requests accepted: the wait for acks is not bounded"
    );
    let s = &report.stats;
    assert_eq!(s.events_delivered, 0);
    // The report accounts for every event: abandoned, or (a sender held off the cores past
    // the shutdown's grace) still pending and said so.
    assert_eq!(s.events_abandoned + s.pending(), n as u64, "{s:?}");
    assert!(!report.complete, "nothing was confirmed: {s:?}");
    // And every one ends abandoned, none delivered, none left pending.
    assert!(
        wait_for_stats(&logship, WAIT, |s| s.events_abandoned as usize == n),
        "{:?}",
        logship.stats()
    );
    let s = logship.stats();
    assert_eq!((s.events_delivered, s.pending()), (0, 0), "{s:?}");
}
