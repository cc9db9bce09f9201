//! Redaction of secrets and personal data before an event leaves the process (issue 17
//! part 4).
//!
//! Why it exists: logs go to a third party, and to the spill on disk, and a password or a
//! card number logged by mistake is an incident. [`Redaction`] runs on the batcher's thread
//! (and the replayer's, for spill files an older configuration wrote), before a record is
//! encoded and before any batch can be spilled: every path a record takes to an encoder or
//! to disk passes `batch::thread::add` or the replayer. It applies, to the message, every
//! field and span field and every error value: the field-name denylist ([`fields`]), the
//! built-in value patterns ([`patterns`]) and the user's regexes (compiled once, at
//! build); each match is masked, replaced by a keyed hash (HMAC-SHA256 through `ring`,
//! already in the tree through rustls) or its field dropped, and counted per rule.
//! (`crate::observe::scrub` is a different thing: it keeps the configuration's own secrets out of
//! logship's error messages.)
//!
//! Must never: run on the caller's thread, allocate for an event nothing matches, show the
//! hash key, or leave part of a match behind (redaction runs before truncation).

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::capture::record::{Entry, ErrorValue, Record, Value};
use crate::config::redaction::{RedactAction, RedactionConfig, PATTERNS};
use crate::error::ConfigError;

mod denylist;
mod luhn;
mod patterns;
#[cfg(test)]
mod tests;

use denylist::Denylist;
use patterns::{Pattern, Scanner};

/// Rule index of the field-name denylist; 1..=7 are the built-in patterns, then the regexes.
const FIELD_RULE: usize = 0;
const FIRST_REGEX_RULE: usize = 1 + PATTERNS.len();

/// The compiled rules of one pipeline and their counters.
pub(crate) struct Redaction {
    denylist: Denylist,
    scanner: Scanner,
    regexes: Vec<regex::Regex>,
    action: RedactAction,
    key: Option<ring::hmac::Key>,
    /// Rule names, by rule index: `field`, the pattern names, `regex1`, ...
    names: Vec<String>,
    counts: Vec<AtomicU64>,
    events: AtomicU64,
}

impl std::fmt::Debug for Redaction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Redaction")
            .field("rules", &self.names)
            .finish_non_exhaustive()
    }
}

/// A match in a text: byte range and rule index.
type Span = (usize, usize, usize);

impl Redaction {
    /// Compiles the rules; `None` when redaction is off. Errors name the option.
    pub(crate) fn new(config: &RedactionConfig) -> Result<Option<Redaction>, ConfigError> {
        if !config.enabled {
            return Ok(None);
        }
        config.validate()?;
        let enabled: Vec<Pattern> = Pattern::ALL
            .into_iter()
            .filter(|p| config.patterns.iter().any(|n| n == PATTERNS[*p as usize]))
            .collect();
        let regexes = config
            .regexes
            .iter()
            .map(|r| RedactionConfig::compile(r))
            .collect::<Result<Vec<_>, _>>()?;
        let mut names: Vec<String> = vec!["field".into()];
        names.extend(PATTERNS.iter().map(|p| p.to_string()));
        names.extend((1..=regexes.len()).map(|i| format!("regex{i}")));
        Ok(Some(Redaction {
            denylist: Denylist::new(config.fields.iter().map(String::as_str)),
            scanner: Scanner::new(&enabled),
            regexes,
            action: config.action,
            key: config
                .hash_key
                .as_ref()
                .map(|k| ring::hmac::Key::new(ring::hmac::HMAC_SHA256, k.expose().as_bytes())),
            counts: names.iter().map(|_| AtomicU64::new(0)).collect(),
            names,
            events: AtomicU64::new(0),
        }))
    }

    /// Events that had at least one redaction.
    pub(crate) fn events(&self) -> u64 {
        self.events.load(Ordering::Relaxed)
    }

    /// Redactions per rule name (rules that never matched are left out).
    pub(crate) fn counts(&self) -> BTreeMap<String, u64> {
        self.names
            .iter()
            .zip(&self.counts)
            .map(|(n, c)| (n.clone(), c.load(Ordering::Relaxed)))
            .filter(|(_, c)| *c > 0)
            .collect()
    }

