//! Writing a record's fields as flat attributes with unique names, shared by the encoders.
//!
//! Why it exists: vendors want attributes as flat keys in one JSON object, and a JSON
//! object with a name written twice is a correctness bug (every parser keeps a different
//! one, and some intakes refuse the document). A record can hold the same name many
//! times: a span field recorded twice, two nested spans with the same name or the same
//! field, a span field named like an event field, a field named like what logship writes
//! itself (a vendor's `status` or `content`, ...) or like a configured tag. [`Naming`]
//! resolves all of that once per encoder and event, so that every name appears once:
//!
//! 1. the name: the field's own (`request_id`) with [`SpanFields::Root`], or
//!    `<span>.<field>` for a span's field with [`SpanFields::Prefixed`];
//! 2. in the object's alphabet ([`Style::Label`]: `[A-Za-z0-9_]`, no leading digit, for
//!    intakes that index names as labels);
//! 3. a name the encoder writes itself in the same object (its reserved names, its
//!    common attributes, the tags) becomes `field.<name>` (`field_<name>` in the label
//!    alphabet), so a field can never override what logship sets;
//! 4. of the fields that end with the same name, one is written: the event's own field
//!    first, then the innermost span's, then outer spans'; within one of them, the value
//!    recorded last. The winners keep their capture order.
//!
//! Tags get the same treatment ([`unique_tags`]): names in the object's alphabet, a tag
//! named like a reserved name becomes `tag.<name>`, and the last tag with a name wins.
//!
//! Must never: allocate per event beyond a per-thread scratch buffer that is reused, or
//! write a name twice into one object.

use std::cell::RefCell;

use crate::capture::record::{Entry, Record, Value, SOURCE_HINT};
use crate::config::SpanFields;
use crate::support::json;

/// The alphabet of the names of one object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Style {
    /// Any string (JSON-escaped when written).
    Json,
    /// The label alphabet: other characters become `_`, a leading digit gets a `_`.
    Label,
}

impl Style {
    fn separator(self) -> char {
        match self {
            Style::Json => '.',
            Style::Label => '_',
        }
    }

    /// Appends `part` in this alphabet; `start` is where the whole name began.
    fn push(self, out: &mut String, start: usize, part: &str) {
        match self {
            Style::Json => out.push_str(part),
            Style::Label => {
                for c in part.chars() {
                    if out.len() == start && c.is_ascii_digit() {
                        out.push('_');
                    }
                    out.push(if c.is_ascii_alphanumeric() || c == '_' {
                        c
                    } else {
                        '_'
                    });
                }
            }
        }
    }

    /// `name` in this alphabet (an empty name becomes `_` in the label alphabet).
    pub(crate) fn name(self, name: &str) -> String {
        let mut out = String::with_capacity(name.len() + 1);
        self.push(&mut out, 0, name);
        if out.is_empty() && self == Style::Label {
            out.push('_');
        }
        out
    }
}

/// How one encoder names the fields it writes into one object.
#[derive(Debug, Clone)]
pub(crate) struct Naming {
    mode: SpanFields,
    style: Style,
    /// Names the encoder writes itself into the same object, in the style's alphabet.
    taken: Vec<String>,
    /// When each span is its own object (the generic format), the names the encoder
    /// writes into every span object; names are then unique per span.
    per_span: Option<Vec<String>>,
    /// Whether the record's first error-valued field is the encoder's (written into the
    /// vendor's own error fields, not as a field); other error-valued fields are then
    /// written as their message. Off, every error is visited as an [`Entry::Error`].
    claim_first_error: bool,
}

/// One field of the record being written: where its final name lies in the scratch
/// buffer, and its rank (`u32::MAX` for the event's own fields, else the span's depth).
#[derive(Debug, Clone, Copy)]
struct Candidate {
    start: usize,
    end: usize,
    rank: u32,
    /// The object it is written into: 0 (the event), or the span's depth when each span
    /// is its own object.
    group: u32,
    keep: bool,
}

#[derive(Debug, Default)]
struct Scratch {
    names: String,
    candidates: Vec<Candidate>,
}

