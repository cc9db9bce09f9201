//! The `[follow]` section of the config file and the `--follow` flags, resolved into one
//! set of options, each with where its value came from.
//!
//! Why it exists: a sidecar is configured by a file, so what to follow belongs in it
//! next to the pipeline options. The section is the CLI's, not the library's (the
//! library ships events; it never reads files), so it is taken out of the file before
//! the library reads the rest ([`ConfigFile`]), and checked here with the library's
//! quality: an unknown key names the closest one (`did you mean`), a bad value names
//! the field, what is allowed and where it came from. [`KEYS`] is the one table of the
//! section: resolution, validation, `logship config check` and `logship config example`
//! all read it. Precedence: flags > file > defaults (no environment variables).
//!
//! Must never: accept a value it would ignore (every key is used or refused), let the
//! library see the section (it would refuse it as an unknown option), or quote a value
//! from anywhere else in the file.

use std::fmt;
use std::path::{Path, PathBuf};

use logship::Origin;

use super::{LineFormat, StartAt};
use crate::exit::Failure;
use crate::ship::{Format, ShipArgs};

/// The section's name in the file.
pub const SECTION: &str = "follow";

/// A config file split into the library's part and the CLI's sections (`[follow]`,
/// `[listen]`).
pub struct ConfigFile {
    /// The path as given (origins and messages name it).
    pub label: String,
    /// The file without its CLI sections, for the library; `None` when the file holds
    /// no such section, or cannot be read or parsed (the library then reads the file
    /// itself and reports what is wrong with it, as for any config file).
    pub library_text: Option<String>,
    /// The `[follow]` section, if the file has one.
    pub follow: Option<toml::Table>,
    /// The `[listen]` section, if the file has one.
    pub listen: Option<toml::Table>,
}

/// The CLI's own sections, taken out before the library reads the file.
const CLI_SECTIONS: [&str; 2] = [SECTION, crate::listen::settings::SECTION];

impl ConfigFile {
    /// Reads `path`. A file that cannot be read or is not TOML is not an error here: the
    /// library reports it (with the line, never the line's text).
    pub fn read(path: &Path) -> Result<ConfigFile, Failure> {
        let label = path.display().to_string();
        let text = std::fs::read_to_string(path).ok();
        Self::split(label, text.as_deref())
    }

    /// [`ConfigFile::read`] of a file holding `text` (tests).
    #[cfg(test)]
    pub fn read_text(text: &str) -> Result<ConfigFile, Failure> {
        Self::split("test.toml".to_owned(), Some(text))
    }

    fn split(label: String, text: Option<&str>) -> Result<ConfigFile, Failure> {
        let parsed = text.and_then(|text| text.parse::<toml::Table>().ok());
        let Some(mut table) = parsed else {
            return Ok(ConfigFile {
                label,
                library_text: None,
                follow: None,
                listen: None,
            });
        };
        let library_keys: Vec<&'static str> = logship::Config::default()
            .effective_values()
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        // A misspelt section would otherwise reach the library as an unknown option with
        // a suggestion among the library's names.
        for (key, value) in &table {
            if !CLI_SECTIONS.contains(&key.as_str())
                && value.is_table()
                && !library_keys.contains(&key.as_str())
            {
                if let Some(section) = logship::did_you_mean(key, CLI_SECTIONS) {
                    return Err(invalid_in_file(
                        &label,
                        format_args!("[{key}]"),
                        "is not a logship section",
                        &format!("did you mean [{section}]?"),
                    ));
                }
            }
        }
        let mut take = |name: &str| match table.remove(name) {
            None => Ok(None),
            Some(toml::Value::Table(t)) => Ok(Some(t)),
            Some(other) => Err(invalid_in_file(
                &label,
                format_args!("{name} = {other}"),
                "must be a table",
                &format!("write the options under a [{name}] header"),
            )),
        };
        let follow = take(SECTION)?;
        let listen = take(crate::listen::settings::SECTION)?;
        let library_text = (follow.is_some() || listen.is_some()).then(|| table.to_string());
        Ok(ConfigFile {
            label,
            library_text,
            follow,
            listen,
        })
    }
}

/// A value of the section, checked against its key's kind.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Val {
    Int(u64),
    Text(String),
    List(Vec<String>),
    /// `checkpoint = false` / `--no-checkpoint`.
    Off,
}

