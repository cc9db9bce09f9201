//! Elasticsearch / OpenSearch `_bulk`'s answer (docs/wire-formats.md section 7):
//! `200 {"took":…,"errors":…,"items":[…]}`, one item per action, in order.
//!
//! Written as text: building a `Value` per item costs more than the rest of a request.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::Value;

/// Source of document ids, unique for the process.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// The `_id` given to a document whose action names none: `ls` and 12 hex digits.
pub fn generated_id() -> String {
    format!("ls{:012x}", NEXT_ID.fetch_add(1, Ordering::Relaxed))
}

/// Appends the item of a stored document to `items` (a comma first unless it is the
/// first): `{"<op>":{"_index","_id","_version","result","_shards","_seq_no",
/// "_primary_term","status"}}`, `201 created` (or `200 updated` for an `index` that
/// replaced a document). `seq_no` is the item's position in the request.
pub fn push_stored_item(
    items: &mut String,
    op: &str,
    index: &str,
    id: &str,
    seq_no: usize,
    updated: bool,
) {
    if !items.is_empty() {
        items.push(',');
    }
    let (version, result, status) = if updated {
        (2, "updated", 200)
    } else {
        (1, "created", 201)
    };
    let (index, id) = (Value::from(index), Value::from(id));
    let _ = write!(
        items,
        r#"{{"{op}":{{"_index":{index},"_id":{id},"_version":{version},"result":"{result}","_shards":{{"total":2,"successful":1,"failed":0}},"_seq_no":{seq_no},"_primary_term":1,"status":{status}}}}}"#,
    );
}

/// The whole answer's JSON around `items` (comma-separated, as built by
/// [`push_stored_item`]); `took` in milliseconds.
pub fn bulk_answer(took: u64, errors: bool, items: &str) -> String {
    format!(r#"{{"took":{took},"errors":{errors},"items":[{items}]}}"#)
}
