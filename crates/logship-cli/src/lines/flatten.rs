//! A JSON object's members as the event's fields: nested objects under dotted names
//! (`http.request.method`), the way every vendor indexes nested JSON, and the first of a
//! list of keys taken out as the event's own level, message, logger or time.
//!
//! Why it exists: every JSON input (lines, HTTP bodies, vendor push APIs) flattens the
//! same way. Must never: recurse on input (it walks iteratively), reorder fields, or
//! build more name bytes than a small multiple of the object's own size (a dotted name
//! copies its parents' names: 300 KB of nested long keys over many leaves once asked for
//! gigabytes and aborted the process).

use std::borrow::Cow;

use logship::Record;

use super::json::{Json, Members};

/// One leaf of a flattened object.
#[derive(Debug)]
pub(crate) struct Leaf<'a, 'b> {
    /// Its dotted name (borrowed where it is a member's own name).
    pub(crate) name: Cow<'a, str>,
    /// Its value.
    pub(crate) value: &'a Json<'b>,
    /// Lifted out of an object whose members are plain fields (Log4j2's `contextMap`):
    /// never read as the event's level, logger, message or time.
    pub(crate) own: bool,
}

/// The leaves of `map` in order, nested objects' under dotted names; iterative (no
/// recursion on input). An empty object is a leaf (its text, `{}`).
pub(crate) fn flatten<'a, 'b>(
    map: &'a Members<'b>,
    lift_fields: bool,
    skip: &[&str],
) -> Vec<Leaf<'a, 'b>> {
    flatten_with(map, lift_fields, skip, None)
}

/// [`flatten`], with the members of the root object `own` (if it is one) named by their
/// own keys and marked [`Leaf::own`] (an empty key keeps the name `own.`). `skip` names
/// root members left out; `lift_fields` lifts tracing-subscriber's `fields` to the root.
pub(crate) fn flatten_with<'a, 'b>(
    map: &'a Members<'b>,
    lift_fields: bool,
    skip: &[&str],
    own: Option<&'a str>,
) -> Vec<Leaf<'a, 'b>> {
    /// One object being walked: the prefix of its names, whether its members are lifted
    /// `own` fields (and whether it is the `own` object itself), and its other members.
    struct Frame<'a, 'b> {
        prefix: Cow<'a, str>,
        own: bool,
        own_root: bool,
        members: std::slice::Iter<'a, (Cow<'b, str>, Json<'b>)>,
    }
    let mut out = Vec::with_capacity(map.len() + 4);
    // Dotted names this object may still build (see `NAME_BYTES_PER_BYTE`): the floor
    // first, and the object's size is only estimated once names pass it (most events
    // never build that many, and the estimate walks the whole object).
    let mut names_left = NAME_BYTES_FLOOR;
    let mut sized = false;
    // Room for three levels below the root before it grows (Log4j2's events have one).
    let mut stack = Vec::with_capacity(4);
    stack.push(Frame {
        prefix: Cow::Borrowed(""),
        own: false,
        own_root: false,
        members: map.as_slice().iter(),
    });
    loop {
        let depth = stack.len();
        let Some(frame) = stack.last_mut() else {
            break;
        };
        let Some((key, value)) = frame.members.next() else {
            stack.pop();
            continue;
        };
        let at_root = depth == 1;
        if at_root && skip.contains(&key.as_ref()) {
            continue;
        }
        let in_own = frame.own;
        let name: Cow<'a, str> = if frame.own_root && key.is_empty() {
            Cow::Owned(format!("{}.", own.unwrap_or_default()))
        } else if frame.prefix.is_empty() {
            Cow::Borrowed(key.as_ref())
        } else {
            let prefix = &frame.prefix;
            let mut name = String::with_capacity(prefix.len() + 1 + key.len());
            name.push_str(prefix);
            name.push('.');
            name.push_str(key);
            Cow::Owned(name)
        };
        match value {
            Json::Object(inner) if !inner.is_empty() => {
                let lifts_own = at_root && own == Some(key.as_ref());
                let name = if (lift_fields && at_root && key == "fields") || lifts_own {
                    Cow::Borrowed("")
                } else {
                    name
                };
                if at_root {
                    // A root member's whole subtree is priced once, before any of its
                    // names is built: over what is left, it stays one field (its JSON
                    // text, bounded by its input) instead of a name per leaf.
                    let mut cost = names_cost(inner, name.len(), names_left);
                    if cost.is_none() && !sized {
                        sized = true;
                        names_left = approx_size(map)
                            .saturating_mul(NAME_BYTES_PER_BYTE)
                            .saturating_add(names_left);
                        cost = names_cost(inner, name.len(), names_left);
                    }
                    match cost {
                        Some(cost) => names_left -= cost,
                        None => {
                            out.push(Leaf {
                                name,
                                value,
                                own: in_own,
                            });
                            continue;
                        }
                    }
                }
                stack.push(Frame {
                    prefix: name,
                    own: in_own || lifts_own,
                    own_root: lifts_own,
                    members: inner.as_slice().iter(),
                });
            }
            leaf => out.push(Leaf {
                name,
                value: leaf,
                own: in_own,
            }),
        }
    }
    out
}

