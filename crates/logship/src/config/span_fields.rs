//! Where span fields go in each event: the `span_fields` key's choices.
//!
//! Why it exists: one concept, read by the key table and the encoders' field naming; it
//! holds no logic.

/// Where span fields go in each event (key `span_fields`); see docs/vendors.md, "Spans".
///
/// Whatever the mode, every name appears once per JSON object: when a name repeats (a
/// field recorded twice, two nested spans with the same name or field, a span field named
/// like an event field) one value is kept, by this order: the event's own field, then
/// the innermost span's, then outer spans'; within one of them, the last value recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SpanFields {
    /// Span fields at the event's root under their own names (`request_id`), so a
    /// vendor's facets, filters and columns find them as they were written. The default.
    #[default]
    Root,
    /// Span fields under `<span name>.<field>` (`request.request_id`), which keeps which
    /// span carried a value at the cost of longer names to query.
    Prefixed,
}

impl SpanFields {
    /// Every mode, in the order the key's choices list them.
    pub(crate) const ALL: [SpanFields; 2] = [SpanFields::Root, SpanFields::Prefixed];
    /// The names used in files, the environment and on the command line.
    pub(crate) const NAMES: &'static [&'static str] = &["root", "prefixed"];
}
