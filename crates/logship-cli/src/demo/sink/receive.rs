//! What the demo's sink reads of a body, for each vendor logship ships to: every event's
//! probes (its log time and its request id), and the vendor's success answer.
//!
//! Why it exists: the demo reports the events that arrived and the end-to-end latency,
//! so the sink must count exactly the events a body holds and read each one's `t_us`
//! field (microseconds since the Unix epoch at the log call) and its `request` span's
//! `request_id` (to tell duplicates around an outage), wherever the vendor's shape puts
//! them. The answers are `logship-http`'s, the ones the real vendors give.
//!
//! Must never: validate (the strict emulation of each vendor is `logship-intake`'s, a
//! test tool), panic on any bytes (a body it cannot read is an `Err`, answered 400), or
//! recurse on input (serde_json's and prost's own nesting limits bound depth).

use logship::Vendor;
use logship_http::answers::{self, elasticsearch};
use logship_http::{Request, Response};
use opentelemetry_proto::tonic::collector::logs::v1::ExportLogsServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value;
use prost::Message;
use serde_json::{json, Value};

/// What the demo reads of one delivered event.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Probe {
    /// The event's `t_us` field: when it was logged, microseconds since the Unix epoch.
    pub t_us: Option<u64>,
    /// The `request_id` of the event's `request` span.
    pub request_id: Option<u64>,
}

/// A body read: one probe per event, and the answer to send.
pub struct Received {
    /// One per event, in the body's order.
    pub probes: Vec<Probe>,
    /// The vendor's success answer.
    pub response: Response,
}

/// Where each shape keeps an event's fields: at the top level, in Splunk's `event`, in
/// New Relic's `attributes` (and OTLP's, as read here), in Loki's structured `metadata`
/// (as strings); logship's own format also lists each span's fields under `spans`.
const FIELDS_AT: [&str; 5] = ["", "/event", "/attributes", "/metadata", "/spans/0"];
/// The name of the demo's log time field.
const T_US: [&str; 1] = ["t_us"];
/// The names the `request` span's `request_id` takes: its own (logship's default
/// `span_fields = root`), prefixed with the span's name (`prefixed`), and the prefixed
/// name made query-safe (Loki's metadata).
const REQUEST_ID: [&str; 3] = ["request_id", "request.request_id", "request_request_id"];

/// Reads `body` (already decoded) as `vendor` sends it. `req` gives the media type (OTLP
/// sends protobuf or JSON) and the `_bulk` path's index.
pub fn receive(vendor: Vendor, req: &Request, body: &[u8]) -> Result<Received, String> {
    let json_media = req
        .header("content-type")
        .is_some_and(|t| t.to_ascii_lowercase().contains("json"));
    let probes = |events: Vec<Value>| events.iter().map(probe).collect::<Vec<_>>();
    Ok(match vendor {
        Vendor::Ndjson => {
            let probes = probes(ndjson(body)?);
            let response = answers::generic::accepted(probes.len());
            Received { probes, response }
        }
        Vendor::JsonArray => {
            let probes = probes(array(body)?);
            let response = answers::generic::accepted(probes.len());
            Received { probes, response }
        }
        Vendor::Datadog => Received {
            probes: probes(array(body)?),
            response: answers::datadog::accepted(),
        },
        Vendor::Dynatrace => Received {
            probes: probes(array(body)?),
            response: answers::dynatrace::accepted(),
        },
        Vendor::NewRelic => Received {
            probes: probes(newrelic(body)?),
            response: answers::newrelic::accepted(),
        },
        Vendor::Splunk => Received {
            probes: probes(concatenated(body)?),
            response: Response::json(200, &answers::splunk::success_json()),
        },
        Vendor::Loki => Received {
            probes: probes(loki(body)?),
            response: answers::loki::pushed(),
        },
        Vendor::Elasticsearch => bulk(req, body)?,
        Vendor::Otlp => Received {
            probes: if json_media {
                otlp_json(body)?
            } else {
                otlp_protobuf(body)?
            },
            response: answers::otlp::success(json_media),
        },
        other => return Err(format!("the demo's sink does not read {}", other.name())),
    })
}

/// The probes of one event in any of the JSON shapes.
fn probe(event: &Value) -> Probe {
    let find = |names: &[&str]| {
        FIELDS_AT
            .iter()
            .filter_map(|at| event.pointer(at))
            .find_map(|fields| names.iter().find_map(|n| fields.get(n).and_then(as_u64)))
    };
    Probe {
        t_us: find(&T_US),
        request_id: find(&REQUEST_ID),
    }
}

/// The probes of one OTLP record, from its attributes' names and integer (or string)
/// values.
fn otlp_probe<'a>(attributes: impl Iterator<Item = (&'a str, Option<u64>)> + Clone) -> Probe {
    let find = |names: &[&str]| {
        attributes
            .clone()
            .find(|(key, _)| names.contains(key))
            .and_then(|(_, value)| value)
    };
    Probe {
        t_us: find(&T_US),
        request_id: find(&REQUEST_ID),
    }
}

/// A number, or a string holding one (Loki's metadata and OTLP JSON's 64-bit integers are
/// strings).
fn as_u64(v: &Value) -> Option<u64> {
    v.as_u64().or_else(|| v.as_str()?.parse().ok())
}

fn parse(bytes: &[u8]) -> Result<Value, String> {
    serde_json::from_slice(bytes).map_err(|e| format!("not JSON: {e}"))
}

/// One JSON object per non-blank line.
fn ndjson(body: &[u8]) -> Result<Vec<Value>, String> {
    body.split(|&b| b == b'\n')
        .filter(|line| !line.trim_ascii().is_empty())
        .map(parse)
        .collect()
}

