//! Syslog messages into records, as specifications: the parts both RFCs share (PRI,
//! severity, the logger), then RFC 3164 and RFC 5424 as real senders write them.

use logship::{Entry, Level, Record};

use super::message::pri;
use super::record;
use crate::lines::utf8_lossy;

/// The record's fields as text.
fn fields(r: &Record) -> Vec<(String, String)> {
    r.entries()
        .filter_map(|e| match e {
            Entry::Field(k, v) => Some((k.to_owned(), format!("{v:?}"))),
            _ => None,
        })
        .collect()
}

/// The text field `key`, if any (unquoted from its `Debug` form).
fn text(r: &Record, key: &str) -> Option<String> {
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

// ---------------------------------------------------------------------------------------
// RFC 3164

/// 2026-12-01T12:00:00Z.
const NOW: u64 = 1_796_126_400_000_000_000;

#[test]
fn rfc3164_logger_output_parses() {
    // util-linux logger 2.38 --rfc3164 (VENDORS.md 11.4).
    let (r, ok) = record(b"<11>Dec  1 09:05:07 vm myapp: hello world", NOW);
    assert!(ok);
    assert_eq!(r.level(), Level::Error);
    assert_eq!(r.target(), "myapp");
    assert_eq!(r.message_str(), "hello world");
    assert_eq!(
        r.timestamp_nanos(),
        NOW - (2 * 3600 + 54 * 60 + 53) * 1_000_000_000
    );
    assert_eq!(text(&r, "host").as_deref(), Some("vm"));
    assert_eq!(text(&r, "syslog.appname").as_deref(), Some("myapp"));
    assert_eq!(text(&r, "syslog.facility").as_deref(), Some("user"));
}

#[test]
fn the_rfc_example_and_a_pid_parse() {
    // RFC 3164 section 5.4, example 1.
    let (r, ok) = record(
        b"<34>Oct 11 22:14:15 mymachine su: 'su root' failed for lonvick on /dev/pts/8",
        NOW,
    );
    assert!(ok);
    assert_eq!(r.level(), Level::Error);
    assert_eq!(r.target(), "su");
    assert_eq!(text(&r, "host").as_deref(), Some("mymachine"));
    assert_eq!(
        r.message_str(),
        "'su root' failed for lonvick on /dev/pts/8"
    );
    let (r, _) = record(b"<30>Dec 01 11:00:00 web01 nginx[4242]: started", NOW);
    assert_eq!(text(&r, "syslog.procid").as_deref(), Some("4242"));
    assert_eq!(r.target(), "nginx");
    assert_eq!(r.level(), Level::Info);
    // No HOSTNAME (a local socket's form).
    let (r, _) = record(b"<13>Dec  1 11:00:00 cron[7]: job", NOW);
    assert_eq!(text(&r, "host"), None);
    assert_eq!(r.target(), "cron");
    assert_eq!(r.message_str(), "job");
}

#[test]
fn the_year_rolls_over_at_new_year() {
    // Received 2027-01-01T00:00:30Z, sent 2026-12-31T23:59:50Z.
    let new_year = 1_798_761_630_000_000_000u64;
    let (r, _) = record(b"<13>Dec 31 23:59:50 h a: m", new_year);
    assert_eq!(r.timestamp_nanos(), new_year - 40_000_000_000);
    // And the other way: a clock a little ahead on 2026-12-31.
    let eve = new_year - 60_000_000_000;
    let (r, _) = record(b"<13>Jan  1 00:00:10 h a: m", eve);
    assert_eq!(r.timestamp_nanos(), new_year - 20_000_000_000);
}

#[test]
fn rsyslog_iso_timestamps_and_free_form_messages() {
    let (r, ok) = record(b"<13>2026-12-01T12:00:00.5Z host app: text", NOW);
    assert!(ok);
    assert_eq!(r.timestamp_nanos(), NOW + 500_000_000);
    assert_eq!(text(&r, "host").as_deref(), Some("host"));
    // A valid PRI and nothing else recognisable: the rest is the message.
    let (r, ok) = record(b"<13>just some text", NOW);
    assert!(ok);
    assert_eq!(r.message_str(), "just some text");
    assert!(fields(&r).iter().all(|(k, _)| k != "host"));
    let (r, _) = record(b"<13>Dec 99 25:00:00 h a: m", NOW);
    assert_eq!(r.message_str(), "Dec 99 25:00:00 h a: m");
}

// ---------------------------------------------------------------------------------------
// RFC 5424

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
fn rfc5424_logger_output_parses() {
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
