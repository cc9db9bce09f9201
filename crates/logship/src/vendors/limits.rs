//! An intake's hard limits on one request, which batches are cut to respect.
//!
//! Why it exists: a request over an intake's limit is refused whole (or worse, cut short
//! by the intake), so limits are data next to each encoder and the batcher and senders
//! cut by them; the configuration may only tighten them.

/// Hard limits of an intake; batches are cut so no request exceeds them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Limits {
    /// Most events in one request.
    pub max_records: usize,
    /// Most uncompressed body bytes in one request.
    pub max_body_bytes: usize,
    /// Most bytes of one encoded event; larger events are truncated and counted.
    pub max_event_bytes: usize,
    /// Most body bytes as sent (after compression), when the intake limits that.
    pub max_wire_bytes: Option<usize>,
}

impl Limits {
    /// No limit of the intake's own beyond the configured batch triggers.
    pub(crate) const NONE: Limits = Limits {
        max_records: usize::MAX,
        max_body_bytes: usize::MAX,
        max_event_bytes: usize::MAX,
        max_wire_bytes: None,
    };
}
