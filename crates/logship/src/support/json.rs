//! Minimal JSON writing into reused byte buffers, for the encoders' hot path.
//!
//! Why it exists: encoding every event through `serde_json::Value` costs a map and several
//! allocations per event. Encoders instead append straight to the batch body. Any `&str`
//! (control characters, quotes, backslashes, any Unicode) becomes a valid JSON string;
//! non-finite floats become strings, since JSON has no NaN.

use crate::capture::record::Value;

/// Appends `s` as a quoted, escaped JSON string.
pub(crate) fn string(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    escape(out, s);
    out.push(b'"');
}

/// Appends the escaped body of a JSON string (no quotes).
///
/// Most log text needs no escaping: runs of clean bytes are found eight at a time
/// ([`needs_escape`]) and copied whole; only a word holding a byte to escape, and a
/// string's last few bytes, are looked at byte by byte, each with one table lookup
/// ([`ESCAPES`]).
fn escape(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len());
    let mut start = 0;
    let mut i = 0;
    while i < bytes.len() {
        while let Some(word) = bytes[i..].first_chunk::<8>() {
            if needs_escape(u64::from_le_bytes(*word)) {
                break;
            }
            i += 8;
        }
        let end = (i + 8).min(bytes.len());
        for (j, &b) in bytes[i..end].iter().enumerate() {
            let class = ESCAPES[usize::from(b)];
            if class == 0 {
                continue;
            }
            let at = i + j;
            out.extend_from_slice(&bytes[start..at]);
            if class == b'u' {
                out.extend_from_slice(b"\\u00");
                out.extend_from_slice(&crate::support::hex::pair(b));
            } else {
                out.extend_from_slice(&[b'\\', class]);
            }
            start = at + 1;
        }
        i = end;
    }
    out.extend_from_slice(&bytes[start..]);
}

/// Length of the longest prefix of `s` (ending on a character boundary) that takes at most
/// `room` bytes once escaped by [`string`]: where to cut a message so that its JSON
/// text fits a limit exactly.
pub(crate) fn escaped_prefix(s: &str, room: usize) -> usize {
    let mut used = 0usize;
    for (i, c) in s.char_indices() {
        let cost = match u8::try_from(c) {
            Ok(b) if b.is_ascii() => match ESCAPES[usize::from(b)] {
                0 => 1,
                b'u' => 6,
                _ => 2,
            },
            _ => c.len_utf8(),
        };
        if used + cost > room {
            return i;
        }
        used += cost;
    }
    s.len()
}

/// How each byte is escaped in a JSON string: 0 not at all, `u` as `\u00XX`, any other
/// as a backslash and that character (`\"`, `\\`, `\n`, `\r`, `\t`).
const ESCAPES: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = b'u';
        b += 1;
    }
    t[0x7f] = b'u';
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t[b'\n' as usize] = b'n';
    t[b'\r' as usize] = b'r';
    t[b'\t' as usize] = b't';
    t
};

/// Whether any of the eight bytes in `w` must be escaped: a control character (below
/// 0x20, or 0x7f), a quote or a backslash. Exact, branch-free bit tricks: a byte is
/// below 0x20 when subtracting 0x20 borrows out of a byte whose top bit was clear, and
/// equal to `c` when `w ^ c` has a zero byte.
fn needs_escape(w: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below = |x: u64, n: u8| x.wrapping_sub(ONES * u64::from(n)) & !x & HIGH;
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    (below(w, 0x20) | zero(w ^ (ONES * 0x22)) | zero(w ^ (ONES * 0x5c)) | zero(w ^ (ONES * 0x7f)))
        != 0
}

/// Appends a field value as JSON, with [`Value::Json`] as its text (a JSON string): for
/// intakes whose attributes take only strings, numbers and booleans.
pub(crate) fn scalar_value(out: &mut Vec<u8>, v: Value<'_>) {
    match v {
        Value::Json(s) => string(out, s),
        other => value(out, other),
    }
}

/// Appends a field value as JSON.
pub(crate) fn value(out: &mut Vec<u8>, v: Value<'_>) {
    match v {
        Value::Str(s) => string(out, s),
        Value::I64(n) => integer(out, n),
        Value::U64(n) => unsigned(out, n),
        Value::F64(f) => float(out, f),
        Value::Bool(b) => out.extend_from_slice(if b { b"true" } else { b"false" }),
        // Checked to be exactly one JSON value when it was recorded.
        Value::Json(s) => out.extend_from_slice(s.as_bytes()),
    }
}

