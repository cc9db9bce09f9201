//! Writing a record's fields as flat attributes, shared by the vendor encoders.
//!
//! Why it exists: vendors want attributes as flat keys, and each reserves some names for
//! itself (Datadog's `status`, Dynatrace's `content`...). An event field with a reserved
//! name is written as `field.<name>` so it can never override what logship sets. Span
//! fields are written as `<span name>.<field>`, outermost span first, so the nearest
//! span's value comes last (and wins in intakes that keep the last duplicate).

use crate::json;
use crate::record::{Entry, Record, Value};

/// Appends `,"key":value` for every field of `record`. `first` says whether the object
/// has no member yet (then the first comma is left out). Returns whether anything was
/// written.
pub(super) fn write_flat(
    out: &mut Vec<u8>,
    record: &Record,
    reserved: &[&str],
    mut first: bool,
    write_value: fn(&mut Vec<u8>, Value<'_>),
) -> bool {
    let mut span: Option<&str> = None;
    let mut wrote = false;
    for entry in record.entries() {
        let (key, value) = match entry {
            Entry::Message(_) => continue,
            Entry::Span(name) => {
                span = Some(name);
                continue;
            }
            Entry::Field(k, v) => (k, v),
        };
        if !first {
            out.push(b',');
        }
        first = false;
        wrote = true;
        match span {
            Some(name) => json::dotted(out, name, key),
            None if reserved.contains(&key) => json::dotted(out, "field", key),
            None => json::string(out, key),
        }
        out.push(b':');
        write_value(out, value);
    }
    wrote
}

/// Appends `,"key":"value"` for each `key:value` tag (a tag without `:` gets `"true"`).
pub(super) fn write_tags(out: &mut Vec<u8>, tags: &[String], mut first: bool) {
    for tag in tags {
        let (k, v) = tag.split_once(':').unwrap_or((tag.as_str(), "true"));
        if !first {
            out.push(b',');
        }
        first = false;
        json::string(out, k.trim());
        out.push(b':');
        json::string(out, v.trim());
    }
}

/// `,"key":"value"` when the value is set.
pub(super) fn write_opt(out: &mut Vec<u8>, key: &str, value: Option<&str>) {
    if let Some(v) = value {
        out.push(b',');
        json::string(out, key);
        out.push(b':');
        json::string(out, v);
    }
}

/// Epoch milliseconds of a record.
pub(super) fn millis(record: &Record) -> u64 {
    record.timestamp_nanos() / 1_000_000
}
