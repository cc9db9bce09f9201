//! The Elasticsearch `_bulk` emulation through raw HTTP/1.1: framing, content type,
//! credentials, per-item answers in the real shape, and item faults.

mod common;

use common::post_once;
use logship_intake::{Intake, IntakeConfig, ItemFault};
use serde_json::{json, Value};
use std::io::Write;

const KEY: &str = "es-key-123";
const NDJSON: (&str, &str) = ("Content-Type", "application/x-ndjson");
const API_KEY: (&str, &str) = ("Authorization", "ApiKey es-key-123");

fn start() -> Intake {
    Intake::start(IntakeConfig {
        api_key: Some(KEY.into()),
        ..IntakeConfig::default()
    })
    .expect("start intake")
}

/// Sends one request on a fresh connection; returns the status and the body.
fn post(intake: &Intake, path: &str, headers: &[(&str, &str)], body: &[u8]) -> (u16, Vec<u8>) {
    let answer = post_once(intake, path, headers, body);
    (answer.status, answer.body)
}

fn json_of(body: &[u8]) -> Value {
    serde_json::from_slice(body)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(body)))
}

/// An NDJSON bulk body of `create` actions into `index`, one per message.
fn bulk(index: &str, messages: &[&str]) -> Vec<u8> {
    let actions = messages
        .iter()
        .map(|m| (json!({"create": {"_index": index}}), *m));
    bulk_of(actions)
}

/// An NDJSON bulk body: each action line followed by a document holding the message.
fn bulk_of<'a>(pairs: impl Iterator<Item = (Value, &'a str)>) -> Vec<u8> {
    let mut body = String::new();
    for (action, m) in pairs {
        body.push_str(&action.to_string());
        body.push('\n');
        body.push_str(&json!({"@timestamp": "2026-01-17T22:12:31.123Z", "message": m}).to_string());
        body.push('\n');
    }
    body.into_bytes()
}

#[test]
fn accepted_items_are_answered_in_the_real_shape_and_recorded() {
    let intake = start();
    let (status, body) = post(
        &intake,
        "/_bulk",
        &[NDJSON, API_KEY],
        &bulk("logs-app-default", &["a", "b"]),
    );
    assert_eq!(status, 200);
    let v = json_of(&body);
    assert_eq!(v["errors"], false);
    assert!(v["took"].is_u64());
    let items = v["items"].as_array().unwrap();
    assert_eq!(items.len(), 2);
    assert_eq!(items[0]["create"]["status"], 201);
    assert_eq!(items[0]["create"]["result"], "created");
    assert_eq!(
        items[0]["create"]["_index"], ".ds-logs-app-default-000001",
        "a data stream answers with its backing index"
    );
    let events = intake.events();
    assert_eq!(events.len(), 2);
    assert_eq!(events[1].value["message"], "b");
    assert_eq!(events[1].value["_index"], "logs-app-default");
    assert_eq!(intake.requests()[0].vendor, "elasticsearch");
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
}

#[test]
fn the_index_may_come_from_the_path_and_gzip_is_decoded() {
    let intake = start();
    let body = b"{\"create\":{}}\n{\"@timestamp\":\"2026-01-17T22:12:31Z\",\"m\":1}\n";
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(body).unwrap();
    let (status, _) = post(
        &intake,
        "/app-logs/_bulk",
        &[
            ("Content-Type", "application/json; charset=UTF-8"),
            ("Content-Encoding", "gzip"),
            ("Authorization", "Basic ZWxhc3RpYzplcy1rZXktMTIz"), // elastic:es-key-123
        ],
        &gz.finish().unwrap(),
    );
    assert_eq!(status, 200);
    assert_eq!(intake.events()[0].value["_index"], "app-logs");
}

/// A refused request: headers, body, expected status, violation text.
type Case<'a> = (Vec<(&'a str, &'a str)>, &'a [u8], u16, &'a str);

