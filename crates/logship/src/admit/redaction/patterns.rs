//! The built-in value patterns: where in a text a card number, a JWT, a bearer token, an AWS
//! key, a PEM private key or an e-mail address is.
//!
//! Why it exists: these run on every text of every event, so they are hand-written
//! scanners behind one multi-literal search (`aho-corasick`) rather than regular
//! expressions: each pattern starts from a literal trigger (`eyJ`, `bearer`, `AKIA`,
//! `-----BEGIN`, `secret`, `@`) except card numbers, which are found by sampling every
//! 13th byte (a card is at least 13 digits long, so it covers a sampled byte). Every
//! scanner is linear in the text and checks its own boundaries, so near-misses (16 digits
//! failing Luhn, digits inside a longer number or a hex id, `Bearer of news`) stay.
//! Must never: allocate, recurse, or read past the text.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

use super::luhn;

/// A built-in pattern (its position in `config::redaction::PATTERNS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pattern {
    Card = 0,
    Jwt = 1,
    Bearer = 2,
    AwsKeyId = 3,
    AwsSecret = 4,
    PrivateKey = 5,
    Email = 6,
}

impl Pattern {
    pub(crate) const ALL: [Pattern; 7] = [
        Pattern::Card,
        Pattern::Jwt,
        Pattern::Bearer,
        Pattern::AwsKeyId,
        Pattern::AwsSecret,
        Pattern::PrivateKey,
        Pattern::Email,
    ];
}

/// The literal triggers, matched case-sensitively (so the search keeps its SIMD
/// prefilter: case-insensitive `a`, `b`, `e` start bytes made it fall back to its automaton
/// on every word); each scanner checks the rest. `@` is searched for on its own (`memchr`).
const TRIGGERS: &[(&str, Pattern)] = &[
    ("eyJ", Pattern::Jwt),
    ("Bearer", Pattern::Bearer),
    ("bearer", Pattern::Bearer),
    ("BEARER", Pattern::Bearer),
    ("AKIA", Pattern::AwsKeyId),
    ("ASIA", Pattern::AwsKeyId),
    ("ABIA", Pattern::AwsKeyId),
    ("ACCA", Pattern::AwsKeyId),
    ("ecret", Pattern::AwsSecret),
    ("ECRET", Pattern::AwsSecret),
    ("-----BEGIN ", Pattern::PrivateKey),
];

/// The enabled built-in patterns, ready to scan.
#[derive(Debug)]
pub(crate) struct Scanner {
    on: [bool; 7],
    triggers: Option<AhoCorasick>,
    kinds: Vec<Pattern>,
}

impl Scanner {
    pub(crate) fn new(enabled: &[Pattern]) -> Scanner {
        let mut on = [false; 7];
        for p in enabled {
            on[*p as usize] = true;
        }
        let chosen: Vec<&(&str, Pattern)> =
            TRIGGERS.iter().filter(|(_, p)| on[*p as usize]).collect();
        let triggers = (!chosen.is_empty())
            .then(|| {
                AhoCorasickBuilder::new()
                    .match_kind(MatchKind::LeftmostFirst)
                    .build(chosen.iter().map(|(t, _)| *t))
                    .ok()
            })
            .flatten();
        Scanner {
            on,
            triggers,
            kinds: chosen.iter().map(|(_, p)| *p).collect(),
        }
    }

