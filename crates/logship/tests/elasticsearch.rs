//! Elasticsearch / OpenSearch `_bulk` end to end against the intake's strict emulation:
//! documents arrive once with ECS-style fields, item failures resend exactly the items
//! that failed transiently, mapping errors are counted and never resent, date-pattern
//! index names, both auth schemes, and secrets never shown.

mod common;

use std::time::Duration;

use common::*;
use logship::{Builder, ElasticsearchOptions, Level, Logship, Record, Vendor};
use logship_intake::{Fault, Intake, IntakeConfig, ItemFault};

const KEY: &str = "es-secret-0123456789";
/// The request target: `_bulk` asking for each item's status and error only.
const FILTERED_BULK: &str =
    "/_bulk?filter_path=errors,items.*.status,items.*.error.type,items.*.error.reason";

fn es_intake() -> Intake {
    Intake::start(IntakeConfig {
        api_key: Some(KEY.into()),
        ..IntakeConfig::default()
    })
    .unwrap()
}

/// A pipeline to the intake's `_bulk` (the path is appended) with `ApiKey` auth and a
/// fast retry backoff.
fn es_builder(intake: &Intake) -> Builder {
    Logship::builder()
        .vendor(Vendor::Elasticsearch)
        .endpoint(intake.url(""))
        .api_key(KEY)
        .service("checkout")
        .source("rust-test")
        .hostname("web-1")
        .tag("env:prod")
        .linger(Duration::from_millis(50))
        .retry_backoff(Duration::from_millis(1), Duration::from_millis(5))
        .queue_capacity(100_000)
        .shutdown_timeout(WAIT)
        .report_to_stderr(false)
        .spill(false)
}

fn event(i: usize, message: &str) -> Record {
    let level = if i.is_multiple_of(10) {
        Level::Error
    } else {
        Level::Info
    };
    let mut r = Record::new(level, "app::pay");
    r.message(&format!("{message} {i}"))
        .field("seq", i as u64)
        .field("amount", 12.5)
        .span("request")
        .field("id", 7i64);
    r
}

/// Ships `n` events in one batch (the batch is cut by count, not by time) and waits
/// until they are settled.
fn ship_one_batch(builder: Builder, n: usize, message: impl Fn(usize) -> &'static str) -> Logship {
    let (logship, guard) = builder
        .max_batch_records(n)
        .linger(Duration::from_secs(60))
        .build()
        .unwrap();
    for i in 0..n {
        logship.push(event(i, message(i))).unwrap();
    }
    logship.flush(WAIT).unwrap();
    drop(guard);
    logship
}

#[test]
fn documents_arrive_once_with_ecs_fields_and_no_violation() {
    let intake = es_intake();
    let n = 5000;
    let (logship, guard) = es_builder(&intake).build().unwrap();
    for i in 0..n {
        logship.push(event(i, "payment")).unwrap();
    }
    drop(guard);
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
    let stats = logship.stats();
    assert_eq!(stats.events_delivered as usize, n, "{stats:?}");
    assert_eq!(stats.events_failed, 0);
    assert_eq!(stats.partial_requests, 0);
    assert_eq!(received_seqs(&intake), (0..n as u64).collect::<Vec<_>>());
    let requests = intake.requests();
    assert!(requests.len() >= n / 200, "default batches of 200");
    for r in &requests {
        assert_eq!(
            r.path, FILTERED_BULK,
            "every request asks for a trimmed answer"
        );
        assert_eq!(r.vendor, "elasticsearch");
        assert_eq!(
            r.header("authorization"),
            Some(format!("ApiKey {KEY}").as_str())
        );
        assert_eq!(r.header("content-type"), Some("application/x-ndjson"));
        assert_eq!(r.header("content-encoding"), Some("gzip"));
        assert_eq!(r.status, 200);
    }
    let start = now_ms() - 60_000;
    for e in intake.events() {
        let v = &e.value;
        let i = v["seq"].as_u64().unwrap();
        assert_eq!(v["_index"], "logs-logship-default");
        assert_eq!(v["message"], format!("payment {i}"));
        assert_eq!(
            v["log.level"],
            if i.is_multiple_of(10) {
                "ERROR"
            } else {
                "INFO"
            }
        );
        assert_eq!(v["log.logger"], "app::pay");
        assert_eq!(v["service.name"], "checkout");
        assert_eq!(v["host.name"], "web-1");
        assert_eq!(v["event.dataset"], "rust-test");
        assert_eq!(v["labels"], serde_json::json!({"env": "prod"}));
        assert_eq!(v["amount"], 12.5);
        assert_eq!(v["id"], 7, "span fields at the root");
        let ts = v["@timestamp"].as_str().unwrap();
        assert!(
            ts.ends_with('Z') && ts.len() == 24,
            "{ts} is RFC 3339 with ms"
        );
        assert!(now_ms() >= start, "clock sanity");
    }
    assert_no_secret(&logship, KEY);
}