    /// The record with every rule applied; the same record (not copied) when nothing
    /// matches.
    pub(crate) fn apply(&self, record: Record) -> Record {
        if !self.entries_match(&record) {
            return record;
        }
        let mut out = record.emptied();
        let mut spans: Vec<Span> = Vec::new();
        let mut text = String::new();
        for entry in record.entries() {
            match entry {
                Entry::Message(m) => {
                    let m = self.redact_text(m, &mut spans, &mut text, false);
                    out.message(m);
                }
                Entry::Span(name) => {
                    out.span(name);
                }
                Entry::Field(key, value) if self.key_matches(key, &value_text(value)) => {
                    self.count(FIELD_RULE);
                    self.replace_field(&mut out, key, &value_text(value), FIELD_RULE);
                }
                Entry::Field(key, value) => match value {
                    Value::Str(s) | Value::Json(s) => {
                        let json = matches!(value, Value::Json(_));
                        match self.redact_value(s, &mut spans, &mut text) {
                            Redacted::Unchanged => out.field(key, value),
                            Redacted::Text(t) if json => out.field(key, Value::Json(t)),
                            Redacted::Text(t) => out.field(key, Value::Str(t)),
                            Redacted::Drop => &mut out,
                        };
                    }
                    Value::U64(_) | Value::I64(_) if self.int_is_card(value) => {
                        const CARD: usize = 1 + Pattern::Card as usize;
                        self.count(CARD);
                        self.replace_field(&mut out, key, &value_text(value), CARD);
                    }
                    other => {
                        out.field(key, other);
                    }
                },
                Entry::Error(key, e) if self.key_matches(key, e.message) => {
                    self.count(FIELD_RULE);
                    self.replace_field(&mut out, key, e.message, FIELD_RULE);
                }
                Entry::Error(key, e) => {
                    let message = self
                        .redact_text(e.message, &mut spans, &mut text, false)
                        .to_owned();
                    let mut sources = String::new();
                    let s = self.redact_text(e.sources, &mut spans, &mut sources, false);
                    let mut trace = String::new();
                    let t = self.redact_text(e.trace, &mut spans, &mut trace, false);
                    let ev = ErrorValue {
                        kind: e.kind,
                        message: &message,
                        sources: s,
                        trace: t,
                    };
                    out.error_value(key, ev);
                }
            }
        }
        self.events.fetch_add(1, Ordering::Relaxed);
        out
    }

    /// True when a field named `key` is on the denylist (and not already redacted: a
    /// record replayed from the spill is not redacted twice).
    fn key_matches(&self, key: &str, value: &str) -> bool {
        self.denylist.matches(key) && !is_redaction_output(value)
    }

    fn number_is_card(&self, digits: &str) -> bool {
        let mut hit = false;
        self.scanner.scan(digits, &mut |s, e, p| {
            hit = p == Pattern::Card && s == 0 && e == digits.len();
            !hit
        });
        hit
    }

    /// Quick check: does anything in the record match? Allocates nothing.
    fn entries_match(&self, record: &Record) -> bool {
        record.entries().any(|entry| match entry {
            Entry::Message(m) => self.text_matches(m),
            Entry::Span(_) => false,
            Entry::Field(key, value) => match value {
                Value::Str(s) | Value::Json(s) => self.key_matches(key, s) || self.text_matches(s),
                Value::U64(_) | Value::I64(_) | Value::F64(_) | Value::Bool(_) => {
                    self.denylist.matches(key) || self.int_is_card(value)
                }
            },
            Entry::Error(key, e) => {
                self.key_matches(key, e.message)
                    || self.text_matches(e.message)
                    || self.text_matches(e.sources)
            }
        })
    }

    /// True when an integer value is a card number (13+ digits, Luhn-valid).
    fn int_is_card(&self, value: Value<'_>) -> bool {
        let n = match value {
            Value::U64(n) => n,
            Value::I64(n) => u64::try_from(n).unwrap_or(0),
            _ => 0,
        };
        n >= 1_000_000_000_000 && self.number_is_card(&n.to_string())
    }

    fn text_matches(&self, text: &str) -> bool {
        let mut hit = false;
        self.scanner.scan(text, &mut |_, _, _| {
            hit = true;
            false
        });
        hit || self.regexes.iter().any(|r| r.is_match(text))
    }

