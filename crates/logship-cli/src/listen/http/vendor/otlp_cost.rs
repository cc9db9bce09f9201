//! What decoding an OTLP/HTTP protobuf body would allocate, priced on the wire before it
//! is decoded.
//!
//! Why it exists: a decoded protobuf message takes many times its encoding, and the
//! containers are the worst of it. An empty `ResourceLogs` is 2 bytes on the wire and
//! about 80 once decoded; 10 MiB of them peaked at 540-654 MB RSS (1.33 GB for four such
//! requests), though they hold no event. Counting only the log records (`wire_count`)
//! missed them. Here every message and string of the request's schema is priced at what
//! `prost` allocates for it (an element of a repeated field: its struct, twice for the
//! vector's growth; a string or bytes: its length and the allocator's minimum; a message
//! or string held in its parent's struct costs nothing more), so a body over the budget
//! is refused (413) before anything of it is decoded.
//!
//! Must never: allocate per field, recurse (nested `AnyValue`s are walked with a bounded
//! stack), or panic on any bytes (malformed bytes are left to the real decoder, which
//! refuses them).

use std::mem::size_of;

use super::wire_count::varint;

use opentelemetry_proto::tonic::common::v1::{
    AnyValue, ArrayValue, EntityRef, InstrumentationScope, KeyValue, KeyValueList,
};
use opentelemetry_proto::tonic::logs::v1::{LogRecord, ResourceLogs, ScopeLogs};
use opentelemetry_proto::tonic::resource::v1::Resource;

/// The most bytes decoding one body may allocate. At most one body per core is decoded at
/// a time, so two of them and the process itself stay under the 100 MiB docs/listen.md
/// promises. A request of 10,000 real log records (the default queue) with a dozen
/// attributes each prices at about 20 MiB.
pub(super) const DECODE_BUDGET: usize = 32 << 20;

/// The message types of an `ExportLogsServiceRequest`, as far as they allocate.
#[derive(Clone, Copy)]
enum Kind {
    Request,
    ResourceLogs,
    Resource,
    EntityRef,
    ScopeLogs,
    Scope,
    LogRecord,
    KeyValue,
    AnyValue,
    ArrayValue,
    KeyValueList,
}

impl Kind {
    /// Whether field `field` of this message is repeated (a vector: each element is
    /// allocated), rather than held in the parent's struct.
    fn repeated(self, field: u32) -> bool {
        matches!(
            (self, field),
            (Kind::Request, 1)
                | (Kind::ResourceLogs, 2)
                | (Kind::Resource, 1 | 3)
                | (Kind::EntityRef, 3 | 4)
                | (Kind::ScopeLogs, 2)
                | (Kind::Scope, 3)
                | (Kind::LogRecord, 6)
                | (Kind::ArrayValue, 1)
                | (Kind::KeyValueList, 1)
        )
    }

    /// The message a length-delimited field `field` of this message holds (`None`: a
    /// string or bytes, or a field `prost` skips).
    fn child(self, field: u32) -> Option<Kind> {
        Some(match (self, field) {
            (Kind::Request, 1) => Kind::ResourceLogs,
            (Kind::ResourceLogs, 1) => Kind::Resource,
            (Kind::ResourceLogs, 2) => Kind::ScopeLogs,
            (Kind::Resource, 1) => Kind::KeyValue,
            (Kind::Resource, 3) => Kind::EntityRef,
            (Kind::ScopeLogs, 1) => Kind::Scope,
            (Kind::ScopeLogs, 2) => Kind::LogRecord,
            (Kind::Scope, 3) => Kind::KeyValue,
            (Kind::LogRecord, 5) => Kind::AnyValue,
            (Kind::LogRecord, 6) => Kind::KeyValue,
            (Kind::KeyValue, 2) => Kind::AnyValue,
            (Kind::AnyValue, 5) => Kind::ArrayValue,
            (Kind::AnyValue, 6) => Kind::KeyValueList,
            (Kind::ArrayValue, 1) => Kind::AnyValue,
            (Kind::KeyValueList, 1) => Kind::KeyValue,
            _ => return None,
        })
    }