/// Ships ten events of which two get 429 and one 503 (transient) and one a mapping error
/// (400), and checks that exactly the three transient failures are resent, once.
fn partial_failure_resends_exactly_the_retryable_items(intake: &Intake) {
    intake.fail_items(ItemFault::containing("busy", 2, 429));
    intake.fail_items(ItemFault::containing("down", 1, 503));
    intake.fail_items(ItemFault::containing("badmap", 1, 400));
    let message = |i: usize| match i {
        2 | 7 => "busy",
        4 => "down",
        5 => "badmap",
        _ => "calm",
    };
    let logship = ship_one_batch(es_builder(intake), 10, message);
    let requests = intake.requests();
    assert_eq!(
        requests.iter().map(|r| r.events).collect::<Vec<_>>(),
        vec![6, 3],
        "the second request carries only the three transient failures"
    );
    assert!(requests.iter().all(|r| r.path == FILTERED_BULK));
    assert!(requests[1].decoded_bytes < requests[0].decoded_bytes / 2);
    let mut seqs = received_seqs(intake);
    seqs.dedup();
    assert_eq!(seqs, vec![0, 1, 2, 3, 4, 6, 7, 8, 9], "each once, 5 never");
    assert_eq!(intake.stats().events, 9, "no duplicate");
    let stats = logship.stats();
    assert_eq!(stats.events_delivered, 9, "{stats:?}");
    assert_eq!(stats.events_failed, 1, "the mapping error is rejected");
    assert_eq!(stats.requests, 2);
    assert_eq!(stats.retries, 1);
    assert_eq!(stats.partial_requests, 1);
    assert_eq!(stats.failed_requests, 0, "both requests were answered 200");
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
}

#[test]
fn a_partial_failure_resends_exactly_the_retryable_items() {
    let intake = es_intake();
    partial_failure_resends_exactly_the_retryable_items(&intake);
    let first = &intake.requests()[0];
    assert!(
        first.response_bytes < 1000,
        "the filtered answer to 10 items holds their statuses and errors only: {} bytes",
        first.response_bytes
    );
}

#[test]
fn an_answer_the_filter_was_not_applied_to_is_read_the_same() {
    // As behind a proxy that drops the query string: the full per-item answer.
    let intake = es_intake();
    intake.set_es_filter_path(false);
    partial_failure_resends_exactly_the_retryable_items(&intake);
    let first = &intake.requests()[0];
    assert!(
        first.response_bytes > 1500,
        "the full answer carries _index, _id, _shards... per item: {} bytes",
        first.response_bytes
    );
}

#[test]
fn the_filter_path_joins_the_endpoints_own_query_string() {
    let intake = es_intake();
    let builder = es_builder(&intake).endpoint(intake.url("/_bulk?refresh=false"));
    let logship = ship_one_batch(builder, 3, |_| "calm");
    assert_eq!(logship.stats().events_delivered, 3);
    let requests = intake.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        requests[0].path,
        FILTERED_BULK.replace("?filter_path", "?refresh=false&filter_path")
    );
}

