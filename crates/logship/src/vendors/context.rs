//! The per-pipeline attributes every vendor writes into its own fields.
//!
//! Why it exists: the service, environment, version, source, host name and tags are the
//! same for every event of a pipeline; each encoder reads them once, at construction, and
//! precomputes what every event shares. Must never: read the machine's state after start.

use crate::config::{Config, SpanFields};

/// Per-pipeline attributes every vendor maps to its own fields.
#[derive(Debug)]
pub(crate) struct Context {
    pub service: Option<String>,
    /// The deployment environment (`env`), written in each vendor's own field.
    pub env: Option<String>,
    /// The service version (`version`), written in each vendor's own field.
    pub version: Option<String>,
    pub source: String,
    /// Whether `source` was configured (not the default `rust`): an event's own source
    /// hint (`Record::source_hint`) is used only when it was not.
    pub source_configured: bool,
    pub hostname: String,
    pub tags: Vec<String>,
    /// Where span fields go.
    pub span_fields: SpanFields,
    /// Whether each event's id is written (`event_id`).
    pub event_id: bool,
}

impl Context {
    /// The attributes of a validated configuration (the host name read from the machine
    /// when none is configured).
    pub(crate) fn of(config: &Config) -> Context {
        Context {
            service: config.service.clone(),
            env: config.env.clone(),
            version: config.version.clone(),
            source: config.source.clone().unwrap_or_else(|| "rust".to_owned()),
            source_configured: config.source.is_some(),
            hostname: config.hostname.clone().unwrap_or_else(machine_hostname),
            tags: config.tags.clone(),
            span_fields: config.span_fields,
            event_id: config.event_id,
        }
    }
}

/// This machine's host name, for vendors' host fields.
pub(crate) fn machine_hostname() -> String {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok())
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok().filter(|s| !s.is_empty()))
        .unwrap_or_else(|| "localhost".to_owned())
}
