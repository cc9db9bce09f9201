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

use std::sync::atomic::{AtomicBool, Ordering};
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

/// One event's report, as the delivery callback writes it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Report {
    Pending,
    Done(Status),
}

/// The reports of one batch, filled in by the poll thread.
struct Batch {
    state: Mutex<BatchState>,
    done: Condvar,
}

struct BatchState {
    remaining: usize,
    reports: Vec<Report>,
    first_retry: Option<String>,
    first_rejected: Option<String>,
}

impl Batch {
    fn lock(&self) -> MutexGuard<'_, BatchState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn settle(&self, index: usize, status: Status, error: Option<String>) {
        let mut s = self.lock();
        if s.reports.get(index) != Some(&Report::Pending) {
            return;
        }
        s.reports[index] = Report::Done(status);
        s.remaining -= 1;
        match status {
            Status::Retry if s.first_retry.is_none() => s.first_retry = error,
            Status::Rejected | Status::TooLarge if s.first_rejected.is_none() => {
                s.first_rejected = error
            }
            _ => {}
        }
        if s.remaining == 0 {
            self.done.notify_all();
        }
    }
}

/// What travels with each message to its delivery report.
pub(crate) struct Slot {
    batch: Arc<Batch>,
    index: usize,
}

/// librdkafka's callbacks: delivery reports, errors and log lines (kept, never logged).
pub(crate) struct Callbacks {
    /// The brokers' refusal (credentials, certificate), once seen, as the error to show:
    /// every batch fails at once from then on.
    refused: Mutex<Option<String>>,
    has_refused: AtomicBool,
}

impl Callbacks {
    fn new() -> Callbacks {
        Callbacks {
            refused: Mutex::new(None),
            has_refused: AtomicBool::new(false),
        }
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
        let mut kept = self.refused.lock().unwrap_or_else(|e| e.into_inner());
        if kept.is_none() {
            *kept = Some(text);
        }
        self.has_refused.store(true, Ordering::Release);
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
            .create_with_context(Callbacks::new())
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

    /// The brokers' refusal seen (credentials, certificate), as the error to show.
    fn refusal(&self) -> Option<String> {
        let ctx = self.producer.context();
        if !ctx.has_refused.load(Ordering::Acquire) {
            return None;
        }
        ctx.refused
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
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
        // logship batches already (max_batch_records, linger_ms): a batch handed over is
        // sent at once, in librdkafka batches as large as ours.
        .set("linger.ms", "5")
        .set(
            "batch.num.messages",
            config.max_batch_records.clamp(1, 1_000_000).to_string(),
        )
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
        let batch = Arc::new(Batch {
            state: Mutex::new(BatchState {
                remaining: which.len(),
                reports: vec![Report::Pending; messages.len()],
                first_retry: None,
                first_rejected: None,
            }),
            done: Condvar::new(),
        });
        {
            // Indices not in `which` are not waited for.
            let mut s = batch.lock();
            let mut wanted = vec![false; messages.len()];
            for &i in which {
                wanted[i] = true;
            }
            for (i, w) in wanted.iter().enumerate() {
                if !w {
                    s.reports[i] = Report::Done(Status::Delivered);
                }
            }
        }
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
        let s = batch.lock();
        for (i, r) in s.reports.iter().enumerate() {
            sent.status[i] = match r {
                Report::Done(status) => *status,
                Report::Pending => Status::Retry,
            };
        }
        sent.retry_error = s.first_retry.clone();
        sent.rejected_error = s.first_rejected.clone();
        drop(s);
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
        while s.remaining > 0 {
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
