//! Apache Kafka output (vendor `kafka`, cargo feature `kafka`): one JSON message per event
//! to a topic, settled by the broker's delivery reports (docs/kafka.md).
//!
//! Why it exists: fleets put Kafka between their applications and the log vendors; logship
//! ships to a topic and (the CLI's `--from-kafka`) drains it as a consumer group. The
//! message is the generic JSON event object of the `ndjson` vendor (docs/vendors.md); its
//! headers carry `service` and `content-type: application/json`; its key is `kafka_key`'s.
//! The batcher cuts batches as for every vendor; the producer (`producer.rs`, through
//! `vendors::transport`) sends one message per event. An event bigger than
//! `kafka_max_message_bytes` is cut to fit by construction (counted `truncated`).
//! Must never: say delivered before the broker's report, or name Kafka outside this folder.

pub(crate) mod facts;
#[cfg(feature = "kafka-faults")]
pub(crate) mod faults;
pub(crate) mod input_options;
pub(crate) mod key;
pub(crate) mod options;
#[cfg(feature = "kafka")]
pub(crate) mod producer;
#[cfg(feature = "kafka")]
pub(crate) mod refusal;
pub(crate) mod security;
pub(crate) mod target;

use crate::capture::record::Record;
use crate::config::Config;
use crate::vendors::limits::Limits;
use crate::vendors::ndjson::write_object;
use crate::vendors::protocol::{Protocol, JSON};

/// Room kept in a message beside the event for the key, headers and record overhead.
const MESSAGE_ROOM: usize = 1024;

/// The Kafka message encoder: the generic event object, one per line of the batch body
/// (each line becomes one message).
#[derive(Debug)]
pub(crate) struct Encoder {
    with_id: bool,
    max_event_bytes: usize,
}

impl Encoder {
    /// The encoder for a validated configuration.
    pub(crate) fn new(config: &Config) -> Encoder {
        Encoder {
            with_id: config.event_id,
            max_event_bytes: config.kafka.max_message_bytes.saturating_sub(MESSAGE_ROOM),
        }
    }
}

impl Protocol for Encoder {
    fn limits(&self) -> Limits {
        Limits {
            max_event_bytes: self.max_event_bytes,
            ..Limits::NONE
        }
    }
    fn content_type(&self) -> &'static str {
        JSON
    }
    fn push(&self, body: &mut Vec<u8>, record: &Record, _prev: Option<&Record>) {
        write_object(body, record, self.with_id);
        body.push(b'\n');
    }
}

#[cfg(test)]
pub(super) mod tests {
    use crate::vendors::testutil::TestFacts;

    /// How these bodies look, for the tests that run over every vendor.
    pub(crate) const FACTS: TestFacts = TestFacts::plain("\"target\":");
}
