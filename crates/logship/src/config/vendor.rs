//! The intakes logship speaks, by name, and the facts about each that configuration needs.
//!
//! Why it exists: choosing a vendor decides which options are required (an endpoint, an
//! API key) and what an error tells the user to set. Those facts live here, beside the
//! name, so that validation never has to ask the wire-format code, which
//! depends on configuration and not the other way round. This module must never encode
//! or send anything: it only names intakes and describes what they need.

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
    ];

    /// The environment variable this vendor's own users already set for the API key
    /// (`LOGSHIP_API_KEY` is also read, after it).
    pub fn api_key_env(self) -> Option<&'static str> {
        match self {
            Vendor::Ndjson | Vendor::JsonArray | Vendor::Loki | Vendor::Otlp => None,
            Vendor::Datadog => Some("DD_API_KEY"),
            Vendor::Splunk => Some("SPLUNK_HEC_TOKEN"),
            Vendor::NewRelic => Some("NEW_RELIC_LICENSE_KEY"),
            Vendor::Dynatrace => Some("DT_API_TOKEN"),
            // Optional: a cluster may take basic auth, an API key, or nothing.
            Vendor::Elasticsearch => None,
        }
    }

    /// True when the vendor has no default URL (the host is the customer's own).
    pub(crate) fn needs_endpoint(self) -> bool {
        match self {
            Vendor::Datadog | Vendor::NewRelic => false,
            Vendor::Ndjson
            | Vendor::JsonArray
            | Vendor::Splunk
            | Vendor::Dynatrace
            | Vendor::Loki
            | Vendor::Elasticsearch
            | Vendor::Otlp => true,
        }
    }

    /// An example endpoint, for the error that says one is missing.
    pub(crate) fn endpoint_example(self) -> String {
        let example = match self {
            Vendor::Splunk => "https://splunk.example.com:8088",
            Vendor::Dynatrace => "https://abc12345.live.dynatrace.com",
            Vendor::Loki => "http://loki:3100",
            Vendor::Elasticsearch => "http://es.example.internal:9200",
            Vendor::Otlp => "http://otel-collector:4318",
            Vendor::Ndjson | Vendor::JsonArray | Vendor::Datadog | Vendor::NewRelic => {
                "http://127.0.0.1:8080/logs"
            }
        };
        let also = if self == Vendor::Otlp {
            " or OTEL_EXPORTER_OTLP_ENDPOINT"
        } else {
            ""
        };
        format!(
            "set endpoint{also} to the intake's URL, e.g. {example} (vendor {})",
            self.name()
        )
    }
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
