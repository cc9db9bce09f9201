//! Syslog messages into records: RFC 5424 (`rfc5424.rs`), RFC 3164 (`rfc3164.rs`), and
//! what both share (PRI, the field names, building the record).
//!
//! Why it exists: a syslog message's header is the event's own data (severity, time,
//! host, app, process, message id, structured data), so it becomes the record's level,
//! time, target and fields rather than a line of text.
//!
//! Must never: panic or recurse on input, or drop a message: one that parses as neither
//! RFC is shipped as text with `syslog.parse_error` (the caller counts it).

mod rfc3164;
mod rfc5424;

use std::borrow::Cow;

use logship::{Level, Record};

use crate::lines::{utf8_lossy, TARGET};

/// Longest APP-NAME (or RFC 3164 TAG) read as the event's logger: RFC 5424's 48
/// printable US-ASCII characters. A longer or stranger one (a sender's garbage) is kept
/// in `syslog.appname` only, so that it never becomes the logger a vendor indexes.
const MAX_APP_NAME: usize = 48;

/// Facility names by code (RFC 5424 table 1, with the names `logger` and rsyslog use).
const FACILITIES: [&str; 24] = [
    "kern",
    "user",
    "mail",
    "daemon",
    "auth",
    "syslog",
    "lpr",
    "news",
    "uucp",
    "cron",
    "authpriv",
    "ftp",
    "ntp",
    "security",
    "console",
    "solaris-cron",
    "local0",
    "local1",
    "local2",
    "local3",
    "local4",
    "local5",
    "local6",
    "local7",
];
/// Severity names by code (RFC 5424 table 2, as `logger` spells them).
const SEVERITIES: [&str; 8] = [
    "emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
];

/// The record of one syslog message (its bytes, framing already removed), and whether it
/// parsed. `now_nanos` places an RFC 3164 timestamp, which has no year, in a year.
pub(crate) fn record(bytes: &[u8], now_nanos: u64) -> (Record, bool) {
    // A message that claims RFC 5424 (`<PRI>1 `) and breaks it is not read as the free
    // form RFC 3164 allows: it is a parse error, shipped as text.
    let parsed = match rfc5424::parse(bytes) {
        Some(m) => Some(m),
        None if claims_5424(bytes) => None,
        None => rfc3164::parse(bytes, now_nanos),
    };
    match parsed {
        Some(message) => (message.into_record(), true),
        None => {
            let text = utf8_lossy(bytes);
            let mut record = Record::with_capacity(Level::Info, TARGET, text.len() + 64);
            record.message(&text).field("syslog.parse_error", true);
            if matches!(text, Cow::Owned(_)) {
                record.mark_invalid_utf8();
            }
            (record, false)
        }
    }
}

/// A parsed message's parts, borrowed from its bytes where possible.
#[derive(Debug, Default)]
struct Message<'a> {
    /// PRIVAL, 0..=191.
    pri: u8,
    /// The TIMESTAMP as Unix nanoseconds (`None`: NILVALUE or absent; the record keeps
    /// its arrival time).
    time: Option<u64>,
    host: Option<&'a [u8]>,
    app: Option<&'a [u8]>,
    procid: Option<&'a [u8]>,
    msgid: Option<&'a [u8]>,
    /// STRUCTURED-DATA as `SD-ID.PARAM-NAME` and unescaped values.
    sd: Vec<(String, String)>,
    /// MSG (BOM already stripped).
    msg: &'a [u8],
}

impl Message<'_> {
    fn into_record(self) -> Record {
        let mut invalid = false;
        let mut text = |b: &[u8]| -> String {
            let t = utf8_lossy(b);
            invalid |= matches!(t, Cow::Owned(_));
            t.into_owned()
        };
        let app = self.app.map(&mut text);
        let msg = text(self.msg);
        let severity = self.pri % 8;
        let level = match severity {
            0..=3 => Level::Error,
            4 => Level::Warn,
            5 | 6 => Level::Info,
            _ => Level::Debug,
        };
        // No APP-NAME, or one that is no name: no logger (none is made up).
        let target = self.app.and_then(logger_name).unwrap_or(TARGET);
        let mut record = Record::with_capacity(level, target, msg.len() + 160);
        if let Some(nanos) = self.time {
            record.set_timestamp_nanos(nanos);
        }
        record.message(&msg);
        let facility = FACILITIES
            .get(usize::from(self.pri / 8))
            .copied()
            .unwrap_or("unknown");
        record
            .field("syslog.facility", facility)
            .field("syslog.severity", SEVERITIES[usize::from(severity)]);
        if let Some(host) = self.host {
            record.field("host", text(host).as_str());
        }
        if let Some(app) = &app {
            record.field("syslog.appname", app.as_str());
        }
        if let Some(procid) = self.procid {
            record.field("syslog.procid", text(procid).as_str());
        }
        if let Some(msgid) = self.msgid {
            record.field("syslog.msgid", text(msgid).as_str());
        }
        for (key, value) in &self.sd {
            record.field(key, value.as_str());
        }
        if invalid
            || self
                .sd
                .iter()
                .any(|(k, v)| k.contains('\u{fffd}') || v.contains('\u{fffd}'))
        {
            record.mark_invalid_utf8();
        }
        record
    }
}

/// An APP-NAME as the event's logger: 1 to [`MAX_APP_NAME`] printable US-ASCII bytes.
fn logger_name(app: &[u8]) -> Option<&str> {
    let printable = app.iter().all(|c| (33..=126).contains(c));
    if app.is_empty() || app.len() > MAX_APP_NAME || !printable {
        return None;
    }
    std::str::from_utf8(app).ok()
}