/// Response bytes for one batch of 1,000 documents, with and without the filter (the
/// figure in docs/performance.md); `--nocapture` prints it.
#[test]
fn the_filtered_answer_to_1000_documents_is_a_fraction_of_the_full_one() {
    let answer_bytes = |filter: bool| {
        let intake = es_intake();
        intake.set_es_filter_path(filter);
        let logship = ship_one_batch(es_builder(&intake), 1000, |_| "calm");
        assert_eq!(logship.stats().events_delivered, 1000);
        let requests = intake.requests();
        assert_eq!(requests.len(), 1);
        requests[0].response_bytes
    };
    let (filtered, full) = (answer_bytes(true), answer_bytes(false));
    println!("_bulk answer to 1000 documents: {full} bytes full, {filtered} bytes filtered");
    assert!(filtered * 4 < full, "{filtered} vs {full}");
}

#[test]
fn throttled_items_make_the_concurrency_limit_back_off() {
    let intake = es_intake();
    intake.fail_items(ItemFault::containing("busy", 1, 429));
    let builder = es_builder(&intake).adaptive_concurrency(true);
    let before = 2; // the adaptive limit's start
    let logship = ship_one_batch(builder, 10, |i| if i == 3 { "busy" } else { "calm" });
    let stats = logship.stats();
    assert_eq!(stats.events_delivered, 10, "{stats:?}");
    assert!(
        stats.concurrency_limit < before,
        "an item answered 429 is back-pressure like a request answered 429: {stats:?}"
    );
}

#[test]
fn mapping_errors_are_rejected_and_never_resent() {
    let intake = es_intake();
    intake.fail_items(ItemFault::containing("badmap", usize::MAX, 400));
    let errors = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen = errors.clone();
    let builder = es_builder(&intake).on_error(move |e| seen.lock().unwrap().push(e.clone()));
    let logship = ship_one_batch(builder, 20, |i| {
        if i.is_multiple_of(4) {
            "badmap"
        } else {
            "calm"
        }
    });
    assert_eq!(intake.requests().len(), 1, "nothing is resent");
    let stats = logship.stats();
    assert_eq!(stats.events_delivered, 15, "{stats:?}");
    assert_eq!(stats.events_failed, 5);
    assert_eq!(stats.retries, 0);
    let errors = errors.lock().unwrap();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(errors[0].permanent);
    assert_eq!(errors[0].events, 5);
    assert_eq!(errors[0].status, Some(400));
    assert!(
        errors[0].message.contains("mapper_parsing_exception"),
        "{}",
        errors[0].message
    );
}

#[test]
fn items_failing_every_retry_are_given_up_after_the_retry_budget() {
    let intake = es_intake();
    intake.fail_items(ItemFault::containing("busy", usize::MAX, 429));
    let logship = ship_one_batch(es_builder(&intake).max_retries(2), 6, |i| {
        if i < 2 {
            "busy"
        } else {
            "calm"
        }
    });
    assert_eq!(
        intake.events_per_request(),
        vec![4, 0, 0],
        "one request and two retries carrying only the two failing items"
    );
    let stats = logship.stats();
    assert_eq!(stats.events_delivered, 4, "{stats:?}");
    assert_eq!(stats.events_failed, 2);
    assert_eq!(stats.retries, 2);
}

