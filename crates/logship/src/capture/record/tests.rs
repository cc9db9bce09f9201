//! The record's encoding: capture order, spill bytes, truncation, errors.

use super::*;

fn sample() -> Record {
    let mut r = Record::new(Level::Warn, "app::db");
    r.field("before", 1i64)
        .message_fmt(format_args!("hello {}", "wörld"))
        .field("u", 7u64)
        .field("f", 1.5f64)
        .field("b", true)
        .field_fmt("dbg", format_args!("{:?}", vec![1, 2]))
        .span("request")
        .field("user", "ann");
    r
}

#[test]
fn entries_come_back_in_capture_order() {
    let r = sample();
    assert_eq!(r.target(), "app::db");
    assert_eq!(r.message_str(), "hello wörld");
    let entries: Vec<_> = r.entries().collect();
    assert_eq!(
        entries,
        vec![
            Entry::Field("before", Value::I64(1)),
            Entry::Message("hello wörld"),
            Entry::Field("u", Value::U64(7)),
            Entry::Field("f", Value::F64(1.5)),
            Entry::Field("b", Value::Bool(true)),
            Entry::Field("dbg", Value::Str("[1, 2]")),
            Entry::Span("request"),
            Entry::Field("user", Value::Str("ann")),
        ]
    );
}

#[test]
fn bytes_round_trip_and_garbage_is_rejected() {
    let r = sample();
    let mut bytes = Vec::new();
    r.to_bytes(&mut bytes);
    assert_eq!(Record::from_bytes(&bytes), Some(r));
    for cut_at in 0..bytes.len() {
        // Any prefix either fails or parses as a well-formed record; never panics.
        let _ = Record::from_bytes(&bytes[..cut_at]);
    }
    // The last byte of the target's length (after level, timestamp and id).
    let mut corrupt = bytes.clone();
    corrupt[28] = 0xff;
    assert!(Record::from_bytes(&corrupt).is_none() || corrupt[28] == bytes[28]);
}

#[test]
fn the_id_is_kept_in_the_spill_bytes_and_old_bytes_read_without_one() {
    let r = sample();
    let id = r.id().expect("every record built gets an id");
    let mut bytes = Vec::new();
    r.to_bytes(&mut bytes);
    let back = Record::from_bytes(&bytes).unwrap();
    assert_eq!(back.id(), Some(id));
    assert_eq!(back.level(), Level::Warn);
    // Segment format 1 (before ids): level byte without the flag, timestamp, entries.
    let mut old = vec![bytes[0] & !HAS_ID];
    old.extend_from_slice(&bytes[1..9]);
    old.extend_from_slice(&bytes[25..]);
    let legacy = Record::from_bytes(&old).expect("an old record still reads");
    assert_eq!(legacy.id(), None);
    assert_eq!(legacy.level(), Level::Warn);
    assert_eq!(legacy.timestamp_nanos(), r.timestamp_nanos());
    assert_eq!(
        legacy.entries().collect::<Vec<_>>(),
        r.entries().collect::<Vec<_>>()
    );
    // A flagged record too short for its id is no record.
    assert!(Record::from_bytes(&bytes[..20]).is_none());
}

#[test]
fn records_get_distinct_ids_in_capture_order_and_copies_keep_theirs() {
    let a = Record::new(Level::Info, "t");
    let b = Record::new(Level::Info, "t");
    let (ia, ib) = (a.id().unwrap(), b.id().unwrap());
    assert_ne!(ia, ib);
    assert_eq!(ia.prefix(), ib.prefix());
    assert!(ib.seq() > ia.seq());
    assert_eq!(
        a.truncated(64).id(),
        Some(ia),
        "a cut copy is the same event"
    );
    assert_eq!(a.clone().id(), Some(ia));
}

#[test]
fn truncation_caps_size_and_marks_the_record() {
    let mut r = Record::new(Level::Info, "t");
    let big = "é".repeat(100_000);
    r.message(&big).field("other", big.as_str());
    let t = r.truncated(10_000);
    assert!(
        t.size() < 10_000 + RECORD_OVERHEAD + 256,
        "size {}",
        t.size()
    );
    assert!(t.message_str().ends_with("…[truncated]"));
    assert!(t
        .entries()
        .any(|e| e == Entry::Field("logship.truncated", Value::Bool(true))));
}