#[test]
fn framing_content_type_and_credentials_are_enforced() {
    let intake = start();
    let good = bulk("logs-app-default", &["a"]);
    let unterminated = &good[..good.len() - 1];
    let cases: Vec<Case<'_>> = vec![
        (
            vec![NDJSON, API_KEY],
            unterminated,
            400,
            "must be terminated by a newline",
        ),
        (vec![API_KEY], &good, 406, "is not supported"),
        (
            vec![("Content-Type", "text/plain"), API_KEY],
            &good,
            406,
            "is not supported",
        ),
        (vec![NDJSON, API_KEY], b"", 400, "no requests added"),
        (
            vec![NDJSON, API_KEY],
            b"{\"create\":{}}\n{\"a\":1}\n",
            400,
            "index is missing",
        ),
        (
            vec![NDJSON, API_KEY],
            b"{\"delete\":{\"_index\":\"x\",\"_id\":\"1\"}}\n",
            400,
            "logship must send create",
        ),
        (
            vec![NDJSON, API_KEY],
            b"{\"create\":{\"_index\":\"x\"}}\n",
            400,
            "not followed by a source line",
        ),
    ];
    for (i, (headers, body, status, needle)) in cases.into_iter().enumerate() {
        let (got, answer) = post(&intake, "/_bulk", &headers, body);
        assert_eq!(
            got,
            status,
            "case {i}: {}",
            String::from_utf8_lossy(&answer)
        );
        let violations = intake.violations();
        assert_eq!(violations.len(), i + 1, "case {i}: {violations:?}");
        assert!(
            violations[i].contains(needle),
            "case {i}: {}",
            violations[i]
        );
    }
    assert_eq!(intake.stats().events, 0);
    for auth in [
        None,
        Some("ApiKey wrong"),
        Some("Basic ZWxhc3RpYzp3cm9uZw=="),
    ] {
        let mut headers = vec![NDJSON];
        headers.extend(auth.map(|a| ("Authorization", a)));
        let (status, body) = post(&intake, "/_bulk", &headers, &good);
        assert_eq!(status, 401);
        assert_eq!(json_of(&body)["error"]["type"], "security_exception");
    }
    assert_eq!(intake.stats().auth_failures, 3);
    assert_eq!(intake.stats().events, 0);
}

