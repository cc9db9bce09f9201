//! The security of the `logship` command's Kafka inputs (`ship --listen kafka://...`):
//! SASL and TLS to the brokers it consumes from, as rows of the key table (`[listen]`).
//!
//! Why it exists: a group draining a topic talks to the same secured brokers the output
//! produces to, so it takes the same choices (PLAIN, SCRAM-SHA-256/512, TLS with a CA file
//! and a client certificate). They are keys of their own (`listen.kafka_*`), not the
//! output's `username`/`tls_*`: those belong to the vendor the events are shipped to (an
//! HTTPS intake with its own CA). The library never consumes: it only carries these values
//! for the command, which checks them (files readable, a password from the environment or a
//! file, never the command line) and hands [`KafkaInputOptions::client_settings`] to its
//! consumer. Must never: show the password (redacted in every getter).

use std::path::PathBuf;

use crate::config::key::{Flag::*, Kind};
use crate::config::key_parts::*;
use crate::config::options::options;
use crate::config::value::quote;
use crate::support::secret::Secret;

use super::options::SASL_NAMES;

options! {
    /// SASL and TLS of the `logship` command's Kafka inputs: keys `listen.kafka_*` (the
    /// file's `[listen]` section, `--listen-kafka-*` flags, `LOGSHIP_LISTEN_KAFKA_*`
    /// variables; docs/kafka.md). The library never reads these.
    #[derive(Clone, PartialEq, Eq)]
    #[non_exhaustive]
    pub struct KafkaInputOptions {
        setters: kafka_input_setters,
        debug: generated,
        section: "listen",
        rows: [
            /// SASL to the brokers of the `kafka://` inputs: `none`, `plain`,
            /// `scram_sha_256` or `scram_sha_512` (any case, `-` for `_`), with
            /// `listen.kafka_username` and the password.
            sasl_mechanism: &'static str = SASL_NAMES[0] => {
                name: "listen.kafka_sasl_mechanism",
                kind: Kind::Choice(SASL_NAMES),
                flag: Value("--listen-kafka-sasl-mechanism"),
                default: "`none`",
                doc: "Kafka inputs: SASL `none`, `plain`, `scram_sha_256` or `scram_sha_512` (with listen.kafka_username and the password)",
                set: |c, v| c.sasl_mechanism = SASL_NAMES[v.choice()],
                get: |c| Some(quote(c.sasl_mechanism)),
            },
            /// The SASL user of the Kafka inputs.
            username: Option<String> = None => {
                name: "listen.kafka_username",
                kind: Kind::Str,
                flag: Value("--listen-kafka-username"),
                default: "none",
                doc: "Kafka inputs: the SASL user",
                set: |c, v| c.username = v.text(),
                get: |c| c.username.as_deref().map(quote),
            },
            /// The SASL password of the Kafka inputs. A secret: never shown; set it through
            /// `LOGSHIP_LISTEN_KAFKA_PASSWORD` or the config file (the command refuses it
            /// on its command line, where `/proc/PID/cmdline` shows it), or use
            /// `listen.kafka_password_file`.
            password: Option<Secret> = None => {
                name: "listen.kafka_password",
                kind: Kind::Secret,
                flag: Value("--listen-kafka-password"),
                default: "none",
                doc: "Kafka inputs: the SASL password (a secret: from LOGSHIP_LISTEN_KAFKA_PASSWORD or the file, never the command line)",
                set: |c, v| c.password = v.secret(),
                get: |c| redacted(&c.password),
            },
            /// A file holding the SASL password of the Kafka inputs (its whole text,
            /// trimmed), read at start-up. Not together with `listen.kafka_password`.
            password_file: Option<PathBuf> = None => {
                name: "listen.kafka_password_file",
                kind: Kind::Path,
                flag: Value("--listen-kafka-password-file"),
                default: "none",
                doc: "Kafka inputs: a file holding the SASL password (keeps it out of the command line and the environment)",
                set: |c, v| c.password_file = v.text().map(Into::into),
                get: |c| path(&c.password_file),
            },
            /// TLS to the brokers of the Kafka inputs (`SSL`, or `SASL_SSL` with a SASL
            /// mechanism), trusting `listen.kafka_tls_ca_file` (else the system's store).
            tls: bool = false => {
                name: "listen.kafka_tls",
                kind: Kind::Bool,
                flag: On("--listen-kafka-tls"),
                default: "`false`",
                doc: "Kafka inputs: TLS to the brokers",
                set: |c, v| c.tls = v.bool(),
                get: |c| Some(c.tls.to_string()),
            },
            /// The PEM CA bundle the Kafka inputs trust (with `listen.kafka_tls`).
            tls_ca_file: Option<PathBuf> = None => {
                name: "listen.kafka_tls_ca_file",
                kind: Kind::Path,
                flag: Value("--listen-kafka-tls-ca-file"),
                default: "none: the system trust store",
                doc: "Kafka inputs: PEM CA bundle trusted for the brokers' certificates",
                set: |c, v| c.tls_ca_file = v.text().map(Into::into),
                get: |c| path(&c.tls_ca_file),
            },
            /// A PEM client certificate the Kafka inputs present (with
            /// `listen.kafka_tls_client_key`).
            tls_client_cert: Option<PathBuf> = None => {
                name: "listen.kafka_tls_client_cert",
                kind: Kind::Path,
                flag: Value("--listen-kafka-tls-client-cert"),
                default: "none",
                doc: "Kafka inputs: PEM client certificate (with listen.kafka_tls_client_key)",
                set: |c, v| c.tls_client_cert = v.text().map(Into::into),
                get: |c| path(&c.tls_client_cert),
            },
            /// The PEM private key of `listen.kafka_tls_client_cert`. Its contents are a
            /// secret.
            tls_client_key: Option<PathBuf> = None => {
                name: "listen.kafka_tls_client_key",
                kind: Kind::Path,
                flag: Value("--listen-kafka-tls-client-key"),
                default: "none",
                doc: "Kafka inputs: PEM private key of listen.kafka_tls_client_cert",
                set: |c, v| c.tls_client_key = v.text().map(Into::into),
                get: |c| path(&c.tls_client_key),
            },
        ]
    }
}

