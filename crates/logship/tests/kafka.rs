//! The `kafka` output against a real Apache Kafka broker (single-node KRaft, started by
//! `scripts/kafka-broker.sh` from Maven Central's jars): 100,000 events none lost, a broker
//! restart in the middle of a run, a message over the broker's limit, a wrong password, a
//! topic that does not exist. Skipped locally without java and mvn; a failure under
//! `CI=true` (`.ci/run` installs them and fetches the jars).

mod common;
#[path = "../../logship-intake/kafka_admin.rs"]
mod kafka_admin;

use std::collections::HashSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{numbered, TempDir};
use logship::{Builder, KafkaOptions, Logship, Overflow, Vendor};
use logship_intake::kafka_broker::{KafkaBroker, SASL_PASSWORD};
use rdkafka::consumer::Consumer;
use rdkafka::message::{Headers, Message};

fn create_topic(broker: &KafkaBroker, topic: &str, partitions: i32, configs: &[(&str, &str)]) {
    kafka_admin::create_topic(&broker.bootstrap(), topic, partitions, configs);
}

/// One message as read back: its `seq` field, key, partition, headers and JSON.
struct Read {
    seq: Option<u64>,
    key: Option<String>,
    partition: i32,
    headers: Vec<(String, String)>,
    json: serde_json::Value,
}

