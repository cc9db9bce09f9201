//! The command line of every key: one clap argument per row of `logship::keys()`, and the
//! flags a user gave, read back as `(key, Given)` pairs for `logship::Layered::flag`.
//!
//! Why it exists: a key's flag is a fact of its row (`KeySpec::flag`), so the command
//! builds its arguments from the table instead of keeping a copy: a new row is a new flag
//! of `ship` (and of `demo` and `spill replay`, for a pipeline key) with nothing to edit
//! here. Arguments that are not keys (`--input`, `--stats-json`, the demo's own) stay
//! hand-written in their command; `--config` is written once, here.
//!
//! Must never: read or check a value (the library reads each as its key's environment
//! variable would be, and an error names the flag), split an `Each` flag's value, or hold
//! an argument that no row declares.

use std::marker::PhantomData;
use std::path::PathBuf;

use clap::error::ErrorKind;
use clap::{Arg, ArgAction, ArgMatches, Args, Command, FromArgMatches};
use logship::{CliFlag, Given, KeySpec};

use super::help;

/// The id (and long name) of `--config`.
const CONFIG: &str = "config";

/// Flags that contradict each other (by key name): clap refuses them together, as it did
/// before the flags were generated. `--no-spill` switches the spill off; a directory or a
/// hard requirement for it makes no sense beside it.
const CONFLICTS: &[(&str, &str)] = &[
    ("spill_dir", "spill_enabled"),
    ("spill_required", "spill_enabled"),
];

/// Which keys a command takes on its command line.
pub trait Scope {
    /// Whether `key` has a flag in this command.
    fn includes(key: &KeySpec) -> bool;
}

/// Every key: `logship ship` (the pipeline's keys and its own `[follow]` and `[listen]`).
#[derive(Clone, Copy, Debug, Default)]
pub struct AllKeys;

impl Scope for AllKeys {
    fn includes(_: &KeySpec) -> bool {
        true
    }
}

/// The pipeline's keys (no section): `logship demo` and `logship spill replay`.
#[derive(Clone, Copy, Debug, Default)]
pub struct PipelineKeys;

impl Scope for PipelineKeys {
    fn includes(key: &KeySpec) -> bool {
        key.section().is_none()
    }
}

/// `--config FILE` and one flag per key of `S`, as given on the command line.
#[derive(Clone, Debug)]
pub struct SettingsArgs<S> {
    /// The config file, if any.
    pub config: Option<PathBuf>,
    /// The keys given as flags, in the table's order.
    given: Vec<(&'static str, Given)>,
    scope: PhantomData<S>,
}

impl<S> SettingsArgs<S> {
    /// No flags, and `file` as the config file (`logship config check FILE`).
    pub fn file_only(file: PathBuf) -> Self {
        SettingsArgs {
            config: Some(file),
            given: Vec::new(),
            scope: PhantomData,
        }
    }

    /// The keys given as flags, with their values as `Layered::flag` takes them.
    pub fn given(&self) -> &[(&'static str, Given)] {
        &self.given
    }

    /// Whether the flag of key `name` was given.
    pub fn was_given(&self, name: &str) -> bool {
        self.given.iter().any(|(k, _)| *k == name)
    }
}

/// The long name of a flag, without its dashes (`--no-gzip` is `no-gzip`).
fn long(flag: &'static str) -> &'static str {
    flag.trim_start_matches('-')
}

/// The clap arguments of one key: one, or two for a value with an "off" switch.
fn arguments(key: &KeySpec) -> Vec<Arg> {
    let flag = key.flag();
    let conflicts = CONFLICTS
        .iter()
        .filter(|(a, _)| *a == key.name())
        .map(|(_, b)| *b);
    let arg = Arg::new(key.name())
        .long(long(flag.long()))
        .help(help::text(key))
        .help_heading(help::heading(key))
        .conflicts_with_all(conflicts);
    let arg = if flag.takes_value() {
        arg.value_name(help::value_name(key))
            .value_parser(clap::value_parser!(String))
            .action(if flag.repeatable() {
                ArgAction::Append
            } else {
                ArgAction::Set
            })
    } else {
        arg.action(ArgAction::SetTrue)
    };
    match flag.off() {
        None => vec![arg],
        Some(off) => vec![
            arg.conflicts_with(long(off)),
            Arg::new(long(off))
                .long(long(off))
                .action(ArgAction::SetTrue)
                .help(help::off_text(key))
                .help_heading(help::heading(key)),
        ],
    }
}

/// A lookup that failed: a mismatch between the arguments built and those read (a bug).
fn mismatch(id: &str, e: impl std::fmt::Display) -> clap::Error {
    clap::Error::raw(
        ErrorKind::InvalidValue,
        format!("logship: internal error reading --{id}: {e}\n"),
    )
}

/// The values given for the argument `id` (none when it was not given).
fn values(matches: &ArgMatches, id: &str) -> Result<Vec<String>, clap::Error> {
    Ok(matches
        .try_get_many::<String>(id)
        .map_err(|e| mismatch(id, e))?
        .map(|v| v.cloned().collect())
        .unwrap_or_default())
}

/// Whether the switch `id` was given.
fn switch(matches: &ArgMatches, id: &str) -> Result<bool, clap::Error> {
    Ok(matches
        .try_get_one::<bool>(id)
        .map_err(|e| mismatch(id, e))?
        .copied()
        .unwrap_or(false))
}

/// What the user gave for `key`, as `Layered::flag` takes it: a repeated `Many` flag's
/// values joined as one variable's value, an `Each` flag's values as items, a switch as
/// `true` (`On`) or `false` (`Off`, or the "off" switch of a value).
fn given(key: &KeySpec, matches: &ArgMatches) -> Result<Option<Given>, clap::Error> {
    let name = key.name();
    let flag = key.flag();
    if let Some(off) = flag.off() {
        if switch(matches, long(off))? {
            return Ok(Some(Given::Text("false".into())));
        }
    }
    if !flag.takes_value() {
        let on = !matches!(flag, CliFlag::Off(_));
        return Ok(switch(matches, name)?.then(|| Given::Text(on.to_string())));
    }
    let mut given = values(matches, name)?;
    Ok(match flag {
        _ if given.is_empty() => None,
        CliFlag::Each(_) => Some(Given::Items(given)),
        CliFlag::Many(_) => Some(Given::Text(given.join(key.list_separator()))),
        _ => given.pop().map(Given::Text),
    })
}

impl<S: Scope> FromArgMatches for SettingsArgs<S> {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let config = matches
            .try_get_one::<PathBuf>(CONFIG)
            .map_err(|e| mismatch(CONFIG, e))?
            .cloned();
        let mut given_flags = Vec::new();
        for key in logship::keys().filter(S::includes) {
            if let Some(value) = given(&key, matches)? {
                given_flags.push((key.name(), value));
            }
        }
        Ok(SettingsArgs {
            config,
            given: given_flags,
            scope: PhantomData,
        })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl<S: Scope> Args for SettingsArgs<S> {
    fn augment_args(cmd: Command) -> Command {
        let config = Arg::new(CONFIG)
            .long(CONFIG)
            .value_name("FILE")
            .value_parser(clap::value_parser!(PathBuf))
            .help(
                "A TOML config file (see `logship config example`). Flags override LOGSHIP_* \
                 environment variables, which override the file",
            );
        logship::keys()
            .filter(S::includes)
            .flat_map(|key| arguments(&key))
            .fold(cmd.arg(config), Command::arg)
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        Self::augment_args(cmd)
    }
}
