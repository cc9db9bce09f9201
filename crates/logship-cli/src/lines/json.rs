//! A JSON document that borrows its strings from the input: what `lines` reads events
//! from.
//!
//! Why it exists: `serde_json::Value` copies every key and every string into an allocation
//! of its own and sorts each object into a B-tree, and the event is then built by copying
//! them once more. Reading a Log4j2 `JsonLayout` line that way was most of the CPU that
//! `ship --listen tcp://` and `ship --follow` spent per event. Here a string without
//! escapes is a slice of the input, and an object is a vector of its members in the
//! input's order (which is also the order the event's fields keep).
//!
//! Must never: recurse deeper than the deserializer does (serde_json's nesting limit, 128,
//! bounds both), or keep two members of one name (the last one wins, as in
//! `serde_json::Value`).

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::Number;

/// One JSON value; strings borrowed from the input where they have no escapes.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Json<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as serde_json reads it.
    Number(Number),
    /// A string.
    String(Cow<'a, str>),
    /// An array.
    Array(Vec<Json<'a>>),
    /// An object.
    Object(Members<'a>),
}

/// An object's members in the input's order, each name once.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Members<'a>(Vec<(Cow<'a, str>, Json<'a>)>);

/// Objects up to this many members are checked for repeated names pairwise; larger ones
/// by sorting (a hostile object of 100,000 members must not cost 10^10 comparisons).
const PAIRWISE_UP_TO: usize = 16;

thread_local! {
    /// Array elements and object members this thread's parse may still build
    /// ([`with_value_budget`]); unbounded outside one.
    static BUDGET: std::cell::Cell<usize> = const { std::cell::Cell::new(usize::MAX) };
    /// Whether the budget ran out during the current [`with_value_budget`].
    static SPENT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `parse` with at most `budget` values built by the [`Json`] parses in it (on this
/// thread): each array element and object member counts one, and each object the slots
/// it allocates for its members too, so the budget bounds the tree's memory; past it, the
/// parse fails. Returns what `parse`
/// returned and whether the budget ran out (so the caller can answer "too many" rather
/// than "malformed").
///
/// Why: an input's size does not bound the memory its tree takes. 10 MiB of `{"a":1},`
/// is 1.3 million objects, hundreds of bytes each once parsed; an HTTP body of them took
/// 735 MiB before this budget.
pub(crate) fn with_value_budget<T>(budget: usize, parse: impl FnOnce() -> T) -> (T, bool) {
    let before = BUDGET.with(|b| b.replace(budget));
    let spent_before = SPENT.with(|s| s.replace(false));
    let out = parse();
    BUDGET.with(|b| b.set(before));
    let spent = SPENT.with(|s| s.replace(spent_before));
    (out, spent)
}

/// Takes one value from the budget; an error once it is spent. (Outside a budget it
/// counts down from `usize::MAX`, which no input reaches.)
#[inline]
fn spend<E: de::Error>() -> Result<(), E> {
    spend_n(1)
}

/// Takes `n` values from the budget (an object's allocated slots); an error once it is
/// spent.
#[inline]
fn spend_n<E: de::Error>(n: usize) -> Result<(), E> {
    let spent = BUDGET.with(|b| {
        let left = b.get();
        b.set(left.saturating_sub(n));
        left < n
    });
    if spent {
        BUDGET.with(|b| b.set(0));
        SPENT.with(|s| s.set(true));
        return Err(E::custom("more JSON values than one body may hold"));
    }
    Ok(())
}

impl<'a> Members<'a> {
    /// The value of member `key`.
    pub(crate) fn get(&self, key: &str) -> Option<&Json<'a>> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// Whether the object has a member `key`.
    pub(crate) fn contains_key(&self, key: &str) -> bool {
        self.get(key).is_some()
    }

    /// How many members.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there is no member.
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The members, in order, as stored.
    pub(crate) fn as_slice(&self) -> &[(Cow<'a, str>, Json<'a>)] {
        &self.0
    }

    /// The members, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (&str, &Json<'a>)> {
        self.0.iter().map(|(k, v)| (k.as_ref(), v))
    }

    /// Keeps only the last member of each name, where the input repeated one. Allocates
    /// only when it did.
    fn dedup_keep_last(&mut self) {
        let m = &self.0;
        let n = m.len();
        if n < 2 {
            return;
        }
        let drop: Vec<bool> = if n <= PAIRWISE_UP_TO {
            let repeated = |i: usize| m[i + 1..].iter().any(|(k, _)| *k == m[i].0);
            if !(0..n).any(repeated) {
                return;
            }
            (0..n).map(repeated).collect()
        } else {
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by(|&a, &b| m[a].0.cmp(&m[b].0).then(a.cmp(&b)));
            let mut drop = vec![false; n];
            for w in order.windows(2) {
                drop[w[0]] = m[w[0]].0 == m[w[1]].0;
            }
            drop
        };
        let mut i = 0;
        self.0.retain(|_| {
            i += 1;
            !drop[i - 1]
        });
    }
}

impl<'a> Json<'a> {
    /// Parses one JSON document (surrounding whitespace allowed), borrowing from `text`.
    pub(crate) fn parse(text: &'a str) -> Result<Json<'a>, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// The name of the value's type (`object`, `string`...), for error messages.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "boolean",
            Json::Number(_) => "number",
            Json::String(_) => "string",
            Json::Array(_) => "array",
            Json::Object(_) => "object",
        }
    }

    /// The string, if this is one.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    /// The number as a `u64`, if it is one.
    pub(crate) fn as_u64(&self) -> Option<u64> {
        match self {
            Json::Number(n) => n.as_u64(),
            _ => None,
        }
    }

    /// The number as an `i64`, if it is one.
    pub(crate) fn as_i64(&self) -> Option<i64> {
        match self {
            Json::Number(n) => n.as_i64(),
            _ => None,
        }
    }

    /// Whether this is a number that fits a `u64`.
    pub(crate) fn is_u64(&self) -> bool {
        self.as_u64().is_some()
    }

    /// Member `key`, if this is an object that has it.
    pub(crate) fn get(&self, key: &str) -> Option<&Json<'a>> {
        match self {
            Json::Object(m) => m.get(key),
            _ => None,
        }
    }
}

/// The value's JSON text.
impl fmt::Display for Json<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = serde_json::to_string(self).map_err(|_| fmt::Error)?;
        f.write_str(&text)
    }
}

