//! One Kafka input: a member of a consumer group that reads its partitions, parses each
//! message with the other inputs' parsers, pushes it into the pipeline, and commits only
//! offsets whose events are settled.
//!
//! Why it exists: a group of logship instances drains a topic to the vendors, at least once
//! from end to end. The rules (PEERS.md 15.9): an offset is committed only after every
//! event before it was pushed and a pipeline flush returned (each delivered, spilled or
//! dead-lettered); once an event is lost downstream (a failure without spill), commits stop
//! so a restart reads it again; on a revoke, what is settled is committed synchronously
//! before the partitions are given up; while the queue is full the partitions are paused
//! (the group still sees the member alive) and nothing is dropped; librdkafka's prefetch is
//! capped per partition. SASL and TLS come from `security`; when the brokers refuse the
//! credentials or a certificate, that input stops at once with one clear error (no loop of
//! failed logins; its messages stay in the topic). Must never: commit past an event not
//! settled, drop a message, or log through `log`/`tracing` (its lines are kept out).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use logship::{kafka_refusal, KafkaRefusal, Logship, Offered, Record};
use rdkafka::client::ClientContext;
use rdkafka::config::{ClientConfig, RDKafkaLogLevel};
use rdkafka::consumer::{BaseConsumer, CommitMode, Consumer, ConsumerContext, Rebalance};
use rdkafka::error::KafkaError;
use rdkafka::message::Message;
use rdkafka::{Offset, TopicPartitionList};

use super::security::Security;
use super::spec::KafkaSpec;

/// How often settled offsets are committed.
const COMMIT_EVERY: Duration = Duration::from_secs(1);
/// Longest a commit waits for the pipeline to settle what was pushed (on a revoke too:
/// below the session timeout).
const FLUSH_BOUND: Duration = Duration::from_secs(5);
/// The group's session timeout: a member that stops heartbeating (killed) loses its
/// partitions after this.
const SESSION_TIMEOUT_MS: &str = "10000";

/// What the Kafka inputs count, for the summary.
#[derive(Default, Debug)]
pub(crate) struct Counters {
    /// Messages pushed into the pipeline.
    pub received: AtomicU64,
    /// Commits of settled offsets.
    pub commits: AtomicU64,
    /// Times the partitions were paused because the queue was full.
    pub pauses: AtomicU64,
    /// Offers a full queue handed back (counted by the pipeline in `queue_full_returned`,
    /// not as dropped; the held message is offered again: not lost).
    pub refused: AtomicU64,
    /// Consumer errors reported by librdkafka.
    pub errors: AtomicU64,
    /// Inputs stopped because the brokers refused their credentials or certificate.
    pub stopped_refused: AtomicU64,
}

/// What the consumer thread, the committer and the rebalance callback share.
struct Shared {
    logship: Logship,
    /// Per topic and partition, the offset after the last message pushed (looked up by
    /// `&str`: no allocation per message).
    pushed: Mutex<HashMap<String, HashMap<i32, i64>>>,
    /// Partitions revoked since the consumer thread last looked.
    revoked: Mutex<Vec<(String, i32)>>,
    /// `revoked` is not empty (read once per poll without taking its lock).
    has_revoked: AtomicBool,
    /// One commit at a time (the committer and a revoke).
    commit: Mutex<()>,
    /// Events lost downstream when this input started (failures without spill).
    lost_at_start: u64,
    /// An event was lost downstream: no more commits.
    holding: AtomicBool,
    counters: Arc<Counters>,
    /// The first consumer error, said once.
    told_error: AtomicBool,
    /// The brokers refused the credentials or a certificate: this input stops.
    refused: AtomicBool,
}

/// Events lost downstream so far: failed (less the dead letters, which are on disk),
/// abandoned at shutdown, or dropped by a full spill. A push refused while the queue was
/// full is not lost here (it is pushed again).
fn lost(logship: &Logship) -> u64 {
    let s = logship.stats();
    s.events_failed.saturating_sub(s.dead_lettered) + s.events_abandoned + s.spill_dropped
}

