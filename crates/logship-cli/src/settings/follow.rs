//! What `ship --follow` follows, from the resolved `[follow]` keys (`config.follow`), with
//! the checks only the command can make: glob patterns, the multi-line rule, and values
//! set but empty.
//!
//! Why it exists: the library reads and range-checks every `follow.*` key from flags,
//! `LOGSHIP_FOLLOW_*` variables and the file's `[follow]` section, but it never follows a
//! file, so it cannot judge a pattern or a rule; this turns its values into the follower's
//! options and reports what is wrong with the key, the value, the fix and where the value
//! came from. Must never: accept a value it would ignore, or fail on a key nobody set.

use std::path::PathBuf;
use std::time::Duration;

use logship::{Config, Origin};

use super::problem::{origin_text, quoted, Problem};
use crate::follow::multiline::{Rule, Settings};
use crate::follow::{LineFormat, Options, StartAt, READ_BUDGET};

/// What to follow, how, and where its checkpoint goes.
#[derive(Clone, Debug)]
pub struct Follow {
    /// The follower's options (no patterns: not following).
    pub options: Options,
    /// The checkpoint file, `None` for none at all.
    pub checkpoint: Option<PathBuf>,
    /// How often the checkpoint is brought up to date.
    pub checkpoint_interval: Duration,
}

/// The checkpoint file used when none is configured: beside the spill directory,
/// `<spill_dir>.follow.json`.
pub fn default_checkpoint(config: &Config) -> PathBuf {
    let spill = config
        .spill_dir
        .clone()
        .unwrap_or_else(|| logship::default_spill_dir(config.service.as_deref()));
    let mut name = spill.file_name().unwrap_or_default().to_os_string();
    name.push(".follow.json");
    spill.with_file_name(name)
}

/// The line format named `name` (one of the key's choices; the library checked it).
fn line_format(name: &str) -> LineFormat {
    match name {
        "json" => LineFormat::Json,
        "docker" => LineFormat::Docker,
        "cri" => LineFormat::Cri,
        _ => LineFormat::Text,
    }
}