impl Serialize for Json<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Number(n) => n.serialize(s),
            Json::String(v) => s.serialize_str(v),
            Json::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            Json::Object(members) => {
                let mut map = s.serialize_map(Some(members.len()))?;
                for (k, v) in members.iter() {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

/// A member's name, borrowed where it has no escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v)))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

impl<'de> Deserialize<'de> for Json<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_unit<E: de::Error>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }
    fn visit_none<E: de::Error>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<Json<'de>, E> {
        Ok(Json::Bool(v))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Json<'de>, E> {
        Ok(Json::Number(v.into()))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Json<'de>, E> {
        Ok(Json::Number(v.into()))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Json<'de>, E> {
        // JSON text has no NaN or infinity; serde_json reads an overflowing literal as
        // an error, so `from_f64` only refuses what cannot come from the parser.
        Ok(Number::from_f64(v).map_or(Json::Null, Json::Number))
    }
    fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Borrowed(v)))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E: de::Error>(self, v: String) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Owned(v)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json<'de>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(item) = seq.next_element()? {
            spend()?;
            items.push(item);
        }
        Ok(Json::Array(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json<'de>, A::Error> {
        // Allocated at the first member (an empty object costs nothing, however many a
        // hostile input holds), for 8: a Log4j2 event's nested objects fit, its root
        // grows once.
        let mut members = Vec::new();
        while let Some(Key(key)) = map.next_key()? {
            let value: Json<'de> = map.next_value()?;
            spend()?;
            if members.capacity() == 0 {
                let room = map.size_hint().unwrap_or(8).clamp(1, 64);
                spend_n(room)?; // the slots allocated count, not only the members
                members.reserve_exact(room);
            }
            members.push((key, value));
        }
        let mut members = Members(members);
        members.dedup_keep_last();
        Ok(Json::Object(members))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_without_escapes_are_borrowed_and_escaped_ones_decoded() {
        let v =
            Json::parse(r#"{"plain":"abc","esc":"a\"b\u00e9","n":-3,"f":1.5,"a":[1,null,true]}"#)
                .unwrap();
        let Json::Object(m) = &v else {
            panic!("object")
        };
        assert!(matches!(
            m.get("plain"),
            Some(Json::String(Cow::Borrowed("abc")))
        ));
        assert_eq!(m.get("esc").and_then(Json::as_str), Some("a\"bé"));
        assert_eq!(m.get("n").and_then(Json::as_i64), Some(-3));
        assert_eq!(m.get("f").map(ToString::to_string).as_deref(), Some("1.5"));
        assert_eq!(
            m.get("a").map(ToString::to_string).as_deref(),
            Some("[1,null,true]")
        );
    }

    #[test]
    fn members_keep_the_input_order_and_a_repeated_name_keeps_its_last_value() {
        let v = Json::parse(r#"{"b":1,"a":2,"b":3,"c":{"y":1,"x":2}}"#).unwrap();
        assert_eq!(v.to_string(), r#"{"a":2,"b":3,"c":{"y":1,"x":2}}"#);
    }

    #[test]
    fn a_large_object_with_repeats_is_deduplicated_without_pairwise_scans() {
        let mut text = String::from("{");
        for i in 0..1000 {
            text.push_str(&format!("\"k{}\":{i},", i % 100));
        }
        text.push_str("\"end\":0}");
        let Json::Object(m) = Json::parse(&text).unwrap() else {
            panic!("object")
        };
        assert_eq!(m.len(), 101);
        assert_eq!(m.get("k7").and_then(Json::as_u64), Some(907));
    }

    #[test]
    fn nesting_past_the_parser_limit_is_an_error_not_a_stack_overflow() {
        let deep = "[".repeat(100_000);
        assert!(Json::parse(&deep).is_err());
        let deep = "{\"a\":".repeat(100_000);
        assert!(Json::parse(&deep).is_err());
    }
}
