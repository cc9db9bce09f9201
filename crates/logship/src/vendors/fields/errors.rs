//! Writing an event's error into the fields a vendor reads errors from.
//!
//! Why it exists: every vendor has three names for an error's type, message and stack
//! (its error tracking reads them), and the stack of a Rust error is its chain of
//! sources; each vendor folder names its own three, this file writes them. Must never:
//! write an error's fields twice (the naming keeps them out of the event's fields).

use super::members::write_opt;
use crate::capture::record::{ErrorValue, Record};

/// The names one vendor gives an error's type, message and stack (see docs/vendors.md,
/// "Errors").
#[derive(Debug, Clone, Copy)]
pub(crate) struct ErrorNames {
    pub kind: &'static str,
    pub message: &'static str,
    pub stack: &'static str,
}

impl ErrorNames {
    /// OpenTelemetry's semantic conventions for exceptions, which several vendors read.
    pub(crate) const OTEL: ErrorNames = ErrorNames {
        kind: "exception.type",
        message: "exception.message",
        stack: "exception.stacktrace",
    };

    /// The three names.
    pub(crate) fn all(&self) -> [&'static str; 3] {
        [self.kind, self.message, self.stack]
    }
}

/// The stack text of an error: its own trace when it carries one (a JVM exception's
/// `printStackTrace` text), otherwise `<type>: <message>`, then one `Caused by: <source>`
/// line per source (Rust errors carry no stack trace of their own; the chain is what
/// there is).
pub(crate) fn error_stack(e: &ErrorValue<'_>) -> String {
    if !e.trace.is_empty() {
        return e.trace.to_owned();
    }
    let mut out = String::with_capacity(e.kind.len() + e.message.len() + e.sources.len() + 16);
    if !e.kind.is_empty() {
        out.push_str(e.kind);
        out.push_str(": ");
    }
    out.push_str(e.message);
    for source in e.sources() {
        out.push_str("\nCaused by: ");
        out.push_str(source);
    }
    out
}

/// Appends `,"<type>":…,"<message>":…,"<stack>":…` for the record's first error-valued
/// field (the type only when known). Returns whether the record had one.
pub(crate) fn write_error(out: &mut Vec<u8>, record: &Record, names: &ErrorNames) -> bool {
    let Some((_, e)) = record.first_error() else {
        return false;
    };
    if !e.kind.is_empty() {
        write_opt(out, names.kind, Some(e.kind));
    }
    write_opt(out, names.message, Some(e.message));
    write_opt(out, names.stack, Some(&error_stack(&e)));
    true
}
