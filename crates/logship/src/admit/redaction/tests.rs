//! Every rule on fixtures that must and must not match.

use super::*;
use crate::capture::record::Level;

fn on() -> RedactionConfig {
    RedactionConfig {
        enabled: true,
        ..RedactionConfig::default()
    }
}

fn redaction(c: RedactionConfig) -> Redaction {
    Redaction::new(&c).unwrap().unwrap()
}

fn message(r: &Redaction, text: &str) -> String {
    let mut rec = Record::new(Level::Info, "t");
    rec.message(text);
    r.apply(rec).message_str().to_owned()
}

#[test]
fn luhn_valid_cards_are_masked_and_near_misses_stay() {
    let r = redaction(on());
    for card in [
        "4111111111111111",
        "4111 1111 1111 1111",
        "4111-1111-1111-1111",
        "378282246310005",
        "6011000990139424",
        "5555555555554444",
    ] {
        let out = message(&r, &format!("paid with {card}, thanks"));
        assert_eq!(out, "paid with [redacted:card], thanks", "{card}");
    }
    for near in [
        "4111111111111112",     // fails Luhn
        "411111111111",         // 12 digits
        "41111111111111111111", // 20 digits: a number, not a card
        "a4111111111111111",    // inside a word (a hex id)
        "4111111111111111x",
        "order 0000000000001 of", // 13 digits, Luhn-valid? no: checked below
        "2026-12-01 19:47:57",
        "trace=4bf92f3577b34da6a3ce929d0e0e4736",
    ] {
        let out = message(&r, near);
        if near.starts_with("order") {
            // 0000000000001 fails Luhn (sum 1).
            assert_eq!(out, near);
        } else {
            assert_eq!(out, near, "{near} must stay");
        }
    }
    assert_eq!(r.counts()["card"], 6);
}

#[test]
fn cards_as_integers_are_found() {
    let r = redaction(on());
    let mut rec = Record::new(Level::Info, "t");
    rec.field("pan", 4111111111111111u64)
        .field("n", 4111111111111112u64);
    let out = r.apply(rec);
    let fields: Vec<_> = out.entries().collect();
    assert_eq!(
        fields[0],
        Entry::Field("pan", Value::Str("[redacted:card]"))
    );
    assert_eq!(fields[1], Entry::Field("n", Value::U64(4111111111111112)));
}

const JWT: &str = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";

#[test]
fn jwts_are_masked_and_shapes_that_are_not_stay() {
    let r = redaction(on());
    assert_eq!(
        message(&r, &format!("token={JWT} ok")),
        "token=[redacted:jwt] ok"
    );
    // alg none: an empty signature is still a token.
    assert_eq!(
        message(&r, "t eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0. end"),
        "t [redacted:jwt] end"
    );
    for near in [
        "eyJhbGciOiJIUzI1NiJ9",                      // one segment
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0",      // two segments
        "eyJ.eyJ.x",                                 // too short
        "keyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig", // glued to a word
        "eyJhbGciOiJIUzI1NiJ9.notjson.sig",
    ] {
        assert_eq!(message(&r, near), near, "{near} must stay");
    }
}

#[test]
fn bearer_tokens_are_masked_but_not_the_word() {
    let r = redaction(on());
    assert_eq!(
        message(&r, "Authorization: Bearer sk-live-123abc"),
        "Authorization: Bearer [redacted:bearer]"
    );
    assert_eq!(
        message(&r, "header bearer abcdefghijklmnopqrstuvwxyz done"),
        "header bearer [redacted:bearer] done"
    );
    for near in [
        "the bearer of bad news",
        "Bearer information",
        "bearer",
        "Bearer    ",
        "forbearer 1234567890abc",
    ] {
        assert_eq!(message(&r, near), near, "{near} must stay");
    }
}