    /// Its struct's size.
    fn size(self) -> usize {
        match self {
            Kind::Request => 0,
            Kind::ResourceLogs => size_of::<ResourceLogs>(),
            Kind::Resource => size_of::<Resource>(),
            Kind::EntityRef => size_of::<EntityRef>(),
            Kind::ScopeLogs => size_of::<ScopeLogs>(),
            Kind::Scope => size_of::<InstrumentationScope>(),
            Kind::LogRecord => size_of::<LogRecord>(),
            Kind::KeyValue => size_of::<KeyValue>(),
            Kind::AnyValue => size_of::<AnyValue>(),
            Kind::ArrayValue => size_of::<ArrayValue>(),
            Kind::KeyValueList => size_of::<KeyValueList>(),
        }
    }
}

/// Deepest nesting priced; `prost` refuses past 100 levels, so deeper bytes are left
/// to it (priced as bytes).
const MAX_DEPTH: usize = 100;
/// The least an allocation takes (the allocator's smallest size class and header).
const MIN_ALLOC: usize = 16;

/// The most [`decoded_bytes`] prices one byte of the wire at. Every price is charged to a
/// field's own tag and length (at least 2 bytes, never shared): a repeated element costs
/// twice its struct, a string at most the allocator's minimum more than its bytes.
pub(super) const MAX_PRICE_PER_WIRE_BYTE: usize = max_price_per_wire_byte();

const fn max_price_per_wire_byte() -> usize {
    let sizes = [
        size_of::<ResourceLogs>(),
        size_of::<Resource>(),
        size_of::<EntityRef>(),
        size_of::<ScopeLogs>(),
        size_of::<InstrumentationScope>(),
        size_of::<LogRecord>(),
        size_of::<KeyValue>(),
        size_of::<AnyValue>(),
        size_of::<ArrayValue>(),
        size_of::<KeyValueList>(),
        size_of::<String>(),
    ];
    let mut most = 0;
    let mut i = 0;
    while i < sizes.len() {
        if sizes[i] > most {
            most = sizes[i];
        }
        i += 1;
    }
    most + MIN_ALLOC
}

/// Whether a body of `len` bytes could price over `budget` at all. When it cannot, the
/// walk is skipped: most requests are far below the budget, and pricing costs about a
/// tenth of decoding.
pub(super) fn could_exceed(len: usize, budget: usize) -> bool {
    len.saturating_mul(MAX_PRICE_PER_WIRE_BYTE) > budget
}

/// About the bytes decoding `buf` as an `ExportLogsServiceRequest` allocates, or `None`
/// when the bytes do not walk as protobuf. Stops pricing once past `stop_after`.
pub(super) fn decoded_bytes(buf: &[u8], stop_after: usize) -> Option<usize> {
    let mut stack: Vec<(Kind, &[u8])> = Vec::with_capacity(16);
    stack.push((Kind::Request, buf));
    let mut cost = 0usize;
    while let Some((kind, rest)) = stack.last_mut() {
        let kind = *kind;
        if rest.is_empty() {
            stack.pop();
            continue;
        }
        let (key, after) = varint(rest)?;
        let field = u32::try_from(key >> 3).ok()?;
        let (payload, after) = match key & 7 {
            0 => (None, varint(after)?.1),
            1 => (None, after.get(8..)?),
            5 => (None, after.get(4..)?),
            2 => {
                let (len, after) = varint(after)?;
                let len = usize::try_from(len).ok()?;
                (Some(after.get(..len)?), after.get(len..)?)
            }
            // A group (deprecated, never a field of this schema): prost skips it
            // without allocating, and so does the price; what follows it is priced.
            3 => (None, skip_group(after, field)?),
            _ => return None,
        };
        *rest = after;
        let Some(inner) = payload else { continue };
        let child = kind.child(field);
        if kind.repeated(field) {
            // A vector's element (twice: the vector doubles as it grows).
            let each = child.map_or(size_of::<String>(), Kind::size);
            cost = cost.saturating_add(2 * each);
        }
        match child {
            Some(child) if stack.len() < MAX_DEPTH => stack.push((child, inner)),
            // A string or bytes (its heap bytes), a field skipped, or too deep for prost.
            _ if inner.is_empty() => {}
            _ => cost = cost.saturating_add(inner.len().max(MIN_ALLOC)),
        }
        if cost > stop_after {
            return Some(cost);
        }
    }
    Some(cost)
}