#[derive(Debug)]
struct Outer {
    source: std::num::ParseIntError,
}
impl fmt::Display for Outer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("config is invalid")
    }
}
impl std::error::Error for Outer {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

#[test]
fn errors_keep_their_type_message_and_sources_and_round_trip() {
    let source = "x".parse::<u8>().unwrap_err();
    let mut r = Record::new(Level::Error, "t");
    r.error("error", &Outer { source })
        .error("io", &std::io::Error::other("disk on fire"));
    let (key, e) = r.first_error().unwrap();
    assert_eq!(key, "error");
    assert_eq!(e.kind, "Outer");
    assert_eq!(e.message, "config is invalid");
    assert_eq!(
        e.sources().collect::<Vec<_>>(),
        ["invalid digit found in string"]
    );
    let mut bytes = Vec::new();
    r.to_bytes(&mut bytes);
    assert_eq!(Record::from_bytes(&bytes), Some(r.clone()));
    let io = r.entries().nth(1).unwrap();
    assert!(
        matches!(
            io,
            Entry::Error(
                "io",
                ErrorValue {
                    kind: "std::io::Error",
                    message: "disk on fire",
                    sources: "",
                    trace: ""
                }
            )
        ),
        "{io:?}"
    );
    let t = r.truncated(300);
    assert!(t.first_error().is_some());
    // An OS error is named by its type too, not by its `Debug` representation (`Os`).
    let missing = std::fs::File::open("/nonexistent/logship-i15").unwrap_err();
    let mut os = Record::new(Level::Error, "t");
    os.error("error", &missing);
    assert_eq!(os.first_error().unwrap().1.kind, "std::io::Error");
}

#[test]
fn an_error_whose_debug_is_not_a_type_name_has_no_kind() {
    #[derive(Debug)]
    struct E;
    impl fmt::Display for E {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("e")
        }
    }
    impl std::error::Error for E {}
    let boxed: Box<dyn std::error::Error> = "a plain message".into();
    let mut r = Record::new(Level::Error, "t");
    r.error("a", boxed.as_ref()).error("b", &E);
    let kinds: Vec<&str> = r
        .entries()
        .filter_map(|e| match e {
            Entry::Error(_, v) => Some(v.kind),
            _ => None,
        })
        .collect();
    assert_eq!(kinds, ["", "E"]);
}

#[test]
fn a_record_cut_twice_keeps_its_first_real_size_and_one_marker() {
    let mut r = Record::new(Level::Info, "t");
    r.message(&"x".repeat(200_000))
        .field("logship.truncated", true)
        .field("logship.original_bytes", 52_428_841u64);
    let t = r.truncated(10_000).truncated(5_000);
    let fields: Vec<_> = t
        .entries()
        .filter(|e| matches!(e, Entry::Field(k, _) if k.starts_with("logship.")))
        .collect();
    assert_eq!(
        fields,
        [
            Entry::Field("logship.truncated", Value::Bool(true)),
            Entry::Field("logship.original_bytes", Value::U64(52_428_841)),
            // The reader of this record gave no count: the two cuts' own, added up. 5,000
            // bytes less the overhead (64), the marks (97), the target's and message's
            // headers (10) and the marker (14) keep 4,815 bytes of text.
            Entry::Field("logship.truncated_bytes", Value::U64(200_000 - 4_815)),
        ]
    );
    let mut small = Record::new(Level::Info, "t");
    small.message(&"y".repeat(50_000));
    let size = small.data.len() as u64;
    let twice = small.truncated(20_000).truncated(4_000);
    assert!(twice
        .entries()
        .any(|e| e == Entry::Field("logship.original_bytes", Value::U64(size))));
}

#[test]
fn cut_respects_char_boundaries() {
    assert_eq!(cut("aé", 2), "a");
    assert_eq!(cut("abc", 5), "abc");
}

fn field_value(r: &Record, key: &str) -> Option<String> {
    r.entries().find_map(|e| match e {
        Entry::Field(k, v) if k == key => Some(format!("{v:?}")),
        _ => None,
    })
}