impl fmt::Display for Val {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Val::Int(n) => write!(f, "{n}"),
            Val::Text(s) => write!(f, "{}", toml::Value::String(s.clone())),
            Val::List(l) => write!(f, "{}", toml::Value::from(l.clone())),
            Val::Off => f.write_str("false"),
        }
    }
}

/// What a key accepts.
#[derive(Clone, Copy)]
enum Kind {
    /// An integer in `min..=max`.
    Int { min: u64, max: u64 },
    /// One of these strings.
    Choice(&'static [&'static str]),
    /// A glob pattern or a list of them.
    Patterns,
    /// A multi-line rule.
    Rule,
    /// A path, or `false` for none.
    Checkpoint,
}

/// One option of the section.
struct Key {
    /// Its name in the file.
    name: &'static str,
    /// The flag that overrides it.
    flag: &'static str,
    kind: Kind,
    /// The default, as `config example` writes it (`None`: unset or derived).
    default: Option<&'static str>,
    /// One line for `config example` and the docs.
    doc: &'static str,
}

const HOUR_MS: u64 = 3_600_000;

/// Every option of the `[follow]` section, in the order `config check` prints them.
const KEYS: &[Key] = &[
    Key {
        name: "paths",
        flag: "--follow",
        kind: Kind::Patterns,
        default: None,
        doc: "paths or glob patterns to follow (a string or a list); with none, ship reads stdin",
    },
    Key {
        name: "start_at",
        flag: "--start-at",
        kind: Kind::Choice(&["beginning", "end"]),
        default: Some("beginning"),
        doc: "where a file seen at start-up without a checkpoint is read from",
    },
    Key {
        name: "format",
        flag: "--format",
        kind: Kind::Choice(&["text", "json", "docker", "cri"]),
        default: Some("text"),
        doc: "how a line of a followed file becomes an event",
    },
    Key {
        name: "multiline",
        flag: "--multiline",
        kind: Kind::Rule,
        default: None,
        doc: "join multi-line events: java, timestamp, start:REGEX or continue:REGEX (unset: off)",
    },
    Key {
        name: "multiline_max_lines",
        flag: "--multiline-max-lines",
        kind: Kind::Int {
            min: 1,
            max: 1_000_000,
        },
        default: Some("500"),
        doc: "most lines of one multi-line event (longer ones are split, and counted)",
    },
    Key {
        name: "multiline_timeout_ms",
        flag: "--multiline-timeout-ms",
        kind: Kind::Int {
            min: 1,
            max: HOUR_MS,
        },
        default: Some("1000"),
        doc: "how long a multi-line event waits for its next line",
    },
    Key {
        name: "max_open_files",
        flag: "--max-open-files",
        kind: Kind::Int {
            min: 1,
            max: 1_000_000,
        },
        default: Some("256"),
        doc: "most files open at once (more matching files take turns)",
    },
    Key {
        name: "poll_interval_ms",
        flag: "--poll-interval-ms",
        kind: Kind::Int {
            min: 1,
            max: HOUR_MS,
        },
        default: Some("250"),
        doc: "how often the patterns are matched again and idle files checked",
    },
    Key {
        name: "rotate_wait_ms",
        flag: "--rotate-wait-ms",
        kind: Kind::Int {
            min: 0,
            max: HOUR_MS,
        },
        default: Some("1000"),
        doc: "how long a rotated-away or deleted file is still read",
    },
    Key {
        name: "checkpoint",
        flag: "--checkpoint",
        kind: Kind::Checkpoint,
        default: None,
        doc: "the checkpoint file, or false for none (unset: <spill_dir>.follow.json)",
    },
    Key {
        name: "checkpoint_interval_ms",
        flag: "--checkpoint-interval-ms",
        kind: Kind::Int {
            min: 1,
            max: HOUR_MS,
        },
        default: Some("1000"),
        doc: "how often the checkpoint is brought up to date",
    },
];

