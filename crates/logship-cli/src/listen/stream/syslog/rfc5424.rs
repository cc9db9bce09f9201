//! RFC 5424: `<PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID STRUCTURED-DATA [MSG]`.
//!
//! Why it exists: the modern syslog format (`logger`'s default for remote servers,
//! rsyslog's `RSYSLOG_SyslogProtocol23Format`), parsed into the message's parts.
//!
//! Must never: panic or recurse on input (structured data is read by a loop), or accept
//! what is not RFC 5424 (the caller then tries RFC 3164, then ships it as text). Header
//! fields longer than the RFC's maxima are accepted (the event is already capped).

use super::{nil, pri, token, Message};
use crate::lines::{parse_rfc3339, utf8_lossy};

/// The UTF-8 byte order mark a sender may put before MSG.
const BOM: &[u8] = b"\xef\xbb\xbf";

/// The parts of an RFC 5424 message, or `None` when `b` is not one.
pub(super) fn parse(b: &[u8]) -> Option<Message<'_>> {
    let (pri, rest) = pri(b)?;
    let (version, rest) = token(rest);
    if version.is_empty()
        || version.len() > 2
        || version[0] == b'0'
        || !version.iter().all(u8::is_ascii_digit)
    {
        return None;
    }
    let (time, rest) = token(rest);
    let time = match nil(time) {
        None => None,
        Some(t) => Some(parse_rfc3339(std::str::from_utf8(t).ok()?)?),
    };
    let (host, rest) = token(rest);
    let (app, rest) = token(rest);
    let (procid, rest) = token(rest);
    let (msgid, rest) = token(rest);
    if [host, app, procid, msgid].iter().any(|f| f.is_empty()) {
        return None;
    }
    let (sd, rest) = structured_data(rest)?;
    let msg = match rest {
        [] => rest,
        [b' ', msg @ ..] => msg,
        _ => return None,
    };
    Some(Message {
        pri,
        time,
        host: nil(host),
        app: nil(app),
        procid: nil(procid),
        msgid: nil(msgid),
        sd,
        msg: msg.strip_prefix(BOM).unwrap_or(msg),
    })
}

/// Structured-data params, as (`SD-ID.PARAM`, value).
type Params = Vec<(String, String)>;

/// STRUCTURED-DATA (`-` or one or more `[SD-ID PARAM="VALUE" ...]`) at the start of `b`:
/// the params as (`SD-ID.PARAM`, unescaped value), and what follows.
fn structured_data(b: &[u8]) -> Option<(Params, &[u8])> {
    if let Some(rest) = b.strip_prefix(b"-") {
        return Some((Vec::new(), rest));
    }
    let mut out = Vec::new();
    let mut rest = b;
    if rest.first() != Some(&b'[') {
        return None;
    }
    while let Some(after) = rest.strip_prefix(b"[") {
        let end = after.iter().position(|&c| c == b' ' || c == b']')?;
        let id = name(&after[..end])?;
        rest = &after[end..];
        // Params: ` NAME="VALUE"` until `]`.
        loop {
            match rest {
                [b']', more @ ..] => {
                    rest = more;
                    break;
                }
                [b' ', more @ ..] => {
                    let eq = more.iter().position(|&c| c == b'=')?;
                    let param = name(&more[..eq])?;
                    let value = more[eq + 1..].strip_prefix(b"\"")?;
                    let (value, more) = quoted(value)?;
                    out.push((format!("{id}.{param}"), value));
                    rest = more;
                }
                _ => return None,
            }
        }
    }
    Some((out, rest))
}

/// An SD-NAME: 1 to 32 printable US-ASCII characters but `=`, SP, `]` and `"` (longer
/// ones are accepted).
fn name(b: &[u8]) -> Option<&str> {
    let ok = !b.is_empty()
        && b.iter()
            .all(|&c| (33..=126).contains(&c) && !b"= ]\"".contains(&c));
    ok.then(|| std::str::from_utf8(b).ok()).flatten()
}

