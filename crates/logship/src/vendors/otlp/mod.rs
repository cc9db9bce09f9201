//! OpenTelemetry OTLP/HTTP logs (docs/wire-formats.md section 5).
//!
//! `POST <endpoint>/v1/logs` (the path is added to an endpoint without one) with one
//! `ExportLogsServiceRequest` per batch, as binary protobuf (`application/x-protobuf`, the
//! default) or in the OTLP JSON mapping (`application/json`), chosen by
//! [`crate::OtlpEncoding`]. The body holds one `ResourceLogs` (resource attributes
//! `service.name`, `host.name` and the tags), and one `ScopeLogs` per run of consecutive
//! records with the same target (the scope's name is the target). Each `LogRecord` has
//! `timeUnixNano` and `observedTimeUnixNano` (the record's time: logship observes the
//! event when it is logged), `severityNumber` and `severityText` from the level, the
//! message as a string body, and the event's fields as typed attributes (named as
//! `span_fields` says, each key once: see `super::fields`). A field named
//! `trace_id` (32 hex digits) or `span_id` (16 hex digits), on the event or on one of its
//! spans, becomes the record's trace or span id instead of an attribute.
//!
//! Streaming: the batcher appends records one by one and needs the body's exact size at
//! every step. Both encodings therefore write a fixed prefix in `open`, let `push` know
//! the previous record of the batch (to continue its scope or start a new one), and keep
//! `close` to a known size: 6 bytes of brackets in JSON; nothing in protobuf, where the
//! lengths of the enclosing `ResourceLogs` and of each `ScopeLogs` are written as
//! five-byte (padded) varints and patched in place by `close` (see [`protobuf`]).
//!
//! Responses: 2xx delivered, unless a `partialSuccess` names rejected records, which are
//! then counted as failed and never resent; 429, 502, 503 and 504 retried (the spec's
//! retryable set: 500 is not retryable in OTLP); 413 is not retryable either, so the
//! batch is split into smaller requests; everything else is permanent.

pub(crate) mod env;
pub(crate) mod facts;
pub(crate) mod options;

mod json_mapping;
mod model;
mod protobuf;

use crate::capture::record::Record;
use crate::config::Config;
use crate::vendors::answer::{self, Outcome, Rule};
use crate::vendors::context::Context;
use crate::vendors::fields::{id_name, ErrorNames, Naming, Style};
use crate::vendors::limits::Limits;
use crate::vendors::protocol::{Protocol, JSON};
use model::UID_NAME;
use options::OtlpEncoding;

/// The standard path, appended to an `endpoint` given without one.
const PATH: &str = "/v1/logs";
/// OTLP itself sets no limits; 20 MiB is the OpenTelemetry Collector's default
/// `max_request_body_size` for its HTTP receivers (UNCONFIRMED in docs/wire-formats.md: the
/// configured `max_batch_bytes` is normally far below it anyway).
const LIMITS: Limits = Limits {
    max_records: usize::MAX,
    max_body_bytes: 20 * 1024 * 1024,
    max_event_bytes: 20 * 1024 * 1024,
    max_wire_bytes: None,
};
/// Section 5.3: 2xx delivered (see [`classify`] for `partialSuccess`); 429, 502, 503,
/// 504 retried; 413 split (not retryable as sent); everything else, 500 included,
/// permanent.
const RESPONSES: &[Rule] = &[
    Rule::range(200, 299, Outcome::Delivered),
    Rule::one(413, Outcome::TooLarge),
    Rule::one(429, Outcome::Retry),
    Rule::range(502, 504, Outcome::Retry),
];

/// What a response means; a 2xx with a `partialSuccess` that rejected records is
/// [`Outcome::PartialRejected`]. `body` is the raw response body, in the encoding of the
/// request.
fn classify(status: u16, body: &[u8], encoding: OtlpEncoding) -> Outcome {
    let outcome = answer::by_table(RESPONSES, status);
    if outcome != Outcome::Delivered {
        return outcome;
    }
    let rejected = match encoding {
        OtlpEncoding::Protobuf => protobuf::rejected_log_records(body),
        OtlpEncoding::Json => json_mapping::rejected_log_records(body),
    };
    match rejected {
        // A count that is not one (negative, overflowing, garbled) proves nothing was
        // stored: a failure to retry, never "delivered".
        Some(n) if n < 0 => Outcome::Retry,
        Some(n) if n > 0 => Outcome::PartialRejected(usize::try_from(n).unwrap_or(usize::MAX)),
        _ => Outcome::Delivered,
    }
}

/// The text of an error answer in protobuf (`google.rpc.Status`), for the report;
/// `None` for JSON answers and bodies that are not one.
fn error_text(status: u16, body: &[u8], encoding: OtlpEncoding) -> Option<String> {
    match encoding {
        OtlpEncoding::Protobuf if !(200..=299).contains(&status) => protobuf::status_message(body),
        _ => None,
    }
}

