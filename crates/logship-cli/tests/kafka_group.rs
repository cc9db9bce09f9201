//! `logship ship --listen kafka://...` against a real Apache Kafka broker (single-node KRaft
//! from `scripts/kafka-broker.sh`), draining to the strict intake: a group of two instances
//! where one is killed with SIGKILL halfway (every event arrives at least once; every
//! committed offset is checked against what the intake has, also while the intake holds
//! its answers; nothing below the offsets committed at the kill arrives twice; duplicates
//! counted and reported), and one instance with a tiny queue behind a slow intake (the
//! partitions are paused, nothing dropped); a backlog on 32 partitions drained within
//! bounded memory; and `ship --vendor kafka` of stdin to a topic
//! (every line once, in the command's 2,000-event batches). Skipped locally without java and mvn; a failure
//! under `CI=true` (`.ci/run` installs them and fetches the jars).

mod common;
#[path = "../../logship-intake/kafka_admin.rs"]
mod kafka_admin;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use common::{logship, run_with_stdin, temp_path, ShipProcess};
use logship_intake::kafka_broker::KafkaBroker;
use logship_intake::{Intake, IntakeConfig};
use rdkafka::config::ClientConfig;
use rdkafka::consumer::{BaseConsumer, Consumer};
use rdkafka::message::Message;
use rdkafka::producer::{BaseProducer, BaseRecord, Producer};
use rdkafka::{Offset, TopicPartitionList};

const LIMIT: Duration = Duration::from_secs(300);

fn create_topic(broker: &KafkaBroker, topic: &str, partitions: i32) {
    kafka_admin::create_topic(&broker.bootstrap(), topic, partitions, &[]);
}

/// Produces `n` JSON events `{"message":"event i","seq":i}` to `topic`, keyed by `i`.
fn produce(broker: &KafkaBroker, topic: &str, n: u64) {
    produce_to(broker, topic, n, None);
}

/// Hands `record` to `producer`, waiting for room while its queue is full.
fn send<K: rdkafka::message::ToBytes + ?Sized, P: rdkafka::message::ToBytes + ?Sized>(
    producer: &BaseProducer,
    mut record: BaseRecord<'_, K, P>,
) {
    loop {
        match producer.send(record) {
            Ok(()) => break,
            Err((_, back)) => {
                producer.poll(Duration::from_millis(10));
                record = back;
            }
        }
    }
    producer.poll(Duration::ZERO);
}

/// [`produce`], event `i` to partition `i % partitions` when `partitions` is given. The
/// producer is idempotent (order kept per partition), so event `i` then sits at offset
/// `i / partitions` of its partition (checked against the partitions' high watermarks).
fn produce_to(broker: &KafkaBroker, topic: &str, n: u64, partitions: Option<i32>) {
    let producer: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", broker.bootstrap())
        .set("enable.idempotence", "true")
        .set("linger.ms", "5")
        .create()
        .unwrap();
    for i in 0..n {
        let payload = format!("{{\"message\":\"event {i}\",\"level\":\"info\",\"seq\":{i}}}");
        let key = i.to_string();
        let mut record = BaseRecord::to(topic).payload(&payload).key(&key);
        if let Some(p) = partitions {
            record = record.partition((i % p as u64) as i32);
        }
        send(&producer, record);
    }
    producer.flush(Duration::from_secs(60)).unwrap();
    let Some(parts) = partitions else {
        return;
    };
    for p in 0..parts {
        let (low, high) = producer
            .client()
            .fetch_watermarks(topic, p, Duration::from_secs(10))
            .unwrap();
        // Events p, p + parts, p + 2 parts, ... below n.
        let expected = (n + (parts - 1 - p) as u64) / parts as u64;
        assert_eq!((low, high), (0, expected as i64), "partition {p}'s offsets");
    }
}

/// How often the intake received each `seq`.
fn seq_counts(intake: &Intake) -> HashMap<u64, u32> {
    let mut counts = HashMap::new();
    for e in intake.events() {
        if let Some(seq) = e.value.get("seq").and_then(|v| v.as_u64()) {
            *counts.entry(seq).or_insert(0) += 1;
        }
    }
    counts
}

