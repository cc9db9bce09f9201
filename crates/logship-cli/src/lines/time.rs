//! A time as JSON logs and syslog write it: RFC 3339 text, epoch seconds, milliseconds,
//! microseconds or nanoseconds (told apart by magnitude), or Log4j2's `instant`.
//!
//! Why it exists: every input reads times the same way, into Unix nanoseconds. Must
//! never: panic on any text, or read a time before 1970 or past 2262 as one.

use super::flatten::Leaf;
use super::json::Json;

/// A time as RFC 3339 text, or as epoch seconds, milliseconds, microseconds or
/// nanoseconds (told apart by magnitude: below 10^11 seconds, 10^14 ms, 10^17 µs), as
/// Unix nanoseconds. Before 1970 or past 2262 is not a time here.
pub(crate) fn parse_time(v: &Json<'_>) -> Option<u64> {
    match v {
        Json::String(s) => parse_rfc3339(s),
        Json::Number(n) => {
            if let Some(u) = n.as_u64() {
                return match u {
                    0..100_000_000_000 => u.checked_mul(1_000_000_000),
                    100_000_000_000..100_000_000_000_000 => u.checked_mul(1_000_000),
                    100_000_000_000_000..100_000_000_000_000_000 => u.checked_mul(1_000),
                    _ => Some(u),
                };
            }
            let f = n.as_f64()?;
            if !(0.0..1.8e19).contains(&f) {
                return None;
            }
            let scale: u64 = if f < 1e11 {
                1_000_000_000
            } else if f < 1e14 {
                1_000_000
            } else if f < 1e17 {
                1_000
            } else {
                1
            };
            // Whole and fraction apart: `f * 1e9` would lose the fraction's digits.
            let whole = f.trunc();
            let frac = ((f - whole) * scale as f64).round() as u64;
            (whole as u64).checked_mul(scale)?.checked_add(frac)
        }
        _ => None,
    }
}

/// Log4j2 `JsonLayout`'s `instant` object, `{"epochSecond": s, "nanoOfSecond": ns}` and
/// nothing else, as Unix nanoseconds.
pub(crate) fn instant_nanos(instant: &Json<'_>) -> Option<u64> {
    let Json::Object(m) = instant else {
        return None;
    };
    let secs = m.get("epochSecond")?.as_u64()?;
    let frac = match (m.len(), m.get("nanoOfSecond")) {
        (1, None) => 0,
        (2, Some(n)) => n.as_u64()?,
        _ => return None,
    };
    secs.checked_mul(1_000_000_000)?
        .checked_add(frac.min(999_999_999))
}

/// Log4j2 `JsonLayout`'s `instant` among flattened leaves (`instant.epochSecond`,
/// `instant.nanoOfSecond`), taken out: where [`instant_nanos`] could not read it whole.
pub(crate) fn log4j_instant(leaves: &mut Vec<Leaf<'_, '_>>) -> Option<u64> {
    let at = |leaves: &Vec<Leaf<'_, '_>>, key: &str| {
        leaves
            .iter()
            .position(|l| !l.own && l.name == key && l.value.is_u64())
    };
    let s = at(leaves, "instant.epochSecond")?;
    let secs = leaves[s].value.as_u64()?;
    let n = at(leaves, "instant.nanoOfSecond");
    let frac = n.and_then(|n| leaves[n].value.as_u64()).unwrap_or(0);
    let nanos = secs
        .checked_mul(1_000_000_000)?
        .checked_add(frac.min(999_999_999))?;
    // Remove the later index first so the earlier one stays valid.
    let mut taken = [Some(s), n];
    taken.sort_unstable_by(|a, b| b.cmp(a));
    for i in taken.into_iter().flatten() {
        leaves.remove(i);
    }
    Some(nanos)
}

/// RFC 3339 (`2026-12-01T14:00:00.123456Z`, `…+02:00`; `t`, `z` and a space for `T`
/// accepted) as Unix nanoseconds; fractions past nanoseconds are cut.
pub(crate) fn parse_rfc3339(s: &str) -> Option<u64> {
    let b = s.trim().as_bytes();
    let num = |from: usize, len: usize| -> Option<i64> {
        let part = b.get(from..from + len)?;
        part.iter().try_fold(0i64, |acc, &c| {
            c.is_ascii_digit().then(|| acc * 10 + i64::from(c - b'0'))
        })
    };
    let (year, month, day) = (num(0, 4)?, num(5, 2)?, num(8, 2)?);
    let (hour, minute, second) = (num(11, 2)?, num(14, 2)?, num(17, 2)?);
    if b.get(4) != Some(&b'-')
        || b.get(7) != Some(&b'-')
        || !matches!(b.get(10), Some(b'T' | b't' | b' '))
        || b.get(13) != Some(&b':')
        || b.get(16) != Some(&b':')
        || !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return None;
    }
    let mut i = 19;
    let mut frac = 0i64;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let mut digits = 0;
        while let Some(c) = b.get(i).filter(|c| c.is_ascii_digit()) {
            if digits < 9 {
                frac = frac * 10 + i64::from(c - b'0');
                digits += 1;
            }
            i += 1;
        }
        if digits == 0 {
            return None;
        }
        frac *= 10i64.pow(9 - digits);
    }
    let offset = match b.get(i)? {
        b'Z' | b'z' if i + 1 == b.len() => 0,
        sign @ (b'+' | b'-') if i + 6 == b.len() && b.get(i + 3) == Some(&b':') => {
            let (h, m) = (num(i + 1, 2)?, num(i + 4, 2)?);
            if h > 23 || m > 59 {
                return None;
            }
            let o = h * 3600 + m * 60;
            if *sign == b'+' {
                o
            } else {
                -o
            }
        }
        _ => return None,
    };
    let days = days_from_civil(year, month, day);
    let secs = days * 86_400 + hour * 3600 + minute * 60 + second.min(59) - offset;
    let nanos = i128::from(secs) * 1_000_000_000 + i128::from(frac);
    u64::try_from(nanos).ok()
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
pub(crate) fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}
