//! Regrouping a body of pushed entries into Loki streams by copying bytes, not by encoding
//! every entry a second time.
//!
//! Why it exists: Loki wants one stream per label set (here: per level), each ordered by
//! time, but the batcher pushes entries one by one in arrival order (it must know the
//! body's size as it grows). Encoding each entry again on `close` was 39 % of the
//! instructions of a Loki pipeline (`crates/logship-bench/guard/check.sh encode_loki`).
//! Must never guess: when the pushed body is not exactly the entries it expects, it
//! answers `None` and the caller encodes from the records as before.

use memchr::memmem;

/// The byte range of each pushed entry (`["<ns>","<line>",{metadata}]`) in `body`, which
/// holds `open` followed by `count` entries separated by commas; `None` when it does not.
///
/// An entry starts at `[` followed by `"` and a digit (its timestamp). Every other value
/// in an entry is a JSON string, so `,["` followed by a digit occurs nowhere else: a `"`
/// that opens a string inside an entry follows `,` `{` or `:`, never `[`, and one that
/// closes a string is followed by `,` `:` or `}`, never a digit.
pub(super) fn entry_spans(body: &[u8], open: &[u8], count: usize) -> Option<Vec<(usize, usize)>> {
    let rest = body.strip_prefix(open)?;
    if count == 0 || !starts_entry(rest) {
        return None;
    }
    let mut spans = Vec::with_capacity(count);
    let mut start = open.len();
    for at in memmem::find_iter(rest, b",[\"") {
        if !starts_entry(&rest[at + 1..]) {
            continue;
        }
        let boundary = open.len() + at;
        spans.push((start, boundary));
        start = boundary + 1;
        if spans.len() == count {
            return None; // more entries than records
        }
    }
    spans.push((start, body.len()));
    (spans.len() == count).then_some(spans)
}

/// Whether `bytes` starts with `["` and a digit.
fn starts_entry(bytes: &[u8]) -> bool {
    matches!(bytes, [b'[', b'"', d, ..] if d.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_split_at_entry_starts_only() {
        let open = b"{\"streams\":[";
        // The second entry's line ends in `,[` (a closing quote follows) and its metadata
        // value holds an escaped `,[\"1`: neither is a boundary.
        let body = br#"{"streams":[["1","a",{}],["2","x,[",{"k":"y,[\"1"}],["3","c",{}]"#;
        let spans = entry_spans(body, open, 3).expect("three entries");
        let pieces: Vec<&[u8]> = spans.iter().map(|&(s, e)| &body[s..e]).collect();
        assert_eq!(
            pieces,
            [
                &br#"["1","a",{}]"#[..],
                &br#"["2","x,[",{"k":"y,[\"1"}]"#[..],
                &br#"["3","c",{}]"#[..]
            ]
        );
    }

    #[test]
    fn a_count_that_does_not_match_is_none() {
        let open = b"{\"streams\":[";
        let body = br#"{"streams":[["1","a",{}],["2","b",{}]"#;
        assert!(entry_spans(body, open, 1).is_none());
        assert!(entry_spans(body, open, 3).is_none());
        assert!(entry_spans(body, open, 0).is_none());
        assert!(entry_spans(b"{\"other\":[", open, 1).is_none());
    }
}