impl Shared {
    /// Waits until what was pushed so far is settled, then commits its offsets (those of
    /// `only` when given). False when nothing could be committed.
    fn commit_settled(
        &self,
        consumer: &BaseConsumer<Callbacks>,
        only: Option<&TopicPartitionList>,
    ) -> bool {
        let _one = self.commit.lock().unwrap_or_else(|e| e.into_inner());
        if self.holding.load(Ordering::Acquire) {
            return false;
        }
        let snapshot = self
            .pushed
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        if snapshot.is_empty() {
            return true;
        }
        if self.logship.flush(FLUSH_BOUND).is_err() {
            return false; // not settled yet: the next commit tries again
        }
        if lost(&self.logship) > self.lost_at_start {
            if !self.holding.swap(true, Ordering::AcqRel) {
                eprintln!("logship: kafka input: events were lost downstream (see the errors above); offsets are no longer committed, so a restart reads them again");
            }
            return false;
        }
        let mut tpl = TopicPartitionList::new();
        for (topic, partitions) in &snapshot {
            for (partition, offset) in partitions {
                let wanted = only.is_none_or(|o| o.find_partition(topic, *partition).is_some());
                if wanted {
                    let _ = tpl.add_partition_offset(topic, *partition, Offset::Offset(*offset));
                }
            }
        }
        if tpl.count() == 0 {
            return true;
        }
        match consumer.commit(&tpl, CommitMode::Sync) {
            Ok(()) => {
                self.counters.commits.fetch_add(1, Ordering::Relaxed);
                true
            }
            Err(e) => {
                self.tell(&format!("committing offsets failed ({e}); trying again"));
                false
            }
        }
    }

    /// A librdkafka error: the brokers' refusal stops this input (said once), any other
    /// is counted (the first said).
    fn error(&self, error: &KafkaError, reason: &str) {
        let fix = match kafka_refusal(error, reason) {
            None if self.refused.load(Ordering::Acquire) => {
                // What follows a refusal is its echo.
                return;
            }
            None if reason.is_empty() => return self.tell(&error.to_string()),
            None => return self.tell(&format!("{error}: {reason}")),
            Some(KafkaRefusal::Credentials) => "the brokers refused the credentials; check listen.kafka_username, the password and listen.kafka_sasl_mechanism",
            Some(KafkaRefusal::Certificate) => "TLS with the brokers failed on a certificate; check listen.kafka_tls_ca_file (the CA that signed the brokers' certificates), listen.kafka_tls_client_cert and listen.kafka_tls_client_key",
        };
        self.counters.errors.fetch_add(1, Ordering::Relaxed);
        if !self.refused.swap(true, Ordering::AcqRel) {
            self.counters
                .stopped_refused
                .fetch_add(1, Ordering::Relaxed);
            // librdkafka's reason names the mechanism, the broker and OpenSSL's verdict,
            // never the password.
            eprintln!(
                "logship: kafka input: {fix} ({reason}); this input stopped, its messages stay in the topic"
            );
        }
    }

    fn tell(&self, what: &str) {
        self.counters.errors.fetch_add(1, Ordering::Relaxed);
        if !self.told_error.swap(true, Ordering::AcqRel) {
            eprintln!("logship: kafka input: {what}");
        }
    }
}

/// librdkafka's callbacks for one input.
struct Callbacks {
    shared: Arc<Shared>,
}

impl ClientContext for Callbacks {
    fn log(&self, _level: RDKafkaLogLevel, _fac: &str, _line: &str) {}

    fn error(&self, error: KafkaError, reason: &str) {
        self.shared.error(&error, reason);
    }
}

impl ConsumerContext for Callbacks {
    fn pre_rebalance(&self, consumer: &BaseConsumer<Self>, rebalance: &Rebalance<'_>) {
        if let Rebalance::Revoke(tpl) = rebalance {
            // Commit what is settled before giving the partitions up; the rest is read
            // again by their next owner (at least once).
            self.shared.commit_settled(consumer, Some(tpl));
            let gone: Vec<(String, i32)> = tpl
                .elements()
                .iter()
                .map(|e| (e.topic().to_owned(), e.partition()))
                .collect();
            let mut pushed = self.shared.pushed.lock().unwrap_or_else(|e| e.into_inner());
            for (topic, partition) in &gone {
                if let Some(partitions) = pushed.get_mut(topic) {
                    partitions.remove(partition);
                }
            }
            drop(pushed);
            self.shared
                .revoked
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .extend(gone);
            self.shared.has_revoked.store(true, Ordering::Release);
        }
    }
}