/// The resource attributes of every request: `service.name`, `host.name`, the tags,
/// `deployment.environment.name` and `service.version`.
fn resource_attributes(ctx: &Context) -> Vec<(String, String)> {
    let mut attrs = vec![
        (
            "service.name".to_owned(),
            ctx.service
                .clone()
                .unwrap_or_else(|| "unknown_service".to_owned()),
        ),
        ("host.name".to_owned(), ctx.hostname.clone()),
    ];
    for tag in &ctx.tags {
        let (k, v) = tag.split_once(':').unwrap_or((tag.as_str(), "true"));
        let (k, v) = (k.trim(), v.trim());
        match attrs.iter_mut().find(|(key, _)| key == k) {
            Some(slot) => slot.1 = v.to_owned(),
            None => attrs.push((k.to_owned(), v.to_owned())),
        }
    }
    // `env` and `version` win over a tag of the same attribute name.
    for (k, v) in [
        ("deployment.environment.name", &ctx.env),
        ("service.version", &ctx.version),
    ] {
        let Some(v) = v else { continue };
        match attrs.iter_mut().find(|(key, _)| key == k) {
            Some(slot) => v.clone_into(&mut slot.1),
            None => attrs.push((k.to_owned(), v.clone())),
        }
    }
    attrs
}

/// Encodes batches in the configured encoding; the resource is encoded once.
#[derive(Debug)]
pub(crate) struct Encoder {
    encoding: OtlpEncoding,
    /// What `open` writes: the request up to the first scope.
    prefix: Vec<u8>,
    naming: Naming,
    /// Whether each record carries its id as `log.record.uid` (`event_id`).
    with_id: bool,
}

impl Encoder {
    pub(crate) fn new(ctx: &Context, config: &Config) -> Encoder {
        let encoding = config.otlp.encoding;
        let resource = resource_attributes(ctx);
        let prefix = match encoding {
            OtlpEncoding::Protobuf => protobuf::prefix(&resource),
            OtlpEncoding::Json => json_mapping::prefix(&resource),
        };
        Encoder {
            encoding,
            prefix,
            naming: Naming::new(
                ctx.span_fields,
                Style::Json,
                ErrorNames::OTEL
                    .all()
                    .into_iter()
                    .chain(id_name(ctx.event_id, UID_NAME)),
            ),
            with_id: ctx.event_id,
        }
    }

    fn content_type(&self) -> &'static str {
        match self.encoding {
            OtlpEncoding::Protobuf => "application/x-protobuf",
            OtlpEncoding::Json => JSON,
        }
    }

    fn encoding(&self) -> OtlpEncoding {
        self.encoding
    }

    fn open(&self, body: &mut Vec<u8>) {
        body.extend_from_slice(&self.prefix);
    }

    /// Appends `record`; `prev` is the batch's previous record (`None` for the first).
    fn push(&self, body: &mut Vec<u8>, record: &Record, prev: Option<&Record>) {
        let new_scope = prev.is_none_or(|p| p.target() != record.target());
        match self.encoding {
            OtlpEncoding::Protobuf => {
                protobuf::push(body, record, new_scope, &self.naming, self.with_id)
            }
            OtlpEncoding::Json => json_mapping::push(
                body,
                record,
                prev.is_none(),
                new_scope,
                &self.naming,
                self.with_id,
            ),
        }
    }

    fn close_len(&self) -> usize {
        match self.encoding {
            OtlpEncoding::Protobuf => 0,
            OtlpEncoding::Json => json_mapping::CLOSE_LEN,
        }
    }

    fn close(&self, body: &mut Vec<u8>) {
        let empty = body.len() <= self.prefix.len();
        match self.encoding {
            OtlpEncoding::Protobuf => protobuf::close(body, self.prefix.len()),
            OtlpEncoding::Json => json_mapping::close(body, empty),
        }
    }
}

impl Protocol for Encoder {
    fn path(&self) -> Option<&'static str> {
        Some(PATH)
    }
    fn limits(&self) -> Limits {
        LIMITS
    }
    fn content_type(&self) -> &'static str {
        Encoder::content_type(self)
    }
    fn open(&self, body: &mut Vec<u8>) {
        Encoder::open(self, body);
    }
    fn push(&self, body: &mut Vec<u8>, record: &Record, prev: Option<&Record>) {
        Encoder::push(self, body, record, prev);
    }
    fn close_len(&self) -> usize {
        Encoder::close_len(self)
    }
    fn close(&self, body: &mut Vec<u8>, _records: &[Record]) {
        Encoder::close(self, body);
    }
    /// The answer is in the request's encoding (protobuf or JSON), not always text.
    fn classify(&self, status: u16, body: &[u8]) -> Outcome {
        classify(status, body, self.encoding())
    }
    /// A protobuf `google.rpc.Status` answer's message.
    fn error_text(&self, status: u16, body: &[u8]) -> Option<String> {
        error_text(status, body, self.encoding())
    }
}

#[cfg(test)]
pub(super) mod tests;