#[test]
fn documents_elasticsearch_would_refuse_fail_as_items() {
    let intake = start();
    let body = [
        "{\"create\":{\"_index\":\"logs-app-default\"}}",
        "{\"@timestamp\":\"2026-01-17T22:12:31Z\",\"message\":\"ok\"}",
        "{\"create\":{\"_index\":\"logs-app-default\"}}",
        "{\"message\":\"no timestamp in a data stream\"}",
        "{\"create\":{\"_index\":\"plain\"}}",
        "{\"_id\":\"x\",\"message\":\"metadata field\"}",
        "{\"create\":{\"_index\":\"plain\"}}",
        "{\"a\":1,\"a\":2}",
        "{\"index\":{\"_index\":\"logs-app-default\"}}",
        "{\"@timestamp\":\"2026-01-17T22:12:31Z\"}",
        "",
    ]
    .join("\n");
    let (status, answer) = post(&intake, "/_bulk", &[NDJSON, API_KEY], body.as_bytes());
    assert_eq!(status, 200);
    let v = json_of(&answer);
    assert_eq!(v["errors"], true);
    let statuses: Vec<u64> = v["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            i.as_object().unwrap().values().next().unwrap()["status"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(statuses, [201, 400, 400, 400, 400]);
    assert!(v["items"][4]["index"]["error"]["reason"]
        .as_str()
        .unwrap()
        .contains("op_type of create"));
    assert_eq!(intake.stats().events, 1);
    // One per refused item, and the body-wide duplicate-name check (every vendor's JSON
    // bodies, any depth) names the duplicate too.
    let violations = intake.violations();
    assert_eq!(violations.len(), 5, "{violations:?}");
    assert!(
        violations[4].contains("duplicate name \"a\""),
        "{violations:?}"
    );
}

#[test]
fn item_faults_fail_marked_or_next_items() {
    let intake = start();
    intake.fail_items(ItemFault::containing("boom", 1, 429));
    intake.fail_items(ItemFault::next(1, 400));
    let (_, answer) = post(
        &intake,
        "/_bulk",
        &[NDJSON, API_KEY],
        &bulk("logs-app-default", &["a", "boom", "c", "d"]),
    );
    let v = json_of(&answer);
    assert_eq!(v["errors"], true);
    let items = v["items"].as_array().unwrap();
    assert_eq!(items[1]["create"]["status"], 429);
    assert_eq!(
        items[1]["create"]["error"]["type"],
        "es_rejected_execution_exception"
    );
    assert_eq!(
        items[0]["create"]["status"], 400,
        "the next item, whatever it holds"
    );
    assert_eq!(
        items[0]["create"]["error"]["type"],
        "mapper_parsing_exception"
    );
    assert_eq!(items[2]["create"]["status"], 201);
    let messages: Vec<Value> = intake
        .events()
        .iter()
        .map(|e| e.value["message"].clone())
        .collect();
    assert_eq!(messages, ["c", "d"]);
    assert!(
        intake.violations().is_empty(),
        "injected failures are not violations"
    );
}

/// What logship asks `_bulk` for: `errors` and each item's status and error.
const FILTERED: &str =
    "/_bulk?filter_path=errors,items.*.status,items.*.error.type,items.*.error.reason";

#[test]
fn filter_path_trims_the_answer_and_keeps_every_item_in_place() {
    let intake = start();
    intake.fail_items(ItemFault::containing("busy", 1, 429));
    intake.fail_items(ItemFault::containing("bad", 1, 400));
    let body = bulk("logs-app-default", &["a", "busy", "c", "bad", "e"]);
    let (status, answer) = post(&intake, FILTERED, &[NDJSON, API_KEY], &body);
    assert_eq!(status, 200);
    let created = json!({"create": {"status": 201}});
    assert_eq!(
        json_of(&answer),
        json!({"errors": true, "items": [
            created,
            {"create": {"status": 429, "error": {
                "type": "es_rejected_execution_exception",
                "reason": "rejected execution of primary operation [injected]: write queue full",
            }}},
            created,
            {"create": {"status": 400, "error": {
                "type": "mapper_parsing_exception",
                "reason": "failed to parse field [injected] of type [long]",
            }}},
            created,
        ]}),
        "{}",
        String::from_utf8_lossy(&answer)
    );
    assert_eq!(intake.stats().events, 3);

    // Without the parameter, or with a setting that ignores it, the answer is whole.
    intake.set_es_filter_path(false);
    let (_, full) = post(&intake, FILTERED, &[NDJSON, API_KEY], &body);
    intake.set_es_filter_path(true);
    let (_, plain) = post(&intake, "/_bulk", &[NDJSON, API_KEY], &body);
    for answer in [&full, &plain] {
        let v = json_of(answer);
        assert!(v["took"].is_u64());
        assert_eq!(v["items"][0]["create"]["result"], "created");
        assert!(v["items"][0]["create"]["_id"].is_string());
    }
    let sizes: Vec<usize> = intake.requests().iter().map(|r| r.response_bytes).collect();
    assert_eq!(sizes, [answer.len(), full.len(), plain.len()]);
    assert!(sizes[0] < sizes[1] / 2, "{sizes:?}");
}

#[test]
fn an_error_only_filter_drops_the_successful_items_like_elasticsearch() {
    let intake = start();
    intake.fail_items(ItemFault::containing("bad", 1, 400));
    let (_, answer) = post(
        &intake,
        "/_bulk?filter_path=items.*.error.type",
        &[NDJSON, API_KEY],
        &bulk("logs-app-default", &["a", "bad", "c"]),
    );
    assert_eq!(
        json_of(&answer),
        json!({"items": [{"create": {"error": {"type": "mapper_parsing_exception"}}}]})
    );
    let (_, answer) = post(
        &intake,
        "/_bulk?filter_path=took",
        &[NDJSON, API_KEY],
        &bulk("logs-app-default", &["a"]),
    );
    let v = json_of(&answer);
    assert_eq!(v.as_object().unwrap().len(), 1, "{v}");
    assert!(v["took"].is_u64());
}

/// A bulk body of `op` actions naming `_id`s, one document per `(id, message)`.
fn bulk_with_ids(op: &str, index: &str, docs: &[(&str, &str)]) -> Vec<u8> {
    bulk_of(
        docs.iter()
            .map(|(id, m)| (json!({op: {"_index": index, "_id": id}}), *m)),
    )
}

#[test]
fn a_create_of_an_existing_id_answers_409_like_elasticsearch_and_stores_nothing() {
    let intake = start();
    let first = bulk_with_ids(
        "create",
        "logs-app-default",
        &[("id-1", "a"), ("id-2", "b")],
    );
    let (status, body) = post(&intake, "/_bulk", &[NDJSON, API_KEY], &first);
    assert_eq!(status, 200);
    let v = json_of(&body);
    assert_eq!(v["errors"], false);
    assert_eq!(
        v["items"][0]["create"]["_id"], "id-1",
        "the client's id is kept"
    );
    // The replay of one of them, and a new one.
    let again = bulk_with_ids(
        "create",
        "logs-app-default",
        &[("id-2", "b"), ("id-3", "c")],
    );
    let (status, body) = post(&intake, "/_bulk", &[NDJSON, API_KEY], &again);
    assert_eq!(status, 200, "per-item failures keep the request's 200");
    let v = json_of(&body);
    assert_eq!(v["errors"], true);
    let conflict = &v["items"][0]["create"];
    assert_eq!(conflict["status"], 409);
    assert_eq!(
        conflict["error"]["type"],
        "version_conflict_engine_exception"
    );
    assert_eq!(
        conflict["error"]["reason"],
        "[id-2]: version conflict, document already exists (current version [1])"
    );
    assert_eq!(conflict["error"]["index"], ".ds-logs-app-default-000001");
    assert_eq!(conflict["error"]["shard"], "0");
    assert!(conflict["error"]["index_uuid"].is_string());
    assert_eq!(v["items"][1]["create"]["status"], 201);
    // The same id in another index is another document.
    let other = bulk_with_ids("create", "other", &[("id-2", "b")]);
    let (_, body) = post(&intake, "/_bulk", &[NDJSON, API_KEY], &other);
    assert_eq!(json_of(&body)["items"][0]["create"]["status"], 201);
    let docs = intake.stats().es_documents;
    assert_eq!(
        (docs.stored, docs.ids, docs.id_conflicts),
        (4, 4, 1),
        "{docs:?}"
    );
    assert_eq!(
        docs.content_duplicates, 1,
        "id-2 in `other` has id-2's content"
    );
    assert_eq!(
        intake.events().len(),
        4,
        "the refused create is not an event"
    );
    assert!(
        intake.violations().is_empty(),
        "a 409 is no violation: {:?}",
        intake.violations()
    );
    // Filtered like logship asks, the conflict keeps its status and error type.
    let (_, body) = post(
        &intake,
        "/_bulk?filter_path=errors,items.*.status,items.*.error.type,items.*.error.reason",
        &[NDJSON, API_KEY],
        &bulk_with_ids("create", "other", &[("id-2", "b")]),
    );
    let v = json_of(&body);
    assert_eq!(v["items"][0]["create"]["status"], 409);
    assert_eq!(
        v["items"][0]["create"]["error"]["type"],
        "version_conflict_engine_exception"
    );
    intake.reset();
    assert_eq!(
        intake.stats().es_documents.stored,
        0,
        "reset forgets the documents"
    );
}

#[test]
fn an_index_of_an_existing_id_replaces_it_and_bad_ids_are_refused() {
    let intake = start();
    let (_, body) = post(
        &intake,
        "/_bulk",
        &[NDJSON, API_KEY],
        &bulk_with_ids("index", "app", &[("x", "1")]),
    );
    assert_eq!(json_of(&body)["items"][0]["index"]["result"], "created");
    let (_, body) = post(
        &intake,
        "/_bulk",
        &[NDJSON, API_KEY],
        &bulk_with_ids("index", "app", &[("x", "2")]),
    );
    let item = &json_of(&body)["items"][0]["index"];
    assert_eq!(
        (item["status"].as_u64(), item["result"].as_str()),
        (Some(200), Some("updated"))
    );
    assert_eq!(item["_version"], 2);
    let docs = intake.stats().es_documents;
    assert_eq!(
        (docs.stored, docs.ids, docs.id_conflicts),
        (1, 1, 0),
        "{docs:?}"
    );
    let long = "i".repeat(513);
    for bad in [
        bulk_with_ids("create", "app", &[("", "m")]),
        bulk_with_ids("create", "app", &[(long.as_str(), "m")]),
    ] {
        let (status, body) = post(&intake, "/_bulk", &[NDJSON, API_KEY], &bad);
        assert_eq!(status, 400, "{}", String::from_utf8_lossy(&body));
    }
    assert_eq!(intake.violations().len(), 2, "logship never sends such ids");
}
