//! A local, hand-written HTTP/1.1 log intake for logship's tests and benchmarks, as a
//! library and as the `logship-intake` binary (`cargo run -p logship-intake -- --port N`;
//! it was `logship intake`). A test tool: the `logship` binary users install does not
//! carry it (its listener and demo share only the `logship-http` crate with it).
//!
//! logship batches log events and POSTs them (gzip, `Content-Length`,
//! keep-alive) to a log intake. To test that end to end without a vendor
//! account, [`Intake`] runs a real server on 127.0.0.1 (and only there) that:
//!
//! - records every request and accepted event ([`Intake::requests`],
//!   [`Intake::events`]) and counts traffic ([`Intake::stats`]);
//! - validates strictly and records every protocol mistake as a violation
//!   ([`Intake::violations`]) instead of silently tolerating it;
//! - misbehaves on demand: delay ([`Intake::set_delay`]), hold answers
//!   ([`Intake::pause`]), inject failures ([`Intake::fail_next`]);
//! - exposes the same knobs over HTTP under `/_intake/` for tests that run
//!   logship in a child process (see the `control` module docs).
//!
//! # The generic protocol
//! Any path outside `/_intake/` speaks logship's own format: `POST` with
//! `Content-Length` (a chunked body is a 411 violation), `Content-Encoding`
//! identity or gzip, `Content-Type: application/x-ndjson` (one JSON object per
//! line) or `application/json` (an array of objects, or one object). Success
//! is `200 {"accepted":N}`.
//!
//! # Vendor intakes
//! These paths (query string ignored) emulate a vendor's intake strictly,
//! answering its real statuses and bodies (facts from the project's
//! `docs/wire-formats.md`, sections 1–7 and 9):
//!
//! | Vendor | Path | Credential | Success |
//! |---|---|---|---|
//! | Datadog Logs v2 | `POST /api/v2/logs` | `DD-API-KEY` (missing 401, wrong 403) | `202 {}` |
//! | Splunk HEC | `POST /services/collector`, `/services/collector/event`, `/services/collector/event/1.0`; `GET /services/collector/health`; with [`AckMode`] on, `POST /services/collector/ack` | `Authorization: Splunk <token>` (401 code 2/3, 403 code 4) | `200 {"text":"Success","code":0}` (plus `"ackId":N` with ack on) |
//! | New Relic Logs | `POST /log/v1` | `Api-Key` (or `X-License-Key`, `License-Key`, `?Api-Key=`; 403) | `202 {"requestId":"…"}` |
//! | Dynatrace Logs v2 | `POST /api/v2/logs/ingest`, `POST /e/{env-id}/api/v2/logs/ingest` | `Authorization: Api-Token <token>` (401) | `204` (no body) |
//! | Grafana Loki push (JSON) | `POST /loki/api/v1/push` | none; with an API key, basic auth whose password is the key (401); optional `X-Scope-OrgID` | `204` (no body); violations `400` text |
//! | Elasticsearch / OpenSearch `_bulk` | `POST /_bulk`, `POST /{index}/_bulk` | `Authorization: ApiKey <key>` or `Basic` (the password is the key; 401) | `200 {"took":…,"errors":false,"items":[…]}` |
//! | OpenTelemetry OTLP/HTTP logs | `POST /v1/logs` (`application/x-protobuf` or `application/json`) | none | `200`, empty `ExportLogsServiceResponse` in the request's encoding |
//!
//! Each vendor's limits (entries, decoded bytes, New Relic's wire bytes,
//! timestamp units and windows, field types) are enforced; a breach gets the
//! vendor's error answer and is recorded as a violation, and the request's
//! events are not accepted. A Datadog entry over 1 MB and a New Relic
//! body in the "simple" format are accepted (as the vendors do) but still
//! recorded as violations. Accepted events are recorded as received: the
//! Datadog entry, the Splunk envelope, the Dynatrace record, each New
//! Relic log with its block's `common.attributes` added under `"common"`,
//! and each Loki entry as `{line, timestamp_ns, labels, metadata, stream,
//! tenant}`.
//! [`RequestRecord::vendor`] names the protocol that served each request.
//!
//! Credentials are checked against [`IntakeConfig::api_key`] (changeable
//! with [`Intake::set_api_key`]): `None` accepts any non-empty credential.
//! A refused credential is not a protocol violation, since tests provoke it
//! on purpose; it is counted in [`IntakeStats::auth_failures`]. Dynatrace's
//! partial-success `200` can be injected with [`Fault::json`].
//!
//! ```no_run
//! use logship_intake::{Intake, IntakeConfig};
//! use std::time::Duration;
//!
//! let intake = Intake::start(IntakeConfig::default())?;
//! let endpoint = intake.url("/logs");
//! // ... point logship at `endpoint` and log something ...
//! assert!(intake.wait_for_events(1, Duration::from_secs(5)));
//! assert!(intake.violations().is_empty());
//! # Ok::<(), std::io::Error>(())
//! ```

mod control;
pub mod external;
mod faults;
pub mod kafka_broker;
pub mod processes;
mod protocol;
mod server;
mod state;
mod wire;

pub use faults::{Fault, ItemFault};
pub use logship_http::tls::{IssuedCert, ThrowawayCa, TlsServer, TlsSetupError, Validity};
pub use protocol::splunk_ack::{AckMode, AckStats};
pub use protocol::DocumentCounts;
pub use server::{Intake, IntakeConfig, IDLE_TIMEOUT, MAX_BODY_BYTES};
pub use state::{IntakeStats, ObserverFn, ReceivedEvent, RequestRecord};
pub use wire::{ResetAt, WireFault, MAX_HOLD};

/// The hand-written HTTP/1.1 request parser and response writer, now in the
/// `logship-http` crate (which `logship ship --listen` shares without this crate);
/// re-exported here under their old paths.
pub mod http {
    pub use logship_http::{
        find_header, read_request, write_response, PartialHead, ReadError, Request, Response,
    };
}

/// HTTPS for the intake and throwaway CAs, now in `logship-http`'s `tls` module;
/// re-exported here under their old paths.
pub mod tls {
    pub use logship_http::tls::{IssuedCert, ThrowawayCa, TlsServer, TlsSetupError, Validity};
}

/// The vendors' answer bodies and small parsers, now in `logship_http::answers` (shared
/// with `logship ship --listen`'s vendor inputs and the demo's sink); re-exported here
/// under their old names. Never validation: the listener is lenient where this intake is
/// strict.
pub mod vendor_answers {
    pub use logship_http::answers::datadog::error_json as datadog_error;
    pub use logship_http::answers::loki::is_label_name as loki_label_name;
    pub use logship_http::answers::otlp::{
        Status as OtlpStatus, INVALID_ARGUMENT as OTLP_INVALID_ARGUMENT,
    };
    pub use logship_http::answers::splunk::{code as hec_code, hec_json, text as hec_text};
    pub use logship_http::answers::strip_scheme;
}