/// A message read, not yet pushed.
struct Held {
    topic: String,
    partition: i32,
    offset: i64,
    payload: Vec<u8>,
}

/// The record of one message: a JSON object (Log4j2's JsonLayout included) or a text line.
fn record(payload: &[u8]) -> Record {
    let text = crate::lines::utf8_lossy(crate::lines::trim_newline(payload));
    let mut record =
        crate::lines::json_record(&text).unwrap_or_else(|| crate::lines::text_record(&text));
    if matches!(text, std::borrow::Cow::Owned(_)) {
        record.mark_invalid_utf8();
    }
    record
}

/// The running Kafka inputs.
pub(crate) struct KafkaInputs {
    stop: Arc<AtomicBool>,
    threads: Vec<JoinHandle<()>>,
    counters: Arc<Counters>,
    /// Inputs started (the summary speaks of them even when they read nothing).
    started: usize,
}

impl KafkaInputs {
    /// Starts one consumer (and its committer) per spec. When every one of them has
    /// stopped, refused by the brokers, `all_stopped` (if given) is told: a service whose
    /// only inputs they are has nothing left to do.
    pub(crate) fn start(
        specs: &[KafkaSpec],
        security: &Security,
        logship: &Logship,
        all_stopped: Option<mpsc::Sender<()>>,
    ) -> Result<KafkaInputs, String> {
        let started = specs.len() as u64;
        let stop = Arc::new(AtomicBool::new(false));
        let counters = Arc::new(Counters::default());
        let mut threads = Vec::new();
        for spec in specs {
            let shared = Arc::new(Shared {
                logship: logship.clone(),
                pushed: Mutex::new(HashMap::new()),
                revoked: Mutex::new(Vec::new()),
                has_revoked: AtomicBool::new(false),
                commit: Mutex::new(()),
                lost_at_start: lost(logship),
                holding: AtomicBool::new(false),
                counters: Arc::clone(&counters),
                told_error: AtomicBool::new(false),
                refused: AtomicBool::new(false),
            });
            let mut settings = ClientConfig::new();
            security.apply(&mut settings);
            let consumer: BaseConsumer<Callbacks> = settings
                .set("bootstrap.servers", &spec.brokers)
                .set("group.id", &spec.group)
                .set("client.id", "logship")
                .set("enable.auto.commit", "false")
                .set("enable.auto.offset.store", "false")
                .set("enable.partition.eof", "false")
                .set("auto.offset.reset", "earliest")
                .set("session.timeout.ms", SESSION_TIMEOUT_MS)
                .set("heartbeat.interval.ms", "2000")
                // Prefetch bounded whatever the partitions and the compression. The
                // local queue: fetching stops past 50,000 messages or 8 MiB (librdkafka's
                // defaults: 100,000 and 64 MiB). A fetch response: 1 MiB in all (default:
                // 1 MiB per partition, up to 50 MiB), because a response is held
                // decompressed, with an op per message, until consumed, and logs
                // compress well: 3 M events on 32 partitions held 0.9 GiB peak at the
                // defaults, 224 MiB with this (docs/kafka.md, "Memory"). A partition whose
                // queue was full looks again after 20 ms, not librdkafka's 1 s: with
                // smaller responses the member otherwise sat idle for most of that second
                // (190 k events/s instead of 345 to 444 k).
                .set("queued.max.messages.kbytes", "8192")
                .set("queued.min.messages", "50000")
                .set("fetch.max.bytes", "1048576")
                .set("fetch.queue.backoff.ms", "20")
                .set("fetch.wait.max.ms", "100")
                .create_with_context(Callbacks {
                    shared: Arc::clone(&shared),
                })
                .map_err(|e| format!("kafka input {}: {e}", spec.brokers))?;
            let topics: Vec<&str> = spec.topics.iter().map(String::as_str).collect();
            consumer
                .subscribe(&topics)
                .map_err(|e| format!("kafka input: cannot subscribe to {topics:?}: {e}"))?;
            let consumer = Arc::new(consumer);
            let (c, s, halt) = (
                Arc::clone(&consumer),
                Arc::clone(&shared),
                Arc::clone(&stop),
            );
            threads.push(
                std::thread::Builder::new()
                    .name("logship-kafka-commit".into())
                    .spawn(move || commit_loop(&c, &s, &halt))
                    .map_err(|e| format!("cannot start the kafka committer: {e}"))?,
            );
            let halt = Arc::clone(&stop);
            let all_stopped = all_stopped.clone();
            threads.push(
                std::thread::Builder::new()
                    .name("logship-kafka".into())
                    .spawn(move || {
                        consume(&consumer, &shared, &halt);
                        // What was pushed is settled (or spilled) by now as far as the
                        // bound allows: commit it before leaving the group (brokers that
                        // refuse us take no commit).
                        if !shared.refused.load(Ordering::Acquire) {
                            shared.commit_settled(&consumer, None);
                        } else if shared.counters.stopped_refused.load(Ordering::Acquire) == started
                        {
                            if let Some(tx) = all_stopped {
                                let _ = tx.send(());
                            }
                        }
                    })
                    .map_err(|e| format!("cannot start the kafka input: {e}"))?,
            );
            eprintln!(
                "logship: consuming kafka://{}/{} as group {}",
                spec.brokers,
                spec.topics.join(","),
                spec.group
            );
        }
        Ok(KafkaInputs {
            stop,
            threads,
            counters,
            started: specs.len(),
        })
    }