    /// Every match in `text`, sorted, overlaps merged (the first one wins).
    fn find(&self, text: &str, spans: &mut Vec<Span>) {
        spans.clear();
        self.scanner.scan(text, &mut |s, e, p| {
            spans.push((s, e, 1 + p as usize));
            true
        });
        for (i, r) in self.regexes.iter().enumerate() {
            for m in r.find_iter(text) {
                if m.end() > m.start() {
                    spans.push((m.start(), m.end(), FIRST_REGEX_RULE + i));
                }
            }
        }
        spans.sort_unstable();
        let mut kept = 0;
        for i in 0..spans.len() {
            if kept > 0 && spans[i].0 < spans[kept - 1].1 {
                // Overlaps the previous match: widen it rather than leave a part.
                spans[kept - 1].1 = spans[kept - 1].1.max(spans[i].1);
                continue;
            }
            spans[kept] = spans[i];
            kept += 1;
        }
        spans.truncate(kept);
    }

    /// `text` with its matches replaced, written into `buf` (or `text` itself when nothing
    /// matches). With `drop_on_match`, the caller drops the field instead.
    fn redact_text<'t>(
        &self,
        text: &'t str,
        spans: &mut Vec<Span>,
        buf: &'t mut String,
        _drop_on_match: bool,
    ) -> &'t str {
        self.find(text, spans);
        if spans.is_empty() {
            return text;
        }
        buf.clear();
        let mut at = 0;
        for &(s, e, rule) in spans.iter() {
            self.count(rule);
            buf.push_str(&text[at..s]);
            self.replacement(&text[s..e], rule, buf);
            at = e;
        }
        buf.push_str(&text[at..]);
        buf
    }

    fn redact_value<'t>(
        &self,
        text: &'t str,
        spans: &mut Vec<Span>,
        buf: &'t mut String,
    ) -> Redacted<'t> {
        self.find(text, spans);
        if spans.is_empty() {
            return Redacted::Unchanged;
        }
        if self.action == RedactAction::Drop {
            for &(_, _, rule) in spans.iter() {
                self.count(rule);
            }
            return Redacted::Drop;
        }
        Redacted::Text(self.redact_text(text, spans, buf, false))
    }

    /// Writes the field `key` with its whole value redacted by `rule` (or leaves it out).
    fn replace_field(&self, out: &mut Record, key: &str, value: &str, rule: usize) {
        if self.action == RedactAction::Drop {
            return;
        }
        let mut s = String::new();
        self.replacement(value, rule, &mut s);
        out.field(key, s.as_str());
    }

    /// What replaces `secret`: `[redacted:<rule>]`, or `[hmac:<16 hex>]`.
    fn replacement(&self, secret: &str, rule: usize, out: &mut String) {
        match (&self.action, &self.key) {
            (RedactAction::Hash, Some(key)) => {
                let tag = ring::hmac::sign(key, secret.as_bytes());
                out.push_str("[hmac:");
                for &b in &tag.as_ref()[..8] {
                    let [hi, lo] = crate::support::hex::pair(b);
                    out.push(char::from(hi));
                    out.push(char::from(lo));
                }
                out.push(']');
            }
            _ => {
                out.push_str("[redacted:");
                out.push_str(&self.names[rule]);
                out.push(']');
            }
        }
    }

    fn count(&self, rule: usize) {
        if let Some(c) = self.counts.get(rule) {
            c.fetch_add(1, Ordering::Relaxed);
        }
    }
}

enum Redacted<'t> {
    Unchanged,
    Text(&'t str),
    Drop,
}

/// A value's text, for hashing and for the already-redacted check.
fn value_text(value: Value<'_>) -> std::borrow::Cow<'_, str> {
    match value {
        Value::Str(s) | Value::Json(s) => s.into(),
        Value::I64(n) => n.to_string().into(),
        Value::U64(n) => n.to_string().into(),
        Value::F64(n) => n.to_string().into(),
        Value::Bool(b) => b.to_string().into(),
    }
}

/// True when `value` is exactly what a redaction wrote.
fn is_redaction_output(value: &str) -> bool {
    value.ends_with(']') && (value.starts_with("[redacted:") || value.starts_with("[hmac:"))
}