/// The field number of OTLP JSON member `key` of a `kind` message (camelCase, as OTLP
/// JSON writes them, or the proto's snake_case), where it holds a message or a string
/// that allocates; `None` for any other member.
fn json_field(kind: Kind, key: &str) -> Option<u32> {
    Some(match (kind, key) {
        (Kind::Request, "resourceLogs" | "resource_logs") => 1,
        (Kind::ResourceLogs, "resource") => 1,
        (Kind::ResourceLogs, "scopeLogs" | "scope_logs") => 2,
        (Kind::Resource, "attributes") => 1,
        (Kind::Resource, "entityRefs" | "entity_refs") => 3,
        (Kind::EntityRef, "idKeys" | "id_keys") => 3,
        (Kind::EntityRef, "descriptionKeys" | "description_keys") => 4,
        (Kind::ScopeLogs, "scope") => 1,
        (Kind::ScopeLogs, "logRecords" | "log_records") => 2,
        (Kind::Scope, "attributes") => 3,
        (Kind::LogRecord, "body") => 5,
        (Kind::LogRecord, "attributes") => 6,
        (Kind::KeyValue, "value") => 2,
        (Kind::AnyValue, "arrayValue" | "array_value") => 5,
        (Kind::AnyValue, "kvlistValue" | "kvlist_value") => 6,
        (Kind::ArrayValue | Kind::KeyValueList, "values") => 1,
        _ => return None,
    })
}

/// What pricing an OTLP JSON body found: the bytes decoding it allocates (as
/// [`decoded_bytes`] prices the wire) and its log records.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct JsonPrice {
    /// About the bytes decoding it into an `ExportLogsServiceRequest` allocates.
    pub bytes: usize,
    /// Its log records.
    pub records: usize,
}

/// Prices an OTLP JSON body without building anything: a streaming walk with the
/// request's schema (`{}` is 2 bytes of JSON and a whole `ResourceLogs` decoded: 3.8 MB
/// of them peaked at 144 MB, and the JSON tree once built to count them took most of
/// it). Stops once the price passes `stop_after` or the records `max_records`. An error
/// when the body is not UTF-8 JSON: the caller refuses it (400) rather than decode what
/// it could not price (serde's decoder skips unknown members unchecked, so one invalid
/// byte there must not buy an unpriced decode).
pub(super) fn json_price(
    body: &[u8],
    stop_after: usize,
    max_records: usize,
) -> Result<JsonPrice, serde_json::Error> {
    use serde::de::DeserializeSeed;
    let state = PriceState {
        price: std::cell::Cell::new(0),
        records: std::cell::Cell::new(0),
        stop_after,
        max_records,
    };
    let mut de = serde_json::Deserializer::from_slice(body);
    let walked = Price {
        kind: Some(Kind::Request),
        state: &state,
    }
    .deserialize(&mut de)
    .and_then(|()| de.end());
    let price = JsonPrice {
        bytes: state.price.get(),
        records: state.records.get(),
    };
    match walked {
        Ok(()) => Ok(price),
        Err(_) if state.over() => Ok(price),
        Err(e) => Err(e),
    }
}

struct PriceState {
    price: std::cell::Cell<usize>,
    records: std::cell::Cell<usize>,
    stop_after: usize,
    max_records: usize,
}

impl PriceState {
    fn over(&self) -> bool {
        self.price.get() > self.stop_after || self.records.get() > self.max_records
    }

    /// Adds `n` bytes; an error (ending the walk) once over a bound.
    fn add<E: serde::de::Error>(&self, n: usize) -> Result<(), E> {
        self.price.set(self.price.get().saturating_add(n));
        if self.over() {
            return Err(E::custom("over the decode budget"));
        }
        Ok(())
    }
}

/// One JSON value priced as a `kind` message (`None`: not one that allocates, but its
/// strings still count).
#[derive(Clone, Copy)]
struct Price<'s> {
    kind: Option<Kind>,
    state: &'s PriceState,
}

/// A member's value: `repeated` (an array of `kind` elements, each a vector slot) or one.
#[derive(Clone, Copy)]
struct Member<'s> {
    kind: Option<Kind>,
    repeated: bool,
    state: &'s PriceState,
}