/// Appends a signed integer.
pub(crate) fn integer(out: &mut Vec<u8>, n: i64) {
    if n < 0 {
        out.push(b'-');
    }
    unsigned(out, n.unsigned_abs());
}

/// Appends an unsigned integer.
pub(crate) fn unsigned(out: &mut Vec<u8>, n: u64) {
    let mut buf = itoa_buf();
    out.extend_from_slice(fmt_u64(&mut buf, n));
}

/// Appends a float; NaN and infinities become the strings `"NaN"`, `"inf"`, `"-inf"`.
pub(crate) fn float(out: &mut Vec<u8>, f: f64) {
    if f.is_finite() {
        use std::io::Write;
        let _ = write!(out, "{f}");
        // Rust prints `1` for 1.0: still a valid JSON number.
    } else if f.is_nan() {
        out.extend_from_slice(b"\"NaN\"");
    } else if f > 0.0 {
        out.extend_from_slice(b"\"inf\"");
    } else {
        out.extend_from_slice(b"\"-inf\"");
    }
}

fn itoa_buf() -> [u8; 20] {
    [0; 20]
}

fn fmt_u64(buf: &mut [u8; 20], mut n: u64) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    &buf[i..]
}

/// Appends an RFC 3339 UTC timestamp with milliseconds (`2026-11-29T21:55:57.123Z`).
pub(crate) fn rfc3339_millis(out: &mut Vec<u8>, unix_nanos: u64) {
    thread_local! {
        /// The second last written and its `YYYY-MM-DDTHH:MM:SS`: events come in bursts
        /// within one second, and the calendar arithmetic is most of the cost.
        static LAST_SECOND: std::cell::Cell<(u64, [u8; 19])> =
            const { std::cell::Cell::new((u64::MAX, [0; 19])) };
    }
    let secs = unix_nanos / 1_000_000_000;
    let millis = (unix_nanos / 1_000_000) % 1000;
    let head = LAST_SECOND.with(|cell| match cell.get() {
        (cached, head) if cached == secs => head,
        _ => {
            let head = seconds(secs);
            cell.set((secs, head));
            head
        }
    });
    out.extend_from_slice(&head);
    let mut tail = *b".000Z";
    digits(&mut tail[1..4], millis);
    out.extend_from_slice(&tail);
}

/// `YYYY-MM-DDTHH:MM:SS` of a Unix second (a u64 of nanoseconds ends in year 2554, so the
/// year always has four digits).
fn seconds(secs: u64) -> [u8; 19] {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    let mut head = *b"0000-00-00T00:00:00";
    digits(&mut head[0..4], y.unsigned_abs());
    digits(&mut head[5..7], m);
    digits(&mut head[8..10], d);
    digits(&mut head[11..13], rem / 3600);
    digits(&mut head[14..16], (rem / 60) % 60);
    digits(&mut head[17..19], rem % 60);
    head
}

/// Writes the low decimal digits of `n` into `slots`, zero-padded.
fn digits(slots: &mut [u8], mut n: u64) {
    for slot in slots.iter_mut().rev() {
        *slot = b'0' + (n % 10) as u8;
        n /= 10;
    }
}

