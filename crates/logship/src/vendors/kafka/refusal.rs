//! Which of librdkafka's errors mean the brokers refuse us for good: wrong credentials, or a
//! certificate that does not verify (a wrong CA, a missing or untrusted client
//! certificate).
//!
//! Why it exists: librdkafka reconnects forever on every error, so a wrong password or a
//! wrong CA would otherwise be a loop of failed logins until each message times out
//! (PEERS.md 15). The producer and the command's consumer both stop at the first such error
//! and say once what to fix. Must never: call an error permanent that a retry can cure (a
//! broker restarting, a connection reset).

use rdkafka::error::{KafkaError, RDKafkaErrorCode};

/// Why the brokers refuse a client for good.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KafkaRefusal {
    /// SASL failed, or the user may not use the cluster or the topic.
    Credentials,
    /// The TLS handshake failed on a certificate: the brokers' does not verify against the
    /// CA trusted, or the brokers refused ours (missing, untrusted).
    Certificate,
}

/// The refusal `error` (with librdkafka's `reason` text) is, if it is one.
///
/// NOT API: public for the `logship` command's consumer only.
#[doc(hidden)]
pub fn kafka_refusal(error: &KafkaError, reason: &str) -> Option<KafkaRefusal> {
    match error.rdkafka_error_code()? {
        RDKafkaErrorCode::Authentication
        | RDKafkaErrorCode::SaslAuthenticationFailed
        | RDKafkaErrorCode::ClusterAuthorizationFailed
        | RDKafkaErrorCode::GroupAuthorizationFailed
        | RDKafkaErrorCode::TopicAuthorizationFailed => Some(KafkaRefusal::Credentials),
        // Only a certificate's failure: other TLS errors (a reset mid-handshake while a
        // broker restarts) are cured by reconnecting. Under TLS 1.3 the brokers' refusal
        // of our certificate arrives after the handshake, as a transport failure carrying
        // OpenSSL's alert ("tlsv13 alert certificate required").
        RDKafkaErrorCode::SSL if is_certificate_failure(reason) => Some(KafkaRefusal::Certificate),
        RDKafkaErrorCode::BrokerTransportFailure
            if reason.contains("SSL routines") && is_certificate_failure(reason) =>
        {
            Some(KafkaRefusal::Certificate)
        }
        _ => None,
    }
}

/// True when OpenSSL's text (as librdkafka passes it on) blames a certificate.
fn is_certificate_failure(reason: &str) -> bool {
    let r = reason.to_ascii_lowercase();
    ["certificate", "unknown ca", "handshake failure"]
        .iter()
        .any(|w| r.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_and_certificates_are_refusals_and_a_reset_is_not() {
        let e = |c| KafkaError::Global(c);
        assert_eq!(
            kafka_refusal(&e(RDKafkaErrorCode::Authentication), "SASL failed"),
            Some(KafkaRefusal::Credentials)
        );
        assert_eq!(
            kafka_refusal(
                &e(RDKafkaErrorCode::SSL),
                "SSL handshake failed: error:0A000086:SSL routines::certificate verify failed"
            ),
            Some(KafkaRefusal::Certificate)
        );
        assert_eq!(
            kafka_refusal(
                &e(RDKafkaErrorCode::SSL),
                "SSL transport error: Connection reset by peer"
            ),
            None
        );
        assert_eq!(
            kafka_refusal(
                &e(RDKafkaErrorCode::BrokerTransportFailure),
                "ssl://127.0.0.1:1/bootstrap: Receive failed: error:0A00045C:SSL routines::tlsv13 alert certificate required: SSL alert number 116"
            ),
            Some(KafkaRefusal::Certificate)
        );
        assert_eq!(
            kafka_refusal(
                &e(RDKafkaErrorCode::BrokerTransportFailure),
                "ssl://127.0.0.1:1/bootstrap: Disconnected (after 5ms in state UP)"
            ),
            None
        );
    }
}
