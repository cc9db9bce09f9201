//! Property tests of every encoder: any record (any text, including text made from invalid
//! UTF-8, control characters and quotes; every value type, non-finite floats included;
//! deep spans; values up to 1 MB) gives a body the intake crate's strict emulation of
//! that vendor accepts without a violation, and the message and every field arrive.
//!
//! Real HTTP over loopback to `logship_intake` in-process, one pipeline per case. Field
//! names carry a unique prefix, so a vendor's renaming (Loki's name alphabet, ES's
//! `field.` prefix, `<span>.<field>`) still leaves them findable and no field collides
//! with another or with a reserved name: collisions are the separate property
//! `duplicate_field_names_*`.
//!
//! Must never: depend on machine speed (every wait is the pipeline's own flush), or
//! weaken a check to make a vendor pass; `ProptestConfig::cases` keeps the suite to
//! seconds in debug builds.

mod common;

use std::time::Duration;

use logship::{Builder, Level, OtlpEncoding, Record, Vendor};
use logship_intake::{Intake, IntakeConfig};
use proptest::prelude::*;
use serde_json::Value as Json;

use common::vendors::KEY;

/// The encoders, with where each vendor's intake puts the message.
const ENCODERS: &[(Vendor, Option<OtlpEncoding>, &str)] = &[
    (Vendor::Ndjson, None, "/message"),
    (Vendor::JsonArray, None, "/message"),
    (Vendor::Datadog, None, "/message"),
    (Vendor::Splunk, None, "/event/message"),
    (Vendor::NewRelic, None, "/message"),
    (Vendor::Dynatrace, None, "/content"),
    (Vendor::Loki, None, "/line"),
    (Vendor::Elasticsearch, None, "/message"),
    (Vendor::Otlp, Some(OtlpEncoding::Protobuf), "/message"),
    (Vendor::Otlp, Some(OtlpEncoding::Json), "/message"),
];

/// A field value as generated (owned, so a case can be printed and shrunk).
#[derive(Clone, Debug)]
enum V {
    Str(String),
    I64(i64),
    U64(u64),
    F64(f64),
    Bool(bool),
    /// JSON text of an array of strings (a parsed JSON line's array).
    Json(String),
}

/// One record as generated: message, fields, then spans each with its fields.
#[derive(Clone, Debug)]
struct Rec {
    level: Level,
    target: String,
    message: String,
    fields: Vec<(String, V)>,
    spans: Vec<(String, Vec<(String, V)>)>,
}

/// `cases` cases from a fixed seed, so every run (CI's included) tries the same inputs and
/// a failure is a regression, not bad luck; set `PROPTEST_RNG_SEED` to explore others.
fn config(cases: u32) -> ProptestConfig {
    let mut config = ProptestConfig {
        cases,
        ..ProptestConfig::default()
    };
    if matches!(config.rng_seed, proptest::test_runner::RngSeed::Random) {
        config.rng_seed = proptest::test_runner::RngSeed::Fixed(0x1095_4117);
    }
    config
}

/// Any text: arbitrary Unicode (control characters included), text decoded from
/// arbitrary bytes (invalid UTF-8 replaced), or a dense mix of JSON's special characters.
fn text(max: usize) -> impl Strategy<Value = String> {
    prop_oneof![
        proptest::collection::vec(any::<char>(), 0..max).prop_map(|c| c.into_iter().collect()),
        proptest::collection::vec(any::<u8>(), 0..max)
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        proptest::collection::vec(
            prop_oneof![
                Just('"'),
                Just('\\'),
                Just('\n'),
                Just('\r'),
                Just('\t'),
                Just('\u{0}'),
                Just('\u{1b}'),
                Just('\u{7f}'),
                Just('\u{2028}'),
                Just('\u{feff}'),
                Just('\u{10ffff}'),
                Just('é'),
                Just('a'),
                Just('.'),
                Just('='),
                Just(' '),
            ],
            0..max
        )
        .prop_map(|c| c.into_iter().collect()),
    ]
}

fn value(max: usize) -> impl Strategy<Value = V> {
    prop_oneof![
        text(max).prop_map(V::Str),
        any::<i64>().prop_map(V::I64),
        any::<u64>().prop_map(V::U64),
        any::<f64>().prop_map(V::F64),
        any::<bool>().prop_map(V::Bool),
        proptest::collection::vec(text(8), 0..4)
            .prop_map(|items| V::Json(serde_json::to_string(&items).unwrap_or_default())),
    ]
}

fn level() -> impl Strategy<Value = Level> {
    prop_oneof![
        Just(Level::Trace),
        Just(Level::Debug),
        Just(Level::Info),
        Just(Level::Warn),
        Just(Level::Error),
    ]
}