/// Gregorian date from days since 1970-01-01 (Howard Hinnant's `civil_from_days`).
pub(crate) fn civil_from_days(z: i64) -> (i64, u64, u64) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u64;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u64;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(input: &str) -> String {
        let mut out = Vec::new();
        string(&mut out, input);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn any_string_round_trips_through_a_json_parser() {
        let nasty = [
            "plain",
            "quote \" backslash \\ slash /",
            "newline\nreturn\rtab\t",
            "\u{0}\u{1}\u{1f}\u{7f}",
            "émoji 🚀 中文 \u{2028}\u{2029}",
            "",
        ];
        for input in nasty {
            let encoded = s(input);
            let back: String = serde_json::from_str(&encoded).unwrap();
            assert_eq!(back, input, "{encoded}");
        }
    }

    /// The byte-at-a-time escaper the word-at-a-time one must agree with.
    fn reference(input: &str) -> String {
        let mut out = String::from("\"");
        for c in input.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                '\n' => out.push_str("\\n"),
                '\r' => out.push_str("\\r"),
                '\t' => out.push_str("\\t"),
                '\u{0}'..='\u{1f}' | '\u{7f}' => out.push_str(&format!("\\u{:04x}", c as u32)),
                c => out.push(c),
            }
        }
        out.push('"');
        out
    }

    #[test]
    fn every_ascii_byte_at_every_position_of_a_word_is_escaped_as_byte_by_byte() {
        for b in 0u8..=0x7f {
            for len in [1, 7, 8, 9, 16, 17, 23] {
                for at in 0..len {
                    let mut text = vec![b'a'; len];
                    text[at] = b;
                    let text = String::from_utf8(text).unwrap();
                    assert_eq!(s(&text), reference(&text), "byte {b:#x} at {at} of {len}");
                }
            }
        }
        // Multi-byte characters (bytes >= 0x80) around escapes, across word boundaries.
        // Several escapes in one word, and words that are nothing but escapes.
        for text in [
            "ééééé\"ü\n",
            "中文中文中\u{1}文",
            "🚀🚀\\🚀🚀\u{7f}",
            "a\"b\\c\nd\re\tf\u{0}g\u{7f}h",
            "\"\"\"\"\"\"\"\"\"\n\n",
        ] {
            assert_eq!(s(text), reference(text));
        }
    }

    #[test]
    fn numbers_and_non_finite_floats_are_valid_json() {
        for (v, want) in [
            (Value::I64(-42), "-42"),
            (Value::I64(i64::MIN), "-9223372036854775808"),
            (Value::U64(u64::MAX), "18446744073709551615"),
            (Value::F64(1.25), "1.25"),
            (Value::F64(f64::NAN), "\"NaN\""),
            (Value::F64(f64::NEG_INFINITY), "\"-inf\""),
            (Value::Bool(false), "false"),
        ] {
            let mut out = Vec::new();
            value(&mut out, v);
            assert_eq!(String::from_utf8(out).unwrap(), want);
        }
    }

    #[test]
    fn timestamps_are_rfc3339_utc_millis() {
        let mut out = Vec::new();
        rfc3339_millis(&mut out, 0);
        assert_eq!(out, b"1970-01-01T00:00:00.000Z");
        out.clear();
        // 2024-02-29T23:59:59.999Z, a leap day
        rfc3339_millis(&mut out, 1_709_251_199_999_000_000);
        assert_eq!(String::from_utf8(out).unwrap(), "2024-02-29T23:59:59.999Z");
    }

    #[test]
    fn the_cached_second_is_never_reused_for_another_second() {
        // Back and forth across second, day and year boundaries, and the same second
        // twice: each must read as if computed afresh.
        let cases = [
            (1_709_251_199_999_000_000, "2024-02-29T23:59:59.999Z"),
            (1_709_251_200_000_000_000, "2024-03-01T00:00:00.000Z"),
            (1_709_251_199_001_000_000, "2024-02-29T23:59:59.001Z"),
            (1_709_251_199_500_000_000, "2024-02-29T23:59:59.500Z"),
            (1_735_689_599_999_999_999, "2024-12-31T23:59:59.999Z"),
            (1_735_689_600_000_000_000, "2025-01-01T00:00:00.000Z"),
            (u64::MAX, "2554-07-21T23:34:33.709Z"),
            (0, "1970-01-01T00:00:00.000Z"),
        ];
        for (nanos, want) in cases.iter().chain(cases.iter().rev()) {
            let mut out = Vec::new();
            rfc3339_millis(&mut out, *nanos);
            assert_eq!(String::from_utf8(out).unwrap(), *want);
        }
    }

    #[test]
    fn escaped_prefix_is_the_longest_whole_character_prefix_that_fits_escaped() {
        for input in ["plain", "a\u{1}b\"c\\d\ne", "é中🚀x", &"\u{1}".repeat(50)] {
            for room in 0..=input.len() * 6 + 2 {
                let k = escaped_prefix(input, room);
                assert!(input.is_char_boundary(k));
                let len = |t: &str| s(t).len() - 2;
                assert!(len(&input[..k]) <= room, "{input:?} {room}");
                if let Some(c) = input[k..].chars().next() {
                    assert!(len(&input[..k + c.len_utf8()]) > room, "{input:?} {room}");
                }
            }
        }
    }
}