/// Reads `topic` from the start until `want` messages arrived (or 60 s without reaching
/// it), then 1 s more to see any extra.
fn read_topic(broker: &KafkaBroker, topic: &str, want: usize) -> Vec<Read> {
    let consumer = kafka_admin::reader(&broker.bootstrap(), &format!("reader-{topic}"));
    consumer.subscribe(&[topic]).unwrap();
    let mut out = Vec::new();
    let mut deadline = std::time::Instant::now() + Duration::from_secs(60);
    let mut extra = false;
    while std::time::Instant::now() < deadline {
        if let Some(Ok(m)) = consumer.poll(Duration::from_millis(200)) {
            let json: serde_json::Value =
                serde_json::from_slice(m.payload().unwrap_or_default()).expect("JSON message");
            let headers = m
                .headers()
                .map(|h| {
                    h.iter()
                        .map(|h| {
                            (
                                h.key.to_owned(),
                                String::from_utf8_lossy(h.value.unwrap_or_default()).into_owned(),
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            out.push(Read {
                seq: json.get("seq").and_then(|v| v.as_u64()),
                key: m.key().map(|k| String::from_utf8_lossy(k).into_owned()),
                partition: m.partition(),
                headers,
                json,
            });
        }
        if out.len() >= want && !extra {
            extra = true;
            deadline = std::time::Instant::now() + Duration::from_secs(1);
        }
    }
    out
}

fn kafka_builder(broker: &KafkaBroker, topic: &str) -> Builder {
    Logship::builder()
        .vendor(Vendor::Kafka)
        .endpoint(format!("kafka://{}/{topic}", broker.bootstrap()))
        .service("checkout")
        .linger(Duration::from_millis(20))
        .report_to_stderr(false)
        .spill(false)
}

/// Replays `spill` into `topic` with a new pipeline until `n` events were replayed.
fn replay_spill(broker: &KafkaBroker, topic: &str, spill: &TempDir, n: u64) {
    let (replay, guard) = kafka_builder(broker, topic)
        .spill(true)
        .spill_dir(spill.path())
        .build()
        .unwrap();
    let replayed = common::wait_for_stats(&replay, Duration::from_secs(120), |s| {
        s.events_replayed >= n
    });
    assert!(
        replayed,
        "{n} events to replay; the replaying pipeline: {:?}\n{}",
        replay.stats(),
        broker.log_tail()
    );
    drop(guard);
}

/// Every error the pipeline reported, as text.
fn collect_errors(builder: Builder) -> (Builder, Arc<Mutex<Vec<String>>>) {
    let errors = Arc::new(Mutex::new(Vec::new()));
    let seen = errors.clone();
    let builder = builder.on_error(move |e| seen.lock().unwrap().push(e.message.clone()));
    (builder, errors)
}

#[test]
fn a_kafka_pipeline_keeps_max_in_flight_batches_out_from_the_start() {
    // No broker needed (librdkafka connects lazily). Adaptive concurrency learns from HTTP
    // answers, which a transport never gives: left adaptive, the limit stayed at its start
    // (2, three senders each waiting for its batch's reports: 76 k events/s produced
    // instead of 230 k, docs/performance.md "Kafka").
    let (logship, guard) = Logship::builder()
        .vendor(Vendor::Kafka)
        .endpoint("kafka://127.0.0.1:9/nowhere")
        .max_in_flight(7)
        .report_to_stderr(false)
        .spill(false)
        .shutdown_timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    let stats = logship.stats();
    assert_eq!(stats.concurrency_limit, 7, "{stats:?}");
    assert_eq!(stats.concurrency_peak, 7, "{stats:?}");
    drop(guard);
}

#[test]
fn a_hundred_thousand_events_arrive_as_json_messages_none_lost() {
    let Some(broker) = KafkaBroker::start("hundred-k") else {
        return;
    };
    create_topic(&broker, "logs-100k", 4, &[]);
    let n = 100_000;
    let logship = common::ship(
        kafka_builder(&broker, "logs-100k")
            .kafka(KafkaOptions::default().key("field:shard"))
            .overflow(Overflow::Block(Duration::from_secs(30)))
            .max_batch_records(1000),
        (0..n).map(|i| {
            let mut r = numbered(i);
            r.field("shard", (i % 7) as u64);
            r
        }),
    );
    let stats = logship.stats();
    assert_eq!(stats.events_delivered, n as u64, "{stats:?}");
    assert_eq!(stats.events_failed + stats.events_abandoned, 0, "{stats:?}");
    let read = read_topic(&broker, "logs-100k", n);
    let seqs: HashSet<u64> = read.iter().filter_map(|r| r.seq).collect();
    assert_eq!(seqs.len(), n, "every event, once each: {} read", read.len());
    assert_eq!(read.len(), n, "no duplicate (idempotent producer)");
    let first = &read[0];
    assert!(
        first
            .headers
            .contains(&("service".into(), "checkout".into()))
            && first
                .headers
                .contains(&("content-type".into(), "application/json".into())),
        "{:?}",
        first.headers
    );
    assert_eq!(first.json["target"], "test");
    assert!(first.json["message"]
        .as_str()
        .unwrap()
        .starts_with("event "));
    for r in &read {
        assert_eq!(
            r.key.as_deref(),
            Some(((r.seq.unwrap()) % 7).to_string().as_str()),
            "key = the shard field"
        );
    }
}

#[test]
fn a_key_template_lands_on_the_broker_and_one_key_stays_on_one_partition() {
    let Some(broker) = KafkaBroker::start("keys") else {
        return;
    };
    create_topic(&broker, "logs-keys", 6, &[]);
    let n = 300u64;
    let logship = common::ship(
        kafka_builder(&broker, "logs-keys")
            .hostname("web-1")
            .kafka(KafkaOptions::default().key("{service}-{host}/{tenant}")),
        (0..n as usize).map(|i| {
            let mut r = numbered(i);
            // Every tenth event has no tenant: no key (spread).
            if i % 10 != 0 {
                r.field("tenant", format!("t{}", i % 3).as_str());
            }
            r
        }),
    );
    assert_eq!(logship.stats().events_delivered, n, "{:?}", logship.stats());
    let read = read_topic(&broker, "logs-keys", n as usize);
    assert_eq!(read.len(), n as usize);
    let mut partition_of = std::collections::HashMap::new();
    for r in &read {
        let seq = r.seq.unwrap();
        if seq % 10 == 0 {
            assert_eq!(r.key, None, "event {seq} has no tenant");
            continue;
        }
        let want = format!("checkout-web-1/t{}", seq % 3);
        assert_eq!(r.key.as_deref(), Some(want.as_str()), "event {seq}");
        let first = *partition_of.entry(want.clone()).or_insert(r.partition);
        assert_eq!(first, r.partition, "one key, one partition: {want}");
    }
    assert_eq!(partition_of.len(), 3);
}

#[test]
fn a_broker_restart_mid_run_loses_nothing() {
    let Some(broker) = KafkaBroker::start("restart") else {
        return;
    };
    create_topic(&broker, "logs-restart", 2, &[]);
    let spill = TempDir::new("kafka-restart-spill");
    let (logship, guard) = kafka_builder(&broker, "logs-restart")
        .spill(true)
        .spill_dir(spill.path())
        .max_batch_records(100)
        .max_retries(3)
        .kafka(KafkaOptions::default().message_timeout_ms(10_000))
        .build()
        .unwrap();
    let n = 20_000;
    for i in 0..n / 2 {
        logship.push(numbered(i)).unwrap();
    }
    assert!(common::wait_for_stats(
        &logship,
        Duration::from_secs(60),
        |s| { s.events_delivered >= 1000 }
    ));
    broker.stop();
    for i in n / 2..n {
        logship.push(numbered(i)).unwrap();
    }
    broker.restart();
    drop(guard);
    // What could not be delivered while the broker was away was spilled; a second pipeline
    // on the same directory replays it.
    let stats = logship.stats();
    drop(logship);
    assert_eq!(stats.events_failed + stats.events_abandoned, 0, "{stats:?}");
    // The first pipeline replays its own spill once the broker is back, so only what it
    // spilled and did not replay before it stopped is left for the second one.
    let waiting = stats.events_spilled.saturating_sub(stats.events_replayed);
    if waiting > 0 {
        replay_spill(&broker, "logs-restart", &spill, waiting);
    }
    let read = read_topic(&broker, "logs-restart", n);
    let seqs: HashSet<u64> = read.iter().filter_map(|r| r.seq).collect();
    assert_eq!(
        seqs.len(),
        n,
        "every event at least once ({} read, {stats:?})\n{}",
        read.len(),
        broker.log_tail()
    );
}

#[test]
fn a_message_over_the_brokers_limit_is_dead_lettered_and_counted_and_ours_is_cut() {
    let Some(broker) = KafkaBroker::start("too-large") else {
        return;
    };
    // The topic takes at most 20 kB; logship's own limit is the 1 MB default.
    create_topic(&broker, "logs-small", 1, &[("max.message.bytes", "20000")]);
    let spill = TempDir::new("kafka-too-large");
    let (builder, errors) = collect_errors(
        kafka_builder(&broker, "logs-small")
            .spill(true)
            .spill_dir(spill.path()),
    );
    // Incompressible (the broker checks the compressed batch against its limit).
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let big: String = (0..60_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            char::from(b'!' + (x % 90) as u8)
        })
        .collect();
    let logship = common::ship(
        builder,
        (0..10).map(|i| {
            let mut r = numbered(i);
            if i == 5 {
                r.field("blob", big.as_str());
            }
            r
        }),
    );
    let stats = logship.stats();
    assert_eq!(stats.events_delivered, 9, "{stats:?}");
    assert_eq!(stats.events_failed, 1, "{stats:?}");
    assert_eq!(stats.dead_lettered, 1, "{stats:?}");
    assert_eq!(stats.retries, 0, "never retried: {stats:?}");
    let errors = errors.lock().unwrap().join("\n");
    assert!(errors.contains("too large"), "{errors}");
    let seqs: HashSet<u64> = read_topic(&broker, "logs-small", 9)
        .iter()
        .filter_map(|r| r.seq)
        .collect();
    assert_eq!(seqs, (0..10).filter(|&i| i != 5).collect());

    // With kafka_max_message_bytes at the topic's limit, the same event is cut to fit
    // (counted) and delivered.
    create_topic(
        &broker,
        "logs-small-2",
        1,
        &[("max.message.bytes", "20000")],
    );
    let logship = common::ship(
        kafka_builder(&broker, "logs-small-2")
            .kafka(KafkaOptions::default().max_message_bytes(20_000)),
        (0..3).map(|i| {
            let mut r = numbered(i);
            r.field("blob", big.as_str());
            r
        }),
    );
    let stats = logship.stats();
    assert_eq!(
        (stats.events_delivered, stats.truncated),
        (3, 3),
        "{stats:?}"
    );
    for r in read_topic(&broker, "logs-small-2", 3) {
        assert!(serde_json::to_vec(&r.json).unwrap().len() <= 20_000);
    }
}

/// A pipeline to `port` of `broker` with SASL `mechanism` as user `logship`.
fn sasl_builder(port: u16, topic: &str, mechanism: &str, password: &str) -> Builder {
    Logship::builder()
        .vendor(Vendor::Kafka)
        .endpoint(format!("kafka://127.0.0.1:{port}/{topic}"))
        .basic_auth("logship", password)
        .kafka(KafkaOptions::default().sasl_mechanism(mechanism))
        .linger(Duration::from_millis(20))
        .report_to_stderr(false)
        .spill(false)
        .max_retries(5)
}

#[test]
fn a_wrong_password_is_one_clear_error_without_a_retry_loop() {
    let Some(broker) = KafkaBroker::start("sasl") else {
        return;
    };
    create_topic(&broker, "logs-sasl", 1, &[]);
    for mechanism in ["plain", "scram_sha_256"] {
        let (builder, errors) = collect_errors(sasl_builder(
            broker.sasl_port,
            "logs-sasl",
            mechanism,
            "wrong-7Qz-5150",
        ));
        let logship = common::ship(builder, (0..10).map(numbered));
        let stats = logship.stats();
        assert_eq!(stats.events_delivered, 0, "{mechanism}: {stats:?}");
        assert_eq!(
            stats.events_failed, 10,
            "{mechanism}: counted, not lost silently: {stats:?}"
        );
        assert_eq!(stats.retries, 0, "{mechanism}: no retry loop: {stats:?}");
        let errors = errors.lock().unwrap().clone();
        assert!(
            errors
                .iter()
                .any(|e| e.contains("authentication failed") && e.contains("username, password")),
            "{mechanism}: {errors:?}"
        );
        assert!(
            errors.len() <= 2,
            "{mechanism}: one clear error, not a stream: {errors:?}"
        );
        common::assert_no_secret(&logship, "wrong-7Qz-5150");
        assert!(!errors.join(" ").contains("wrong-7Qz-5150"));
    }

    // The right password works through the same listener.
    let logship = common::ship(
        sasl_builder(broker.sasl_port, "logs-sasl", "plain", SASL_PASSWORD),
        (0..10).map(numbered),
    );
    assert_eq!(
        logship.stats().events_delivered,
        10,
        "{:?}",
        logship.stats()
    );
}

#[test]
fn scram_sha_256_and_512_and_tls_with_a_ca_file_and_a_client_certificate_deliver() {
    let Some(broker) = KafkaBroker::start("secure") else {
        return;
    };
    create_topic(&broker, "logs-secure", 1, &[]);
    let (cert, key) = broker.client_cert();
    let ways: Vec<(&str, Builder)> = vec![
        (
            "SCRAM-SHA-256",
            sasl_builder(
                broker.sasl_port,
                "logs-secure",
                "scram_sha_256",
                SASL_PASSWORD,
            ),
        ),
        (
            "SCRAM-SHA-512",
            sasl_builder(
                broker.sasl_port,
                "logs-secure",
                "scram-sha-512",
                SASL_PASSWORD,
            ),
        ),
        (
            "SASL_SSL SCRAM-SHA-512 trusting the CA file",
            sasl_builder(
                broker.sasl_ssl_port,
                "logs-secure",
                "SCRAM-SHA-512",
                SASL_PASSWORD,
            )
            .kafka(
                KafkaOptions::default()
                    .sasl_mechanism("scram_sha_512")
                    .tls(true),
            )
            .tls_ca_file(broker.ca_file()),
        ),
        (
            "SSL with a client certificate",
            Logship::builder()
                .vendor(Vendor::Kafka)
                .endpoint(format!("kafka://127.0.0.1:{}/logs-secure", broker.ssl_port))
                .kafka(KafkaOptions::default().tls(true))
                .tls_ca_file(broker.ca_file())
                .tls_client_cert(&cert, &key)
                .linger(Duration::from_millis(20))
                .report_to_stderr(false)
                .spill(false),
        ),
    ];
    let per = 10;
    let mut total = 0;
    for (way, builder) in ways {
        let logship = common::ship(builder, (total..total + per).map(numbered));
        let stats = logship.stats();
        assert_eq!(stats.events_delivered, per as u64, "{way}: {stats:?}");
        total += per;
    }
    let seqs: HashSet<u64> = read_topic(&broker, "logs-secure", total)
        .iter()
        .filter_map(|r| r.seq)
        .collect();
    assert_eq!(seqs, (0..total as u64).collect());

    // Without its client certificate the SSL listener refuses the producer, and a CA that
    // did not sign the brokers' certificate (the client's own) refuses the brokers: each is
    // one clear error naming the keys, with no retry (long before the 30 s message
    // timeout), and every event is counted (failed, as no spill is configured).
    let refused = |ca: &std::path::Path, client: bool| {
        let mut b = Logship::builder()
            .vendor(Vendor::Kafka)
            .endpoint(format!("kafka://127.0.0.1:{}/logs-secure", broker.ssl_port))
            .kafka(KafkaOptions::default().tls(true))
            .tls_ca_file(ca)
            .linger(Duration::from_millis(20))
            .report_to_stderr(false)
            .spill(false)
            .max_retries(5);
        if client {
            b = b.tls_client_cert(&cert, &key);
        }
        b
    };
    for (way, builder) in [
        ("no client certificate", refused(&broker.ca_file(), false)),
        ("a wrong CA", refused(&cert, true)),
    ] {
        let (builder, errors) = collect_errors(builder);
        let logship = common::ship(builder, (0..5).map(numbered));
        let stats = logship.stats();
        assert_eq!(
            (stats.events_delivered, stats.events_failed, stats.retries),
            (0, 5, 0),
            "{way}: counted, no retry: {stats:?}"
        );
        let errors = errors.lock().unwrap().clone();
        assert!(
            errors
                .iter()
                .any(|e| e.contains("TLS failed on a certificate") && e.contains("tls_ca_file")),
            "{way}: {errors:?}"
        );
        assert!(errors.len() <= 2, "{way}: one clear error: {errors:?}");
    }
}

#[test]
fn a_topic_that_does_not_exist_is_named_and_its_events_are_spilled_not_lost() {
    let Some(broker) = KafkaBroker::start("no-topic") else {
        return;
    };
    let spill = TempDir::new("kafka-no-topic");
    let (builder, errors) = collect_errors(
        kafka_builder(&broker, "no-such-topic")
            .spill(true)
            .spill_dir(spill.path())
            .max_retries(1)
            // Time for both tries to be answered (the brokers fail messages to an unknown
            // topic after 5 s) before shutdown would spill them unanswered.
            .shutdown_timeout(Duration::from_secs(60))
            .kafka(KafkaOptions::default().message_timeout_ms(15_000)),
    );
    let logship = common::ship(builder, (0..20).map(numbered));
    let stats = logship.stats();
    assert_eq!(stats.events_delivered, 0, "{stats:?}");
    assert_eq!(stats.events_spilled, 20, "kept for replay: {stats:?}");
    assert_eq!(
        stats.retries, 1,
        "retried as configured, then spilled: {stats:?}"
    );
    drop(logship);
    let errors = errors.lock().unwrap().join("\n");
    assert!(errors.contains("topic does not exist"), "{errors}");

    // Once the topic exists, the spill replays into it.
    create_topic(&broker, "no-such-topic", 1, &[]);
    replay_spill(&broker, "no-such-topic", &spill, 20);
    let seqs: HashSet<u64> = read_topic(&broker, "no-such-topic", 20)
        .iter()
        .filter_map(|r| r.seq)
        .collect();
    assert_eq!(seqs, (0..20).collect());
}