    /// Stops reading, commits what is settled, leaves the groups.
    pub(crate) fn stop(&mut self) {
        self.stop.store(true, Ordering::Release);
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }

    /// Messages pushed into the pipeline.
    pub(crate) fn received(&self) -> u64 {
        self.counters.received.load(Ordering::Acquire)
    }

    /// Inputs stopped because the brokers refused their credentials or certificate.
    pub(crate) fn refused(&self) -> u64 {
        self.counters.stopped_refused.load(Ordering::Acquire)
    }

    /// Whether inputs were started and every one stopped, refused by the brokers.
    pub(crate) fn all_refused(&self) -> bool {
        self.started > 0 && self.refused() == self.started as u64
    }

    /// The inputs' part of the summary line (empty without Kafka inputs).
    pub(crate) fn describe(&self) -> String {
        if self.started == 0 {
            return String::new();
        }
        let c = &self.counters;
        format!(
            ", kafka: {} messages, {} commits, {} pauses, {} consumer errors{}",
            self.received(),
            c.commits.load(Ordering::Acquire),
            c.pauses.load(Ordering::Acquire),
            c.errors.load(Ordering::Acquire),
            match c.stopped_refused.load(Ordering::Acquire) {
                0 => String::new(),
                n => format!(", {n} stopped: refused by the brokers"),
            }
        )
    }
}

/// Commits settled offsets every [`COMMIT_EVERY`] until `stop`.
fn commit_loop(consumer: &BaseConsumer<Callbacks>, shared: &Shared, stop: &AtomicBool) {
    let mut next = Instant::now() + COMMIT_EVERY;
    while !stop.load(Ordering::Acquire) && !shared.refused.load(Ordering::Acquire) {
        std::thread::sleep(Duration::from_millis(50));
        if Instant::now() >= next {
            shared.commit_settled(consumer, None);
            next = Instant::now() + COMMIT_EVERY;
        }
    }
}

/// What became of one push.
enum Pushed {
    /// In the pipeline (or held back by the user's own policy, counted there).
    Yes,
    /// The queue is full: hold the message and pause.
    Full,
    /// The pipeline closed.
    Closed,
}

