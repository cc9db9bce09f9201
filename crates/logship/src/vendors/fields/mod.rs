//! Shared field conventions: how every encoder names, writes and keeps unique the fields
//! of one event (its own fields, its error, its trace context, its id).
//!
//! Why it exists: the conventions are the same for every vendor, only the names differ;
//! each vendor folder holds its names (its error names, its reserved names), these files
//! hold the writing. Must never: name a vendor (each vendor's names live in its folder).

mod errors;
mod event_id;
mod members;
mod naming;
mod trace;

pub(crate) use errors::{error_stack, write_error, ErrorNames};
pub(crate) use event_id::{id_name, write_id, ID_NAME};
pub(crate) use members::{millis, write_logger, write_opt, ENV_NAME, VERSION_NAME};
pub(crate) use naming::{unique_tags, write_pairs, Naming, Style};
pub(crate) use trace::{hex_id, trace_flags, TraceIds};
