//! Finding a secret in text that echoes it transformed: percent-encoded, `\u`- or
//! `\x`-escaped, in another letter case, or in pieces (a prefix, or the secret split
//! across two fields of an answer).
//!
//! Why it exists: an intake that echoes a request rarely echoes it byte for byte. A JSON
//! answer escapes characters (`\u002b`, `\/`), a URL in an error is percent-encoded, a
//! proxy lower-cases what it repeats, and some intakes show "the key starting with
//! `Zq8vW3nT`" or put a key's halves in two fields. The scrubber compares the text, decoded
//! and lower-cased, with each secret, and replaces every run that matches a whole secret,
//! or a piece of a long one ([`min_piece`] characters or more), in the original text.
//!
//! Must never: show a piece of a secret long enough to matter, run longer than linear in
//! the text times the secret's length, or panic on any text (every index is checked).

/// What replaces a secret value.
pub(crate) const REDACTED: &str = "[redacted]";

/// One character of the decoded text and the bytes of the original it came from.
struct Unit {
    c: char,
    start: usize,
    end: usize,
}

/// Fewest characters of a secret that are redacted when they appear alone: the whole of a
/// short secret; a third of a long one, and never fewer than 6 (a shorter run of a random
/// token is as likely to be ordinary text).
pub(crate) fn min_piece(secret_chars: usize) -> usize {
    if secret_chars < 12 {
        secret_chars
    } else {
        (secret_chars / 3).max(6)
    }
}

/// The hex digit's value, when `b` is one.
fn hex(b: u8) -> Option<u32> {
    (b as char).to_digit(16)
}

/// `text` decoded (`%XX`, `\uXXXX`, `\xXX`, `\/`, also behind several backslashes) and
/// ASCII-lower-cased, one unit per character, each with the range of `text` it came from.
fn decode(text: &str) -> Vec<Unit> {
    let bytes = text.as_bytes();
    let mut units = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex_at = |from: usize, n: usize| -> Option<u32> {
            let digits = bytes.get(from..from + n)?;
            digits
                .iter()
                .try_fold(0u32, |acc, &b| Some(acc * 16 + hex(b)?))
        };
        let escaped = match bytes[i] {
            b'%' => hex_at(i + 1, 2).map(|v| (v, 3)),
            b'\\' => {
                // One backslash or several (an escape escaped again: `\\u005a`).
                let n = bytes[i..].iter().take_while(|&&b| b == b'\\').count();
                match bytes.get(i + n) {
                    Some(b'u') => hex_at(i + n + 1, 4).map(|v| (v, n + 5)),
                    Some(b'x') => hex_at(i + n + 1, 2).map(|v| (v, n + 3)),
                    Some(b'/') => Some(('/' as u32, n + 1)),
                    _ => None,
                }
            }
            _ => None,
        };
        let decoded = escaped.and_then(|(v, len)| char::from_u32(v).map(|c| (c, len)));
        let (c, len) = match decoded {
            Some(found) => found,
            None => {
                // `i` is always at a character boundary: escapes are ASCII.
                let c = text[i..].chars().next().unwrap_or('\u{fffd}');
                (c, c.len_utf8())
            }
        };
        units.push(Unit {
            c: c.to_ascii_lowercase(),
            start: i,
            end: i + len,
        });
        i += len;
    }
    units
}

/// `text` with every echo of `secrets` (each already at least 3 bytes) replaced by
/// `[redacted]`: whole or in pieces, decoded or not, in any letter case.
pub(crate) fn redact(text: &str, secrets: &[String]) -> String {
    let units = decode(text);
    let mut hidden = vec![false; units.len()];
    for secret in secrets {
        let s: Vec<char> = secret.chars().map(|c| c.to_ascii_lowercase()).collect();
        let piece = min_piece(s.len()).max(1);
        for i in 0..units.len() {
            // The longest run of the secret that starts here.
            let mut best = 0;
            for j in 0..s.len() {
                let mut k = 0;
                while i + k < units.len() && j + k < s.len() && units[i + k].c == s[j + k] {
                    k += 1;
                }
                best = best.max(k);
                if best == s.len() {
                    break;
                }
            }
            // A piece never takes the spaces around it (`Basic tok`'s token, echoed alone
            // after a space, leaves the space).
            let (mut from, mut to) = (i, i + best);
            while from < to && units[from].c.is_whitespace() {
                from += 1;
            }
            while to > from && units[to - 1].c.is_whitespace() {
                to -= 1;
            }
            if to - from >= piece {
                for h in &mut hidden[from..to] {
                    *h = true;
                }
            }
        }
    }
    if !hidden.contains(&true) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while at < units.len() {
        if hidden[at] {
            out.push_str(REDACTED);
            while at < units.len() && hidden[at] {
                at += 1;
            }
        } else {
            out.push_str(&text[units[at].start..units[at].end]);
            at += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "Zq8vW3nT+5sL/p9Xy";

    fn shown(text: &str) -> String {
        redact(text, &[KEY.to_owned()])
    }

    #[test]
    fn every_transformed_echo_of_a_secret_is_redacted() {
        let echoes = [
            // URL-encoded.
            "GET /x?key=Zq8vW3nT%2B5sL%2Fp9Xy failed".to_owned(),
            // \u-escaped (JSON), and with \/ for the slash.
            "{\"key\":\"Zq8vW3nT\\u002b5sL\\/p9Xy\"}".to_owned(),
            // Every character \u-escaped, once and twice.
            KEY.chars()
                .map(|c| format!("\\u{:04x}", c as u32))
                .collect(),
            KEY.chars()
                .map(|c| format!("\\\\u{:04x}", c as u32))
                .collect(),
            // Lower-cased, upper-cased.
            format!("key {} refused", KEY.to_lowercase()),
            format!("KEY {} REFUSED", KEY.to_uppercase()),
            // Prefixed: only its start shown.
            "the key starting with Zq8vW3nT is not valid".to_owned(),
            // Split across two fields.
            "{\"key_start\":\"Zq8vW3nT\",\"key_end\":\"+5sL/p9Xy\"}".to_owned(),
            // Glued to other text.
            format!("DD-API-KEY={KEY}&x=1"),
        ];
        for echo in echoes {
            let out = shown(&echo);
            assert!(out.contains(REDACTED), "{echo} -> {out}");
            for piece in ["zq8vw3nt", "5sl/p9xy", "5sl%2fp9xy", "5sl\\/p9xy"] {
                assert!(!out.to_ascii_lowercase().contains(piece), "{echo} -> {out}");
            }
        }
    }

    #[test]
    fn ordinary_text_and_short_coincidences_are_left_alone() {
        for text in [
            "the intake answered 503: {\"error\":\"busy\"}",
            "Zq8 and vW3 are short runs of it",
            "caf\u{e9} \\u00e9 100% \\x",
            "%zz %4 \\u12 \\",
        ] {
            assert_eq!(shown(text), text);
        }
        assert_eq!(min_piece(3), 3);
        assert_eq!(min_piece(11), 11);
        assert_eq!(min_piece(12), 6);
        assert_eq!(min_piece(40), 13);
    }
}