/// A PARAM-VALUE after its opening quote: the unescaped value (`\"`, `\\`, `\]`; any
/// other backslash is kept, as the RFC says) and what follows its closing quote.
fn quoted(b: &[u8]) -> Option<(String, &[u8])> {
    let mut value = Vec::new();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b'"' => return Some((utf8_lossy(&value).into_owned(), &b[i + 1..])),
            b'\\' if matches!(b.get(i + 1), Some(b'"' | b'\\' | b']')) => {
                value.push(b[i + 1]);
                i += 2;
            }
            _ => {
                value.push(c);
                i += 1;
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::super::record;
    use super::super::tests::{fields, text};
    use logship::Level;

    #[test]
    fn the_rfc_examples_parse() {
        // RFC 5424 section 6.5, example 1 (the BOM before MSG).
        let (r, ok) = record(
            b"<34>1 2003-10-11T22:14:15.003Z mymachine.example.com su - ID47 - \xef\xbb\xbf'su root' failed for lonvick on /dev/pts/8",
            0,
        );
        assert!(ok);
        assert_eq!(r.level(), Level::Error, "severity 2 (crit)");
        assert_eq!(r.target(), "su");
        assert_eq!(
            r.message_str(),
            "'su root' failed for lonvick on /dev/pts/8"
        );
        assert_eq!(r.timestamp_nanos(), 1_065_910_455_003_000_000);
        assert_eq!(text(&r, "host").as_deref(), Some("mymachine.example.com"));
        assert_eq!(text(&r, "syslog.facility").as_deref(), Some("auth"));
        assert_eq!(text(&r, "syslog.severity").as_deref(), Some("crit"));
        assert_eq!(text(&r, "syslog.appname").as_deref(), Some("su"));
        assert_eq!(text(&r, "syslog.msgid").as_deref(), Some("ID47"));
        assert_eq!(text(&r, "syslog.procid"), None, "NILVALUE");

        // Example 2: an offset time, PROCID, no structured data.
        let (r, ok) = record(
            b"<165>1 2003-08-24T05:14:15.000003-07:00 192.0.2.1 myproc 8710 - - %% It's time to make the do-nuts.",
            0,
        );
        assert!(ok);
        assert_eq!(r.level(), Level::Info, "severity 5 (notice)");
        assert_eq!(r.timestamp_nanos(), 1_061_727_255_000_003_000);
        assert_eq!(text(&r, "syslog.procid").as_deref(), Some("8710"));
        assert_eq!(text(&r, "syslog.facility").as_deref(), Some("local4"));

        // Example 4: two SD elements, no MSG.
        let (r, ok) = record(
            br#"<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 iut="3" eventSource="Application" eventID="1011"][examplePriority@32473 class="high"]"#,
            0,
        );
        assert!(ok);
        assert_eq!(r.message_str(), "");
        assert_eq!(text(&r, "exampleSDID@32473.iut").as_deref(), Some("3"));
        assert_eq!(
            text(&r, "exampleSDID@32473.eventSource").as_deref(),
            Some("Application")
        );
        assert_eq!(
            text(&r, "examplePriority@32473.class").as_deref(),
            Some("high")
        );
    }

    #[test]
    fn logger_output_parses() {
        // util-linux logger 2.38 over TCP (VENDORS.md 11.4).
        let (r, ok) = record(
            br#"<11>1 2026-12-01T09:05:06.707020+00:00 vm myapp - - [timeQuality tzKnown="1" isSynced="0"] hello world"#,
            0,
        );
        assert!(ok);
        assert_eq!(r.level(), Level::Error);
        assert_eq!(r.message_str(), "hello world");
        assert_eq!(text(&r, "host").as_deref(), Some("vm"));
        assert_eq!(text(&r, "timeQuality.tzKnown").as_deref(), Some("1"));
        assert_eq!(text(&r, "timeQuality.isSynced").as_deref(), Some("0"));
    }

    #[test]
    fn sd_escapes_are_unescaped() {
        let (r, ok) = record(
            br#"<13>1 - - - - - [a@1 q="say \"hi\"" b="back\\slash" c="br\]acket" d="keep\n"] m"#,
            0,
        );
        assert!(ok, "{:?}", fields(&r));
        assert_eq!(text(&r, "a@1.q").as_deref(), Some(r#"say "hi""#));
        assert_eq!(text(&r, "a@1.b").as_deref(), Some(r"back\slash"));
        assert_eq!(text(&r, "a@1.c").as_deref(), Some("br]acket"));
        assert_eq!(text(&r, "a@1.d").as_deref(), Some(r"keep\n"));
        assert_eq!(r.message_str(), "m");
    }

    #[test]
    fn malformed_messages_are_refused_not_half_read() {
        for bad in [
            &br#"<13>1 - - - - - [a q="unterminated] m"#[..],
            br#"<13>1 - - - - - [a q=unquoted] m"#,
            br#"<13>1 - - - - - [] m"#,
            br#"<13>1 - - - - - [a q="v"]trailing"#,
            b"<13>1 yesterday h a p m - x",
            b"<13>1 - h a p",
            b"<13>01 - - - - - -",
            b"<13>1 - - - - - nosd",
        ] {
            let (r, ok) = record(bad, 0);
            assert!(!ok, "{}", String::from_utf8_lossy(bad));
            assert!(fields(&r).iter().any(|(k, _)| k == "syslog.parse_error"));
        }
    }

    #[test]
    fn invalid_utf8_is_replaced_and_marked() {
        let (r, ok) = record(b"<13>1 - h\xff app - - - caf\xe9", 0);
        assert!(ok);
        assert_eq!(r.message_str(), "caf\u{fffd}");
        assert_eq!(text(&r, "host").as_deref(), Some("h\u{fffd}"));
        assert!(fields(&r).iter().any(|(k, _)| k == "logship.invalid_utf8"));
    }
}