    /// Calls `found(start, end, pattern)` for each match in `text`, in no particular order
    /// (matches may overlap); stops when `found` returns false.
    pub(crate) fn scan(&self, text: &str, found: &mut impl FnMut(usize, usize, Pattern) -> bool) {
        let b = text.as_bytes();
        if self.on[Pattern::Card as usize] && !cards(b, found) {
            return;
        }
        if self.on[Pattern::Email as usize] {
            for at in memchr::memchr_iter(b'@', b) {
                if let Some((s, e)) = email(b, at) {
                    if !found(s, e, Pattern::Email) {
                        return;
                    }
                }
            }
        }
        let Some(ac) = &self.triggers else { return };
        for m in ac.find_iter(b) {
            let kind = self.kinds[m.pattern().as_usize()];
            let at = m.start();
            let hit = match kind {
                Pattern::Jwt => jwt(b, at),
                Pattern::Bearer => bearer(b, at),
                Pattern::AwsKeyId => aws_key_id(b, at),
                Pattern::AwsSecret => aws_secret(b, at, m.end()),
                Pattern::PrivateKey => private_key(b, at),
                Pattern::Email | Pattern::Card => None,
            };
            if let Some((s, e)) = hit {
                if !found(s, e, kind) {
                    return;
                }
            }
        }
    }
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// True when the byte before `at` (if any) is not a word character.
fn starts_word(b: &[u8], at: usize) -> bool {
    at == 0 || !is_word(b[at - 1])
}

/// True when the byte at `at` (if any) is not a word character.
fn ends_word(b: &[u8], at: usize) -> bool {
    b.get(at).is_none_or(|&c| !is_word(c))
}

/// Shortest and longest card numbers (ISO/IEC 7812), in digits.
const CARD_MIN: usize = 13;
const CARD_MAX: usize = 19;

/// Card numbers: 13 to 19 digits, alone or in groups separated by one space or dash, not
/// part of a longer word or number, passing Luhn. Returns false when `found` asked to stop.
fn cards(b: &[u8], found: &mut impl FnMut(usize, usize, Pattern) -> bool) -> bool {
    let in_region = |c: u8| c.is_ascii_digit() || c == b' ' || c == b'-';
    let mut p = CARD_MIN - 1;
    while p < b.len() {
        if !in_region(b[p]) {
            p += CARD_MIN;
            continue;
        }
        let mut start = p;
        while start > 0 && in_region(b[start - 1]) {
            start -= 1;
        }
        let mut end = p + 1;
        while end < b.len() && in_region(b[end]) {
            end += 1;
        }
        if !card_region(b, start, end, found) {
            return false;
        }
        p = end + CARD_MIN;
    }
    true
}

/// The cards in `b[start..end]`, a run of digits, spaces and dashes.
fn card_region(
    b: &[u8],
    start: usize,
    end: usize,
    found: &mut impl FnMut(usize, usize, Pattern) -> bool,
) -> bool {
    // Groups of digits, separated by exactly one separator.
    let mut i = start;
    while i < end {
        if !b[i].is_ascii_digit() {
            i += 1;
            continue;
        }
        // A candidate starts at a group that is not glued to a word before it.
        let group_start = i;
        let mut j = i;
        while j < end && b[j].is_ascii_digit() {
            j += 1;
        }
        let first_group_end = j;
        if starts_word(b, group_start) {
            let mut digits = first_group_end - group_start;
            let mut last = first_group_end;
            loop {
                if (CARD_MIN..=CARD_MAX).contains(&digits)
                    && ends_word(b, last)
                    && luhn::valid(
                        b[group_start..last]
                            .iter()
                            .copied()
                            .filter(u8::is_ascii_digit),
                    )
                {
                    if !found(group_start, last, Pattern::Card) {
                        return false;
                    }
                    break;
                }
                // Extend by one separator and the next group.
                if digits > CARD_MAX || last + 1 >= end || !b[last + 1].is_ascii_digit() {
                    break;
                }
                let mut k = last + 1;
                while k < end && b[k].is_ascii_digit() {
                    k += 1;
                }
                digits += k - last - 1;
                last = k;
            }
        }
        i = first_group_end;
    }
    true
}

fn is_b64url(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'-' || c == b'_'
}

/// Length of the run of bytes from `at` for which `f` holds.
fn run(b: &[u8], at: usize, f: impl Fn(u8) -> bool) -> usize {
    b.get(at..)
        .map_or(0, |s| s.iter().take_while(|&&c| f(c)).count())
}

/// A JWS: `eyJ` header of 10+ base64url bytes, `.`, a payload starting `eyJ`, `.`, a
/// signature (possibly empty: `alg: none`).
fn jwt(b: &[u8], at: usize) -> Option<(usize, usize)> {
    if &b[at..at + 3] != b"eyJ" || (at > 0 && is_b64url(b[at - 1])) {
        return None;
    }
    let h = run(b, at, is_b64url);
    let dot1 = at + h;
    if h < 10 || b.get(dot1) != Some(&b'.') {
        return None;
    }
    let p = run(b, dot1 + 1, is_b64url);
    let dot2 = dot1 + 1 + p;
    if p < 3 || b.get(dot1 + 1..dot1 + 4) != Some(b"eyJ") || b.get(dot2) != Some(&b'.') {
        return None;
    }
    let s = run(b, dot2 + 1, is_b64url);
    Some((at, dot2 + 1 + s))
}

fn is_token(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"-._~+/".contains(&c)
}

/// `Bearer <token>` (any case): the token, when it looks like one (8+ bytes with a digit
/// or punctuation, or 20+ bytes), so that "the bearer of bad news" stays.
fn bearer(b: &[u8], at: usize) -> Option<(usize, usize)> {
    if !starts_word(b, at) {
        return None;
    }
    let mut t = at + 6;
    let spaces = run(b, t, |c| c == b' ' || c == b'\t');
    if spaces == 0 || spaces > 4 {
        return None;
    }
    t += spaces;
    let mut len = run(b, t, is_token);
    len += run(b, t + len, |c| c == b'=');
    let token = &b[t..t + len];
    let marked = token
        .iter()
        .any(|c| c.is_ascii_digit() || b"-._~+/=".contains(c));
    ((len >= 8 && marked) || len >= 20).then_some((t, t + len))
}

/// An AWS access key id: `AKIA`/`ASIA`/`ABIA`/`ACCA` and 16 upper-case letters or digits,
/// as a whole word.
fn aws_key_id(b: &[u8], at: usize) -> Option<(usize, usize)> {
    let head = &b[at..at + 4];
    if !head.iter().all(u8::is_ascii_uppercase) || !starts_word(b, at) {
        return None;
    }
    let n = run(b, at + 4, |c| c.is_ascii_uppercase() || c.is_ascii_digit());
    (n == 16 && ends_word(b, at + 20)).then_some((at, at + 20))
}

fn is_secret_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'/' || c == b'+'
}

