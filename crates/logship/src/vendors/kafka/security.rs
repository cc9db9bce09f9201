//! How a Kafka client reaches secured brokers: librdkafka's security protocol, SASL and TLS
//! properties, from the output's keys or the command's `listen.kafka_*` keys.
//!
//! Why it exists: the producer and the command's consumer must speak to one broker the same
//! way, so the mapping from our keys to librdkafka's properties is written once. Must never:
//! print or log what it returns (it holds the password).

use std::path::PathBuf;

use crate::support::secret::Secret;

/// What librdkafka needs to reach secured brokers: the security protocol, SASL and TLS.
///
/// One source for the output's producer and the command's consumer, so both speak to a
/// broker the same way.
pub(crate) struct Security<'a> {
    /// Index into [`super::options::SASL_NAMES`] (0: no SASL).
    pub sasl: usize,
    /// The SASL user.
    pub username: Option<&'a str>,
    /// The SASL password.
    pub password: Option<&'a Secret>,
    /// TLS to the brokers.
    pub tls: bool,
    /// The CA bundle trusted (else the system's store).
    pub ca: Option<&'a PathBuf>,
    /// The client certificate presented.
    pub cert: Option<&'a PathBuf>,
    /// The client certificate's key.
    pub key: Option<&'a PathBuf>,
    /// Verify the brokers' certificates (`tls_verify`).
    pub verify: bool,
}

impl Security<'_> {
    /// librdkafka's properties for this security, in order. Holds the password: never
    /// print the result.
    pub(crate) fn settings(&self) -> Vec<(&'static str, String)> {
        let sasl = self.sasl != 0;
        let protocol = match (self.tls, sasl) {
            (false, false) => "plaintext",
            (true, false) => "ssl",
            (false, true) => "sasl_plaintext",
            (true, true) => "sasl_ssl",
        };
        let mut out = vec![("security.protocol", protocol.to_owned())];
        if sasl {
            out.push((
                "sasl.mechanism",
                super::options::SASL_MECHANISMS[self.sasl].to_owned(),
            ));
            if let Some(user) = self.username {
                out.push(("sasl.username", user.to_owned()));
            }
            if let Some(password) = self.password {
                out.push(("sasl.password", password.expose().to_owned()));
            }
        }
        if self.tls {
            let file = |p: &PathBuf| p.display().to_string();
            if let Some(ca) = self.ca {
                out.push(("ssl.ca.location", file(ca)));
            }
            if let Some(cert) = self.cert {
                out.push(("ssl.certificate.location", file(cert)));
            }
            if let Some(key) = self.key {
                out.push(("ssl.key.location", file(key)));
            }
            if !self.verify {
                out.push(("enable.ssl.certificate.verification", "false".to_owned()));
            }
        }
        out
    }
}
