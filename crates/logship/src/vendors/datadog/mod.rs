//! Datadog Logs API v2 (docs/wire-formats.md section 1).
//!
//! `POST https://http-intake.logs.<site>/api/v2/logs` with `DD-API-KEY`, a JSON array of
//! entries: `message`, `status` (Datadog status names), `timestamp` (epoch milliseconds),
//! `service`, `ddsource`, `ddtags` (one comma-separated string), `hostname`, `logger.name`,
//! and the event's fields as attributes.

pub(crate) mod env;
pub(crate) mod facts;
pub(crate) mod site;

use std::cell::Cell;

use crate::capture::record::{Level, Record, Value, SOURCE_HINT};
use crate::config::Config;
use crate::support::json;
use crate::support::secret::Secret;
use crate::vendors::answer::{Outcome, Rule};
use crate::vendors::context::Context;
use crate::vendors::fields::{
    id_name, millis, write_error, write_id, write_logger, write_opt, ErrorNames, Naming, Style,
    TraceIds, ID_NAME,
};
use crate::vendors::limits::Limits;
use crate::vendors::protocol::{Framing, Protocol};
use site::DATADOG_SITES;

/// The standard path, appended to an `endpoint` given without one.
pub(crate) const PATH: &str = "/api/v2/logs";
/// Section 1.4: 1000 entries, 5,000,000 bytes uncompressed per request (the strict reading
/// of "5MB"), 1 MB per entry.
pub(crate) const LIMITS: Limits = Limits {
    max_records: 1000,
    max_body_bytes: 5_000_000,
    max_event_bytes: 1_000_000,
    max_wire_bytes: None,
};
/// Section 1.5: 2xx delivered; 408, 429, 5xx retried; 413 split; other 4xx permanent.
pub(crate) const RESPONSES: &[Rule] = &[
    Rule::range(200, 299, Outcome::Delivered),
    Rule::one(408, Outcome::Retry),
    Rule::one(413, Outcome::TooLarge),
    Rule::one(429, Outcome::Retry),
    Rule::range(500, 599, Outcome::Retry),
];
/// Datadog's standard error attributes (Error Tracking reads them).
const ERRORS: ErrorNames = ErrorNames {
    kind: "error.kind",
    message: "error.message",
    stack: "error.stack",
};
/// Datadog's trace correlation attributes: decimal strings of the lower 64 bits of the
/// trace id and of the span id, as Datadog's tracers inject them.
const TRACE_ID: &str = "dd.trace_id";
/// See [`TRACE_ID`].
const SPAN_ID: &str = "dd.span_id";
const RESERVED: &[&str] = &[
    "message",
    "status",
    "timestamp",
    "service",
    "ddsource",
    "ddtags",
    "hostname",
    "host",
    "source",
    "date",
    "logger.name",
    TRACE_ID,
    SPAN_ID,
];

/// The intake URL for a site.
fn url(config: &Config) -> String {
    let site = config.site.as_deref().unwrap_or(DATADOG_SITES[0]);
    format!("https://http-intake.logs.{site}{PATH}")
}

/// Datadog status names (the status remapper maps `warning` and `warn` alike).
fn status(level: Level) -> &'static str {
    match level {
        Level::Trace | Level::Debug => "debug",
        Level::Info => "info",
        Level::Warn => "warning",
        Level::Error => "error",
    }
}

/// Encodes entries; the per-pipeline attributes are encoded once.
#[derive(Debug)]
pub(crate) struct Encoder {
    common: Vec<u8>,
    naming: Naming,
    /// Whether each event's id is written as `logship.id` (`event_id`).
    with_id: bool,
    /// `,"ddsource":"<source>"`: the configured source, or the default.
    source: Vec<u8>,
    /// Whether `source` was configured (then an event's source hint is not used).
    source_configured: bool,
}

impl Encoder {
    pub(crate) fn new(ctx: &Context) -> Encoder {
        let mut common = Vec::new();
        write_opt(&mut common, "service", ctx.service.as_deref());
        // `ddsource` is written per event (after the fields): an event's own source hint
        // stands in for the default when `source` is not configured.
        let mut source = Vec::new();
        write_opt(&mut source, "ddsource", Some(&ctx.source));
        write_opt(&mut common, "hostname", Some(&ctx.hostname));
        // Unified service tagging: `env` and `version` are tags, and the options win over
        // a tag of the same name (as DD_ENV/DD_VERSION do over DD_TAGS in Datadog's own
        // libraries).
        let own = [("env", &ctx.env), ("version", &ctx.version)];
        let key_of = |t: &str| t.split_once(':').map_or(t, |(k, _)| k).trim().to_owned();
        let mut tags: Vec<String> = ctx
            .tags
            .iter()
            .filter(|t| !own.iter().any(|(k, v)| v.is_some() && key_of(t) == *k))
            .cloned()
            .collect();
        for (k, v) in own {
            if let Some(v) = v {
                tags.push(format!("{k}:{v}"));
            }
        }
        if !tags.is_empty() {
            write_opt(&mut common, "ddtags", Some(&tags.join(",")));
        }
        Encoder {
            common,
            source,
            source_configured: ctx.source_configured,
            naming: Naming::new(
                ctx.span_fields,
                Style::Json,
                RESERVED
                    .iter()
                    .copied()
                    .chain(ERRORS.all())
                    .chain(id_name(ctx.event_id, ID_NAME)),
            ),
            with_id: ctx.event_id,
        }
    }

    fn push_entry(&self, body: &mut Vec<u8>, record: &Record, first: bool) {
        if !first {
            body.push(b',');
        }
        body.extend_from_slice(b"{\"message\":");
        json::string(body, record.message_str());
        body.extend_from_slice(b",\"status\":\"");
        body.extend_from_slice(status(record.level()).as_bytes());
        body.extend_from_slice(b"\",\"timestamp\":");
        json::unsigned(body, millis(record));
        write_logger(body, "logger.name", record);
        body.extend_from_slice(&self.common);
        write_id(body, ID_NAME, record, self.with_id);
        write_error(body, record, &ERRORS);
        TraceIds::of(record).write_decimal(body, TRACE_ID, SPAN_ID);
        let hint = Cell::new(None);
        self.naming
            .write_flat_claiming(body, record, false, json::value, |key, value| {
                if key != SOURCE_HINT {
                    return false;
                }
                if let Value::Str(s) = value {
                    hint.set(Some(s).filter(|s| !s.is_empty()));
                }
                true
            });
        match hint.get() {
            Some(own) if !self.source_configured => write_opt(body, "ddsource", Some(own)),
            _ => body.extend_from_slice(&self.source),
        }
        body.push(b'}');
    }
}

impl Protocol for Encoder {
    fn path(&self) -> Option<&'static str> {
        Some(PATH)
    }
    fn default_url(&self, config: &Config) -> Option<String> {
        Some(url(config))
    }
    fn headers(&self, _config: &Config, key: &Secret) -> Vec<(String, Secret)> {
        vec![("DD-API-KEY".into(), key.clone())]
    }
    fn limits(&self) -> Limits {
        LIMITS
    }
    fn framing(&self) -> Framing {
        Framing::Array
    }
    fn push(&self, body: &mut Vec<u8>, record: &Record, prev: Option<&Record>) {
        self.push_entry(body, record, prev.is_none());
    }
    fn responses(&self) -> Option<&'static [Rule]> {
        Some(RESPONSES)
    }
}

#[cfg(test)]
pub(super) mod tests;
