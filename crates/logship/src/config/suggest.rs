//! "Did you mean": the closest known name to a misspelt one.
//!
//! Why it exists: a typo in a key or a value should fail with the intended name, not a
//! bare "unknown". Candidates come from [`super::keys::all`] (names and Java aliases) or
//! from a key's list of choices. This module only compares names: it never sees values.

use super::keys;
use crate::error::ConfigError;

/// Levenshtein distance (case-insensitive), for "did you mean".
pub(crate) fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.to_lowercase().chars().collect();
    let b: Vec<char> = b.to_lowercase().chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur[j + 1] = (prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The closest candidate within a third of the word's length (at least 2 edits).
pub(crate) fn suggest<'a>(
    word: &str,
    candidates: impl Iterator<Item = &'a str>,
) -> Option<&'a str> {
    let word = word.replace('-', "_");
    let limit = (word.chars().count() / 3).max(2);
    candidates
        .map(|c| (distance(&word, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// The closest of `candidates` to a misspelt `word` (case-insensitive, `-` read as `_`,
/// within a third of its length): the "did you mean" of every logship option, for an
/// application that validates options of its own the same way (the CLI's `[follow]`
/// section). Compares names only; never give it a value that could be a secret.
pub fn did_you_mean<'a>(
    word: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    suggest(word, candidates.into_iter())
}

/// The error for a key that is not in the table, with the closest name or alias.
pub(crate) fn unknown_key(key: &str) -> ConfigError {
    let aliases: Vec<String> = keys::all().filter_map(|k| k.alias()).collect();
    let candidates = keys::all()
        .map(|k| k.name)
        .chain(aliases.iter().map(String::as_str));
    let err = ConfigError::new("key", key, "is not a logship option");
    match suggest(key, candidates) {
        Some(s) => err.fix(format!("did you mean {s}?")),
        None => err.fix("`logship config example` lists every option"),
    }
}