/// Entries most records have at most (the first decode's buffer grows past it).
const ENTRIES_HINT: usize = 16;

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::default();
}

/// Up to this many fields, duplicates are found by comparing pairs; above, with a map.
const PAIRWISE_MAX: usize = 32;

impl Naming {
    /// Names for an object in `style` where the encoder itself writes `taken`.
    pub(crate) fn new<S: AsRef<str>>(
        mode: SpanFields,
        style: Style,
        taken: impl IntoIterator<Item = S>,
    ) -> Naming {
        let taken = taken.into_iter().map(|t| style.name(t.as_ref())).collect();
        Naming {
            mode,
            style,
            taken,
            per_span: None,
            claim_first_error: true,
        }
    }

    /// Names for the generic format: the event's own fields in one object (where the
    /// encoder writes `taken`), each span's in an object of its own (where it writes
    /// `span_taken`).
    pub(crate) fn per_span(taken: &[&str], span_taken: &[&str]) -> Naming {
        Naming {
            mode: SpanFields::Root,
            style: Style::Json,
            taken: taken.iter().map(|t| (*t).to_owned()).collect(),
            per_span: Some(span_taken.iter().map(|t| (*t).to_owned()).collect()),
            claim_first_error: false,
        }
    }

    /// Calls `write(name, value)` for every field that is written, each name once, in
    /// capture order; `claim(key, value)` may take a field out first (an encoder's own
    /// use of it, such as trace ids written in fields of the vendor's own): a claimed
    /// field is not written.
    pub(crate) fn each<'r>(
        &self,
        record: &'r Record,
        claim: impl Fn(&str, Value<'r>) -> bool,
        mut write: impl FnMut(&str, Value<'r>),
    ) {
        self.visit(record, claim, |entry, name| {
            if let (Entry::Field(_, value), Some(name)) = (entry, name) {
                write(name, value);
            }
        });
    }

    /// Calls `visit(entry, name)` for every entry of `record` in capture order; `name` is
    /// the name to write a field under, `None` for a field that is not written (it lost
    /// to another of the same name, or was claimed) and for other entries.
    pub(crate) fn visit<'r>(
        &self,
        record: &'r Record,
        claim: impl Fn(&str, Value<'r>) -> bool,
        mut visit: impl FnMut(Entry<'r>, Option<&str>),
    ) {
        SCRATCH.with(|cell| match cell.try_borrow_mut() {
            Ok(mut scratch) => self.visit_with(&mut scratch, record, &claim, &mut visit),
            Err(_) => self.visit_with(&mut Scratch::default(), record, &claim, &mut visit),
        });
    }

    fn visit_with<'r>(
        &self,
        scratch: &mut Scratch,
        record: &'r Record,
        claim: &impl Fn(&str, Value<'r>) -> bool,
        visit: &mut impl FnMut(Entry<'r>, Option<&str>),
    ) {
        let Scratch { names, candidates } = scratch;
        names.clear();
        candidates.clear();
        let mut span = None;
        let mut depth = 0u32;
        let mut first_error = self.claim_first_error;
        // Decoded once: the second pass below reads them from here, not from the record
        // again (each decode re-validates every string's UTF-8).
        let mut entries: Vec<Entry<'r>> = Vec::with_capacity(ENTRIES_HINT);
        entries.extend(record.entries());
        for &entry in &entries {
            let (key, keep) = match entry {
                Entry::Message(_) => continue,
                Entry::Span(name) => {
                    span = Some(name);
                    depth = depth.saturating_add(1).min(u32::MAX - 1);
                    continue;
                }
                // An event's source hint is never an attribute (an encoder may claim it).
                Entry::Field(key, value) => (key, !claim(key, value) && key != SOURCE_HINT),
                Entry::Error(key, _) => (key, !std::mem::take(&mut first_error)),
            };
            let start = names.len();
            if keep {
                self.name_into(names, span, key);
            }
            let in_span = span.is_some();
            candidates.push(Candidate {
                start,
                end: names.len(),
                rank: if in_span { depth } else { u32::MAX },
                group: if in_span && self.per_span.is_some() {
                    depth
                } else {
                    0
                },
                keep,
            });
        }
        resolve(names, candidates);
        let mut i = 0;
        for entry in entries {
            let mut name = None;
            let mut entry = entry;
            if let Entry::Field(..) | Entry::Error(..) = entry {
                if let Some(c) = candidates.get(i).filter(|c| c.keep) {
                    name = Some(&names[c.start..c.end]);
                    if let (Entry::Error(key, e), true) = (entry, self.claim_first_error) {
                        entry = Entry::Field(key, Value::Str(e.message));
                    }
                }
                i += 1;
            }
            visit(entry, name);
        }
    }

    /// Appends the final name of field `key` (of `span`, if any) to `out`.
    fn name_into(&self, out: &mut String, span: Option<&str>, key: &str) {
        let start = out.len();
        if let (SpanFields::Prefixed, Some(span)) = (self.mode, span) {
            self.style.push(out, start, span);
            out.push(self.style.separator());
        }
        self.style.push(out, start, key);
        if out.len() == start && self.style == Style::Label {
            out.push('_');
        }
        let taken = match (&self.per_span, span) {
            (Some(span_taken), Some(_)) => span_taken,
            _ => &self.taken,
        };
        if taken.iter().any(|t| *t == out[start..]) {
            let sep = self.style.separator();
            out.insert(start, sep);
            out.insert_str(start, "field");
        }
    }

    /// Appends `,"name":value` for every written field (`first`: no member yet, so no
    /// leading comma). Returns whether anything was written.
    pub(crate) fn write_flat(
        &self,
        out: &mut Vec<u8>,
        record: &Record,
        first: bool,
        write_value: fn(&mut Vec<u8>, Value<'_>),
    ) -> bool {
        self.write_flat_claiming(out, record, first, write_value, |_, _| false)
    }

    /// [`Naming::write_flat`] with `claim` taking fields out first, as in [`Naming::each`].
    pub(crate) fn write_flat_claiming<'r>(
        &self,
        out: &mut Vec<u8>,
        record: &'r Record,
        mut first: bool,
        write_value: fn(&mut Vec<u8>, Value<'_>),
        claim: impl Fn(&str, Value<'r>) -> bool,
    ) -> bool {
        let mut wrote = false;
        self.each(record, claim, |name, value| {
            if !first {
                out.push(b',');
            }
            first = false;
            wrote = true;
            json::string(out, name);
            out.push(b':');
            write_value(out, value);
        });
        wrote
    }
}

/// Marks every candidate that loses to another with the same name as not kept: the
/// winner has the highest rank, then the highest position.
fn resolve(names: &str, candidates: &mut [Candidate]) {
    let n = candidates.len();
    if n < 2 {
        return;
    }
    let name = |c: &Candidate| &names[c.start..c.end];
    if n <= PAIRWISE_MAX {
        // Bytes, lengths first: most pairs differ in length, and a byte slice needs no
        // char-boundary checks.
        let bytes = |c: &Candidate| names.as_bytes().get(c.start..c.end);
        for i in 0..n {
            if !candidates[i].keep {
                continue;
            }
            let me = candidates[i];
            let beaten = candidates.iter().enumerate().any(|(j, other)| {
                j != i
                    && other.keep
                    && other.group == me.group
                    && other.end.wrapping_sub(other.start) == me.end.wrapping_sub(me.start)
                    && bytes(other) == bytes(&me)
                    && (other.rank, j) > (me.rank, i)
            });
            if beaten {
                candidates[i].keep = false;
            }
        }
    } else {
        let mut best: std::collections::HashMap<(u32, &str), usize> =
            std::collections::HashMap::with_capacity(n);
        for (i, c) in candidates.iter().enumerate() {
            if !c.keep {
                continue;
            }
            let slot = best.entry((c.group, name(c))).or_insert(i);
            let current = candidates[*slot];
            if (c.rank, i) > (current.rank, *slot) {
                *slot = i;
            }
        }
        let winners: std::collections::HashSet<usize> = best.into_values().collect();
        for (i, c) in candidates.iter_mut().enumerate() {
            c.keep = c.keep && winners.contains(&i);
        }
    }
}

/// The configured `key:value` tags (a tag without `:` gets `"true"`) as unique names in
/// `style`: a tag named like one of `taken` becomes `tag.<name>`, the last of tags with
/// the same name wins (at the first one's position).
pub(crate) fn unique_tags(tags: &[String], style: Style, taken: &[&str]) -> Vec<(String, String)> {
    let taken: Vec<String> = taken.iter().map(|t| style.name(t)).collect();
    let mut out: Vec<(String, String)> = Vec::with_capacity(tags.len());
    for tag in tags {
        let (k, v) = tag.split_once(':').unwrap_or((tag.as_str(), "true"));
        let mut name = style.name(k.trim());
        if taken.contains(&name) {
            name = format!("tag{}{name}", style.separator());
        }
        match out.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => v.trim().clone_into(&mut slot.1),
            None => out.push((name, v.trim().to_owned())),
        }
    }
    out
}

/// Appends `,"name":"value"` for each pair (`first`: no member yet).
pub(crate) fn write_pairs(out: &mut Vec<u8>, pairs: &[(String, String)], mut first: bool) {
    for (k, v) in pairs {
        if !first {
            out.push(b',');
        }
        first = false;
        json::string(out, k);
        out.push(b':');
        json::string(out, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::record::Level;

    fn names(naming: &Naming, r: &Record) -> Vec<(String, String)> {
        let mut out = Vec::new();
        naming.each(
            r,
            |_, _| false,
            |k, v| out.push((k.to_owned(), format!("{v:?}"))),
        );
        out
    }

    fn nested() -> Record {
        let mut r = Record::new(Level::Info, "t");
        r.field("user", "event")
            .field("status", "mine")
            .span("request")
            .field("id", 1i64)
            .field("user", "outer")
            .span("request")
            .field("id", 2i64)
            .field("id", 3i64);
        r
    }

    #[test]
    fn root_mode_keeps_the_event_then_the_innermost_last_value() {
        let n = Naming::new(SpanFields::Root, Style::Json, ["status"]);
        assert_eq!(
            names(&n, &nested()),
            vec![
                ("user".into(), "Str(\"event\")".into()),
                ("field.status".into(), "Str(\"mine\")".into()),
                ("id".into(), "I64(3)".into()),
            ]
        );
    }

    #[test]
    fn prefixed_mode_merges_same_named_spans() {
        let n = Naming::new(SpanFields::Prefixed, Style::Json, ["status"]);
        let got: Vec<String> = names(&n, &nested()).into_iter().map(|p| p.0).collect();
        assert_eq!(got, ["user", "field.status", "request.user", "request.id"]);
    }

    #[test]
    fn label_names_collide_after_mapping_and_stay_unique() {
        let mut r = Record::new(Level::Info, "t");
        r.field("a.b", 1i64)
            .field("a-b", 2i64)
            .field("hostname", "x");
        let n = Naming::new(SpanFields::Root, Style::Label, ["hostname", "target"]);
        let got = names(&n, &r);
        assert_eq!(got.len(), 2, "{got:?}");
        assert_eq!(got[0], ("a_b".into(), "I64(2)".into()));
        assert_eq!(got[1].0, "field_hostname");
    }

    #[test]
    fn many_fields_use_the_map_and_agree_with_pairs() {
        let mut r = Record::new(Level::Info, "t");
        for i in 0..100u64 {
            r.field(&format!("k{}", i % 7), i);
        }
        let n = Naming::new(SpanFields::Root, Style::Json, [""; 0]);
        let got = names(&n, &r);
        assert_eq!(got.len(), 7);
        assert!(got.contains(&("k1".into(), "U64(99)".into())), "{got:?}");
    }

    #[test]
    fn tags_are_unique_and_never_shadow_reserved_names() {
        let tags: Vec<String> = ["env:a", "env:b", "service:x", "flag"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            unique_tags(&tags, Style::Json, &["service"]),
            vec![
                ("env".into(), "b".into()),
                ("tag.service".into(), "x".into()),
                ("flag".into(), "true".into())
            ]
        );
    }
}