/// `<PRI>` at the start of `b`: PRIVAL (0..=191, 1 to 3 digits, no leading zero but `0`
/// itself) and the rest.
fn pri(b: &[u8]) -> Option<(u8, &[u8])> {
    let rest = b.strip_prefix(b"<")?;
    let end = rest.iter().take(4).position(|&c| c == b'>')?;
    let digits = &rest[..end];
    if digits.is_empty() || (digits.len() > 1 && digits[0] == b'0') {
        return None;
    }
    let mut value: u16 = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        value = value * 10 + u16::from(c - b'0');
    }
    let value = u8::try_from(value).ok().filter(|v| *v <= 191)?;
    Some((value, &rest[end + 1..]))
}

/// `<PRI>` followed by a version number and a space.
fn claims_5424(b: &[u8]) -> bool {
    pri(b).is_some_and(|(_, rest)| {
        let digits = rest.iter().take_while(|c| c.is_ascii_digit()).count();
        (1..=2).contains(&digits) && rest.get(digits) == Some(&b' ')
    })
}

/// Splits `b` at its first space: (the token, the rest after the space). Without a
/// space, the whole is the token and the rest is empty.
fn token(b: &[u8]) -> (&[u8], &[u8]) {
    match memchr::memchr(b' ', b) {
        Some(i) => (&b[..i], &b[i + 1..]),
        None => (b, &[]),
    }
}

/// A header field: `None` for the NILVALUE `-`.
fn nil(field: &[u8]) -> Option<&[u8]> {
    (field != b"-").then_some(field)
}

#[cfg(test)]
mod tests {
    use super::*;
    use logship::Entry;

    /// The record's fields as text.
    pub(super) fn fields(r: &Record) -> Vec<(String, String)> {
        r.entries()
            .filter_map(|e| match e {
                Entry::Field(k, v) => Some((k.to_owned(), format!("{v:?}"))),
                _ => None,
            })
            .collect()
    }

    /// The text field `key`, if any (unquoted from its `Debug` form).
    pub(super) fn text(r: &Record, key: &str) -> Option<String> {
        fields(r).into_iter().find(|(k, _)| k == key).map(|(_, v)| {
            let v = v
                .strip_prefix("Str(")
                .and_then(|v| v.strip_suffix(')'))
                .unwrap_or(&v);
            serde_json::from_str::<String>(v).unwrap_or_else(|_| v.to_owned())
        })
    }

    #[test]
    fn pri_reads_facility_and_severity_and_refuses_what_is_not_one() {
        assert_eq!(pri(b"<0>x"), Some((0, &b"x"[..])));
        assert_eq!(pri(b"<191>"), Some((191, &b""[..])));
        for bad in [
            &b"<192>x"[..],
            b"<>x",
            b"<01>x",
            b"<1a>x",
            b"<1234>x",
            b"13>x",
            b"<13",
            b"",
        ] {
            assert_eq!(pri(bad), None, "{}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn severity_maps_to_level_and_names() {
        let level = |p: u8| {
            record(format!("<{p}>1 - - - - - - x").as_bytes(), 0)
                .0
                .level()
        };
        assert_eq!([0, 1, 2, 3].map(level), [Level::Error; 4]);
        assert_eq!(level(4), Level::Warn);
        assert_eq!([5, 6].map(level), [Level::Info; 2]);
        assert_eq!(level(7), Level::Debug);
        let (r, ok) = record(b"<134>1 - - - - - - x", 0);
        assert!(ok);
        assert_eq!(text(&r, "syslog.facility").as_deref(), Some("local0"));
        assert_eq!(text(&r, "syslog.severity").as_deref(), Some("info"));
        assert_eq!(r.target(), "", "no APP-NAME: no made-up logger");
    }

    #[test]
    fn only_an_app_name_the_rfc_allows_becomes_the_logger_and_every_one_is_kept() {
        let long = "a".repeat(49);
        let max = "b".repeat(48);
        for (app, logger) in [
            (max.as_str(), max.as_str()),
            ("postfix/smtpd", "postfix/smtpd"),
            (long.as_str(), ""),
            ("caf\u{e9}", ""),
        ] {
            let (r, ok) = record(format!("<14>1 - host {app} - - - hi").as_bytes(), 0);
            assert!(ok, "{app}");
            assert_eq!(r.target(), logger, "{app}");
            assert_eq!(text(&r, "syslog.appname").as_deref(), Some(app), "kept");
            let now = 1_796_133_600_000_000_000; // 2026-12-01: places `Dec  1` in a year
            let (r, ok) = record(format!("<14>Dec  1 09:05:07 vm {app}: hi").as_bytes(), now);
            assert!(ok, "{app}");
            assert_eq!(r.target(), logger, "3164 {app}");
        }
        // Invalid UTF-8 in the APP-NAME: not the logger, kept with U+FFFD, marked.
        let (r, ok) = record(b"<14>1 - host \xff\xfeapp - - - hi", 0);
        assert!(ok);
        assert_eq!(r.target(), "");
        assert_eq!(
            text(&r, "syslog.appname").as_deref(),
            Some("\u{fffd}\u{fffd}app")
        );
        assert!(r.had_invalid_utf8());
    }

    #[test]
    fn neither_rfc_is_shipped_as_text_flagged() {
        for odd in [&b"hello"[..], b"<999>1 x", b"<13", b"\xff\xfe garbage", b""] {
            let (r, ok) = record(odd, 0);
            assert!(!ok);
            assert_eq!(r.message_str(), utf8_lossy(odd));
            assert!(fields(&r).iter().any(|(k, _)| k == "syslog.parse_error"));
            assert_eq!(r.target(), "", "no made-up logger");
        }
    }
}