/// A JSON array of events (one object alone is one event).
fn array(body: &[u8]) -> Result<Vec<Value>, String> {
    match parse(body)? {
        Value::Array(events) => Ok(events),
        one @ Value::Object(_) => Ok(vec![one]),
        _ => Err("expected a JSON array of events".into()),
    }
}

/// Splunk HEC's envelopes, concatenated without separators.
fn concatenated(body: &[u8]) -> Result<Vec<Value>, String> {
    serde_json::Deserializer::from_slice(body)
        .into_iter::<Value>()
        .map(|v| v.map_err(|e| format!("not JSON envelopes: {e}")))
        .collect()
}

/// New Relic's blocks: `[{"common":{…},"logs":[…]},…]`.
fn newrelic(body: &[u8]) -> Result<Vec<Value>, String> {
    let mut events = Vec::new();
    for mut block in array(body)? {
        match block.get_mut("logs").map(Value::take) {
            Some(Value::Array(logs)) => events.extend(logs),
            _ => return Err("a block without a \"logs\" array".into()),
        }
    }
    Ok(events)
}

/// Loki's push: `{"streams":[{"stream":{…},"values":[["<ns>","<line>",{metadata}],…]}]}`;
/// each entry is read as `{"metadata": …}`.
fn loki(body: &[u8]) -> Result<Vec<Value>, String> {
    let mut push = parse(body)?;
    let Some(Value::Array(streams)) = push.get_mut("streams").map(Value::take) else {
        return Err("expected {\"streams\":[…]}".into());
    };
    let mut events = Vec::new();
    for mut stream in streams {
        let Some(Value::Array(values)) = stream.get_mut("values").map(Value::take) else {
            return Err("a stream without a \"values\" array".into());
        };
        for mut entry in values {
            let metadata = entry.get_mut(2).map(Value::take).unwrap_or(Value::Null);
            events.push(json!({ "metadata": metadata }));
        }
    }
    Ok(events)
}

/// Elasticsearch's `_bulk`: an action line, then the document, for each event; answered
/// with one `201 created` item per document.
fn bulk(req: &Request, body: &[u8]) -> Result<Received, String> {
    let events = ndjson(body)?;
    if events.len() % 2 != 0 {
        return Err("an action line without its document".into());
    }
    // The index of `POST /{index}/_bulk`, for actions that name none.
    let path_index = req.path().trim_start_matches('/').split('/').next();
    let path_index = path_index.filter(|i| !i.is_empty() && *i != "_bulk");
    let mut items = String::new();
    let mut probes = Vec::with_capacity(events.len() / 2);
    for (i, pair) in events.chunks_exact(2).enumerate() {
        let Some((op, action)) = pair[0].as_object().and_then(|a| a.iter().next()) else {
            return Err(format!("item {i}: the action line is not an object"));
        };
        let index = action
            .get("_index")
            .and_then(Value::as_str)
            .or(path_index)
            .unwrap_or("logs");
        let id = match action.get("_id").and_then(Value::as_str) {
            Some(id) => id.to_owned(),
            None => elasticsearch::generated_id(),
        };
        elasticsearch::push_stored_item(&mut items, op, index, &id, i, false);
        probes.push(probe(&pair[1]));
    }
    let took = probes.len() as u64 / 100 + 1;
    Ok(Received {
        probes,
        response: Response {
            status: 200,
            headers: vec![("Content-Type".into(), "application/json".into())],
            body: elasticsearch::bulk_answer(took, false, &items).into_bytes(),
        },
    })
}

/// OTLP/HTTP protobuf: an `ExportLogsServiceRequest`; one probe per `LogRecord`, read
/// from its attributes.
fn otlp_protobuf(body: &[u8]) -> Result<Vec<Probe>, String> {
    let request = ExportLogsServiceRequest::decode(body)
        .map_err(|e| format!("not an ExportLogsServiceRequest: {e}"))?;
    let records = request
        .resource_logs
        .iter()
        .flat_map(|r| &r.scope_logs)
        .flat_map(|s| &s.log_records);
    Ok(records
        .map(|record| {
            otlp_probe(record.attributes.iter().map(|a| {
                let value = match a.value.as_ref().and_then(|v| v.value.as_ref()) {
                    Some(any_value::Value::IntValue(n)) => u64::try_from(*n).ok(),
                    Some(any_value::Value::StringValue(s)) => s.parse().ok(),
                    _ => None,
                };
                (a.key.as_str(), value)
            }))
        })
        .collect())
}

/// OTLP/HTTP JSON: `{"resourceLogs":[{"scopeLogs":[{"logRecords":[…]}]}]}`; one probe per
/// record, from its `attributes` list (`{"key":…,"value":{"intValue":"…"}}`).
fn otlp_json(body: &[u8]) -> Result<Vec<Probe>, String> {
    let request = parse(body)?;
    let mut probes = Vec::new();
    for resource in list(&request, "resourceLogs")? {
        for scope in list(resource, "scopeLogs")? {
            for record in list(scope, "logRecords")? {
                let attributes = list(record, "attributes")?.iter().map(|a| {
                    let key = a.get("key").and_then(Value::as_str).unwrap_or("");
                    let value = a.get("value").and_then(Value::as_object);
                    (key, value.and_then(|v| v.values().next()).and_then(as_u64))
                });
                probes.push(otlp_probe(attributes));
            }
        }
    }
    Ok(probes)
}

/// The array `key` of an OTLP JSON object (absent: empty).
fn list<'a>(v: &'a Value, key: &str) -> Result<&'a [Value], String> {
    match v.get(key) {
        None => Ok(&[]),
        Some(Value::Array(items)) => Ok(items),
        Some(_) => Err(format!("\"{key}\" is not an array")),
    }
}
