//! Every option of a pipeline, its default, and where each concern of configuration lives.
//!
//! Why it exists: the builder, the CLI, config files, environment variables and log4rs
//! all fill this one [`Config`] struct, so defaults, parsing and validation live in
//! exactly one place. Defaults follow the Java Batch HTTP appender that inspired logship,
//! so settings carry over. This module (and everything under it) must never print a
//! secret, and never depends on the wire-format code or the pipeline
//! builder: they read configuration, not the other way round.
//!
//! # One table
//! Every key is one row, written once beside the struct that stores it: the pipeline's own
//! in `keys/pipeline.rs` (which generates [`Config`]), each option group's in its file
//! (each vendor's options in its folder under `vendors/`, [`RedactionConfig`], the `logship` command's [`FollowOptions`] and
//! [`ListenOptions`], ...). A row holds the name, the kind, the default, the doc, the flag,
//! the camelCase attribute, and how the value is stored and shown; `options.rs` generates
//! the struct, its `Default` and `Debug`, the typed setters and the rows from it, and
//! [`keys::all`] walks them. Files ([`file`]), the environment ([`env`]), log4rs maps and
//! the JVM appender's attributes ([`Layered::attributes`]), the command line
//! ([`Layered::flag`], flags built from [`KeySpec::flag`]), [`Config::set`], `config check`
//! ([`Config::effective_values`], [`Resolved`]), `config example` ([`example`]), `config
//! keys` ([`keys()`]), range validation ([`validate`]), "did you mean" ([`suggest`]) and the
//! reference in `docs/configuration.md` ([`reference`]) all read the rows. Adding an option
//! is one row plus the code that uses it.
//!
//! # Option groups
//! Options that only one intake reads are grouped in a typed struct held in [`Config`],
//! defined with that intake's other facts in its folder under `vendors/` (the key table's
//! `keys/pipeline.rs` lists the groups). Options that several intakes read stay top-level,
//! where every intake finds them: `username`/`password`, `max_request_bytes`, `api_key`,
//! `site`, `region`. The key names (TOML, `LOGSHIP_*`, log4rs) do not show the grouping.
//! The `logship` command's own options live in the file's `[follow]` and `[listen]`
//! sections and are named `follow.paths`, ...

mod access;
pub(crate) mod budget;
pub(crate) mod control;
pub(crate) mod env;
pub(crate) mod example;
mod file;
pub(crate) mod key;
pub(crate) mod key_parts;
mod keys;
mod layered;
pub(crate) mod options;
mod origin;
mod overflow;
mod parse;
pub(crate) mod redaction;
#[cfg(test)]
mod reference;
pub(crate) mod sidecar;
mod span_fields;
mod suggest;
mod url;
mod validate;
pub(crate) mod value;

pub use access::default_spill_dir;
pub use budget::{BudgetConfig, ObserveConfig};
pub use control::ControlConfig;
pub use example::example_toml;
pub(crate) use keys::pipeline_setters;
pub use keys::vendor::Vendor;
pub use keys::{keys, Config, Flag, KeySpec};
pub use layered::{Given, Layered, Resolved};
pub use origin::Origin;
pub use overflow::Overflow;
pub use redaction::{RedactAction, RedactionConfig};
pub use sidecar::{FollowOptions, ListenOptions};
pub use span_fields::SpanFields;
pub use suggest::did_you_mean;
pub(crate) use url::{is_loopback_url, redact_url};
