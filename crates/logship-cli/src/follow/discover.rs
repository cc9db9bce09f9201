//! Which files the `--follow` patterns name right now.
//!
//! Why it exists: files appear (a new day's log, a new pod), disappear and change hands
//! (rotation, symlink swaps) while logship runs, so the set of followed files is found
//! again on every scan, by glob pattern, and each match is identified by device + inode
//! (following symlinks, as `/var/log/containers/*.log` needs). The `glob` crate (the
//! rust-lang one, no dependencies) does the matching.
//!
//! Must never: fail at run time on an unreadable directory or a vanished file (they are
//! simply not matched this time), return anything but regular files, or return the same
//! file twice.

use std::collections::HashSet;
use std::path::PathBuf;

use super::identity::FileId;

/// The compiled `--follow` patterns.
pub struct Patterns {
    patterns: Vec<glob::Pattern>,
}

impl Patterns {
    /// Compiles `raw`; an invalid pattern is an error naming it.
    pub fn new(raw: &[String]) -> Result<Patterns, String> {
        let patterns = raw
            .iter()
            .map(|p| {
                glob::Pattern::new(p).map_err(|e| {
                    format!("--follow {p:?} is not a valid glob pattern ({e}); use *, ? and [..] wildcards, e.g. '/var/log/app/*.log'")
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Patterns { patterns })
    }

    /// Every regular file the patterns match now, in pattern order then path order,
    /// each once.
    pub fn scan(&self) -> Vec<(PathBuf, FileId)> {
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        let options = glob::MatchOptions {
            case_sensitive: true,
            require_literal_separator: true,
            require_literal_leading_dot: false,
        };
        for pattern in &self.patterns {
            let Ok(paths) = glob::glob_with(pattern.as_str(), options) else {
                continue;
            };
            for path in paths.flatten() {
                let Ok(meta) = std::fs::metadata(&path) else {
                    continue;
                };
                if !meta.is_file() {
                    continue;
                }
                let id = FileId::of(&meta);
                if seen.insert(id) {
                    out.push((path, id));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_regular_files_once_and_bad_patterns_are_named() {
        let dir = std::env::temp_dir().join(format!("logship-discover-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub.log")).unwrap();
        std::fs::write(dir.join("a.log"), b"a").unwrap();
        std::fs::write(dir.join("b.txt"), b"b").unwrap();
        std::os::unix::fs::symlink(dir.join("a.log"), dir.join("link.log")).unwrap();
        let p = Patterns::new(&[
            format!("{}/*.log", dir.display()),
            format!("{}/b.txt", dir.display()),
        ])
        .unwrap();
        let found: Vec<_> = p.scan().into_iter().map(|(p, _)| p).collect();
        // The symlink names the same file as a.log; the directory is not a file.
        assert_eq!(found, [dir.join("a.log"), dir.join("b.txt")]);
        let err = Patterns::new(&["/var/log/[".to_owned()])
            .err()
            .expect("invalid");
        assert!(err.contains("--follow"), "{err}");
    }
}
