//! Issue 17 part 4's rows of the key table: redaction of secrets and personal data (see
//! `crate::privacy`). See [`super`] for what a row holds and why there is one table.

use super::{Key, Kind, When};
use crate::config::key_parts::*;
use crate::config::redaction::RedactAction;
use crate::config::value::list;

const FIELDS: Kind = Kind::List {
    item: "field name",
    fix: "write redact_fields = [\"password\", \"token\", \"x-api-key\"]",
};
const PATTERN_NAMES: Kind = Kind::List {
    item: "pattern name",
    fix: "write redact_patterns = [\"card\", \"jwt\", \"bearer\", \"aws_key_id\", \"aws_secret\", \"private_key\", \"email\"]",
};
const REGEXES: Kind = Kind::List {
    item: "regular expression",
    fix: "write redact_regexes = [\"order-[0-9]{6}\"] (in a file: a comma inside an expression needs the array form)",
};

/// A list that may be emptied on purpose (no rule of that kind): shown as `[]`.
fn rules(v: &[String]) -> Option<String> {
    Some(list(v).unwrap_or_else(|| "[]".into()))
}

/// The redaction keys.
pub(super) const PRIVACY: &[Key] = &[
    Key {
        name: "redact",
        kind: Kind::Bool,
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`redact` / `--redact`",
        default: "`false`",
        doc: "redact secrets and personal data (the rules below) on the batcher's thread, before events are sent or spilled; counted per rule in `stats().redactions`",
        set: |c, v| c.redaction.enabled = v.bool(),
        get: |c| Some(c.redaction.enabled.to_string()),
    },
    Key {
        name: "redact_fields",
        kind: FIELDS,
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`redact_fields` / `--redact-fields`",
        default: "`password`, `passwd`, `pwd`, `passphrase`, `secret`, `token`, `api_key`, `apikey`, `authorization`, `cookie`, `set_cookie`, `private_key`, `secret_key`, `secret_access_key`, `credentials`, `session_id`",
        doc: "field names whose value is always redacted (case-insensitive; `-`, `.` and camelCase read as `_`; `db.password` and `accessToken` match by their last part)",
        set: |c, v| c.redaction.fields = v.list(),
        get: |c| rules(&c.redaction.fields),
    },
    Key {
        name: "redact_patterns",
        kind: PATTERN_NAMES,
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`redact_patterns` / `--redact-patterns`",
        default: "`card`, `jwt`, `bearer`, `aws_key_id`, `aws_secret`, `private_key` (add `email` for e-mail addresses)",
        doc: "built-in value patterns redacted in the message and every text value: `card` (Luhn-checked), `jwt`, `bearer`, `aws_key_id`, `aws_secret`, `private_key` (PEM), `email`",
        set: |c, v| c.redaction.patterns = v.list(),
        get: |c| rules(&c.redaction.patterns),
    },
    Key {
        name: "redact_regexes",
        kind: REGEXES,
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`redact_regex` / `--redact-regex`",
        default: "none",
        doc: "regular expressions (Rust `regex` syntax, linear time) whose matches are redacted, counted as `regex1`, `regex2`, ...",
        set: |c, v| c.redaction.regexes = v.list(),
        get: |c| list(&c.redaction.regexes),
    },
    Key {
        name: "redact_action",
        kind: Kind::Choice(RedactAction::NAMES),
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`redact_action` / `--redact-action`",
        default: "`mask`",
        doc: "`mask` writes `[redacted:<rule>]`; `hash` writes `[hmac:<16 hex>]` (HMAC-SHA256 under `redact_hash_key`, so values still correlate); `drop` removes the field",
        set: |c, v| c.redaction.action = RedactAction::ALL[v.choice()],
        get: |c| choice(RedactAction::NAMES, &RedactAction::ALL, &c.redaction.action),
    },
    Key {
        name: "redact_hash_key",
        kind: Kind::Secret,
        vendor_env: false,
        when: When::Always,
        java: None,
        builder: "`redact_hash_key` / `--redact-hash-key`",
        default: "none (required by `redact_action = \"hash\"`)",
        doc: "the HMAC key of `hash` (a secret of at least 16 bytes, never shown)",
        set: |c, v| c.redaction.hash_key = v.secret(),
        get: |c| redacted(&c.redaction.hash_key),
    },
];