#[test]
fn aws_keys_are_masked_with_their_context() {
    let r = redaction(on());
    assert_eq!(
        message(&r, "key AKIAIOSFODNN7EXAMPLE used"),
        "key [redacted:aws_key_id] used"
    );
    assert_eq!(message(&r, "ASIAY34FZKBOKMUTVV7A"), "[redacted:aws_key_id]");
    let secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY";
    assert_eq!(
        message(&r, &format!("aws_secret_access_key = {secret}")),
        "aws_secret_access_key = [redacted:aws_secret]"
    );
    assert_eq!(
        message(&r, &format!("{{\"SecretAccessKey\":\"{secret}\"}}")),
        "{\"SecretAccessKey\":\"[redacted:aws_secret]\"}"
    );
    for near in [
        "AKIAIOSFODNN7EXAMPL",   // 19 characters
        "AKIAIOSFODNN7EXAMPLE1", // 21
        "akiaiosfodnn7example",  // lower case
        "XAKIAIOSFODNN7EXAMPLE",
        "Asia is large",
        // 40 characters without the name: too common to redact.
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
        "access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    ] {
        assert_eq!(message(&r, near), near, "{near} must stay");
    }
}

#[test]
fn pem_private_keys_are_masked_whole_and_certificates_stay() {
    let r = redaction(on());
    let key =
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nabc=\n-----END RSA PRIVATE KEY-----";
    assert_eq!(
        message(&r, &format!("loaded {key} ok")),
        "loaded [redacted:private_key] ok"
    );
    // Cut off (truncated upstream): masked to the end.
    assert_eq!(
        message(&r, "k -----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg"),
        "k [redacted:private_key]"
    );
    let cert = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----";
    assert_eq!(message(&r, cert), cert);
    let public = "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----";
    assert_eq!(message(&r, public), public);
}

#[test]
fn emails_only_when_asked() {
    let r = redaction(on());
    assert_eq!(message(&r, "mail ann@example.com"), "mail ann@example.com");
    let mut c = on();
    c.patterns.push("email".into());
    let r = redaction(c);
    assert_eq!(
        message(&r, "to ann.lee+x@mail.example.co.uk, cc"),
        "to [redacted:email], cc"
    );
    for near in ["user@localhost", "@handle", "a@b", "x@1.2", "ann@example.c"] {
        assert_eq!(message(&r, near), near, "{near} must stay");
    }
}

#[test]
fn denylisted_fields_match_any_spelling_and_no_more() {
    let r = redaction(on());
    let mut rec = Record::new(Level::Info, "t");
    rec.field("password", "hunter2")
        .field("DB.Password", "x")
        .field("X-Api-Key", "k")
        .field("accessToken", "t")
        .field("token_count", 12u64)
        .field("tokens", "many")
        .field("user", "ann")
        .span("request")
        .field("Set-Cookie", "sid=1");
    let out = r.apply(rec);
    let got: Vec<_> = out.entries().collect();
    let m = Value::Str("[redacted:field]");
    assert_eq!(
        got,
        vec![
            Entry::Field("password", m),
            Entry::Field("DB.Password", m),
            Entry::Field("X-Api-Key", m),
            Entry::Field("accessToken", m),
            Entry::Field("token_count", Value::U64(12)),
            Entry::Field("tokens", Value::Str("many")),
            Entry::Field("user", Value::Str("ann")),
            Entry::Span("request"),
            Entry::Field("Set-Cookie", m),
        ]
    );
    assert_eq!(r.counts()["field"], 5);
    assert_eq!(r.events(), 1);
    // Applying again changes nothing and counts nothing (a replayed record).
    let again = r.apply(out.clone());
    assert_eq!(again, out);
    assert_eq!(r.counts()["field"], 5);
}

#[test]
fn hash_correlates_and_hides_and_drop_removes() {
    let mut c = on();
    c.action = RedactAction::Hash;
    c.hash_key = Some(crate::Secret::new("0123456789abcdef-key"));
    let r = redaction(c);
    let a = message(&r, "card 4111111111111111");
    let b = message(&r, "again 4111 1111 1111 1111");
    assert!(
        a.starts_with("card [hmac:") && a.len() == "card [hmac:]".len() + 16,
        "{a}"
    );
    // The same digits written differently are different text: different hashes.
    assert_ne!(a["card ".len()..], b["again ".len()..]);
    assert_eq!(a, message(&r, "card 4111111111111111"));
    // Another key, another hash.
    let mut c2 = on();
    c2.action = RedactAction::Hash;
    c2.hash_key = Some(crate::Secret::new("another-key-0123456789"));
    assert_ne!(message(&redaction(c2), "card 4111111111111111"), a);

    let mut d = on();
    d.action = RedactAction::Drop;
    let r = redaction(d);
    let mut rec = Record::new(Level::Info, "t");
    rec.message(&format!("jwt {JWT}"))
        .field("password", "p")
        .field("note", format!("see {JWT}").as_str())
        .field("keep", 1u64);
    let out = r.apply(rec);
    let got: Vec<_> = out.entries().collect();
    assert_eq!(
        got,
        vec![
            Entry::Message("jwt [redacted:jwt]"),
            Entry::Field("keep", Value::U64(1))
        ]
    );
}