#[test]
fn whole_request_answers_retry_split_or_give_up() {
    let intake = es_intake();
    intake.fail_next(1, Fault::retry_after(429, 0));
    intake.fail_next(
        1,
        Fault::json(413, r#"{"error":"content too long","status":413}"#),
    );
    let logship = ship_one_batch(es_builder(&intake), 8, |_| "calm");
    let stats = logship.stats();
    assert_eq!(stats.events_delivered, 8, "{stats:?}");
    assert_eq!(stats.retries, 1, "the whole-request 429 is retried");
    assert_eq!(stats.splits, 1, "the 413 splits the batch");
    assert_eq!(intake.events_per_request(), vec![0, 0, 4, 4]);

    let intake = es_intake();
    let logship = ship_one_batch(es_builder(&intake).api_key("wrong-key"), 3, |_| "calm");
    let stats = logship.stats();
    assert_eq!(intake.requests().len(), 1, "a 401 is not retried");
    assert_eq!(intake.stats().auth_failures, 1);
    assert_eq!(stats.events_failed, 3, "{stats:?}");
    assert_no_secret(&logship, "wrong-key");
}

#[test]
fn a_date_pattern_names_each_documents_index_from_its_timestamp() {
    let intake = es_intake();
    let (logship, guard) = es_builder(&intake)
        .elasticsearch(ElasticsearchOptions::default().index("applogs-%Y.%m.%d"))
        .build()
        .unwrap();
    // 2024-05-31T23:59:59.999Z and one millisecond later.
    for (i, nanos) in [1_717_199_999_999_000_000u64, 1_717_200_000_000_000_000]
        .into_iter()
        .enumerate()
    {
        let mut r = event(i, "dated");
        r.set_timestamp_nanos(nanos);
        logship.push(r).unwrap();
    }
    drop(guard);
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
    let mut indexes: Vec<(u64, String)> = intake
        .events()
        .iter()
        .map(|e| {
            (
                e.value["seq"].as_u64().unwrap(),
                e.value["_index"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    indexes.sort();
    assert_eq!(
        indexes,
        vec![
            (0, "applogs-2024.05.31".to_owned()),
            (1, "applogs-2024.06.01".to_owned())
        ]
    );
    assert_eq!(
        intake.events()[0].value["@timestamp"]
            .as_str()
            .unwrap()
            .len(),
        24
    );
    assert_eq!(logship.stats().events_delivered, 2);
}

#[test]
fn basic_auth_is_sent_and_the_password_never_shown() {
    let intake = es_intake(); // basic auth: the intake's key is the password
    let (logship, guard) = es_builder(&intake)
        .api_key("")
        .basic_auth("elastic", KEY)
        .build()
        .unwrap();
    logship.push(event(0, "basic")).unwrap();
    logship.flush(WAIT).unwrap();
    drop(guard);
    assert_eq!(logship.stats().events_delivered, 1);
    let expected = format!(
        "Basic {}",
        "ZWxhc3RpYzplcy1zZWNyZXQtMDEyMzQ1Njc4OQ==" // elastic:es-secret-0123456789
    );
    assert_eq!(
        intake.requests()[0].header("authorization"),
        Some(expected.as_str())
    );
    assert_no_secret(&logship, KEY);
    let builder = es_builder(&intake).api_key("").basic_auth("elastic", KEY);
    assert!(!format!("{:?}", builder.config()).contains(KEY));
}

#[test]
fn with_spill_on_given_up_items_are_spilled_and_replayed_and_rejected_ones_dead_lettered() {
    let dir = TempDir::new("es-spill");
    let intake = es_intake();
    // Two items are throttled on the first attempt (no retry allowed: they are spilled,
    // then replayed once the fault is used up); one has a mapping error.
    intake.fail_items(ItemFault::containing("busy", 2, 429));
    intake.fail_items(ItemFault::containing("badmap", 1, 400));
    let builder = es_builder(&intake).max_retries(0).spill_dir(dir.path());
    let (logship, guard) = builder
        .max_batch_records(6)
        .linger(Duration::from_secs(60))
        .build()
        .unwrap();
    for i in 0..6 {
        let message = match i {
            1 | 4 => "busy",
            2 => "badmap",
            _ => "calm",
        };
        logship.push(event(i, message)).unwrap();
    }
    logship.flush(WAIT).unwrap();
    assert!(logship.wait_spill_drained(WAIT));
    drop(guard);
    let stats = logship.stats();
    assert_eq!(stats.events_delivered, 3, "{stats:?}");
    assert_eq!(stats.events_spilled, 2);
    assert_eq!(stats.events_replayed, 2);
    assert_eq!(stats.dead_lettered, 1);
    assert_eq!(stats.events_failed, 1);
    let mut seqs = received_seqs(&intake);
    seqs.dedup();
    assert_eq!(seqs, vec![0, 1, 3, 4, 5]);
    assert_eq!(intake.stats().events, 5, "each once");
}
