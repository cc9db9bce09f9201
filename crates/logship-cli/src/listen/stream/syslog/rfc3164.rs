//! RFC 3164 (BSD syslog): `<PRI>Mmm dd hh:mm:ss HOSTNAME TAG[PID]: MSG`.
//!
//! Why it exists: what `logger --rfc3164`, most network devices and rsyslog's
//! traditional forwarding format send.
//!
//! The timestamp has no year and no zone. The zone of the sender is unknowable here, so
//! it is taken as UTC (documented in docs/listen.md); the year is the one (of last year,
//! this year, next year) that puts the time closest to now, so a `Dec 31 23:59:59`
//! received just after New Year is last year's. rsyslog's variant with an RFC 3339
//! timestamp in its place is read too. A message without a HOSTNAME (`<13>Dec  1
//! 09:05:07 app[1]: msg`, as local sockets receive) is told apart by its first token
//! ending in `:` or holding `[`.
//!
//! Must never: panic on input; it accepts any message with a valid PRI (what does not
//! read as a timestamp, host and tag is the MSG, as RFC 3164 section 4.3.3 tells a relay).

use super::message::{pri, token, Message};
use crate::lines::time::{days_from_civil, parse_rfc3339};

const MONTHS: [&[u8; 3]; 12] = [
    b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec",
];
const NANOS: i128 = 1_000_000_000;

/// The parts of an RFC 3164 message, or `None` without a valid PRI.
pub(super) fn parse(b: &[u8], now_nanos: u64) -> Option<Message<'_>> {
    let (pri, rest) = pri(b)?;
    let mut message = Message {
        pri,
        msg: rest,
        ..Message::default()
    };
    let Some((time, rest)) = bsd_time(rest, now_nanos).or_else(|| iso_time(rest)) else {
        return Some(message);
    };
    message.time = Some(time);
    // HOSTNAME, unless the first token is already the tag.
    let (first, after) = token(rest);
    let rest = if first.is_empty() || first.ends_with(b":") || first.contains(&b'[') {
        rest
    } else {
        message.host = Some(first);
        after
    };
    message.msg = rest;
    // TAG (with an optional `[PID]`) ending in `:`.
    let (tag, after) = token(rest);
    if let Some(tag) = tag.strip_suffix(b":") {
        let (app, pid) = match tag.iter().position(|&c| c == b'[') {
            Some(i) if tag.ends_with(b"]") => (&tag[..i], Some(&tag[i + 1..tag.len() - 1])),
            _ => (tag, None),
        };
        if !app.is_empty() {
            message.app = Some(app);
            message.procid = pid.filter(|p| !p.is_empty());
            message.msg = after;
        }
    }
    Some(message)
}

/// `Mmm dd hh:mm:ss ` (day space- or zero-padded) at the start of `b`: the time in the
/// year closest to now, UTC, and what follows.
fn bsd_time(b: &[u8], now_nanos: u64) -> Option<(u64, &[u8])> {
    let month = MONTHS.iter().position(|m| b.starts_with(*m))? as i64 + 1;
    let b = b.get(3..)?.strip_prefix(b" ")?;
    let b = b.strip_prefix(b" ").unwrap_or(b);
    let digits = b.iter().take(2).take_while(|c| c.is_ascii_digit()).count();
    let day = num(&b[..digits])?;
    let b = b[digits..].strip_prefix(b" ")?;
    let clock = b.get(..8)?;
    if clock[2] != b':' || clock[5] != b':' {
        return None;
    }
    let (h, m, s) = (num(&clock[..2])?, num(&clock[3..5])?, num(&clock[6..8])?);
    if !(1..=31).contains(&day) || h > 23 || m > 59 || s > 60 {
        return None;
    }
    let rest = &b[8..];
    let rest = match rest {
        [] => rest,
        [b' ', more @ ..] => more,
        _ => return None,
    };
    let now = i128::from(now_nanos);
    let year = 1970 + (now / NANOS / 86_400 / 365) as i64;
    // The year estimate is within a day or two of the truth; the closest of the years
    // around it is the one.
    let at = |y: i64| {
        let secs = days_from_civil(y, month, day) * 86_400 + h * 3600 + m * 60 + s.min(59);
        i128::from(secs) * NANOS
    };
    let best = (year - 2..=year + 1)
        .map(at)
        .min_by_key(|t| (t - now).abs())?;
    Some((u64::try_from(best).ok()?, rest))
}

/// An RFC 3339 timestamp token (rsyslog's high-precision variant of the format).
fn iso_time(b: &[u8]) -> Option<(u64, &[u8])> {
    if !b.first()?.is_ascii_digit() {
        return None;
    }
    let (t, rest) = token(b);
    Some((parse_rfc3339(std::str::from_utf8(t).ok()?)?, rest))
}

/// A short run of ASCII digits as a number.
fn num(b: &[u8]) -> Option<i64> {
    if b.is_empty() {
        return None;
    }
    b.iter().try_fold(0i64, |acc, &c| {
        c.is_ascii_digit().then(|| acc * 10 + i64::from(c - b'0'))
    })
}
