//! Intake protocols: how a request on a given path is authenticated,
//! decoded and validated, and what a successful answer looks like.
//!
//! Each supported intake dialect is one module with one entry in
//! [`Protocol`]: the [`generic`] one plus strict emulations of the
//! [`datadog`], [`splunk`] (HEC), [`newrelic`], [`dynatrace`] and
//! [`elasticsearch`] (`_bulk`) log intakes, the [`loki`] push API and
//! OpenTelemetry's [`otlp`]. The server routes a request with [`Protocol::route`]
//! and asks [`Protocol::handle`] for either the
//! accepted events plus the success response, or a [`Rejection`]: a protocol
//! violation (recorded for the test to see) or an authentication failure
//! (only counted, since tests provoke those on purpose). The shared helpers
//! below (body decoding, NDJSON / JSON parsing, credential and timestamp
//! checks) are reused by the vendor modules.
//!
//! A vendor module must answer exactly what the real intake answers (status
//! and body shape, from `docs/wire-formats.md`), never a made-up success.

pub(crate) mod count_only;
pub(crate) mod datadog;
mod documents;
pub(crate) mod dynatrace;
pub(crate) mod elasticsearch;
mod filter_path;
pub(crate) mod generic;
pub(crate) mod loki;
pub(crate) mod newrelic;
pub(crate) mod otlp;
pub(crate) mod shared;
pub(crate) mod splunk;
pub(crate) mod splunk_ack;
pub(crate) mod unique;

use logship_http::Request;

pub use documents::DocumentCounts;
pub(crate) use shared::{Accepted, Rejection, RejectionKind, Settings};

/// The intake dialects the server can speak, selected by request path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Protocol {
    /// logship's own format on any other path: see [`generic`].
    Generic,
    /// Datadog Logs API v2: see [`datadog`].
    Datadog,
    /// Splunk HTTP Event Collector: see [`splunk`].
    Splunk,
    /// New Relic Log API: see [`newrelic`].
    NewRelic,
    /// Dynatrace Log Monitoring API v2: see [`dynatrace`].
    Dynatrace,
    /// Grafana Loki push API: see [`loki`].
    Loki,
    /// Elasticsearch / OpenSearch `_bulk`: see [`elasticsearch`].
    Elasticsearch,
    /// OpenTelemetry OTLP/HTTP logs: see [`otlp`].
    Otlp,
}

impl Protocol {
    /// Chooses the protocol serving `path` (without query string; control
    /// paths are routed earlier).
    pub fn route(path: &str) -> Protocol {
        if datadog::serves(path) {
            Protocol::Datadog
        } else if splunk::serves(path) {
            Protocol::Splunk
        } else if newrelic::serves(path) {
            Protocol::NewRelic
        } else if dynatrace::serves(path) {
            Protocol::Dynatrace
        } else if loki::serves(path) {
            Protocol::Loki
        } else if elasticsearch::serves(path) {
            Protocol::Elasticsearch
        } else if otlp::serves(path) {
            Protocol::Otlp
        } else {
            Protocol::Generic
        }
    }

    /// The name recorded in `RequestRecord::vendor`.
    pub fn name(self) -> &'static str {
        match self {
            Protocol::Generic => "generic",
            Protocol::Datadog => "datadog",
            Protocol::Splunk => "splunk",
            Protocol::NewRelic => "newrelic",
            Protocol::Dynatrace => "dynatrace",
            Protocol::Loki => "loki",
            Protocol::Elasticsearch => "elasticsearch",
            Protocol::Otlp => "otlp",
        }
    }

    /// Validates and decodes `req` according to this protocol.
    pub fn handle(self, req: &Request, settings: &Settings) -> Result<Accepted, Rejection> {
        match self {
            Protocol::Generic => generic::handle(req),
            Protocol::Datadog => datadog::handle(req, settings),
            Protocol::Splunk => splunk::handle(req, settings),
            Protocol::NewRelic => newrelic::handle(req, settings),
            Protocol::Dynatrace => dynatrace::handle(req, settings),
            Protocol::Loki => loki::handle(req, settings),
            Protocol::Elasticsearch => elasticsearch::handle(req, settings),
            Protocol::Otlp => otlp::handle(req),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Protocol;

    #[test]
    fn routes_vendor_paths() {
        assert_eq!(Protocol::route("/api/v2/logs"), Protocol::Datadog);
        assert_eq!(Protocol::route("/services/collector"), Protocol::Splunk);
        assert_eq!(
            Protocol::route("/services/collector/event"),
            Protocol::Splunk
        );
        assert_eq!(
            Protocol::route("/services/collector/event/1.0"),
            Protocol::Splunk
        );
        assert_eq!(
            Protocol::route("/services/collector/health"),
            Protocol::Splunk
        );
        assert_eq!(Protocol::route("/log/v1"), Protocol::NewRelic);
        assert_eq!(Protocol::route("/api/v2/logs/ingest"), Protocol::Dynatrace);
        assert_eq!(
            Protocol::route("/e/abc123/api/v2/logs/ingest"),
            Protocol::Dynatrace
        );
        assert_eq!(Protocol::route("/e//api/v2/logs/ingest"), Protocol::Generic);
        assert_eq!(
            Protocol::route("/e/a/b/api/v2/logs/ingest"),
            Protocol::Generic
        );
        assert_eq!(Protocol::route("/api/v2/logs/"), Protocol::Generic);
        assert_eq!(
            Protocol::route("/services/collector/raw"),
            Protocol::Generic
        );
        assert_eq!(Protocol::route("/logs"), Protocol::Generic);
        assert_eq!(Protocol::route("/loki/api/v1/push"), Protocol::Loki);
        assert_eq!(Protocol::route("/loki/api/v1/push/"), Protocol::Generic);
        assert_eq!(Protocol::route("/v1/logs"), Protocol::Otlp);
        assert_eq!(Protocol::route("/v1/logs/"), Protocol::Generic);
    }
}