/// A record; `deep` allows up to 24 nested spans.
fn rec(deep: bool) -> impl Strategy<Value = Rec> {
    let spans = if deep { 0..24usize } else { 0..3 };
    (
        level(),
        text(24),
        text(64),
        proptest::collection::vec((text(16), value(48)), 0..6),
        proptest::collection::vec(
            (
                text(12),
                proptest::collection::vec((text(12), value(24)), 0..3),
            ),
            spans,
        ),
    )
        .prop_map(|(level, target, message, fields, spans)| Rec {
            level,
            target,
            message,
            fields,
            spans,
        })
}

/// Field and span names made unique and non-reserved: `f<i>_<text>`, `s<j>_<text>`.
fn uniquely_named(mut r: Rec) -> Rec {
    for (i, (k, _)) in r.fields.iter_mut().enumerate() {
        *k = format!("f{i}_{k}");
    }
    for (j, (name, fields)) in r.spans.iter_mut().enumerate() {
        *name = format!("s{j}_{name}");
        for (i, (k, _)) in fields.iter_mut().enumerate() {
            *k = format!("g{j}x{i}_{k}");
        }
    }
    r
}

fn put(record: &mut Record, key: &str, v: &V) {
    match v {
        V::Str(s) => record.field(key, s.as_str()),
        V::I64(n) => record.field(key, *n),
        V::U64(n) => record.field(key, *n),
        V::F64(f) => record.field(key, *f),
        V::Bool(b) => record.field(key, *b),
        V::Json(s) => record.field(key, logship::Value::Json(s)),
    };
}

fn build(r: &Rec, seq: usize) -> Record {
    let mut record = Record::new(r.level, &r.target);
    record.message(&r.message).field("seq", seq as u64);
    for (k, v) in &r.fields {
        put(&mut record, k, v);
    }
    for (name, fields) in &r.spans {
        record.span(name);
        for (k, v) in fields {
            put(&mut record, k, v);
        }
    }
    record
}

fn intake() -> Intake {
    Intake::start(IntakeConfig {
        api_key: Some(KEY.into()),
        ..IntakeConfig::default()
    })
    .expect("start the intake")
}

fn builder(intake: &Intake, vendor: Vendor, encoding: Option<OtlpEncoding>) -> Builder {
    let b = logship::Logship::builder()
        .vendor(vendor)
        .endpoint(match vendor {
            Vendor::Ndjson | Vendor::JsonArray => intake.url("/logs"),
            _ => intake.url(""),
        })
        .api_key(KEY)
        .service("checkout")
        .hostname("web-1")
        .max_batch_records(1_000_000)
        .max_batch_bytes(256 * 1024 * 1024)
        .linger(Duration::from_millis(20))
        .shutdown_timeout(common::WAIT)
        .report_to_stderr(false)
        .spill(false);
    common::vendors::for_vendor(b, vendor, encoding)
}

/// Letters and digits kept, everything else `_`: how a name compares across vendors that
/// rewrite names (Loki's metadata alphabet).
fn normalize(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// Every (object key, leaf value) of `v`, at any depth; an array holding no object (a
/// field's value, not a list of spans) is a leaf.
fn leaves<'a>(v: &'a Json, out: &mut Vec<(&'a str, &'a Json)>) {
    let mut stack = vec![v];
    while let Some(v) = stack.pop() {
        match v {
            Json::Object(map) => {
                for (k, child) in map {
                    match child {
                        Json::Array(items) if !items.iter().any(Json::is_object) => {
                            out.push((k, child))
                        }
                        Json::Object(_) | Json::Array(_) => stack.push(child),
                        leaf => out.push((k, leaf)),
                    }
                }
            }
            Json::Array(items) => stack.extend(items),
            _ => {}
        }
    }
}

/// True when `got` (as the intake decoded it) is `want`: the same JSON value, or its text
/// where a vendor ships every field as a string (Loki), or a string for a non-finite float.
fn same_value(got: &Json, want: &V) -> bool {
    let as_text = got.as_str();
    match want {
        V::Str(s) => as_text == Some(s.as_str()),
        V::Bool(b) => got.as_bool() == Some(*b) || as_text == Some(&b.to_string()),
        // Structure, or its text where a vendor takes only strings (Loki, New Relic).
        V::Json(s) => {
            as_text == Some(s.as_str())
                || serde_json::from_str::<Json>(s).ok().as_ref() == Some(got)
        }
        V::I64(n) => got.as_i64() == Some(*n) || as_text == Some(&n.to_string()),
        V::U64(n) => got.as_u64() == Some(*n) || as_text == Some(&n.to_string()),
        V::F64(f) if !f.is_finite() => as_text.is_some(),
        V::F64(f) => {
            let read = got
                .as_f64()
                .or_else(|| as_text.and_then(|t| t.parse().ok()));
            read.is_some_and(|r| close_floats(r, *f))
        }
    }
}

