//! RFC 5424: `<PRI>1 TIMESTAMP HOSTNAME APP-NAME PROCID MSGID STRUCTURED-DATA [MSG]`.
//!
//! Why it exists: the modern syslog format (`logger`'s default for remote servers,
//! rsyslog's `RSYSLOG_SyslogProtocol23Format`), parsed into the message's parts.
//!
//! Must never: panic or recurse on input (structured data is read by a loop), or accept
//! what is not RFC 5424 (the caller then tries RFC 3164, then ships it as text). Header
//! fields longer than the RFC's maxima are accepted (the event is already capped).

use super::message::{nil, pri, token, Message};
use crate::lines::time::parse_rfc3339;
use crate::lines::utf8_lossy;

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
