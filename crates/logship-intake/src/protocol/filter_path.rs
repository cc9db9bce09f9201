//! Elasticsearch's response filtering, `?filter_path=` (docs/wire-formats.md section 7).
//!
//! Why it exists: logship asks `_bulk` for a trimmed answer (each item's status and
//! error only), so the emulation must trim its answer the way Elasticsearch does for the
//! library to be tested against the shape it really gets.
//!
//! Emulated: a comma-separated list of dotted paths; in a path segment `*` matches any run
//! of characters (a bare `*` is any key at that level) and `**` any number of levels;
//! arrays are transparent (a path runs through them to their elements). Objects and
//! arrays a filter leaves empty are dropped, in arrays too (so `items.*.error` drops the
//! items without an error), and an answer with nothing left is `{}`. Not emulated:
//! exclusions (`-path`, ignored here) and escaped dots.

use serde_json::{Map, Value};

/// The parsed value of a `filter_path` parameter: the paths to keep.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FilterPath(Vec<Vec<String>>);

impl FilterPath {
    /// Parses the raw (percent-encoded) parameter value; `None` when it names no path
    /// to keep, so the answer goes out whole.
    pub(crate) fn parse(raw: &str) -> Option<FilterPath> {
        let decoded = percent_decode(raw);
        let paths: Vec<Vec<String>> = decoded
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty() && !p.starts_with('-'))
            .map(|p| p.split('.').map(str::to_owned).collect())
            .collect();
        (!paths.is_empty()).then_some(FilterPath(paths))
    }

    /// `value` trimmed to the paths; `{}` when none matches.
    pub(crate) fn apply(&self, value: &Value) -> Value {
        let paths: Vec<&[String]> = self.0.iter().map(Vec::as_slice).collect();
        filter(value, &paths).unwrap_or_else(|| Value::Object(Map::new()))
    }
}

/// What of `value` the `paths` (each the rest of a pattern still to match) keep; `None`
/// when nothing is left.
fn filter(value: &Value, paths: &[&[String]]) -> Option<Value> {
    if paths.iter().any(|p| p.is_empty()) {
        return Some(value.clone());
    }
    match value {
        Value::Object(map) => {
            let mut kept = Map::new();
            for (key, child) in map {
                let next: Vec<&[String]> = paths.iter().flat_map(|p| step(p, key)).collect();
                if next.is_empty() {
                    continue;
                }
                if let Some(child) = filter(child, &next) {
                    kept.insert(key.clone(), child);
                }
            }
            (!kept.is_empty()).then_some(Value::Object(kept))
        }
        Value::Array(items) => {
            let kept: Vec<Value> = items.iter().filter_map(|v| filter(v, paths)).collect();
            (!kept.is_empty()).then_some(Value::Array(kept))
        }
        _ => None,
    }
}

/// The rests of `path` once its head has matched `key` (several with `**`).
fn step<'p>(path: &'p [String], key: &str) -> Vec<&'p [String]> {
    match path.split_first() {
        Some((head, rest)) if head == "**" => {
            if rest.is_empty() {
                return vec![rest]; // a trailing `**` keeps everything below
            }
            // `**` takes this level and stays, or matches no level at all.
            let mut out = vec![path];
            out.extend(step(rest, key));
            out
        }
        Some((head, rest)) if glob(head, key) => vec![rest],
        _ => Vec::new(),
    }
}

/// Whether `key` matches `pattern`, where `*` stands for any run of characters.
fn glob(pattern: &str, key: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = key.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty(); // no `*`: the whole key
    };
    for part in middle {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

/// Decodes `%XX` escapes (a client may encode `*` and `,`) and `+` as a space; a
/// malformed escape stays as it is.
fn percent_decode(raw: &str) -> String {
    percent_encoding::percent_decode_str(&raw.replace('+', " "))
        .decode_utf8_lossy()
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn trim(filter: &str, value: &Value) -> Value {
        FilterPath::parse(filter).unwrap().apply(value)
    }

    #[test]
    fn wildcards_keep_every_item_in_place() {
        let answer = json!({"took": 3, "errors": true, "items": [
            {"create": {"_index": "a", "_id": "1", "status": 201, "_shards": {"total": 2}}},
            {"create": {"_index": "a", "status": 429, "error": {"type": "t", "reason": "r", "index": "a"}}},
        ]});
        let f = "errors,items.*.status,items.*.error.type,items.*.error.reason";
        assert_eq!(
            trim(f, &answer),
            json!({"errors": true, "items": [
                {"create": {"status": 201}},
                {"create": {"status": 429, "error": {"type": "t", "reason": "r"}}},
            ]})
        );
        assert_eq!(
            trim("items.*.error", &answer),
            json!({"items": [{"create": {"error": {"type": "t", "reason": "r", "index": "a"}}}]}),
            "items left empty are dropped: the positions are lost"
        );
        assert_eq!(trim("took", &answer), json!({"took": 3}));
        assert_eq!(trim("nothing.here", &answer), json!({}));
        assert_eq!(
            trim("**.reason", &answer),
            json!({"items": [{"create": {"error": {"reason": "r"}}}]})
        );
        assert_eq!(
            trim("items.*.st*us", &answer),
            json!({"items": [{"create": {"status": 201}}, {"create": {"status": 429}}]})
        );
    }

    #[test]
    fn the_parameter_is_decoded_and_may_name_nothing() {
        assert_eq!(
            FilterPath::parse("errors%2Citems.%2A.status"),
            FilterPath::parse("errors,items.*.status")
        );
        assert!(FilterPath::parse("").is_none());
        assert!(
            FilterPath::parse(",-took").is_none(),
            "exclusions are not emulated"
        );
        assert!(glob("*", "create"));
        assert!(glob("cr*te", "create"));
        assert!(!glob("cr*x", "create"));
        assert!(!glob("status", "statuses"));
    }
}
