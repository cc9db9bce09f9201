//! Apache Kafka's options: the message key, acknowledgements, idempotence, compression, the
//! message size limit, the delivery timeout, TLS and SASL, as rows of the key table.
//!
//! Why it exists: the options only the `kafka` output reads travel together in one typed
//! group beside the producer that reads them. The brokers and the topic are the `endpoint`
//! (`kafka://host:port[,host:port]/topic`); the SASL user and password are `username` and
//! `password` (the password a secret: `LOGSHIP_PASSWORD` or a file, never shown); the CA and
//! client certificate are `tls_ca_file`, `tls_client_cert` and `tls_client_key`; batching
//! is the pipeline's own (`max_batch_records`, `linger_ms`). Must never build a message.

use crate::config::key::{Flag::*, Kind};
use crate::config::key_parts::*;
use crate::config::options::options;
use crate::config::value::quote;

/// The names of `kafka_acks`, in the order of [`ACKS`].
pub(crate) const ACKS_NAMES: &[&str] = &["all", "1", "0"];
/// librdkafka's `acks` value for each of [`ACKS_NAMES`].
pub(crate) const ACKS: [&str; 3] = ["all", "1", "0"];
/// The names of `kafka_compression` (librdkafka's `compression.codec` values).
pub(crate) const COMPRESSION_NAMES: &[&str] = &["zstd", "lz4", "gzip", "snappy", "none"];
/// The names of `kafka_sasl_mechanism`, in the order of [`SASL_MECHANISMS`].
pub(crate) const SASL_NAMES: &[&str] = &["none", "plain", "scram_sha_256", "scram_sha_512"];
/// librdkafka's `sasl.mechanism` for each of [`SASL_NAMES`] (none: no SASL).
pub(crate) const SASL_MECHANISMS: [&str; 4] = ["", "PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"];

