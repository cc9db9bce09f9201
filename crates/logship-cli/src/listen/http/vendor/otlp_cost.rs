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

/// A base-128 varint at the start of `b`, and what follows it.
fn varint(b: &[u8]) -> Option<(u64, &[u8])> {
    let mut value = 0u64;
    for (i, &byte) in b.iter().enumerate().take(10) {
        value |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Some((value, &b[i + 1..]));
        }
    }
    None
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
    fn garbage_walks_to_none_or_a_price_never_a_panic() {
        let body = real_request(3);
        for cut in 0..body.len() {
            let _ = decoded_bytes(&body[..cut], usize::MAX);
        }
        assert_eq!(decoded_bytes(&[0x0a, 0xff], usize::MAX), None);
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