/// The follow options, resolved.
pub struct Resolved {
    values: Vec<(&'static Key, Option<Val>, Origin)>,
}

/// The follow options as the follower uses them.
#[derive(Clone, Debug)]
pub struct Follow {
    /// Paths or globs (empty: not following).
    pub patterns: Vec<String>,
    /// Where a file seen at start-up without a checkpoint is read from.
    pub start_at: StartAt,
    /// Line format.
    pub format: LineFormat,
    /// Multi-line rule, if any.
    pub multiline: Option<String>,
    /// Most lines of one multi-line event.
    pub multiline_max_lines: usize,
    /// How long a multi-line event waits for its next line.
    pub multiline_timeout_ms: u64,
    /// Most files open at once.
    pub max_open_files: usize,
    /// Pattern matching interval.
    pub poll_interval_ms: u64,
    /// How long a rotated-away file is still read.
    pub rotate_wait_ms: u64,
    /// `None`: the default path; `Some(None)`: no checkpoint; `Some(Some(p))`: `p`.
    pub checkpoint: Option<Option<PathBuf>>,
    /// Checkpoint interval.
    pub checkpoint_interval_ms: u64,
}

impl Resolved {
    /// Resolves the flags of `args` (none when `None`: `config check`) over the
    /// `[follow]` section of `file` (if any) over the defaults. Every value is checked;
    /// the first bad one is a usage error naming the field, what is allowed, and where it
    /// came from.
    pub fn new(args: Option<&ShipArgs>, file: Option<&ConfigFile>) -> Result<Resolved, Failure> {
        let section = file.and_then(|f| f.follow.as_ref().map(|t| (f.label.as_str(), t)));
        if let Some((label, table)) = section {
            for given in table.keys() {
                if !KEYS.iter().any(|k| k.name == given) {
                    let fix = match logship::did_you_mean(given, KEYS.iter().map(|k| k.name)) {
                        Some(s) => format!("did you mean {s}?"),
                        None => format!(
                            "the [follow] options are {}",
                            KEYS.iter().map(|k| k.name).collect::<Vec<_>>().join(", ")
                        ),
                    };
                    return Err(invalid_in_file(
                        label,
                        format_args!("follow.{given}"),
                        "is not a follow option",
                        &fix,
                    ));
                }
            }
        }
        let mut values = Vec::with_capacity(KEYS.len());
        for key in KEYS {
            let (value, source) = if let Some(v) = args.and_then(|a| flag_value(a, key.name)) {
                (Some(v), Origin::Explicit)
            } else if let Some((label, v)) =
                section.and_then(|(label, t)| t.get(key.name).map(|v| (label, v)))
            {
                let v = from_toml(key, v).map_err(|(problem, fix)| {
                    invalid_in_file(
                        label,
                        format_args!("follow.{} = {v}", key.name),
                        &problem,
                        &fix,
                    )
                })?;
                (Some(v), Origin::File(label.to_owned()))
            } else {
                (key.default.map(|d| default_val(key, d)), Origin::Default)
            };
            if let Some(v) = &value {
                check(key, v).map_err(|(problem, fix)| match &source {
                    Origin::File(label) => invalid_in_file(
                        label,
                        format_args!("follow.{} = {v}", key.name),
                        &problem,
                        &fix,
                    ),
                    _ => Failure::usage(format!("{} {v}: {problem} ({fix})", key.flag)),
                })?;
            }
            values.push((key, value, source));
        }
        Ok(Resolved { values })
    }

    fn get(&self, name: &str) -> Option<&Val> {
        self.values
            .iter()
            .find(|(k, _, _)| k.name == name)
            .and_then(|(_, v, _)| v.as_ref())
    }

    fn int(&self, name: &str) -> u64 {
        match self.get(name) {
            Some(Val::Int(n)) => *n,
            _ => 0, // every Int key has a default
        }
    }

    fn text(&self, name: &str) -> Option<&str> {
        match self.get(name) {
            Some(Val::Text(s)) => Some(s),
            _ => None,
        }
    }

    /// The options as the follower uses them.
    pub fn follow(&self) -> Follow {
        let patterns = match self.get("paths") {
            Some(Val::List(l)) => l.clone(),
            _ => Vec::new(),
        };
        let format = match self.text("format") {
            Some("json") => LineFormat::Json,
            Some("docker") => LineFormat::Docker,
            Some("cri") => LineFormat::Cri,
            _ => LineFormat::Text,
        };
        let checkpoint = match self.get("checkpoint") {
            Some(Val::Off) => Some(None),
            Some(Val::Text(p)) => Some(Some(PathBuf::from(p))),
            _ => None,
        };
        Follow {
            patterns,
            start_at: match self.text("start_at") {
                Some("end") => StartAt::End,
                _ => StartAt::Beginning,
            },
            format,
            multiline: self.text("multiline").map(str::to_owned),
            multiline_max_lines: self.int("multiline_max_lines") as usize,
            multiline_timeout_ms: self.int("multiline_timeout_ms"),
            max_open_files: self.int("max_open_files") as usize,
            poll_interval_ms: self.int("poll_interval_ms"),
            rotate_wait_ms: self.int("rotate_wait_ms"),
            checkpoint,
            checkpoint_interval_ms: self.int("checkpoint_interval_ms"),
        }
    }

