//! `ship --listen kafka://brokers/topic?group=NAME`: consume topics as a member of a
//! consumer group and ship their events through the pipeline (docs/kafka.md).
//!
//! Why it exists: with Kafka between the applications and the vendors, a group of logship
//! instances drains the topic, and the group grows and shrinks by starting and stopping
//! instances. `spec` reads the URL; `security` holds the SASL and TLS settings; `consumer` is the member (at-least-once commits,
//! backpressure by pausing, commit before a revoke). Built with the cargo feature `kafka`;
//! without it a `kafka://` input is a usage error naming the fix. Must never: commit an
//! offset before its events are settled, or drop a message.

#[cfg(feature = "kafka")]
mod consumer;
pub(crate) mod security;
pub(crate) mod spec;

#[cfg(feature = "kafka")]
pub(crate) use consumer::KafkaInputs;

/// Without the `kafka` feature: no input can start (settings refuse `kafka://` first).
#[cfg(not(feature = "kafka"))]
pub(crate) struct KafkaInputs;

#[cfg(not(feature = "kafka"))]
impl KafkaInputs {
    pub(crate) fn start(
        specs: &[spec::KafkaSpec],
        _security: &security::Security,
        _logship: &logship::Logship,
        _all_stopped: Option<std::sync::mpsc::Sender<()>>,
    ) -> Result<KafkaInputs, String> {
        if specs.is_empty() {
            Ok(KafkaInputs)
        } else {
            Err("this logship was built without Kafka support (cargo feature `kafka`)".into())
        }
    }
    pub(crate) fn stop(&mut self) {}
    pub(crate) fn received(&self) -> u64 {
        0
    }
    pub(crate) fn refused(&self) -> u64 {
        0
    }
    pub(crate) fn all_refused(&self) -> bool {
        false
    }
    pub(crate) fn describe(&self) -> String {
        String::new()
    }
}