/// Name bytes flattening may build per byte of the object (estimated by
/// [`approx_size`]); a nested event's names take about 3 (`{"http":{"request":{"headers":
/// {"a":"1"}}}}`), so real events never meet it.
const NAME_BYTES_PER_BYTE: usize = 4;
/// Name bytes any object may build, however small.
const NAME_BYTES_FLOOR: usize = 2048;

/// About the bytes `map` took as JSON text: its names, its strings and a few bytes per
/// value (at most the input's size; arrays count as one value). Iterative.
fn approx_size(map: &Members<'_>) -> usize {
    let mut size = 2usize;
    let mut stack = vec![map.as_slice().iter()];
    while let Some(members) = stack.last_mut() {
        let Some((key, value)) = members.next() else {
            stack.pop();
            continue;
        };
        size = size.saturating_add(key.len() + 4);
        match value {
            Json::String(s) => size = size.saturating_add(s.len()),
            Json::Object(inner) => stack.push(inner.as_slice().iter()),
            _ => {}
        }
    }
    size
}

/// The bytes of the dotted names flattening `map` under a name of `prefix_len` bytes
/// builds (0: its members keep their own names), or `None` once they pass `limit`
/// (the walk stops there: its work is bounded by the subtree, once). Iterative.
fn names_cost(map: &Members<'_>, prefix_len: usize, limit: usize) -> Option<usize> {
    // One level (the usual case, Log4j2's `contextMap` or tracing's `fields`): summed in
    // place, without the walk's stack.
    let flat = map
        .as_slice()
        .iter()
        .all(|(_, value)| !matches!(value, Json::Object(inner) if !inner.is_empty()));
    if flat {
        if prefix_len == 0 {
            return Some(0);
        }
        let names = map.as_slice().iter().try_fold(0usize, |cost, (key, _)| {
            let cost = cost.saturating_add(prefix_len.saturating_add(1).saturating_add(key.len()));
            (cost <= limit).then_some(cost)
        });
        return names;
    }
    let mut cost = 0usize;
    let mut stack = vec![(prefix_len, map.as_slice().iter())];
    while let Some((prefix, members)) = stack.last_mut() {
        let prefix = *prefix;
        let Some((key, value)) = members.next() else {
            stack.pop();
            continue;
        };
        let name = if prefix == 0 {
            key.len()
        } else {
            let name = prefix.saturating_add(1).saturating_add(key.len());
            cost = cost.saturating_add(name);
            if cost > limit {
                return None;
            }
            name
        };
        if let Json::Object(inner) = value {
            if !inner.is_empty() {
                stack.push((name.max(1), inner.as_slice().iter()));
            }
        }
    }
    Some(cost)
}

/// The first of `keys` (in their order of preference) whose leaf `read` accepts; that
/// leaf is taken out of `leaves`. A leaf `read` refuses stays a field.
pub(crate) fn take_first<'a, 'b, T>(
    leaves: &mut Vec<Leaf<'a, 'b>>,
    keys: &[&str],
    read: impl Fn(&'a Json<'b>) -> Option<T>,
) -> Option<T> {
    for key in keys {
        let found = leaves
            .iter()
            .position(|leaf| !leaf.own && leaf.name == *key)
            .and_then(|i| Some((i, read(leaves[i].value)?)));
        if let Some((i, value)) = found {
            leaves.remove(i);
            return Some(value);
        }
    }
    None
}

/// `value` as the record's field `key`: strings, booleans and numbers as themselves;
/// arrays, `null` and empty objects as their JSON text.
pub(crate) fn add_field(record: &mut Record, key: &str, value: &Json<'_>) {
    match value {
        Json::String(s) => record.field(key, s.as_ref()),
        Json::Bool(b) => record.field(key, *b),
        Json::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => record.field(key, i),
            (None, Some(u), _) => record.field(key, u),
            (None, None, Some(f)) => record.field(key, f),
            _ => record.field(key, n.to_string().as_str()),
        },
        // Arrays, null and empty objects stay structure (their JSON text, checked again
        // by the record) for the vendors whose bodies are JSON.
        other => record.field(key, logship::Value::Json(&other.to_string())),
    };
}
