//! The Kafka producer: one librdkafka producer per pipeline, one message per event, each
//! event settled by its own delivery report.
//!
//! Why it exists: an event is "delivered" only when the broker acknowledged it (acks =
//! all by default), never when librdkafka merely queued it (Fluent Bit's loss). A sender
//! hands a batch's messages over and waits for every report of that batch; each report
//! says delivered, retry (timed out, broker gone, topic unknown: logship's own retries and
//! spill follow) or rejected (too large, invalid: dead-lettered). Enqueueing waits while
//! librdkafka's queue is full (backpressure, never a drop). librdkafka's own log lines and
//! errors never go through `log` or `tracing` (no feedback loop): the brokers' refusal (an
//! authentication failure, or a certificate that does not verify: `refusal.rs`) is kept
//! here and fails the batches at once, with one clear error, instead of a loop of retries.
//! A fatal error of the idempotent producer (an out-of-order sequence, a fenced producer
//! id: librdkafka then refuses every message) fails what the batch in flight did not
//! deliver to be retried (or spilled), and the producer is rebuilt (a new producer id),
//! counted `client_rebuilds` and said once per rebuild. The poll thread is logship's own.
//! Must never: settle an event before its report, or block past the message timeout (plus
//! a margin) or the shutdown deadline.

use std::sync::atomic::{AtomicBool, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use rdkafka::client::ClientContext;
use rdkafka::config::{ClientConfig, RDKafkaLogLevel};
use rdkafka::error::{KafkaError, RDKafkaErrorCode};
use rdkafka::message::{Header, OwnedHeaders};
use rdkafka::producer::{BaseProducer, BaseRecord, DeliveryResult, Producer as _, ProducerContext};

use super::key::{KeySource, Keyer};
use super::options::ACKS;
use super::refusal::{kafka_refusal, KafkaRefusal};
use super::target::Target;
use crate::capture::record::Record;
use crate::config::Config;
use crate::error::ConfigError;
use crate::support::sync::Signal;
use crate::vendors::context::Context;
use crate::vendors::transport::{Sent, Status};

/// Time a batch waits for its reports beyond the message timeout before the rest count as
/// to be retried (librdkafka reports every message by then; this only bounds a bug).
const REPORT_MARGIN: Duration = Duration::from_secs(10);

/// An event's report not in yet (the other values are [`code`]s of a [`Status`]).
const PENDING: u8 = 0;

/// A [`Status`] as stored in a batch's reports.
fn code(status: Status) -> u8 {
    match status {
        Status::Delivered => 1,
        Status::Retry => 2,
        Status::Rejected => 3,
        Status::TooLarge => 4,
    }
}

/// The [`Status`] of a stored report (a pending one counts as to be retried).
fn status(code: u8) -> Status {
    match code {
        1 => Status::Delivered,
        3 => Status::Rejected,
        4 => Status::TooLarge,
        _ => Status::Retry,
    }
}

/// The reports of one batch, filled in by the poll thread. A report is one atomic store
/// (no lock per event: the poll thread settles hundreds of thousands a second); only
/// errors and the last report take the lock.
struct Batch {
    reports: Vec<AtomicU8>,
    remaining: AtomicUsize,
    errors: Mutex<Errors>,
    done: Condvar,
}

/// The first error text of each kind in a batch.
#[derive(Default)]
struct Errors {
    first_retry: Option<String>,
    first_rejected: Option<String>,
}

impl Batch {
    /// A batch of `n` events, of which only those in `which` are waited for.
    fn new(n: usize, which: &[usize]) -> Batch {
        let reports: Vec<AtomicU8> = (0..n)
            .map(|_| AtomicU8::new(code(Status::Delivered)))
            .collect();
        for &i in which {
            reports[i].store(PENDING, Ordering::Relaxed);
        }
        Batch {
            reports,
            remaining: AtomicUsize::new(which.len()),
            errors: Mutex::new(Errors::default()),
            done: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Errors> {
        self.errors.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn settle(&self, index: usize, status: Status, error: Option<String>) {
        let Some(report) = self.reports.get(index) else {
            return;
        };
        if report
            .compare_exchange(PENDING, code(status), Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return;
        }
        if status != Status::Delivered {
            let mut e = self.lock();
            match status {
                Status::Retry if e.first_retry.is_none() => e.first_retry = error,
                Status::Rejected | Status::TooLarge if e.first_rejected.is_none() => {
                    e.first_rejected = error
                }
                _ => {}
            }
        }
        if self.remaining.fetch_sub(1, Ordering::AcqRel) == 1 {
            // Under the lock: the waiter checks `remaining` under it before it sleeps.
            let _e = self.lock();
            self.done.notify_all();
        }
    }
}

/// What travels with each message to its delivery report.
pub(crate) struct Slot {
    batch: Arc<Batch>,
    index: usize,
}

/// How long the brokers' last refusal (credentials, certificate) stands: batches fail at
/// once meanwhile (no loop of failed logins). librdkafka reconnects on its own and each
/// failed login renews it; once the credentials or certificates are fixed, no new refusal
/// comes, and the next batch after this is sent again (no restart needed).
const REFUSAL_HOLD: Duration = Duration::from_secs(30);

/// librdkafka's callbacks: delivery reports, errors and log lines (kept, never logged).
pub(crate) struct Callbacks {
    /// The brokers' last refusal (credentials, certificate), as the error to show, and
    /// when it came: every batch fails at once until it is `hold` old.
    refused: Mutex<Option<(String, Instant)>>,
    has_refused: AtomicBool,
    hold: Duration,
}

impl Callbacks {
    fn new(hold: Duration) -> Callbacks {
        Callbacks {
            refused: Mutex::new(None),
            has_refused: AtomicBool::new(false),
            hold,
        }
    }

    /// The brokers' refusal, while it stands (cleared once `hold` old).
    fn refusal(&self) -> Option<String> {
        self.refusal_at(Instant::now())
    }

    /// [`Callbacks::refusal`] as of `now`.
    fn refusal_at(&self, now: Instant) -> Option<String> {
        if !self.has_refused.load(Ordering::Acquire) {
            return None;
        }
        let mut kept = self.refused.lock().unwrap_or_else(|e| e.into_inner());
        match &*kept {
            Some((text, at)) if now.saturating_duration_since(*at) < self.hold => {
                Some(text.clone())
            }
            _ => {
                *kept = None;
                self.has_refused.store(false, Ordering::Release);
                None
            }
        }
    }

    /// Keeps the refusal `text` (the first one's text, renewed in time by later ones).
    fn refuse(&self, text: String) {
        self.refuse_at(text, Instant::now());
    }

    /// [`Callbacks::refuse`] at `at`.
    fn refuse_at(&self, text: String, at: Instant) {
        let mut kept = self.refused.lock().unwrap_or_else(|e| e.into_inner());
        let text = kept.take().map_or(text, |(first, _)| first);
        *kept = Some((text, at));
        self.has_refused.store(true, Ordering::Release);
    }
}

impl ClientContext for Callbacks {
    fn log(&self, _level: RDKafkaLogLevel, _fac: &str, _line: &str) {
        // Never through `log`/`tracing` (a feedback loop); errors arrive in `error`.
    }

    fn error(&self, error: KafkaError, reason: &str) {
        // librdkafka's reason names the mechanism, the broker and OpenSSL's verdict, never
        // the password.
        let text = match kafka_refusal(&error, reason) {
            Some(KafkaRefusal::Credentials) => format!(
                "Kafka authentication failed ({reason}); check username, password and kafka_sasl_mechanism"
            ),
            Some(KafkaRefusal::Certificate) => format!(
                "Kafka TLS failed on a certificate ({reason}); check tls_ca_file (the CA that signed the brokers' certificates), tls_client_cert and tls_client_key"
            ),
            None => return,
        };
        self.refuse(text);
    }
}

impl ProducerContext for Callbacks {
    type DeliveryOpaque = Box<Slot>;

    fn delivery(&self, result: &DeliveryResult<'_>, slot: Box<Slot>) {
        match result {
            Ok(_) => slot.batch.settle(slot.index, Status::Delivered, None),
            Err((e, _)) => {
                let (status, text) = classify(e);
                slot.batch.settle(slot.index, status, Some(text));
            }
        }
    }
}

/// What a failed delivery (or enqueue) means: rejected for good, or to be retried.
fn classify(e: &KafkaError) -> (Status, String) {
    let code = e.rdkafka_error_code();
    let status = match code {
        Some(RDKafkaErrorCode::MessageSizeTooLarge)
        | Some(RDKafkaErrorCode::MessageBatchTooLarge) => Status::TooLarge,
        Some(RDKafkaErrorCode::InvalidMessageSize)
        | Some(RDKafkaErrorCode::InvalidMessage)
        | Some(RDKafkaErrorCode::InvalidRecord) => Status::Rejected,
        _ => Status::Retry,
    };
    let text = match code {
        Some(RDKafkaErrorCode::MessageSizeTooLarge) => {
            "the broker refused a message as too large (lower kafka_max_message_bytes to the topic's max.message.bytes)".to_owned()
        }
        Some(RDKafkaErrorCode::UnknownTopic) | Some(RDKafkaErrorCode::UnknownTopicOrPartition) => {
            "the topic does not exist on the brokers (create it, or fix the endpoint's topic); events are kept for retry and spill".to_owned()
        }
        Some(RDKafkaErrorCode::MessageTimedOut) => {
            "no broker acknowledged the message within kafka_message_timeout_ms (brokers down or unreachable)".to_owned()
        }
        Some(c) => format!("Kafka error: {c}"),
        None => format!("Kafka error: {e}"),
    };
    (status, text)
}

/// One librdkafka producer and its poll thread (stopped when the last user drops it).
struct Client {
    producer: Arc<BaseProducer<Callbacks>>,
    stop: Arc<AtomicBool>,
}

impl Client {
    /// A producer for `settings`, with its poll thread.
    fn start(settings: &ClientConfig) -> Result<Client, String> {
        // librdkafka names the property it refused; no secret is in its text.
        let producer: BaseProducer<Callbacks> = settings
            .create_with_context(Callbacks::new(REFUSAL_HOLD))
            .map_err(|e| format!("librdkafka refused the settings: {e}"))?;
        let producer = Arc::new(producer);
        let stop = Arc::new(AtomicBool::new(false));
        let (poller, stopped) = (Arc::clone(&producer), Arc::clone(&stop));
        crate::support::threads::spawn("logship-kafka-poll".into(), move || {
            while !stopped.load(Ordering::Acquire) {
                poller.poll(Duration::from_millis(100));
            }
        })
        .map_err(|e| format!("could not start its poll thread: {e}"))?;
        Ok(Client { producer, stop })
    }

    /// The fatal error this producer hit, if any (it refuses every message from then on).
    fn fatal(&self) -> Option<String> {
        self.producer
            .client()
            .fatal_error()
            .map(|(code, why)| format!("{code}: {why}"))
    }

    /// The brokers' refusal (credentials, certificate) while it stands, as the error to
    /// show.
    fn refusal(&self) -> Option<String> {
        self.producer.context().refusal()
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        // Every batch waited for its reports, so this only delivers what shutdown gave up
        // on (bounded), before the queue is purged with the producer.
        let _ = self.producer.flush(Duration::from_secs(2));
        self.stop.store(true, Ordering::Release);
    }
}

/// The producer of one pipeline.
pub(crate) struct Producer {
    /// librdkafka's settings, kept to rebuild the producer after a fatal error.
    settings: ClientConfig,
    /// The producer in use (replaced after a fatal error).
    current: Mutex<Arc<Client>>,
    topic: String,
    keyer: Keyer,
    service: Option<String>,
    timeout: Duration,
}

impl std::fmt::Debug for Producer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Producer")
            .field("topic", &self.topic)
            .finish()
    }
}

/// librdkafka's configuration for `config` (secrets included: never shown).
fn client_config(config: &Config, target: &Target) -> ClientConfig {
    let k = &config.kafka;
    let mut c = ClientConfig::new();
    c.set("bootstrap.servers", &target.brokers)
        .set("client.id", "logship")
        .set("acks", ACKS[k.acks])
        .set(
            "enable.idempotence",
            if k.idempotence { "true" } else { "false" },
        )
        .set("compression.codec", &k.compression)
        .set("message.max.bytes", k.max_message_bytes.to_string())
        // A broker checks its limit against a whole batch of messages: batches stay
        // within it by construction.
        .set("batch.size", k.max_message_bytes.to_string())
        .set("message.timeout.ms", k.message_timeout_ms.to_string())
        // logship batches already (max_batch_records, linger_ms): a batch handed over
        // waits at most librdkafka's usual 5 ms (less when linger_ms is less) for the
        // batches of the other senders, so that one produce request carries them all.
        .set("linger.ms", linger_ms(config).to_string())
        .set("batch.num.messages", batch_messages(config).to_string())
        .set("queue.buffering.max.messages", "1000000")
        .set("queue.buffering.max.kbytes", "262144")
        // A topic the brokers do not know fails its messages (UnknownTopic, named in the
        // error) after this, rather than at the message timeout.
        .set("topic.metadata.propagation.max.ms", "5000")
        .set("socket.connection.setup.timeout.ms", "10000")
        .set("log.connection.close", "false");
    let security = super::security::Security {
        sasl: k.sasl_mechanism,
        username: config.username.as_deref(),
        password: config.password.as_ref(),
        tls: k.tls,
        ca: config.tls_ca_file.as_ref(),
        cert: config.tls_client_cert.as_ref(),
        key: config.tls_client_key.as_ref(),
        verify: config.tls_verify,
    };
    for (name, value) in security.settings() {
        c.set(name, value);
    }
    c
}

/// librdkafka's `linger.ms`: its usual 5 ms, or `linger_ms` when that is shorter.
fn linger_ms(config: &Config) -> u128 {
    config.linger.as_millis().min(5)
}

/// librdkafka's `batch.num.messages` (messages per partition in one produce request):
/// room for every batch the senders can have in flight (`max_batch_records` times
/// `max_in_flight`), at least librdkafka's default of 10,000. A produce request costs the
/// broker far more than a message in it: one request per logship batch of 200 kept the
/// broker busier than logship itself (docs/performance.md, "Kafka").
fn batch_messages(config: &Config) -> usize {
    config
        .max_batch_records
        .saturating_mul(config.max_in_flight)
        .clamp(10_000, 1_000_000)
}

impl Producer {
    /// The producer of a validated configuration (vendor `kafka`); starts its poll thread.
    pub(crate) fn new(config: &Config, ctx: &Context) -> Result<Producer, ConfigError> {
        let endpoint = config.endpoint.as_deref().unwrap_or_default();
        let target = Target::parse(endpoint)?;
        let keyer = Keyer::new(KeySource::parse(&config.kafka.key)?, ctx);
        let settings = client_config(config, &target);
        let client = Client::start(&settings).map_err(|why| {
            ConfigError::new("kafka", "(producer)", why)
                .fix("check the kafka_* keys, tls_* files and kafka_sasl_mechanism")
        })?;
        Ok(Producer {
            settings,
            current: Mutex::new(Arc::new(client)),
            topic: target.topic,
            keyer,
            service: ctx.service.clone(),
            timeout: Duration::from_millis(config.kafka.message_timeout_ms),
        })
    }

    /// The producer in use.
    fn client(&self) -> Arc<Client> {
        Arc::clone(&self.current.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Replaces `failed` (which hit a fatal error) by a new producer, unless another
    /// sender did already. True when this call rebuilt it.
    fn rebuild(&self, failed: &Arc<Client>) -> Result<bool, String> {
        let mut current = self.current.lock().unwrap_or_else(|e| e.into_inner());
        if !Arc::ptr_eq(&current, failed) {
            return Ok(false);
        }
        *current = Arc::new(Client::start(&self.settings)?);
        Ok(true)
    }

    /// Produces `messages[i]` (the encoded `records[i]`) for each `i` of `which`, and waits
    /// for their reports. Gives up waiting when `abort` is raised (those stay `Retry`,
    /// counted by the caller as not sent).
    pub(crate) fn send(
        &self,
        records: &[Record],
        messages: &[&[u8]],
        which: &[usize],
        abort: &Signal,
    ) -> Sent {
        let mut sent = Sent::new(messages.len());
        let client = self.client();
        if let Some(why) = client.refusal() {
            for &i in which {
                sent.status[i] = Status::Retry;
            }
            sent.fatal = Some(why);
            return sent;
        }
        let batch = Arc::new(Batch::new(messages.len(), which));
        let mut key = Vec::new();
        let headers = self.headers();
        for &i in which {
            let has_key = self.keyer.key(&records[i], &mut key);
            let slot = Box::new(Slot {
                batch: Arc::clone(&batch),
                index: i,
            });
            let mut record: BaseRecord<'_, [u8], [u8], Box<Slot>> =
                BaseRecord::with_opaque_to(&self.topic, slot)
                    .payload(messages[i])
                    .headers(headers.clone());
            if has_key {
                record = record.key(&key[..]);
            }
            loop {
                match client.producer.send(record) {
                    Ok(()) => break,
                    Err((e, back))
                        if e.rdkafka_error_code() == Some(RDKafkaErrorCode::QueueFull) =>
                    {
                        // Backpressure: wait for room (the poll thread drains reports).
                        if abort.sleep(Duration::from_millis(5)) {
                            batch.settle(i, Status::Retry, Some("shutdown".into()));
                            break;
                        }
                        record = back;
                    }
                    Err((e, _)) => {
                        let (status, text) = classify(&e);
                        batch.settle(i, status, Some(text));
                        break;
                    }
                }
            }
        }
        #[cfg(feature = "kafka-faults")]
        super::faults::before_wait(client.producer.client().native_client());
        self.wait(&client, &batch, abort);
        for (i, r) in batch.reports.iter().enumerate() {
            sent.status[i] = status(r.load(Ordering::Acquire));
        }
        let errors = batch.lock();
        sent.retry_error = errors.first_retry.clone();
        sent.rejected_error = errors.first_rejected.clone();
        drop(errors);
        if let Some(why) = client.refusal() {
            sent.fatal = Some(why);
        } else if let Some(why) = client.fatal() {
            // What it did not deliver is sent again (or spilled) through the new producer;
            // what it delivered stays delivered.
            for &i in which {
                if sent.status[i] != Status::Delivered {
                    sent.status[i] = Status::Retry;
                }
            }
            sent.retry_error = Some(match self.rebuild(&client) {
                Ok(true) => {
                    sent.rebuilt = true;
                    format!("the Kafka producer hit a fatal error ({why}); it was rebuilt")
                }
                // Another sender rebuilt it (and said so).
                Ok(false) => "the Kafka producer was replaced after a fatal error".to_owned(),
                Err(e) => format!(
                    "the Kafka producer hit a fatal error ({why}) and could not be rebuilt ({e})"
                ),
            });
        }
        sent
    }

    /// Waits until every report of `batch` is in, the deadline passed, shutdown gave up,
    /// the brokers refused us (credentials, certificate), or the producer hit a fatal error.
    fn wait(&self, client: &Client, batch: &Batch, abort: &Signal) {
        let deadline = Instant::now() + self.timeout + REPORT_MARGIN;
        let mut s = batch.lock();
        while batch.remaining.load(Ordering::Acquire) > 0 {
            let now = Instant::now();
            if now >= deadline
                || abort.is_raised()
                || client.refusal().is_some()
                || client.fatal().is_some()
            {
                return;
            }
            let step = (deadline - now).min(Duration::from_millis(100));
            s = batch
                .done
                .wait_timeout(s, step)
                .map(|(s, _)| s)
                .unwrap_or_else(|e| e.into_inner().0);
        }
    }

    /// The headers every message carries: the service and the content type.
    fn headers(&self) -> OwnedHeaders {
        let mut h = OwnedHeaders::new_with_capacity(2);
        if let Some(service) = &self.service {
            h = h.insert(Header {
                key: "service",
                value: Some(service.as_bytes()),
            });
        }
        h.insert(Header {
            key: "content-type",
            value: Some("application/json".as_bytes()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_stands_while_renewed_and_clears_once_the_brokers_stop_refusing() {
        let hold = Duration::from_secs(30);
        let c = Callbacks::new(hold);
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        assert_eq!(c.refusal_at(t0), None);
        c.refuse_at("wrong password".into(), t0);
        assert_eq!(c.refusal_at(at(29)).as_deref(), Some("wrong password"));
        // Renewed by the next failed login (librdkafka reconnects): it still stands after
        // the first one's hold ran out, with the first text.
        c.refuse_at("wrong password again".into(), at(20));
        assert_eq!(c.refusal_at(at(45)).as_deref(), Some("wrong password"));
        // No refusal since (credentials fixed): it clears, batches are sent again.
        assert_eq!(c.refusal_at(at(50)), None);
        assert!(!c.has_refused.load(Ordering::Acquire));
        assert_eq!(c.refusal_at(at(20)), None, "cleared for good");
        // A new refusal stands again, with its own text.
        c.refuse_at("certificate".into(), at(60));
        assert_eq!(c.refusal_at(at(61)).as_deref(), Some("certificate"));
    }
}