fn wait_until(what: &str, limit: Duration, done: impl Fn() -> bool) {
    let deadline = Instant::now() + limit;
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A `ship --listen` member shipping NDJSON to `intake`, with a spill directory of its
/// own unless `extra` says `--no-spill`.
fn member(intake: &Intake, url: &str, extra: &[&str]) -> ShipProcess {
    let spill = temp_path("kafka-spill").to_string_lossy().into_owned();
    let mut args = vec!["--listen", url, "--vendor", "ndjson"];
    if !extra.contains(&"--no-spill") {
        args.extend_from_slice(&["--spill-dir", &spill]);
    }
    args.extend_from_slice(extra);
    ShipProcess::start(&intake.url("/logs"), &args, LIMIT)
}

/// The offsets `reader`'s group has committed for `topic`'s partitions `0..partitions`
/// (0 where none is).
fn committed(reader: &BaseConsumer, topic: &str, partitions: i32) -> Vec<i64> {
    let mut tpl = TopicPartitionList::new();
    for p in 0..partitions {
        tpl.add_partition(topic, p);
    }
    // The group's coordinator may still be loading or moving ("Not coordinator"): ask
    // again until it answers.
    let deadline = Instant::now() + Duration::from_secs(60);
    let got = loop {
        match reader.committed_offsets(tpl.clone(), Duration::from_secs(10)) {
            Ok(got) => break got,
            Err(e) if Instant::now() < deadline => {
                eprintln!("committed offsets: {e}; asking again");
                std::thread::sleep(Duration::from_millis(100));
            }
            Err(e) => panic!("committed offsets: {e}"),
        }
    };
    (0..partitions)
        .map(|p| match got.find_partition(topic, p).map(|e| e.offset()) {
            Some(Offset::Offset(o)) => o,
            _ => 0,
        })
        .collect()
}

/// Checks that every event below the group's committed offsets has reached the intake
/// (committed offsets read first, the intake after, so a correct commit always passes:
/// an offset is committed only once everything before it was answered), and returns
/// those offsets.
fn commits_checked(reader: &BaseConsumer, intake: &Intake, partitions: i32) -> Vec<i64> {
    let offsets = committed(reader, "drain", partitions);
    let counts = seq_counts(intake);
    for (p, &offset) in offsets.iter().enumerate() {
        let missing: Vec<u64> = (0..offset.max(0) as u64)
            .map(|o| o * partitions as u64 + p as u64)
            .filter(|seq| !counts.contains_key(seq))
            .take(5)
            .collect();
        assert!(
            missing.is_empty(),
            "partition {p} committed up to offset {offset} before its events reached the intake, e.g. seq {missing:?}"
        );
    }
    offsets
}

#[test]
fn a_group_of_two_where_one_is_killed_halfway_delivers_every_event_at_least_once() {
    let Some(broker) = KafkaBroker::start("group") else {
        return;
    };
    let (n, partitions) = (60_000u64, 4);
    create_topic(&broker, "drain", partitions);
    produce_to(&broker, "drain", n, Some(partitions));
    // A slow intake (each request answered after 100 ms, at most 2 of 250 events in
    // flight per member): the drain takes seconds, so the members commit (every second)
    // while it runs, whatever the machine's speed. No spill: a spilled event counts as
    // settled, and the killed member's spill would only come back with its restart,
    // which this test does not do; the small queue keeps the backlog short.
    let intake = Intake::start(IntakeConfig {
        delay: Duration::from_millis(100),
        ..IntakeConfig::default()
    })
    .expect("intake");
    let url = format!("kafka://{}/drain?group=shippers", broker.bootstrap());
    let slow = [
        "--max-batch-records",
        "250",
        "--max-in-flight",
        "2",
        "--queue-capacity",
        "500",
        "--no-spill",
    ];
    let reader = kafka_admin::reader(&broker.bootstrap(), "shippers");
    let mut a = member(&intake, &url, &slow);
    let mut b = member(&intake, &url, &slow);
    a.stderr
        .expect("consuming kafka://", Duration::from_secs(30));
    b.stderr
        .expect("consuming kafka://", Duration::from_secs(30));
    // Every look at the committed offsets below also checks them against the intake.
    wait_until("a sixth of the events committed", LIMIT, || {
        commits_checked(&reader, &intake, partitions)
            .iter()
            .sum::<i64>()
            >= (n / 6) as i64
    });
    // With the intake holding every answer, nothing more is settled: a member that
    // committed what it had only read (or queued) would be caught here, its commit
    // (every second) past what the intake has.
    intake.pause();
    let window = Instant::now() + Duration::from_secs(3);
    while Instant::now() < window {
        commits_checked(&reader, &intake, partitions);
        std::thread::sleep(Duration::from_millis(100));
    }
    // Halfway through, one member dies without a word: its partitions go to the other
    // after the session timeout, from the last offsets it committed. Read before the
    // kill, these are at most what was committed when it died.
    let floor = commits_checked(&reader, &intake, partitions);
    a.child.kill().expect("SIGKILL");
    let _ = a.child.wait();
    intake.resume();
    wait_until("every event", LIMIT, || {
        commits_checked(&reader, &intake, partitions);
        seq_counts(&intake).len() as u64 == n
    });
    let (code, stderr) = b.stop();
    let counts = seq_counts(&intake);
    let received: u64 = counts.values().map(|&c| u64::from(c)).sum();
    let duplicates = received - n;
    eprintln!(
        "kafka group: {n} events, {received} received, {duplicates} duplicates after SIGKILL (committed before it: {floor:?})"
    );
    assert_eq!(counts.len() as u64, n, "every event at least once");
    // Nothing below a committed offset is read again: every duplicate lies past what was
    // committed at the kill.
    let below: Vec<u64> = counts
        .iter()
        .filter(|&(&seq, &c)| {
            c > 1 && ((seq / partitions as u64) as i64) < floor[(seq % partitions as u64) as usize]
        })
        .map(|(&seq, _)| seq)
        .take(5)
        .collect();
    assert!(
        below.is_empty(),
        "events below the committed offsets {floor:?} were read twice, e.g. seq {below:?}"
    );
    let committed_total: i64 = floor.iter().sum();
    assert!(
        duplicates <= n - committed_total as u64,
        "{duplicates} duplicates"
    );
    assert_eq!(code, Some(0), "{stderr:?}");
    let summary = stderr.join("\n");
    assert!(summary.contains("kafka: "), "{summary}");
}

#[test]
fn a_full_queue_pauses_the_partitions_and_drops_nothing() {
    let Some(broker) = KafkaBroker::start("pause") else {
        return;
    };
    let n = 5_000u64;
    create_topic(&broker, "slow", 2);
    produce(&broker, "slow", n);
    let intake = Intake::start(IntakeConfig {
        delay: Duration::from_millis(100),
        ..IntakeConfig::default()
    })
    .expect("intake");
    let url = format!("kafka://{}/slow?group=slow", broker.bootstrap());
    let mut ship = member(
        &intake,
        &url,
        &[
            "--queue-capacity",
            "50",
            "--max-batch-records",
            "50",
            "--max-in-flight",
            "1",
        ],
    );
    wait_until("every event", LIMIT, || {
        seq_counts(&intake).len() as u64 == n
    });
    let (code, stderr) = ship.stop();
    let summary = stderr.join("\n");
    assert_eq!(code, Some(0), "{summary}");
    let pauses: u64 = summary
        .split(" pauses")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    assert!(
        pauses > 0,
        "the queue filled and the partitions were paused: {summary}"
    );
    let counts = seq_counts(&intake);
    assert_eq!(counts.len() as u64, n);
    assert!(
        counts.values().all(|&c| c == 1),
        "no duplicate without a failure"
    );
}

/// A backlog of well-compressed logs on many partitions is drained within bounded
/// memory (PEERS.md 15: consumer memory in the GBs on a big backlog). librdkafka's
/// default fetch takes up to 1 MiB of each partition in one response (50 MiB in all);
/// the response is held decompressed, with an op per message, until consumed: the
/// member held 0.9 GiB peak (release build) from 3 M such events on 32 partitions. Its
/// fetch is now capped in all (1 MiB a response, whatever the partitions).
#[test]
fn a_backlog_on_32_partitions_is_drained_within_bounded_memory() {
    let Some(broker) = KafkaBroker::start("backlog") else {
        return;
    };
    let (n, parts) = (800_000u64, 32);
    create_topic(&broker, "backlog", parts);
    // Logs compress well (a repeated text): zstd takes 300 bytes to a few.
    let producer: BaseProducer = ClientConfig::new()
        .set("bootstrap.servers", broker.bootstrap())
        .set("compression.codec", "zstd")
        .set("linger.ms", "20")
        .create()
        .unwrap();
    let text = "order checked out: 3 items, total 149.90 EUR, paid by card; label queued for warehouse fra-2, priority normal. ".repeat(3);
    for i in 0..n {
        let payload = format!("{{\"message\":\"{i} {text}\",\"seq\":{i}}}");
        send(
            &producer,
            BaseRecord::<(), String>::to("backlog").payload(&payload),
        );
    }
    producer.flush(Duration::from_secs(60)).unwrap();
    drop(producer);
    let intake = Intake::start(IntakeConfig {
        keep_events: false,
        count_only: true,
        ..IntakeConfig::default()
    })
    .expect("intake");
    let url = format!("kafka://{}/backlog?group=backlog", broker.bootstrap());
    let mut ship = member(&intake, &url, &[]);
    wait_until("every event", LIMIT, || intake.stats().events >= n);
    let peak = logship_cli::memory::proc_status_bytes(&ship.child.id().to_string(), "VmHWM:")
        .expect("the member's VmHWM") as f64
        / (1u64 << 20) as f64;
    let (code, stderr) = ship.stop();
    assert_eq!(code, Some(0), "{stderr:?}");
    assert_eq!(intake.stats().events, n);
    assert!(peak > 0.0, "no VmHWM read");
    // Here: 158 MiB with the cap (a debug build), 438 MiB at librdkafka's defaults.
    assert!(
        peak < 256.0,
        "peak RSS {peak:.1} MiB draining {n} events from {parts} partitions"
    );
}

/// A file holding `text` (a password), for `--listen-kafka-password-file`.
fn password_file(name: &str, text: &str) -> String {
    let path = temp_path(name);
    std::fs::write(&path, text).expect("write the password file");
    path.to_string_lossy().into_owned()
}

/// How many events the intake received in all.
fn received(intake: &Intake) -> u64 {
    seq_counts(intake).values().map(|&c| u64::from(c)).sum()
}

/// Starts a member that the brokers refuse, waits for its one error and for it to shut
/// down on its own (its only input stopped), and checks that it said so once, read
/// nothing, named the keys to fix, showed no secret, did not keep trying, and exited 1
/// with an outcome that names the refused input.
fn refused_member(intake: &Intake, url: &str, extra: &[&str], names: &str, secret: &str) {
    let before = received(intake);
    let mut m = member(intake, url, extra);
    m.stderr
        .expect("this input stopped", Duration::from_secs(60));
    m.stderr
        .expect("every input stopped", Duration::from_secs(60));
    // It shuts down on its own: a SIGTERM now would be its second signal.
    let (code, stderr) = m.wait_exit();
    let text = stderr.join("\n");
    assert_eq!(
        text.matches("this input stopped").count(),
        1,
        "said once: {text}"
    );
    assert!(text.contains(names), "names the keys to fix: {text}");
    assert!(text.contains("1 stopped: refused by the brokers"), "{text}");
    assert!(!text.contains(secret), "no secret: {text}");
    let errors: u64 = text
        .split(" consumer errors")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("the summary counts consumer errors");
    assert!(errors <= 3, "no loop of failed logins: {text}");
    assert_eq!(code, Some(1), "the input did not run: {text}");
    assert!(
        text.contains("outcome: lost: 1 Kafka input stopped, refused by the brokers"),
        "{text}"
    );
    assert_eq!(received(intake), before, "nothing read while refused");
}

#[test]
fn inputs_consume_over_scram_and_tls_and_refused_credentials_or_ca_stop_with_one_error() {
    let Some(broker) = KafkaBroker::start("secure-input") else {
        return;
    };
    let n = 300u64;
    create_topic(&broker, "secure", 1);
    produce(&broker, "secure", n);
    let intake = Intake::start(IntakeConfig::default()).expect("intake");
    let ca = broker.ca_file().to_string_lossy().into_owned();
    let (cert, key) = broker.client_cert();
    let (cert, key) = (cert.to_string_lossy(), key.to_string_lossy());
    let right = password_file(
        "kafka-right-pw",
        logship_intake::kafka_broker::SASL_PASSWORD,
    );
    let wrong = password_file("kafka-wrong-pw", "wrong-8Kd-2718");

    // A wrong SCRAM-SHA-256 password: one clear error, the input stops, nothing read.
    let url = format!("kafka://127.0.0.1:{}/secure?group=wrong", broker.sasl_port);
    let sasl = [
        "--listen-kafka-sasl-mechanism",
        "SCRAM-SHA-256",
        "--listen-kafka-username",
        "logship",
        "--listen-kafka-password-file",
    ];
    let mut args = sasl.to_vec();
    args.push(&wrong);
    refused_member(
        &intake,
        &url,
        &args,
        "listen.kafka_username",
        "wrong-8Kd-2718",
    );
    // A CA that did not sign the brokers' certificate (the client's own certificate):
    // one clear error naming the CA key, the input stops.
    let url = format!(
        "kafka://127.0.0.1:{}/secure?group=wrong-ca",
        broker.ssl_port
    );
    let tls = [
        "--listen-kafka-tls",
        "--listen-kafka-tls-client-cert",
        &cert,
        "--listen-kafka-tls-client-key",
        &key,
        "--listen-kafka-tls-ca-file",
    ];
    let mut args = tls.to_vec();
    args.push(&cert);
    refused_member(
        &intake,
        &url,
        &args,
        "listen.kafka_tls_ca_file",
        "BEGIN PRIVATE KEY",
    );

    // SCRAM-SHA-512 over TLS (SASL_SSL), password from a file, trusting the test CA.
    let url = format!(
        "kafka://127.0.0.1:{}/secure?group=scram",
        broker.sasl_ssl_port
    );
    let mut args = sasl.to_vec();
    args[1] = "scram_sha_512";
    args.extend([
        &right,
        "--listen-kafka-tls",
        "--listen-kafka-tls-ca-file",
        &ca,
    ]);
    let mut scram = member(&intake, &url, &args);
    // TLS with a client certificate (the SSL listener requires one), another group.
    let url = format!("kafka://127.0.0.1:{}/secure?group=mtls", broker.ssl_port);
    let mut args = tls.to_vec();
    args.push(&ca);
    let mut mtls = member(&intake, &url, &args);
    wait_until("every event through both groups", LIMIT, || {
        let counts = seq_counts(&intake);
        counts.len() as u64 == n && counts.values().all(|&c| c >= 2)
    });
    for m in [&mut scram, &mut mtls] {
        let (code, stderr) = m.stop();
        assert_eq!(code, Some(0), "{stderr:?}");
        let text = stderr.join("\n");
        assert!(!text.contains("stopped: refused"), "{text}");
    }
}

#[test]
fn ship_to_a_topic_delivers_every_line_once_in_batches_of_the_commands_kafka_default() {
    let Some(broker) = KafkaBroker::start("ship") else {
        return;
    };
    let n = 20_000u64;
    create_topic(&broker, "shipped", 4);
    let input: String = (0..n).map(|i| format!("line {i} of the app\n")).collect();
    let stats_path = temp_path("kafka-ship-stats.json");
    let stats_arg = stats_path.to_string_lossy().into_owned();
    let out = run_with_stdin(
        logship().args([
            "ship",
            "--vendor",
            "kafka",
            "--endpoint",
            &format!("kafka://{}/shipped", broker.bootstrap()),
            "--no-spill",
            "--stats-json",
            &stats_arg,
        ]),
        input.as_bytes(),
        LIMIT,
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "stderr: {stderr}");
    assert!(
        stderr.contains("every event read was delivered"),
        "{stderr}"
    );
    let stats: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&stats_path).expect("stats file"))
            .expect("stats JSON");
    assert_eq!(stats["events_delivered"].as_u64(), Some(n), "{stats}");
    // 2,000 events a batch (the command's default for Kafka), not the library's 200.
    let batches = stats["batches"].as_u64().expect("batches");
    assert!(batches <= 20, "{batches} batches for {n} events");
    // Every line is on the topic once, as one JSON message.
    let consumer = kafka_admin::reader(&broker.bootstrap(), "check-shipped");
    consumer.subscribe(&["shipped"]).unwrap();
    let mut seen = HashMap::new();
    let deadline = Instant::now() + LIMIT;
    while (seen.len() as u64) < n {
        assert!(
            Instant::now() < deadline,
            "{} of {n} lines on the topic",
            seen.len()
        );
        let Some(message) = consumer.poll(Duration::from_millis(500)) else {
            continue;
        };
        let message = message.expect("a message");
        let event: serde_json::Value =
            serde_json::from_slice(message.payload().expect("a payload")).expect("JSON");
        let text = event["message"]
            .as_str()
            .expect("a message field")
            .to_owned();
        *seen.entry(text).or_insert(0u32) += 1;
    }
    assert!(seen.values().all(|&c| c == 1), "a line twice on the topic");
    assert!(seen.contains_key("line 0 of the app") && seen.contains_key("line 19999 of the app"));
    let _ = std::fs::remove_file(&stats_path);
}
