//! The layout parser against well-formed, truncated, huge, trailing and garbled buffers.

use std::borrow::Cow;

use super::{parse, Malformed, THROWN, VERSION};
use crate::event::{Event, Thrown};

/// The buffer Java's `EventWriter` writes for `event`.
fn encode(event: &Event<'_>) -> Vec<u8> {
    fn text(out: &mut Vec<u8>, s: &str) {
        let n = u32::try_from(s.len()).expect("test strings are small");
        out.extend_from_slice(&n.to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    fn count(out: &mut Vec<u8>, n: usize) {
        out.extend_from_slice(&u32::try_from(n).expect("small").to_le_bytes());
    }
    let mut out = Vec::new();
    let level = u8::try_from(event.level).expect("0..=4");
    let flags = if event.thrown.is_some() { THROWN } else { 0 };
    out.extend_from_slice(&[VERSION, level, flags, 0]);
    let nanos = i64::try_from(event.nanos).expect("in range");
    out.extend_from_slice(&nanos.to_le_bytes());
    text(&mut out, &event.logger);
    text(&mut out, &event.thread);
    text(&mut out, &event.message);
    count(&mut out, event.context.len());
    for (k, v) in &event.context {
        text(&mut out, k);
        text(&mut out, v);
    }
    count(&mut out, event.markers.len());
    for m in &event.markers {
        text(&mut out, m);
    }
    if let Some(t) = &event.thrown {
        for s in [&t.kind, &t.message, &t.causes, &t.trace] {
            text(&mut out, s);
        }
    }
    out
}

fn full() -> Event<'static> {
    Event {
        nanos: 1_700_000_000_123_456_789,
        level: 3,
        logger: "com.example.Orders".into(),
        thread: "http-nio-8080-exec-1".into(),
        message: "order 42 failed: ünïcödé 🚀".into(),
        context: vec![
            ("user".into(), "ada".into()),
            ("trace_id".into(), "".into()),
        ],
        markers: vec!["AUDIT".into(), "PARENT".into()],
        thrown: Some(Thrown {
            kind: "java.io.IOException".into(),
            message: "disk full".into(),
            causes: "disk full".into(),
            trace: "java.io.IOException: disk full\n\tat A.b(A.java:1)\n".into(),
        }),
        invalid_utf8: false,
    }
}

#[test]
fn a_well_formed_buffer_gives_back_every_part_borrowed() {
    for event in [full(), Event::default()] {
        let buf = encode(&event);
        let parsed = parse(&buf).expect("well formed");
        assert_eq!(parsed, event);
        assert!(
            matches!(parsed.message, Cow::Borrowed(_)),
            "no copy for UTF-8"
        );
    }
}

#[test]
fn every_truncation_is_refused_without_a_panic() {
    let buf = encode(&full());
    for len in 0..buf.len() {
        assert_eq!(
            parse(&buf[..len]),
            Err(Malformed::Truncated),
            "cut at {len}"
        );
    }
}

#[test]
fn trailing_bytes_and_another_version_are_refused() {
    let mut buf = encode(&full());
    buf.push(0);
    assert_eq!(parse(&buf), Err(Malformed::Trailing));
    let mut buf = encode(&full());
    buf[0] = VERSION + 1;
    assert_eq!(parse(&buf), Err(Malformed::Version(VERSION + 1)));
    // A throwable flag with no throwable after the markers: truncated.
    let mut buf = encode(&Event::default());
    buf[2] = THROWN;
    assert_eq!(parse(&buf), Err(Malformed::Truncated));
}

#[test]
fn huge_lengths_and_counts_are_refused_before_any_allocation() {
    // A message claiming 4 GiB.
    let mut buf = vec![VERSION, 2, 0, 0];
    buf.extend_from_slice(&0i64.to_le_bytes());
    buf.extend_from_slice(&0u32.to_le_bytes());
    buf.extend_from_slice(&0u32.to_le_bytes());
    buf.extend_from_slice(&u32::MAX.to_le_bytes());
    buf.extend_from_slice(b"short");
    assert_eq!(parse(&buf), Err(Malformed::Truncated));
    // u32::MAX context pairs and u32::MAX markers backed by a few bytes: refused by the count
    // check (a Vec::with_capacity(u32::MAX) would abort the JVM).
    for position in 0..2 {
        let mut buf = vec![VERSION, 2, 0, 0];
        buf.extend_from_slice(&0i64.to_le_bytes());
        for _ in 0..3 {
            buf.extend_from_slice(&0u32.to_le_bytes());
        }
        if position == 1 {
            buf.extend_from_slice(&0u32.to_le_bytes());
        }
        buf.extend_from_slice(&u32::MAX.to_le_bytes());
        buf.extend_from_slice(&[0; 64]);
        assert_eq!(parse(&buf), Err(Malformed::Truncated), "count {position}");
    }
}

#[test]
fn bytes_that_are_not_utf8_are_replaced_not_refused() {
    // A lone surrogate as Java's modified UTF-8 or WTF-8 would write it (ED A0 80), and a
    // stray continuation byte: shipped with U+FFFD, the rest of the event intact.
    let mut event = full();
    event.message = "a?b".into();
    let mut buf = encode(&event);
    let at = buf
        .windows(3)
        .position(|w| w == b"a?b")
        .expect("message bytes");
    let mut garbled = buf[..at].to_vec();
    // The length field before the message: 3 -> 5.
    let len_at = at - 4;
    garbled[len_at..at].copy_from_slice(&5u32.to_le_bytes());
    garbled.extend_from_slice(&[b'a', 0xED, 0xA0, 0x80, 0x80]);
    garbled.extend_from_slice(&buf[at + 3..]);
    buf = garbled;
    let parsed = parse(&buf).expect("still an event");
    assert!(parsed.message.starts_with('a'), "{:?}", parsed.message);
    assert!(parsed.message.contains('\u{FFFD}'), "{:?}", parsed.message);
    assert_eq!(parsed.logger, "com.example.Orders");
    assert_eq!(parsed.thrown, full().thrown);
    assert!(parsed.invalid_utf8, "the replacement is said");
    let record = parsed.record();
    assert!(record.message_str().contains('\u{FFFD}'));
    assert!(record.had_invalid_utf8(), "and counted by the pipeline");
    assert!(!parse(&encode(&full())).expect("valid").invalid_utf8);
}

#[test]
fn garbled_buffers_never_panic() {
    // Deterministic mutations of a valid buffer: every byte position overwritten with a
    // few values, plus pseudo-random multi-byte damage. Each answer is an event or a refusal.
    let buf = encode(&full());
    for at in 0..buf.len() {
        for value in [0u8, 1, 0x7F, 0x80, 0xFF] {
            let mut b = buf.clone();
            b[at] = value;
            if let Ok(event) = parse(&b) {
                let _ = event.record();
            }
        }
    }
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..5_000 {
        let mut b = buf.clone();
        for _ in 0..4 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let at = usize::try_from(state % b.len() as u64).expect("small");
            b[at] = (state >> 32) as u8;
        }
        if let Ok(event) = parse(&b) {
            let _ = event.record();
        }
    }
}
