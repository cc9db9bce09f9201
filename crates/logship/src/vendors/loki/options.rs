//! Grafana Loki's options: the tenant, static stream labels and the line limit, as rows of
//! the key table.
//!
//! Why it exists: the options only Loki reads travel together in one typed group, beside
//! the encoder that reads them (its rules are in `labels.rs`). Must never build a request.

use crate::config::key::{Flag::*, Kind};
use crate::config::key_parts::*;
use crate::config::options::options;
use crate::config::value::list;

/// The static labels' kind: `name=value` items.
const LABELS: Kind = Kind::List {
    item: "name=value",
    fix: "write loki_labels = [\"env=prod\", \"team=core\"]",
};

options! {
    /// Options of the Grafana Loki push API (`vendor = loki`). Keys `tenant_id`,
    /// `loki_labels`, `max_line_bytes`.
    ///
    /// ```
    /// let loki = logship::LokiOptions::default()
    ///     .tenant_id("team-a")
    ///     .label("env", "prod")
    ///     .max_line_bytes(64 * 1024);
    /// let builder = logship::Logship::builder().loki(loki);
    /// assert_eq!(builder.config().loki.labels, ["env=prod"]);
    /// ```
    #[derive(Clone, PartialEq, Eq)]
    #[non_exhaustive]
    pub struct LokiOptions {
        setters: loki_setters,
        setters_on: "LokiOptions",
        debug: generated,
        rows: [
            /// The tenant, sent as `X-Scope-OrgID`. Unset: single-tenant Loki.
            tenant_id: Option<String> = None => {
                name: "tenant_id",
                kind: Kind::Str,
                flag: Value("--tenant-id"),
                default: "none",
                doc: "Loki `X-Scope-OrgID`",
                set: |c, v| c.tenant_id = v.text(),
                get: |c| text(&c.tenant_id),
                setter: fn tenant_id(tenant: impl Into<String>) |f| *f = Some(tenant.into()),
            },
            /// Static stream labels as `name=value` strings (names `[a-zA-Z_][a-zA-Z0-9_]*`,
            /// checked against Loki's label rules at `build`), added to `service` and
            /// `level`. Keep them few and low-cardinality. The setter adds one.
            labels: Vec<String> = Vec::new() => {
                name: "loki_labels",
                kind: LABELS,
                flag: Many("--loki-labels"),
                default: "none",
                doc: "static Loki stream labels (besides `service` and `level`)",
                set: |c, v| c.labels = v.list(),
                get: |c| list(&c.labels),
                setter: fn label(name: &str, value: &str) |f| f.push(format!("{name}={value}")),
            },
            /// Lines (the message) longer than this many bytes are truncated and counted
            /// (Loki's `max_line_size`).
            max_line_bytes: usize = 256 * 1024 => {
                name: "max_line_bytes",
                kind: int(1024, 256 * 1024 * 1024, BYTES),
                flag: Value("--max-line-bytes"),
                default: "256 KiB",
                doc: "Loki: longer lines are truncated and counted",
                set: |c, v| c.max_line_bytes = v.usize(),
                get: |c| Some(c.max_line_bytes.to_string()),
                setter: fn max_line_bytes(n: usize) |f| *f = n,
            },
        ]
    }
}

impl LokiOptions {
    loki_setters!();
}