/// Equal up to one unit in the last place. logship writes the shortest text that reads
/// back exactly (Rust's `Display`); the intake decodes with serde_json's default float
/// parser, which is documented as best-effort (off by one ULP on some inputs) unless its
/// `float_roundtrip` feature is on.
fn close_floats(a: f64, b: f64) -> bool {
    if a == b {
        return true;
    }
    if a.is_sign_negative() != b.is_sign_negative() {
        return false;
    }
    a.to_bits().abs_diff(b.to_bits()) <= 1
}

/// At most 600 characters of `v`, for failure messages (values reach 1 MB).
fn short(v: &impl std::fmt::Debug) -> String {
    let s = format!("{v:?}");
    match s.char_indices().nth(600) {
        Some((i, _)) => format!("{}… ({} bytes)", &s[..i], s.len()),
        None => s,
    }
}

/// Whether `event` carries field `key` = `want` under some name ending with the key.
fn has_field(event: &Json, key: &str, want: &V) -> bool {
    let mut all = Vec::new();
    leaves(event, &mut all);
    let key = normalize(key);
    all.iter()
        .any(|(k, v)| normalize(k).ends_with(&key) && same_value(v, want))
}

fn seq_of(event: &Json) -> Option<u64> {
    let mut all = Vec::new();
    leaves(event, &mut all);
    all.iter().find_map(|(k, v)| {
        (*k == "seq").then(|| v.as_u64().or_else(|| v.as_str()?.parse().ok()))?
    })
}