/// The follow options of `config`, checked; `origin` says where each key's value came
/// from. Every problem found is returned, in the table's order.
pub fn follow(config: &Config, origin: impl Fn(&str) -> Origin) -> Result<Follow, Vec<Problem>> {
    let f = &config.follow;
    let mut problems = Vec::new();
    let mut problem = |key: &'static str, value: String, what: String, fix: &str| {
        problems.push(Problem {
            key,
            value,
            problem: what,
            fix: fix.to_owned(),
            origin: origin_text(key, &origin(key)),
        });
    };
    let paths_set = origin("follow.paths") != Origin::Default;
    if paths_set && f.paths.is_empty() {
        problem(
            "follow.paths",
            "[]".into(),
            "is empty".into(),
            "give at least one path or glob, or leave paths out to read stdin",
        );
    }
    for p in &f.paths {
        let bad = if p.trim().is_empty() {
            Some(("holds an empty pattern".to_owned(), "remove it"))
        } else {
            glob::Pattern::new(p).err().map(|e| {
                (
                    format!("{} is not a valid glob pattern ({e})", quoted(p)),
                    "use *, ? and [..] wildcards, e.g. \"/var/log/app/*.log\"",
                )
            })
        };
        if let Some((what, fix)) = bad {
            problem("follow.paths", format!("{:?}", f.paths), what, fix);
        }
    }
    let multiline = f
        .multiline
        .as_deref()
        .and_then(|spec| match Rule::parse(spec) {
            Ok(rule) => Some(rule),
            Err(e) => {
                problem(
                    "follow.multiline",
                    quoted(spec),
                    e,
                    "e.g. \"java\" or \"start:^\\\\d{4}-\"",
                );
                None
            }
        });
    let checkpoint = match &f.checkpoint {
        Some(chosen) => chosen.clone(),
        None if origin("follow.checkpoint") != Origin::Default => {
            problem(
                "follow.checkpoint",
                "\"\"".into(),
                "is empty".into(),
                "give a file path, or false for no checkpoint",
            );
            None
        }
        None => Some(default_checkpoint(config)),
    };
    if let Some(path) = checkpoint.as_deref().filter(|_| !f.paths.is_empty()) {
        if let Some(what) = unusable_checkpoint(path) {
            problem(
                "follow.checkpoint",
                quoted(&path.display().to_string()),
                what,
                "give a file path in a directory (or false for no checkpoint)",
            );
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let max_line = config.max_event_bytes.max(1);
    let ms = Duration::from_millis;
    Ok(Follow {
        options: Options {
            patterns: f.paths.clone(),
            start_at: match f.start_at {
                "end" => StartAt::End,
                _ => StartAt::Beginning,
            },
            poll: ms(f.poll_interval_ms),
            rotate_wait: ms(f.rotate_wait_ms),
            max_open: usize::try_from(f.max_open_files).unwrap_or(usize::MAX),
            read_budget: READ_BUDGET,
            max_line,
            read_cap: crate::lines::room::read_cap(max_line),
            format: line_format(f.format),
            multiline: multiline.map(|rule| {
                let max_lines = usize::try_from(f.multiline_max_lines).unwrap_or(usize::MAX);
                Settings::new(rule, max_lines, max_line, ms(f.multiline_timeout_ms))
            }),
        },
        checkpoint,
        checkpoint_interval: ms(f.checkpoint_interval_ms),
    })
}

/// Why `path` can never hold the checkpoint, when that can be told before the run: it is
/// a directory, or a regular file stands where one of its directories should be (writing
/// it would fail with "File exists" or "Not a directory" at the first checkpoint).
fn unusable_checkpoint(path: &std::path::Path) -> Option<String> {
    if path.is_dir() {
        return Some("is a directory".to_owned());
    }
    let existing = path
        .ancestors()
        .skip(1)
        .find(|a| !a.as_os_str().is_empty() && std::fs::symlink_metadata(a).is_ok())?;
    (!existing.is_dir()).then(|| {
        format!(
            "cannot be created: {} is a file, not a directory",
            existing.display()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::test_config::config;

    fn problems(set: &[(&str, &str)]) -> Vec<String> {
        let origin = |_: &str| Origin::Env("LOGSHIP_X".into());
        match follow(&config(set), origin) {
            Ok(_) => Vec::new(),
            Err(p) => p.iter().map(ToString::to_string).collect(),
        }
    }

    #[test]
    fn the_keys_become_the_followers_options() {
        let c = config(&[
            ("follow.paths", "/var/log/*.log"),
            ("follow.start_at", "end"),
            ("follow.format", "cri"),
            ("follow.multiline", "java"),
            ("follow.checkpoint", "false"),
            ("spill_dir", "/var/lib/logship/spill"),
        ]);
        let f = follow(&c, |_| Origin::Default).expect("valid");
        assert_eq!(f.options.patterns, ["/var/log/*.log"]);
        assert_eq!(f.options.start_at, StartAt::End);
        assert_eq!(f.options.format, LineFormat::Cri);
        assert!(f.options.multiline.is_some());
        assert_eq!(f.checkpoint, None);
        let unset = follow(&config(&[("spill_dir", "/var/lib/logship/spill")]), |_| {
            Origin::Default
        })
        .expect("valid");
        assert_eq!(
            unset.checkpoint,
            Some(PathBuf::from("/var/lib/logship/spill.follow.json"))
        );
    }

    #[test]
    fn bad_patterns_rules_and_empty_values_are_each_named_with_their_origin() {
        let all = problems(&[
            ("follow.paths", "/x/[.log"),
            ("follow.multiline", "start:("),
            ("follow.checkpoint", ""),
        ]);
        assert_eq!(all.len(), 3, "{all:?}");
        assert!(all[0].starts_with(
            "follow.paths = [\"/x/[.log\"]: \"/x/[.log\" is not a valid glob pattern"
        ));
        assert!(all[1].starts_with("follow.multiline = \"start:(\": invalid regular expression"));
        assert!(all[2].contains(
            "is empty (give a file path, or false for no checkpoint) [from env LOGSHIP_X]"
        ));
        assert!(problems(&[("follow.paths", "")])[0].contains("follow.paths = []: is empty"));
    }
}