impl KafkaInputOptions {
    /// librdkafka's security properties for these options, with `password` (this key's, or
    /// the file's, as the command resolved it). NOT API: public for the `logship` command's
    /// consumer only. Holds the password: never print the result.
    #[doc(hidden)]
    pub fn client_settings(&self, password: Option<&Secret>) -> Vec<(&'static str, String)> {
        super::security::Security {
            sasl: SASL_NAMES
                .iter()
                .position(|n| *n == self.sasl_mechanism)
                .unwrap_or(0),
            username: self.username.as_deref(),
            password,
            tls: self.tls,
            ca: self.tls_ca_file.as_ref(),
            cert: self.tls_client_cert.as_ref(),
            key: self.tls_client_key.as_ref(),
            verify: true,
        }
        .settings()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_name_the_protocol_mechanism_and_files() {
        let mut o = KafkaInputOptions {
            sasl_mechanism: "scram_sha_512",
            username: Some("u".into()),
            tls: true,
            tls_ca_file: Some("/ca.pem".into()),
            ..KafkaInputOptions::default()
        };
        let pw = Secret::new("pw");
        let s = o.client_settings(Some(&pw));
        let get =
            |s: &[(&str, String)], k: &str| s.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone());
        assert_eq!(get(&s, "security.protocol").as_deref(), Some("sasl_ssl"));
        assert_eq!(get(&s, "sasl.mechanism").as_deref(), Some("SCRAM-SHA-512"));
        assert_eq!(get(&s, "sasl.password").as_deref(), Some("pw"));
        assert_eq!(get(&s, "ssl.ca.location").as_deref(), Some("/ca.pem"));
        o.tls = false;
        o.sasl_mechanism = "none";
        let s = o.client_settings(None);
        assert_eq!(
            s,
            vec![("security.protocol", "plaintext".to_owned())],
            "nothing else without TLS or SASL"
        );
    }
}