    /// The section as `logship config check` prints it: every option's effective value
    /// and where it came from; `default_checkpoint` is the path used when none is set.
    pub fn describe(&self, default_checkpoint: &Path) -> String {
        let mut out = format!("[{SECTION}]\n");
        for (key, value, source) in &self.values {
            match (value, key.name) {
                (Some(v), _) => out.push_str(&format!("{} = {v}  # {source}\n", key.name)),
                (None, "checkpoint") => out.push_str(&format!(
                    "checkpoint = {}  # {source} (beside the spill directory)\n",
                    toml::Value::String(default_checkpoint.display().to_string())
                )),
                (None, "paths") => out.push_str(&format!(
                    "# paths (unset: ship reads stdin or --input)  # {source}\n"
                )),
                (None, _) => out.push_str(&format!("# {} (unset)  # {source}\n", key.name)),
            }
        }
        out
    }
}

/// The commented `[follow]` section `logship config example` appends (every line a
/// comment, so the example stays valid as it is).
pub fn example() -> String {
    let mut out = String::from(
        "\n# Followed files (`logship ship --config FILE` follows them; flags override):\n# [follow]\n",
    );
    for key in KEYS {
        let value = match (key.name, key.default) {
            ("paths", _) => "[\"/var/log/myapp/*.log\"]".to_owned(),
            ("multiline", _) => "\"java\"".to_owned(),
            ("checkpoint", _) => "\"/var/lib/logship/follow.json\"".to_owned(),
            (_, Some(d)) => default_val(key, d).to_string(),
            (_, None) => continue,
        };
        out.push_str(&format!(
            "# {}  (default: {})\n",
            key.doc,
            key.default.unwrap_or("unset")
        ));
        out.push_str(&format!("# {} = {value}\n", key.name));
    }
    out
}

fn default_val(key: &Key, d: &str) -> Val {
    match key.kind {
        Kind::Int { .. } => Val::Int(d.parse().unwrap_or(0)),
        _ => Val::Text(d.to_owned()),
    }
}

/// The value a flag gives `name`, if the flag was given.
fn flag_value(args: &ShipArgs, name: &str) -> Option<Val> {
    let f = &args.follow_args;
    let int = |v: Option<u64>| v.map(Val::Int);
    match name {
        "paths" => (!args.follow.is_empty()).then(|| Val::List(args.follow.clone())),
        "start_at" => f.start_at.map(|s| {
            Val::Text(match s {
                StartAt::Beginning => "beginning".into(),
                StartAt::End => "end".into(),
            })
        }),
        "format" => args.format.map(|fmt| {
            Val::Text(
                match fmt {
                    Format::Text => "text",
                    Format::Json => "json",
                    Format::Docker => "docker",
                    Format::Cri => "cri",
                }
                .into(),
            )
        }),
        "multiline" => f.multiline.clone().map(Val::Text),
        "multiline_max_lines" => int(f.multiline_max_lines),
        "multiline_timeout_ms" => int(f.multiline_timeout_ms),
        "max_open_files" => int(f.max_open_files),
        "poll_interval_ms" => int(f.poll_interval_ms),
        "rotate_wait_ms" => int(f.rotate_wait_ms),
        "checkpoint" => {
            if f.no_checkpoint {
                Some(Val::Off)
            } else {
                f.checkpoint
                    .as_ref()
                    .map(|p| Val::Text(p.display().to_string()))
            }
        }
        "checkpoint_interval_ms" => int(f.checkpoint_interval_ms),
        _ => None,
    }
}

/// Reads a file value of `key`'s kind; an error is (problem, fix).
fn from_toml(key: &Key, v: &toml::Value) -> Result<Val, (String, String)> {
    let example = match key.kind {
        Kind::Int { .. } => format!("{} = {}", key.name, key.default.unwrap_or("1")),
        Kind::Choice(choices) => format!("{} = \"{}\"", key.name, choices[0]),
        Kind::Patterns => "paths = [\"/var/log/myapp/*.log\"]".to_owned(),
        Kind::Rule => "multiline = \"java\"".to_owned(),
        Kind::Checkpoint => {
            "checkpoint = \"/var/lib/logship/follow.json\" (or false for none)".to_owned()
        }
    };
    let wrong = |what: &str| Err((format!("must be {what}"), format!("write {example}")));
    match (key.kind, v) {
        (Kind::Int { .. }, toml::Value::Integer(n)) => match u64::try_from(*n) {
            Ok(n) => Ok(Val::Int(n)),
            Err(_) => wrong("a non-negative integer"),
        },
        (Kind::Int { .. }, _) => wrong("an integer"),
        (Kind::Choice(_) | Kind::Rule, toml::Value::String(s)) => Ok(Val::Text(s.clone())),
        (Kind::Choice(_) | Kind::Rule, _) => wrong("a string"),
        (Kind::Patterns, toml::Value::String(s)) => Ok(Val::List(vec![s.clone()])),
        (Kind::Patterns, toml::Value::Array(a)) => a
            .iter()
            .map(|p| p.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .map(Val::List)
            .map_or_else(|| wrong("a string or a list of strings"), Ok),
        (Kind::Patterns, _) => wrong("a string or a list of strings"),
        (Kind::Checkpoint, toml::Value::String(s)) => Ok(Val::Text(s.clone())),
        (Kind::Checkpoint, toml::Value::Boolean(false)) => Ok(Val::Off),
        (Kind::Checkpoint, _) => wrong("a path, or false for no checkpoint"),
    }
}

/// Checks a value against its key, whatever its source; an error is (problem, fix).
fn check(key: &Key, v: &Val) -> Result<(), (String, String)> {
    match (key.kind, v) {
        (Kind::Int { min, max }, Val::Int(n)) if *n < min || *n > max => Err((
            format!(
                "must be {min}..={max}{}",
                if key.name.ends_with("_ms") {
                    " milliseconds"
                } else {
                    ""
                }
            ),
            format!(
                "set {} to a whole number from {min} to {max}; the default is {}",
                key.name,
                key.default.unwrap_or("-")
            ),
        )),
        (Kind::Choice(choices), Val::Text(s)) if !choices.contains(&s.as_str()) => {
            let fix = match logship::did_you_mean(s, choices.iter().copied()) {
                Some(c) => format!("did you mean {c:?}?"),
                None => format!("use one of {}", choices.join(", ")),
            };
            Err((format!("must be one of {}", choices.join(", ")), fix))
        }
        (Kind::Patterns, Val::List(list)) => {
            if list.is_empty() {
                return Err((
                    "is empty".into(),
                    "give at least one path or glob, or leave paths out to read stdin".into(),
                ));
            }
            for p in list {
                if p.trim().is_empty() {
                    return Err(("holds an empty pattern".into(), "remove it".into()));
                }
                if let Err(e) = glob::Pattern::new(p) {
                    return Err((
                        format!("{p:?} is not a valid glob pattern ({e})"),
                        "use *, ? and [..] wildcards, e.g. \"/var/log/app/*.log\"".into(),
                    ));
                }
            }
            Ok(())
        }
        (Kind::Rule, Val::Text(s)) => super::multiline::Rule::parse(s)
            .map(|_| ())
            .map_err(|e| (e, "e.g. \"java\" or \"start:^\\\\d{4}-\"".into())),
        (Kind::Checkpoint, Val::Text(p)) if p.trim().is_empty() => Err((
            "is empty".into(),
            "give a file path, or false for no checkpoint".into(),
        )),
        _ => Ok(()),
    }
}

/// A bad value in the file, in the library's shape: `field = value: problem (fix) [from
/// file PATH]`.
pub(crate) fn invalid_in_file(
    label: &str,
    what: fmt::Arguments<'_>,
    problem: &str,
    fix: &str,
) -> Failure {
    Failure::usage(format!(
        "invalid logship configuration: {what}: {problem} ({fix}) [from file {label}]"
    ))
}