#[test]
fn json_text_is_kept_only_when_it_is_one_json_value() {
    let mut r = Record::new(Level::Info, "t");
    r.field("tags", Value::Json(r#"["a",{"b":[1,null]}]"#))
        .field("none", Value::Json("null"))
        .field("half", Value::Json(r#"["a","#))
        .field("two", Value::Json("[1] [2]"))
        .field("deep", Value::Json(&"[".repeat(10_000)));
    assert_eq!(
        field_value(&r, "tags").as_deref(),
        Some(r#"Json("[\"a\",{\"b\":[1,null]}]")"#)
    );
    assert_eq!(field_value(&r, "none").as_deref(), Some(r#"Json("null")"#));
    assert_eq!(
        field_value(&r, "half").as_deref(),
        Some(r#"Str("[\"a\",")"#)
    );
    assert_eq!(field_value(&r, "two").as_deref(), Some(r#"Str("[1] [2]")"#));
    assert!(
        field_value(&r, "deep").unwrap().starts_with("Str("),
        "no recursion blow-up"
    );
    let mut bytes = Vec::new();
    r.to_bytes(&mut bytes);
    let back = Record::from_bytes(&bytes).unwrap();
    assert!(back.entries().eq(r.entries()));
}

#[test]
fn json_text_read_back_from_disk_is_checked_again() {
    // A record as the spill would hold it, whose JSON value was damaged on disk.
    let mut r = Record::new(Level::Info, "t");
    r.field("tags", Value::Json(r#"["aa"]"#));
    let mut bytes = Vec::new();
    r.to_bytes(&mut bytes);
    let at = bytes.windows(6).position(|w| w == br#"["aa"]"#).unwrap();
    bytes[at + 5] = b'x';
    assert!(Record::from_bytes(&bytes).is_none());
}

#[test]
fn json_text_cut_by_truncation_becomes_text() {
    let mut r = Record::new(Level::Info, "t");
    let long = format!("[{}]", vec!["\"xxxxxxxxxx\""; 200].join(","));
    r.message("m")
        .field("tags", Value::Json(&long))
        .field("short", Value::Json("[1]"));
    let cut = r.truncated(600);
    let tags = field_value(&cut, "tags").unwrap();
    assert!(tags.starts_with("Str(\"[\\\"xxxx"), "{tags}");
    assert_eq!(
        field_value(&r.truncated(100_000), "tags").unwrap(),
        format!("Json({long:?})")
    );
}

#[test]
fn an_error_with_its_own_trace_round_trips_is_cut_and_is_the_vendors_stack() {
    let trace = "java.io.IOException: disk full\n\tat a.B.c(B.java:1)\n\tSuppressed: java.lang.IllegalStateException: x\n\t\tat a.B.d(B.java:2)\nCaused by: java.lang.RuntimeException: root\n\tat a.B.e(B.java:3)\n";
    let mut r = Record::new(Level::Error, "t");
    r.error_parts("error", "java.io.IOException", "disk full", "root", trace);
    let (_, e) = r.first_error().unwrap();
    assert_eq!(
        (e.kind, e.message, e.sources, e.trace),
        ("java.io.IOException", "disk full", "root", trace)
    );
    assert_eq!(crate::vendors::fields::error_stack(&e), trace);
    let mut bytes = Vec::new();
    r.to_bytes(&mut bytes);
    assert_eq!(Record::from_bytes(&bytes), Some(r.clone()));
    // A record cut to its size limit keeps a trace no longer than what was left.
    let t = r.truncated(300);
    let (_, cut) = t.first_error().unwrap();
    assert!(
        cut.trace.len() < trace.len() && trace.starts_with(&cut.trace[..20]),
        "{cut:?}"
    );
    // Without a trace, the stack is the chain of sources, as for Rust errors.
    let mut plain = Record::new(Level::Error, "t");
    plain.error_parts("error", "K", "m", "root", "");
    let (_, e) = plain.first_error().unwrap();
    assert_eq!(
        crate::vendors::fields::error_stack(&e),
        "K: m\nCaused by: root"
    );
}
