//! What configuration needs to know about the Kafka output: no API key variable, the
//! endpoint's form (`kafka://host:port[,host:port]/topic`), and its part of `logship config
//! example`.
//!
//! Why it exists: these facts are the vendor's, so they live in its folder; the registry
//! (`vendors/mod.rs`) hands them to configuration. Must never hold a real secret.

/// The environment variable this vendor's own users set for the API key: none (SASL takes
/// `username` and `password`).
pub(crate) const API_KEY_ENV: Option<&str> = None;

/// An example endpoint for the error that says one is missing.
pub(crate) const ENDPOINT_EXAMPLE: Option<&str> = Some("kafka://127.0.0.1:9092/logs");

/// The endpoint's scheme.
pub(crate) const SCHEME: &str = "kafka";

/// This vendor's lines of `logship config example`.
pub(crate) fn write_example(out: &mut String) {
    out.push_str(
        "# The brokers (comma-separated) and the topic, as kafka://host:port[,host:port]/topic.\n",
    );
    out.push_str("endpoint = \"kafka://127.0.0.1:9092/logs\"\n");
    out.push_str(
        "# The message key: none, service, host, level, target, field:NAME or a template\n",
    );
    out.push_str("# such as {service}-{host} (other names in braces are fields).\n");
    out.push_str("kafka_key = \"none\"\n");
    out.push_str("kafka_acks = \"all\"\n");
    out.push_str("kafka_idempotence = true\n");
    out.push_str("kafka_compression = \"zstd\"\n");
    out.push_str("kafka_max_message_bytes = 1000000\n");
    out.push_str("kafka_message_timeout_ms = 30000\n");
    out.push_str("# SASL with username, and the password through LOGSHIP_PASSWORD or this file.\n");
    out.push_str("kafka_sasl_mechanism = \"none\"\n");
    out.push_str("kafka_tls = false\n");
}
