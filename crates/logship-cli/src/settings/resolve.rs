//! One run's settings: the library's layers (defaults < `--config` file < `LOGSHIP_*`
//! variables < flags) resolved once, then the command's own defaults, with where each
//! value came from.
//!
//! Why it exists: `ship` (stdin, `--input`, `--follow`, `--listen`), `demo`, `spill
//! replay` and `config check` all configure one pipeline the same way; this is the one
//! place that does it, so a flag, a variable and a file key of the same option can never
//! mean different things. The `[follow]` and `[listen]` values come out of the same
//! resolution (`config.follow`, `config.listen`) and are checked here for what only the
//! command can judge. Must never: read a value itself (the library does, naming the key
//! and its origin), or override a value set anywhere with a default.

use std::collections::BTreeMap;

use logship::{Config, Given, Layered, Origin};
use logship_cli::exit::Failure;

use super::args::{AllKeys, SettingsArgs};
use super::defaults::{apply, Use};
use super::follow::{follow, Follow};
use super::listen::listen;
use super::problem::{failure, invalid, origin_text, Problem};
use crate::listen::Listen;

/// Flags that switch redaction on when given (the rule of the hand-written flags they
/// replace): choosing what to redact means redacting.
const IMPLY_REDACT: &[&str] = &["redact_fields", "redact_patterns", "redact_regexes"];

/// An environment lookup, for tests (the process environment otherwise).
pub type Env = Box<dyn Fn(&str) -> Option<String>>;

/// One run's resolved settings.
pub struct Settings {
    /// The configuration, with the command's defaults for what nobody set.
    pub config: Config,
    origins: BTreeMap<&'static str, Origin>,
    /// Keys that took the command's own default.
    defaulted: Vec<&'static str>,
    /// What the run is.
    pub run: Use,
}

impl Settings {
    /// The settings of a pipeline-only run (`demo`, `spill replay`).
    pub fn pipeline<S>(args: &SettingsArgs<S>) -> Result<Settings, Failure> {
        resolve(args, None, |_| Use::Pipeline)
    }

    /// The settings of `ship`: a service (`--follow`/`--listen`, or the config's `paths`
    /// or `inputs`) unless `reading_input` (`--input`) or there is nothing to follow or
    /// listen on (stdin).
    pub fn ship(args: &SettingsArgs<AllKeys>, reading_input: bool) -> Result<Settings, Failure> {
        resolve(args, None, ship_run(reading_input))
    }

    /// Where `key`'s value came from.
    pub fn origin(&self, key: &str) -> Origin {
        self.origins.get(key).cloned().unwrap_or(Origin::Default)
    }

    /// Where `key`'s value came from, in words (`flag --linger-ms`, `env LOGSHIP_*`,
    /// `file PATH`, `default`, or `default (logship)` for the command's own default).
    pub fn origin_text(&self, key: &str) -> String {
        if self.defaulted.contains(&key) {
            return "default (logship)".to_owned();
        }
        origin_text(key, &self.origin(key))
    }

    /// A problem with `key`'s value that the command found (exit 2), its value shown as
    /// `config check` shows it.
    pub fn problem(&self, key: &'static str, problem: &str, fix: &str) -> Failure {
        let value = self
            .config
            .effective_values()
            .into_iter()
            .find(|(k, _)| *k == key)
            .and_then(|(_, v)| v)
            .unwrap_or_default();
        failure(&[Problem {
            key,
            value,
            problem: problem.to_owned(),
            fix: fix.to_owned(),
            origin: self.origin_text(key),
        }])
    }

    /// What to follow, checked.
    pub fn follow(&self) -> Result<Follow, Vec<Problem>> {
        follow(&self.config, |k| self.origin(k))
    }

    /// What to listen on, checked.
    pub fn listen(&self) -> Result<Listen, Vec<Problem>> {
        listen(&self.config, |k| self.origin(k))
    }