/// Ships `recs` to a fresh intake for each encoder and checks acceptance and round trip.
/// With `cut_ok`, an event the vendor's (or the default `max_event_bytes`) limit
/// truncated, counted in `truncated`, must arrive marked as truncated with its message
/// cut to a prefix; its fields are not compared (the cut may drop them).
fn check_all_encoders(recs: &[Rec], cut_ok: bool) -> Result<(), TestCaseError> {
    for &(vendor, encoding, message_at) in ENCODERS {
        let what = format!("{vendor:?} {encoding:?}");
        let intake = intake();
        let (logship, guard) = builder(&intake, vendor, encoding)
            .build()
            .map_err(|e| TestCaseError::fail(format!("{what}: {e}")))?;
        for (i, r) in recs.iter().enumerate() {
            prop_assert!(logship.push(build(r, i)).is_ok(), "{what}: push refused");
        }
        let report = logship.shutdown(common::WAIT);
        drop(guard);
        prop_assert!(
            intake.violations().is_empty(),
            "{what}: {}",
            short(&intake.violations())
        );
        let stats = report.stats;
        prop_assert_eq!(
            stats.events_delivered as usize,
            recs.len(),
            "{}: {:?}",
            what,
            stats
        );
        let events = intake.events();
        prop_assert_eq!(events.len(), recs.len(), "{}", what);
        let truncated = stats.truncated > 0;
        for (i, r) in recs.iter().enumerate() {
            let cut = cut_ok && truncated;
            let event = events
                .iter()
                .map(|e| &e.value)
                .find(|e| seq_of(e) == Some(i as u64))
                // A single event is the record's, even where its `seq` is gone: cut off by
                // truncation, or replaced by a later field of the same name (the
                // duplicate-name property, where the last value recorded wins).
                .or_else(|| events.first().map(|e| &e.value).filter(|_| recs.len() == 1));
            let Some(event) = event else {
                return Err(TestCaseError::fail(format!("{what}: event {i} missing")));
            };
            let message = event.pointer(message_at).and_then(Json::as_str);
            let message_ok = match message {
                Some(m) if m == r.message => true,
                // An empty message may be left out.
                None => r.message.is_empty(),
                Some(m) => cut && r.message.starts_with(m.split('…').next().unwrap_or(m)),
            };
            prop_assert!(
                message_ok,
                "{}: message {} arrived as {}",
                what,
                short(&r.message),
                short(&message)
            );
            if cut {
                // Cut to the vendor's limit: marked as such; fields past the cut are gone.
                let mut all = Vec::new();
                leaves(event, &mut all);
                prop_assert!(
                    all.iter().any(|(k, _)| k.contains("truncated")),
                    "{}: a truncated event without its mark: {}",
                    what,
                    short(event)
                );
                continue;
            }
            let all = r.fields.iter().chain(r.spans.iter().flat_map(|(_, f)| f));
            for (k, v) in all {
                let arrived = has_field(event, k, v);
                prop_assert!(
                    arrived,
                    "{}: field {:?} = {} missing in {}",
                    what,
                    k,
                    short(v),
                    short(event)
                );
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(12))]

    /// Batches of one to four ordinary records, any text.
    #[test]
    fn every_encoder_ships_any_record_intact(
        recs in proptest::collection::vec(rec(false).prop_map(uniquely_named), 1..4)
    ) {
        check_all_encoders(&recs, false)?;
    }
}

proptest! {
    #![proptest_config(config(4))]

    /// Records nested up to 24 spans deep, each span with its own fields.
    #[test]
    fn every_encoder_ships_deep_spans_intact(r in rec(true).prop_map(uniquely_named)) {
        check_all_encoders(&[r], false)?;
    }
}

proptest! {
    #![proptest_config(config(2))]

    /// A message and a field value each up to 1 MB: accepted by every intake; where the
    /// vendor's event limit cut them, counted as truncated and a prefix arrives.
    #[test]
    fn every_encoder_ships_values_up_to_1_mb(
        mut r in rec(false).prop_map(uniquely_named),
        message_len in 200_000usize..=1_000_000,
        value_len in 200_000usize..=1_000_000,
        fill in prop_oneof![Just('x'), Just('"'), Just('\u{1}'), Just('é')],
    ) {
        r.message = std::iter::repeat_n(fill, message_len / fill.len_utf8()).collect();
        r.fields.push(("big".to_owned(), V::Str("v".repeat(value_len))));
        check_all_encoders(&[r], true)?;
    }
}

proptest! {
    #![proptest_config(config(6))]

    /// Duplicate field names (the same name twice on the event, in a span, or equal to a
    /// name the vendor reserves): every intake accepts the body without a violation and
    /// the event is delivered.
    #[test]
    fn duplicate_field_names_are_accepted(
        r in rec(false),
        name in prop_oneof![Just("message"), Just("level"), Just("seq"), Just("service"), Just("a")],
        dup in value(16),
    ) {
        check_duplicates(r, name, dup, false)?;
    }

    /// With duplicate names, every encoder writes each name once (the strict intakes
    /// reject a body with a duplicate name in any object), the message is not hidden by a
    /// field named like it, and the value of the name arrives.
    #[test]
    fn duplicate_field_names_all_arrive(
        r in rec(false),
        name in prop_oneof![Just("message"), Just("level"), Just("seq"), Just("service"), Just("a")],
        dup in value(16),
    ) {
        check_duplicates(r, name, dup, true)?;
    }
}

/// `r` with field `name` set twice on the event and once in a span, shipped to every
/// encoder: accepted and delivered; with `round_trip`, the message and fields intact too.
fn check_duplicates(r: Rec, name: &str, dup: V, round_trip: bool) -> Result<(), TestCaseError> {
    let mut r = uniquely_named(r);
    r.fields.push((name.to_owned(), dup.clone()));
    r.fields.push((name.to_owned(), dup.clone()));
    r.spans
        .push(("dup".to_owned(), vec![(name.to_owned(), dup)]));
    if round_trip {
        return check_all_encoders(&[r], false);
    }
    for &(vendor, encoding, _) in ENCODERS {
        let what = format!("{vendor:?} {encoding:?}");
        let intake = intake();
        let (logship, guard) = builder(&intake, vendor, encoding)
            .build()
            .map_err(|e| TestCaseError::fail(format!("{what}: {e}")))?;
        prop_assert!(logship.push(build(&r, 0)).is_ok());
        let report = logship.shutdown(common::WAIT);
        drop(guard);
        let stats = report.stats;
        // Never lost silently: delivered, or counted as failed with the intake's reason.
        prop_assert_eq!(
            stats.events_delivered + stats.events_failed,
            1,
            "{}: {}",
            what,
            short(&stats)
        );
        // Every intake takes the body (Elasticsearch refused a duplicate key with
        // `document_parsing_exception` before each name was written once), with no
        // violation: the strict intakes read every JSON body with a duplicate-rejecting
        // parser.
        prop_assert_eq!(stats.events_delivered, 1, "{}: {}", what, short(&stats));
        prop_assert_eq!(intake.events().len(), 1, "{}", what);
        prop_assert!(
            intake.violations().is_empty(),
            "{}: {}",
            what,
            short(&intake.violations())
        );
    }
    Ok(())
}