impl<'de> serde::de::DeserializeSeed<'de> for Price<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for Member<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

/// A member's name, borrowed where it has no escapes.
struct Name<'a>(std::borrow::Cow<'a, str>);

impl<'de> serde::Deserialize<'de> for Name<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Name<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a member name")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Name<'de>, E> {
                Ok(Name(std::borrow::Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Name<'de>, E> {
                Ok(Name(std::borrow::Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(V)
    }
}

/// The scalar visits both visitors share: a string costs its bytes, the rest nothing.
macro_rules! scalars {
    () => {
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("OTLP JSON")
        }
        fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<(), E> {
            self.state.add(v.len().max(MIN_ALLOC))
        }
        fn visit_bool<E>(self, _: bool) -> Result<(), E> {
            Ok(())
        }
        fn visit_i64<E>(self, _: i64) -> Result<(), E> {
            Ok(())
        }
        fn visit_u64<E>(self, _: u64) -> Result<(), E> {
            Ok(())
        }
        fn visit_f64<E>(self, _: f64) -> Result<(), E> {
            Ok(())
        }
        fn visit_unit<E>(self) -> Result<(), E> {
            Ok(())
        }
    };
}

impl<'de> serde::de::Visitor<'de> for Price<'_> {
    type Value = ();
    scalars!();
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let inner = Price { kind: None, ..self };
        while seq.next_element_seed(inner)?.is_some() {}
        Ok(())
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        if matches!(self.kind, Some(Kind::LogRecord)) {
            let state = self.state;
            state.records.set(state.records.get() + 1);
            state.add::<A::Error>(0)?;
        }
        while let Some(Name(key)) = map.next_key()? {
            let field = self.kind.and_then(|k| Some((k, json_field(k, &key)?)));
            let member = Member {
                kind: field.and_then(|(k, f)| k.child(f)),
                repeated: field.is_some_and(|(k, f)| k.repeated(f)),
                state: self.state,
            };
            map.next_value_seed(member)?;
        }
        Ok(())
    }
}

impl<'de> serde::de::Visitor<'de> for Member<'_> {
    type Value = ();
    scalars!();
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let each = Price {
            kind: self.kind,
            state: self.state,
        };
        let slot = 2 * self.kind.map_or(size_of::<String>(), Kind::size);
        // Each element of a repeated field is a vector slot (twice: the vector doubles).
        while seq.next_element_seed(each)?.is_some() {
            if self.repeated {
                self.state.add(slot)?;
            }
        }
        Ok(())
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        Price {
            kind: self.kind,
            state: self.state,
        }
        .visit_map(map)
    }
}