#[test]
fn user_regexes_and_errors_and_json_values() {
    let mut c = on();
    c.regexes = vec!["order-[0-9]{6}".into()];
    let r = redaction(c);
    let mut rec = Record::new(Level::Info, "t");
    #[derive(Debug)]
    struct E;
    impl std::fmt::Display for E {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("login failed for Bearer abc.def-12345")
        }
    }
    impl std::error::Error for E {}
    rec.message("order-123456 and order-12345")
        .error("error", &E)
        .field("body", Value::Json("{\"card\":4111111111111111}"));
    let out = r.apply(rec);
    assert_eq!(out.message_str(), "[redacted:regex1] and order-12345");
    let (_, e) = out.first_error().unwrap();
    assert_eq!(e.message, "login failed for Bearer [redacted:bearer]");
    // JSON that no longer parses after masking is shipped as text.
    let body = out.entries().find_map(|e| match e {
        Entry::Field("body", v) => Some(v),
        _ => None,
    });
    assert_eq!(body, Some(Value::Str("{\"card\":[redacted:card]}")));
    assert_eq!(r.counts()["regex1"], 1);
}

#[test]
fn nothing_matching_keeps_the_record_and_counts_nothing() {
    let r = redaction(on());
    let mut rec = Record::new(Level::Info, "t");
    rec.message("order 0000012345 paid amount=1234.50 EUR customer=123456 trace=4bf92f3577b34da6a3ce929d0e0e4736 ok")
        .field("user", "ann");
    let out = r.apply(rec.clone());
    assert_eq!(out, rec);
    assert_eq!(r.events(), 0);
    assert!(r.counts().is_empty());
}

#[test]
fn huge_and_hostile_texts_are_linear_and_safe() {
    let r = redaction(on());
    // 1 MB of digits and separators, of triggers, of '@'.
    for text in [
        "1 ".repeat(500_000),
        "4111 ".repeat(200_000),
        "eyJ.".repeat(250_000),
        "Bearer ".repeat(150_000),
        "-----BEGIN ".repeat(90_000),
        "secret_access_key=".repeat(55_000),
    ] {
        let _ = message(&r, &text);
    }
    // A key at the very end of a huge text is still found.
    let text = format!("{}4111111111111111", "x ".repeat(500_000));
    assert!(message(&r, &text).ends_with("[redacted:card]"));
    // Replacement characters (invalid UTF-8 already replaced) do not hide a card.
    assert_eq!(
        message(&r, "\u{fffd}4111111111111111\u{fffd}"),
        "\u{fffd}[redacted:card]\u{fffd}"
    );
}

#[test]
fn config_errors_name_the_field() {
    let bad = |f: fn(&mut RedactionConfig)| {
        let mut c = on();
        f(&mut c);
        Redaction::new(&c).unwrap_err()
    };
    let e = bad(|c| c.regexes = vec!["(unclosed".into()]);
    assert_eq!(e.field, "redact_regexes");
    let e = bad(|c| c.patterns = vec!["cards".into()]);
    assert_eq!(e.field, "redact_patterns");
    assert!(e.to_string().contains("card"), "{e}");
    let e = bad(|c| c.action = RedactAction::Hash);
    assert_eq!(e.field, "redact_hash_key");
    let e = bad(|c| {
        c.action = RedactAction::Hash;
        c.hash_key = Some(crate::Secret::new("short-key-123"));
    });
    assert_eq!(e.field, "redact_hash_key");
    assert!(!e.to_string().contains("short-key-123"), "{e}");
    // Off: nothing is checked or compiled.
    let mut c = on();
    c.enabled = false;
    c.regexes = vec!["(".into()];
    assert!(Redaction::new(&c).unwrap().is_none());
}