/// Pushes one message and, once in, records its offset as pushed.
fn push(shared: &Shared, topic: &str, partition: i32, offset: i64, payload: &[u8]) -> Pushed {
    // The message is held (in librdkafka's buffer or the backlog), so a record the full
    // queue hands back is not kept: it is made again from the message.
    match shared
        .logship
        .offer(record(payload), Duration::from_millis(50))
    {
        // Shut down: handed back, and the message stays uncommitted (read again).
        Err(Offered::Closed(_)) => Pushed::Closed,
        Err(Offered::Full(_)) => {
            shared.counters.refused.fetch_add(1, Ordering::Relaxed);
            Pushed::Full
        }
        Ok(()) | Err(_) => {
            shared.counters.received.fetch_add(1, Ordering::Relaxed);
            let mut pushed = shared.pushed.lock().unwrap_or_else(|e| e.into_inner());
            match pushed.get_mut(topic) {
                Some(partitions) => {
                    partitions.insert(partition, offset + 1);
                }
                None => {
                    pushed.insert(topic.to_owned(), HashMap::from([(partition, offset + 1)]));
                }
            }
            Pushed::Yes
        }
    }
}

/// Pauses every assigned partition (once until resumed): backpressure that keeps serving
/// the group.
fn pause(
    consumer: &BaseConsumer<Callbacks>,
    shared: &Shared,
    paused: &mut Option<TopicPartitionList>,
) {
    if paused.is_none() {
        if let Ok(assigned) = consumer.assignment() {
            if consumer.pause(&assigned).is_ok() {
                shared.counters.pauses.fetch_add(1, Ordering::Relaxed);
                *paused = Some(assigned);
            }
        }
    }
}

/// Reads and pushes until `stop`. A message is pushed straight from librdkafka's buffer;
/// only while the queue is full is it copied into the backlog (which goes first, in order).
fn consume(consumer: &BaseConsumer<Callbacks>, shared: &Shared, stop: &AtomicBool) {
    let mut backlog: VecDeque<Held> = VecDeque::new();
    let mut paused: Option<TopicPartitionList> = None;
    while !stop.load(Ordering::Acquire) {
        if shared.refused.load(Ordering::Acquire) {
            // Said once by the error callback. Messages held stay uncommitted: the next
            // start (with the fix) reads them again.
            return;
        }
        // Messages already read go first, in order.
        while let Some(held) = backlog.front() {
            match push(
                shared,
                &held.topic,
                held.partition,
                held.offset,
                &held.payload,
            ) {
                Pushed::Closed => return,
                Pushed::Full => {
                    pause(consumer, shared, &mut paused);
                    break;
                }
                Pushed::Yes => {
                    backlog.pop_front();
                }
            }
            if stop.load(Ordering::Acquire) {
                return;
            }
        }
        if backlog.is_empty() {
            if let Some(assigned) = paused.take() {
                let _ = consumer.resume(&assigned);
            }
        }
        let wait = if backlog.is_empty() { 100 } else { 0 };
        match consumer.poll(Duration::from_millis(wait)) {
            Some(Ok(m)) => {
                let payload = m.payload().unwrap_or_default();
                let direct = backlog.is_empty();
                let outcome = if direct {
                    push(shared, m.topic(), m.partition(), m.offset(), payload)
                } else {
                    Pushed::Full
                };
                match outcome {
                    Pushed::Yes => {}
                    Pushed::Closed => return,
                    Pushed::Full => {
                        if direct {
                            pause(consumer, shared, &mut paused);
                        }
                        backlog.push_back(Held {
                            topic: m.topic().to_owned(),
                            partition: m.partition(),
                            offset: m.offset(),
                            payload: payload.to_vec(),
                        });
                    }
                }
            }
            Some(Err(e)) => shared.error(&e, ""),
            None => {}
        }
        // Messages of partitions given up are read again by their next owner.
        if shared.has_revoked.swap(false, Ordering::AcqRel) {
            let mut revoked = shared.revoked.lock().unwrap_or_else(|e| e.into_inner());
            backlog.retain(|h| {
                !revoked
                    .iter()
                    .any(|(t, p)| *t == h.topic && *p == h.partition)
            });
            revoked.clear();
            paused = None; // a new assignment starts unpaused
        }
    }
}