/// What follows the end of a group `field` whose start was just read (groups nested in
/// it skipped too, iteratively); `None` when it never ends or the bytes do not walk.
fn skip_group(mut b: &[u8], field: u32) -> Option<&[u8]> {
    let mut open = vec![field];
    while let Some(&inner) = open.last() {
        let (key, after) = varint(b)?;
        let f = u32::try_from(key >> 3).ok()?;
        b = match key & 7 {
            0 => varint(after)?.1,
            1 => after.get(8..)?,
            5 => after.get(4..)?,
            2 => {
                let (len, after) = varint(after)?;
                after.get(usize::try_from(len).ok()?..)?
            }
            3 => {
                open.push(f);
                after
            }
            4 if f == inner => {
                open.pop();
                after
            }
            _ => return None,
        };
    }
    Some(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
    use opentelemetry_proto::tonic::common::v1::any_value;
    use prost::Message;

    fn attr(k: &str, v: &str) -> KeyValue {
        KeyValue {
            key: k.into(),
            value: Some(AnyValue {
                value: Some(any_value::Value::StringValue(v.into())),
            }),
            ..KeyValue::default()
        }
    }

    fn real_request(records: usize) -> Vec<u8> {
        let record = LogRecord {
            time_unix_nano: 1,
            severity_text: "INFO".into(),
            body: Some(AnyValue {
                value: Some(any_value::Value::StringValue("GET /checkout 200".into())),
            }),
            attributes: (0..12)
                .map(|i| attr(&format!("attr.{i}"), "value"))
                .collect(),
            ..LogRecord::default()
        };
        ExportLogsServiceRequest {
            resource_logs: vec![ResourceLogs {
                resource: Some(Resource {
                    attributes: vec![attr("service.name", "checkout")],
                    ..Resource::default()
                }),
                scope_logs: vec![ScopeLogs {
                    log_records: vec![record; records],
                    ..ScopeLogs::default()
                }],
                ..ResourceLogs::default()
            }],
        }
        .encode_to_vec()
    }

    #[test]
    fn a_real_request_of_the_default_queues_records_fits_the_budget() {
        let body = real_request(10_000);
        let cost = decoded_bytes(&body, usize::MAX).expect("walks");
        assert!(cost > body.len(), "decoding costs more than the wire");
        assert!(cost < DECODE_BUDGET, "{cost} for {} wire bytes", body.len());
    }

    #[test]
    fn empty_containers_are_priced_at_their_structs_not_their_two_bytes() {
        let empty_resources = [0x0a, 0x00].repeat(1 << 20); // 2 MiB
        let cost = decoded_bytes(&empty_resources, usize::MAX).expect("walks");
        assert!(cost >= (1 << 20) * size_of::<ResourceLogs>(), "{cost}");
        // Empty scopes in one resource, and empty attributes: the same.
        let scopes = [0x12, 0x00].repeat(1 << 20);
        let mut one = vec![0x0a, 0x80, 0x80, 0x80, 0x01];
        one.extend_from_slice(&scopes);
        let cost = decoded_bytes(&one, usize::MAX).expect("walks");
        assert!(cost >= (1 << 20) * size_of::<ScopeLogs>(), "{cost}");
        assert!(
            decoded_bytes(&[0x0a, 0x00].repeat(5 << 20), DECODE_BUDGET).unwrap() > DECODE_BUDGET
        );
        // The real decoder agrees: it builds a million ResourceLogs.
        let decoded = ExportLogsServiceRequest::decode(&empty_resources[..]).expect("valid");
        assert_eq!(decoded.resource_logs.len(), 1 << 20);
    }

    #[test]
    fn no_body_prices_over_its_length_times_the_most_per_wire_byte() {
        // The skip in `otlp::decode` rests on this bound: the densest shapes there are,
        // each an empty (or one-byte) element of a repeated field, back to back.
        let empty_records = {
            // ResourceLogs > ScopeLogs > empty LogRecords, repeated.
            let records = [0x12, 0x00].repeat(1 << 19);
            let mut scope = vec![0x12];
            scope.extend_from_slice(&varint_bytes(records.len()));
            scope.extend_from_slice(&records);
            let mut body = vec![0x0a];
            body.extend_from_slice(&varint_bytes(scope.len()));
            body.extend_from_slice(&scope);
            body
        };
        let one_byte_id_keys = {
            // ResourceLogs > Resource > EntityRef > id_keys "x", repeated.
            let keys = [0x1a, 0x01, b'x'].repeat(1000);
            let mut entity = vec![0x1a];
            entity.extend_from_slice(&varint_bytes(keys.len()));
            entity.extend_from_slice(&keys);
            let mut resource = vec![0x0a];
            resource.extend_from_slice(&varint_bytes(entity.len()));
            resource.extend_from_slice(&entity);
            let mut body = vec![0x0a];
            body.extend_from_slice(&varint_bytes(resource.len()));
            body.extend_from_slice(&resource);
            body
        };
        for body in [
            [0x0a, 0x00].repeat(1 << 20),
            empty_records,
            one_byte_id_keys,
            real_request(100),
        ] {
            let price = decoded_bytes(&body, usize::MAX).expect("walks");
            assert!(
                price <= body.len() * MAX_PRICE_PER_WIRE_BYTE,
                "{price} for {} bytes",
                body.len()
            );
            assert!(price > 0);
        }
        // At the budget: what could exceed it is priced, what cannot is not.
        let edge = DECODE_BUDGET / MAX_PRICE_PER_WIRE_BYTE;
        assert!(!could_exceed(edge, DECODE_BUDGET));
        assert!(could_exceed(edge + 1, DECODE_BUDGET));
        assert!(
            could_exceed(10 << 20, DECODE_BUDGET),
            "the 10 MiB bombs are priced"
        );
    }

    fn varint_bytes(mut n: usize) -> Vec<u8> {
        let mut out = Vec::new();
        while n >= 0x80 {
            out.push((n as u8) | 0x80);
            n >>= 7;
        }
        out.push(n as u8);
        out
    }

    #[test]
    fn otlp_json_is_priced_like_its_protobuf_without_building_a_tree() {
        let empty = format!("{{\"resourceLogs\":[{}{{}}]}}", "{},".repeat(1 << 20));
        let price = json_price(empty.as_bytes(), usize::MAX, usize::MAX).expect("JSON");
        assert!(
            price.bytes >= (1 << 20) * size_of::<ResourceLogs>(),
            "{price:?}"
        );
        assert!(price.bytes > DECODE_BUDGET);
        // A real request: about what its protobuf prices at, its records counted.
        let record = r#"{"timeUnixNano":"1","severityText":"INFO","body":{"stringValue":"GET /checkout 200"},"attributes":[{"key":"attr.0","value":{"stringValue":"value"}},{"key":"attr.1","value":{"arrayValue":{"values":[{"intValue":"1"}]}}}]}"#;
        let body = format!(
            r#"{{"resourceLogs":[{{"resource":{{"attributes":[{{"key":"service.name","value":{{"stringValue":"checkout"}}}}]}},"scopeLogs":[{{"logRecords":[{}]}}]}}]}}"#,
            vec![record; 1000].join(",")
        );
        let price = json_price(body.as_bytes(), usize::MAX, usize::MAX).expect("JSON");
        assert_eq!(price.records, 1000);
        assert!(price.bytes > 1000 * size_of::<LogRecord>(), "{price:?}");
        assert!(price.bytes < DECODE_BUDGET / 10, "{price:?}");
        // Stopping: at the records' bound, and past the bytes' bound.
        let price = json_price(body.as_bytes(), usize::MAX, 10).expect("JSON");
        assert_eq!(price.records, 11);
        assert!(
            json_price(body.as_bytes(), 1000, usize::MAX)
                .expect("JSON")
                .bytes
                > 1000
        );
        assert!(json_price(b"{\"resourceLogs\":[", usize::MAX, usize::MAX).is_err());
        // Invalid UTF-8, even in a member serde's decoder would skip: refused.
        assert!(json_price(b"{\"resource\xffLogs\":[]}", usize::MAX, usize::MAX).is_err());
    }

    #[test]
    fn garbage_walks_to_none_or_a_price_never_a_panic() {
        let body = real_request(3);
        for cut in 0..body.len() {
            let _ = decoded_bytes(&body[..cut], usize::MAX);
        }
        assert_eq!(decoded_bytes(&[0x0a, 0xff], usize::MAX), None);
        // A group (prost skips it) before a flood of empty resources: skipped, and what
        // follows is still priced (found by the otlp_cost fuzz target: the walk gave up
        // at the group, and the body was decoded unpriced).
        let mut grouped = vec![0x73, 0x08, 0x01, 0x74];
        grouped.extend_from_slice(&[0x0a, 0x00].repeat(1000));
        let decoded = ExportLogsServiceRequest::decode(&grouped[..]).expect("prost skips it");
        assert_eq!(decoded.resource_logs.len(), 1000);
        let cost = decoded_bytes(&grouped, usize::MAX).expect("walks");
        assert!(cost >= 1000 * size_of::<ResourceLogs>(), "{cost}");
        assert_eq!(
            decoded_bytes(&[0x73, 0x08, 0x01], usize::MAX),
            None,
            "unended"
        );
        assert_eq!(decoded_bytes(&[0x0f], usize::MAX), None);
        // Nested arrays past prost's depth: priced, not recursed.
        let mut deep = Vec::new();
        for _ in 0..10_000 {
            let mut outer = vec![0x0a];
            let mut n = deep.len();
            while n >= 0x80 {
                outer.push((n as u8) | 0x80);
                n >>= 7;
            }
            outer.push(n as u8);
            outer.extend_from_slice(&deep);
            deep = outer;
        }
        let _ = decoded_bytes(&deep, usize::MAX);
    }
}