/// An AWS secret access key: 40 base64 bytes right after `secret_access_key =` (or
/// `SecretAccessKey":"`, `secret-access-key: `): a 40-byte string alone is too common
/// to redact without its name.
fn aws_secret(b: &[u8], at: usize, end: usize) -> Option<(usize, usize)> {
    // `s` + `ecret`, one optional separator, `access`, one optional separator, `key`.
    if at == 0 || !b[at - 1].eq_ignore_ascii_case(&b's') {
        return None;
    }
    let mut i = end;
    let word = |i: &mut usize, w: &[u8]| -> bool {
        if b.get(*i).is_some_and(|c| *c == b'_' || *c == b'-') {
            *i += 1;
        }
        let ok = b
            .get(*i..*i + w.len())
            .is_some_and(|s| s.eq_ignore_ascii_case(w));
        *i += w.len();
        ok
    };
    if !word(&mut i, b"access") || !word(&mut i, b"key") {
        return None;
    }
    let end = i;
    let sep = run(b, end, |c| b" \t\"':=".contains(&c));
    if sep == 0 || sep > 8 || !b[end..end + sep].iter().any(|c| *c == b':' || *c == b'=') {
        return None;
    }
    let v = end + sep;
    let n = run(b, v, is_secret_char);
    (n == 40 && b.get(v + 40).is_none_or(|c| *c != b'=')).then_some((v, v + 40))
}

/// A PEM private key block, `-----BEGIN ... PRIVATE KEY-----` to its `-----END ...-----`
/// (or to the end of the text when the end line is missing: a cut key is still a key).
/// Certificates and public keys stay.
fn private_key(b: &[u8], at: usize) -> Option<(usize, usize)> {
    if &b[at..at + 11] != b"-----BEGIN " {
        return None;
    }
    let label_start = at + 11;
    let label = run(b, label_start, |c| c.is_ascii_uppercase() || c == b' ');
    let label_end = label_start + label;
    if label > 40
        || !b[label_start..label_end].ends_with(b"PRIVATE KEY")
        || b.get(label_end..label_end + 5) != Some(b"-----")
    {
        return None;
    }
    let body = label_end + 5;
    let end = b[body..]
        .windows(9)
        .position(|w| w == b"-----END ")
        .map(|i| {
            let close = body + i + 9;
            let rest = run(b, close, |c| c.is_ascii_uppercase() || c == b' ');
            let dashes = run(b, close + rest, |c| c == b'-').min(5);
            close + rest + dashes
        })
        .unwrap_or(b.len());
    Some((at, end))
}

fn is_local(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"._%+-".contains(&c)
}

/// An e-mail address around the `@` at `at`: a local part, and a domain of two or more
/// labels whose last is 2+ letters (so `user@localhost` and `@handle` stay).
fn email(b: &[u8], at: usize) -> Option<(usize, usize)> {
    let mut s = at;
    while s > 0 && is_local(b[s - 1]) && at - s < 64 {
        s -= 1;
    }
    while s < at && b[s] == b'.' {
        s += 1;
    }
    if s == at {
        return None;
    }
    let mut e = at + 1;
    let mut labels = 0;
    let mut last_alpha = 0;
    loop {
        let n = run(b, e, |c| c.is_ascii_alphanumeric() || c == b'-');
        if n == 0 || n > 63 {
            break;
        }
        last_alpha = run(b, e, |c| c.is_ascii_alphabetic());
        last_alpha = if last_alpha == n { n } else { 0 };
        labels += 1;
        e += n;
        if b.get(e) == Some(&b'.') && b.get(e + 1).is_some_and(|c| c.is_ascii_alphanumeric()) {
            e += 1;
        } else {
            break;
        }
    }
    (labels >= 2 && last_alpha >= 2).then_some((s, e))
}