options! {
    /// Options of the Apache Kafka output (`vendor = kafka`, feature `kafka`). Keys
    /// `kafka_key`, `kafka_acks`, `kafka_idempotence`, `kafka_compression`,
    /// `kafka_max_message_bytes`, `kafka_message_timeout_ms`, `kafka_tls`,
    /// `kafka_sasl_mechanism`. The brokers and topic are the `endpoint`.
    ///
    /// ```
    /// let kafka = logship::KafkaOptions::default().key("service").compression("lz4");
    /// let builder = logship::Logship::builder().kafka(kafka);
    /// assert_eq!(builder.config().kafka.key, "service");
    /// ```
    #[derive(Clone, PartialEq, Eq)]
    #[non_exhaustive]
    pub struct KafkaOptions {
        setters: kafka_setters,
        setters_on: "KafkaOptions",
        debug: generated,
        rows: [
            /// The message key: `none` (spread over the partitions), `service`, `host`,
            /// `level`, `target`, `field:NAME` (that field's value), or a template of
            /// them such as `{service}-{host}` or `{service}/{user_id}` (any other name in
            /// braces is a field; `{{` and `}}` for braces). An event missing a field the
            /// key names gets no key. Keys are cut at 256 bytes. Events with one key go to
            /// one partition, in order.
            key: String = "none".to_owned() => {
                name: "kafka_key",
                kind: Kind::Str,
                flag: Value("--kafka-key"),
                default: "`none`",
                doc: "Kafka message key: `none`, `service`, `host`, `level`, `target` or `field:NAME`",
                set: |c, v| c.key = v.text().unwrap_or_else(|| "none".to_owned()),
                get: |c| Some(quote(&c.key)),
                setter: fn key(key: impl Into<String>) |f| *f = key.into(),
            },
            /// Acknowledgements the leader waits for: `all` (every in-sync replica, the
            /// default, needed by the idempotent producer), `1` (the leader) or `0` (none:
            /// an event is then "delivered" once sent).
            acks: usize = 0 => {
                name: "kafka_acks",
                kind: Kind::Choice(ACKS_NAMES),
                flag: Value("--kafka-acks"),
                default: "`all`",
                doc: "Kafka acks: `all`, `1` or `0` (`1` and `0` need kafka_idempotence = false)",
                set: |c, v| c.acks = v.choice(),
                get: |c| Some(quote(ACKS_NAMES[c.acks])),
                setter: fn acks(acks: &str) |f| *f = ACKS_NAMES.iter().position(|n| *n == acks).unwrap_or(0),
            },
            /// The idempotent producer: no duplicate and no reordering from the producer's
            /// own retries. On by default.
            idempotence: bool = true => {
                name: "kafka_idempotence",
                kind: Kind::Bool,
                flag: Off("--no-kafka-idempotence"),
                default: "`true`",
                doc: "Kafka idempotent producer (no duplicates from its own retries)",
                set: |c, v| c.idempotence = v.bool(),
                get: |c| Some(c.idempotence.to_string()),
                setter: fn idempotence(on: bool) |f| *f = on,
            },
            /// Compression of message batches: `zstd` (the default), `lz4`, `gzip`,
            /// `snappy` or `none`.
            compression: String = "zstd".to_owned() => {
                name: "kafka_compression",
                kind: Kind::Choice(COMPRESSION_NAMES),
                flag: Value("--kafka-compression"),
                default: "`zstd`",
                doc: "Kafka compression: `zstd`, `lz4`, `gzip`, `snappy` or `none`",
                set: |c, v| c.compression = COMPRESSION_NAMES[v.choice()].to_owned(),
                get: |c| Some(quote(&c.compression)),
                setter: fn compression(codec: &str) |f| *f = codec.to_owned(),
            },
            /// The largest message produced, headers included: bigger events are cut to
            /// fit (and counted `truncated`). Keep it at or under the topic's
            /// `max.message.bytes` (broker default 1 MiB); a message the broker still
            /// refuses is dead-lettered and counted failed.
            max_message_bytes: usize = 1_000_000 => {
                name: "kafka_max_message_bytes",
                kind: int(4096, 100_000_000, BYTES),
                flag: Value("--kafka-max-message-bytes"),
                default: "1000000",
                doc: "Kafka: largest message (bigger events are cut to fit and counted)",
                set: |c, v| c.max_message_bytes = v.usize(),
                get: |c| Some(c.max_message_bytes.to_string()),
                setter: fn max_message_bytes(n: usize) |f| *f = n,
            },
            /// How long the producer keeps trying one message (librdkafka's
            /// `message.timeout.ms`) before its delivery report says it failed; logship
            /// then retries the batch (`max_retries`) and spills what is left.
            message_timeout_ms: u64 = 30_000 => {
                name: "kafka_message_timeout_ms",
                kind: int(1000, 3_600_000, MS),
                flag: Value("--kafka-message-timeout-ms"),
                default: "30000",
                doc: "Kafka: time one message may take before its delivery counts as failed",
                set: |c, v| c.message_timeout_ms = v.int(),
                get: |c| Some(c.message_timeout_ms.to_string()),
                setter: fn message_timeout_ms(ms: u64) |f| *f = ms,
            },
            /// TLS to the brokers (`SSL`, or `SASL_SSL` with a SASL mechanism), trusting
            /// `tls_ca_file` (else the system's store), presenting `tls_client_cert` and
            /// `tls_client_key` when set.
            tls: bool = false => {
                name: "kafka_tls",
                kind: Kind::Bool,
                flag: On("--kafka-tls"),
                default: "`false`",
                doc: "Kafka: TLS to the brokers (CA and client certificate from the tls_* keys)",
                set: |c, v| c.tls = v.bool(),
                get: |c| Some(c.tls.to_string()),
                setter: fn tls(on: bool) |f| *f = on,
            },
            /// SASL: `none`, `plain`, `scram_sha_256` or `scram_sha_512` (any case, `-` for `_`), with `username`
            /// and `password` (a secret: set it through `LOGSHIP_PASSWORD` or a file).
            sasl_mechanism: usize = 0 => {
                name: "kafka_sasl_mechanism",
                kind: Kind::Choice(SASL_NAMES),
                flag: Value("--kafka-sasl-mechanism"),
                default: "`none`",
                doc: "Kafka SASL: `none`, `plain`, `scram_sha_256` or `scram_sha_512` (any case, `-` for `_`) (username, password)",
                set: |c, v| c.sasl_mechanism = v.choice(),
                get: |c| Some(quote(SASL_NAMES[c.sasl_mechanism])),
                setter: fn sasl_mechanism(name: &str) |f| *f = SASL_NAMES.iter().position(|n| n.eq_ignore_ascii_case(&name.replace('-', "_"))).unwrap_or(0),
            },
        ]
    }
}

impl KafkaOptions {
    kafka_setters!();
}