    /// Both, checked whether or not they are used: every problem of either is a usage
    /// error (exit 2), all of them listed.
    pub fn sidecar(&self) -> Result<(Follow, Listen), Failure> {
        match (self.follow(), self.listen()) {
            (Ok(f), Ok(l)) => Ok((f, l)),
            (f, l) => {
                let mut all = f.err().unwrap_or_default();
                all.extend(l.err().unwrap_or_default());
                Err(failure(&all))
            }
        }
    }
}

/// What a `ship` run is, once its configuration is resolved.
pub(super) fn ship_run(reading_input: bool) -> impl Fn(&Config) -> Use {
    move |config| {
        let sidecar = !config.follow.paths.is_empty() || !config.listen.inputs.is_empty();
        if sidecar && !reading_input {
            Use::Service
        } else {
            Use::Ship
        }
    }
}

/// Resolves `args` (with `env` as the environment, else the process's), then applies the
/// command's defaults for the run `run` makes of the configuration.
pub(super) fn resolve<S>(
    args: &SettingsArgs<S>,
    env: Option<Env>,
    run: impl Fn(&Config) -> Use,
) -> Result<Settings, Failure> {
    let resolved = layers(args, env).resolve().map_err(invalid)?;
    let mut config = resolved.config;
    let run = run(&config);
    let defaulted = apply(&mut config, &resolved.origins, run)?;
    Ok(Settings {
        config,
        origins: resolved.origins,
        defaulted,
        run,
    })
}

/// `logship config check FILE`: the settings `ship --config FILE` would run with, or
/// every problem the file has, in the order of the file (a bad value, a `[follow]` or
/// `[listen]` value only the command can judge, a combination the library refuses), all
/// at once, so a file is fixed in one pass.
pub fn check_file(path: &std::path::Path) -> Result<Settings, Failure> {
    let args = SettingsArgs::<AllKeys>::file_only(path.to_path_buf());
    let layered = layers(&args, None);
    let order = layered.key_order();
    let rank = |key: &str| order.iter().position(|k| *k == key);
    let (resolved, errors) = layered.resolve_all();
    let mut config = resolved.config;
    let run = ship_run(false)(&config);
    let defaulted = apply(&mut config, &resolved.origins, run)?;
    let settings = Settings {
        config,
        origins: resolved.origins,
        defaulted,
        run,
    };
    // Each problem with its place in the file: a key the file does not name (an unknown
    // one) stays beside the problem before it.
    let mut found: Vec<(usize, String)> = Vec::new();
    let mut last = 0;
    for e in errors {
        last = rank(e.field).unwrap_or(last);
        found.push((last, e.to_string()));
    }
    let mut problems = settings.follow().err().unwrap_or_default();
    problems.extend(settings.listen().err().unwrap_or_default());
    for p in problems {
        found.push((rank(p.key).unwrap_or(usize::MAX), p.to_string()));
    }
    if found.is_empty() {
        // Combinations, checked once every value is good.
        let mut effective = settings.config.clone();
        effective.api_key = effective.resolve_api_key(|v| std::env::var(v).ok());
        if let Err(e) = effective.validate() {
            found.push((rank(e.field).unwrap_or(usize::MAX), e.to_string()));
        }
    }
    if found.is_empty() {
        return Ok(settings);
    }
    found.sort_by_key(|(at, _)| *at);
    let lines: Vec<String> = found
        .into_iter()
        .map(|(_, text)| format!("invalid logship configuration: {text}"))
        .collect();
    Err(Failure::usage(lines.join("\nlogship: ")))
}

/// The library's layers for `args` (with `env` as the environment, else the process's).
fn layers<S>(args: &SettingsArgs<S>, env: Option<Env>) -> Layered {
    let mut layered = Layered::new();
    if let Some(env) = env {
        layered = layered.env(env);
    }
    if let Some(path) = &args.config {
        layered = layered.file(path.clone());
    }
    for (name, value) in args.given() {
        layered = layered.flag(*name, value.clone());
    }
    if IMPLY_REDACT.iter().any(|k| args.was_given(k)) && !args.was_given("redact") {
        layered = layered.flag("redact", Given::Text("true".into()));
    }
    layered
}
