//! Field names on the denylist.
//!
//! Why it exists: `password`, `db.password`, `X-Api-Key` and `accessToken` are the same
//! secret under four spellings. A name is normalised (lower case; `-`, `.`, space and a
//! camelCase hump read as `_`) and matches an entry when it equals it or ends with `_` and
//! the entry, so `user_password` matches `password` but `token_count` does not match
//! `token`. Must never: allocate per call (a stack buffer holds the name's tail).

/// Longest normalised tail compared; longer names are compared by their last bytes.
const MAX: usize = 128;

/// A normalised denylist.
#[derive(Debug, Default)]
pub(crate) struct Denylist {
    names: Vec<Vec<u8>>,
}

impl Denylist {
    pub(crate) fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> Denylist {
        let mut out: Vec<Vec<u8>> = Vec::new();
        for n in names {
            let mut buf = [0u8; MAX];
            let norm = normalise(n, &mut buf).to_vec();
            if !norm.is_empty() && !out.contains(&norm) {
                out.push(norm);
            }
        }
        Denylist { names: out }
    }

    /// True when `key` is on the list.
    pub(crate) fn matches(&self, key: &str) -> bool {
        if self.names.is_empty() {
            return false;
        }
        let mut buf = [0u8; MAX];
        let key = normalise(key, &mut buf);
        self.names.iter().any(|n| {
            key == n.as_slice()
                || (key.len() > n.len() && key.ends_with(n) && key[key.len() - n.len() - 1] == b'_')
        })
    }
}

/// `name` normalised into `buf` (its last bytes when longer than [`MAX`]).
fn normalise<'b>(name: &str, buf: &'b mut [u8; MAX]) -> &'b [u8] {
    let bytes = name.as_bytes();
    // Leave room for the underscores camelCase adds: at most one per byte.
    let from = bytes.len().saturating_sub(MAX / 2);
    let mut n = 0;
    let mut prev_lower = false;
    for &b in &bytes[from..] {
        let (out, lower) = match b {
            b'A'..=b'Z' => {
                if prev_lower && n < MAX {
                    buf[n] = b'_';
                    n += 1;
                }
                (b.to_ascii_lowercase(), false)
            }
            b'-' | b'.' | b' ' | b'_' => (b'_', false),
            b'a'..=b'z' | b'0'..=b'9' => (b, true),
            other => (other, false),
        };
        if n < MAX {
            buf[n] = out;
            n += 1;
        }
        prev_lower = lower;
    }
    &buf[..n]
}
