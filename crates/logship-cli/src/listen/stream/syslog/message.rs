//! A syslog message's parts, whichever RFC it was read by, and the record they make:
//! PRI, the header fields, the field names, the logger.
//!
//! Why it exists: RFC 5424 and RFC 3164 share the PRI, the tokenising, and how a parsed
//! message becomes a record; both parsers and the dispatch name them, so they live apart
//! from all three. Must never: make up a logger (a name the RFC does not allow stays in
//! `syslog.appname` only), or show invalid UTF-8 unmarked.

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

/// A parsed message's parts, borrowed from its bytes where possible.
#[derive(Debug, Default)]
pub(super) struct Message<'a> {
    /// PRIVAL, 0..=191.
    pub(super) pri: u8,
    /// The TIMESTAMP as Unix nanoseconds (`None`: NILVALUE or absent; the record keeps
    /// its arrival time).
    pub(super) time: Option<u64>,
    pub(super) host: Option<&'a [u8]>,
    pub(super) app: Option<&'a [u8]>,
    pub(super) procid: Option<&'a [u8]>,
    pub(super) msgid: Option<&'a [u8]>,
    /// STRUCTURED-DATA as `SD-ID.PARAM-NAME` and unescaped values.
    pub(super) sd: Vec<(String, String)>,
    /// MSG (BOM already stripped).
    pub(super) msg: &'a [u8],
}

impl Message<'_> {
    pub(super) fn into_record(self) -> Record {
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
pub(super) fn pri(b: &[u8]) -> Option<(u8, &[u8])> {
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

/// Splits `b` at its first space: (the token, the rest after the space). Without a
/// space, the whole is the token and the rest is empty.
pub(super) fn token(b: &[u8]) -> (&[u8], &[u8]) {
    match memchr::memchr(b' ', b) {
        Some(i) => (&b[..i], &b[i + 1..]),
        None => (b, &[]),
    }
}

/// A header field: `None` for the NILVALUE `-`.
pub(super) fn nil(field: &[u8]) -> Option<&[u8]> {
    (field != b"-").then_some(field)
}
