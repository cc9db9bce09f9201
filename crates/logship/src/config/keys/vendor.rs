//! The `vendor` key's choices: the intakes logship speaks, by name.
//!
//! Why it exists: the key table names every vendor once, here; what each vendor needs
//! (its key variable, its endpoint, its own rules and variables) is in its folder under
//! `vendors/`, which the registry (`vendors/mod.rs`) adds to [`Vendor`] as methods. This
//! module must never encode or send anything.

use crate::error::ConfigError;

/// Where and how batches are sent: the wire format of the intake.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Vendor {
    /// Newline-delimited JSON objects (`application/x-ndjson`) to any URL.
    #[default]
    Ndjson,
    /// One JSON array of objects (`application/json`) to any URL.
    JsonArray,
    /// Datadog Logs API v2 (`DD-API-KEY`; URL from `site`).
    Datadog,
    /// Splunk HTTP Event Collector (`Authorization: Splunk <token>`; `endpoint` required).
    Splunk,
    /// New Relic Log API (`Api-Key`; URL from `region`).
    NewRelic,
    /// Dynatrace Log ingest v2 (`Authorization: Api-Token <token>`; `endpoint` required).
    Dynatrace,
    /// Grafana Loki push API (`endpoint` required; optional tenant and basic auth).
    Loki,
    /// Elasticsearch / OpenSearch `_bulk` (`create` actions; basic auth, `ApiKey` or none;
    /// `endpoint` required).
    Elasticsearch,
    /// OpenTelemetry OTLP/HTTP logs (`/v1/logs` on a collector; `endpoint` required,
    /// encoding from [`crate::OtlpOptions`]).
    Otlp,
    /// Apache Kafka: one JSON message per event to a topic (`endpoint` =
    /// `kafka://host:port[,host:port]/topic`; needs the cargo feature `kafka`; options in
    /// [`crate::KafkaOptions`]).
    Kafka,
}

impl Vendor {
    /// The name used on the command line and in config files.
    pub fn name(self) -> &'static str {
        match self {
            Vendor::Ndjson => "ndjson",
            Vendor::JsonArray => "json",
            Vendor::Datadog => "datadog",
            Vendor::Splunk => "splunk",
            Vendor::NewRelic => "newrelic",
            Vendor::Dynatrace => "dynatrace",
            Vendor::Loki => "loki",
            Vendor::Elasticsearch => "elasticsearch",
            Vendor::Otlp => "otlp",
            Vendor::Kafka => "kafka",
        }
    }

    /// All vendors, for help texts and "did you mean" messages.
    pub const ALL: &'static [Vendor] = &[
        Vendor::Ndjson,
        Vendor::JsonArray,
        Vendor::Datadog,
        Vendor::Splunk,
        Vendor::NewRelic,
        Vendor::Dynatrace,
        Vendor::Loki,
        Vendor::Elasticsearch,
        Vendor::Otlp,
        Vendor::Kafka,
    ];
}

impl std::str::FromStr for Vendor {
    type Err = ConfigError;

    fn from_str(s: &str) -> Result<Vendor, ConfigError> {
        let lower = s.trim().to_ascii_lowercase();
        match lower.as_str() {
            "ndjson" | "jsonl" => Ok(Vendor::Ndjson),
            "json" | "json_array" | "json-array" => Ok(Vendor::JsonArray),
            "datadog" | "dd" => Ok(Vendor::Datadog),
            "splunk" | "splunk_hec" | "splunk-hec" | "hec" => Ok(Vendor::Splunk),
            "newrelic" | "new_relic" | "new-relic" | "nr" => Ok(Vendor::NewRelic),
            "dynatrace" | "dt" => Ok(Vendor::Dynatrace),
            "loki" | "grafana_loki" | "grafana-loki" => Ok(Vendor::Loki),
            "elasticsearch" | "elastic" | "es" | "opensearch" => Ok(Vendor::Elasticsearch),
            "otlp" | "opentelemetry" | "otel" => Ok(Vendor::Otlp),
            "kafka" => Ok(Vendor::Kafka),
            _ => Err(ConfigError::new(
                "vendor",
                s,
                format!(
                    "unknown vendor; choose one of: {}",
                    Vendor::ALL
                        .iter()
                        .map(|v| v.name())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )),
        }
    }
}
