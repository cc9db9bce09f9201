//! `logship config`: check a config file, print an annotated example, or list every key.
//!
//! `check` resolves the file with the `LOGSHIP_*` environment over it exactly as
//! `logship ship --config FILE` would (the command's own defaults included), validates the
//! result, and prints every key's effective value with where it came from (secrets as
//! `[redacted]`), the `[follow]` and `[listen]` sections too. `example` prints the
//! library's commented TOML file for a vendor, which passes `check` as it is. `keys` prints
//! the key table, as a table or as JSON.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};
use logship::{KeySpec, Vendor};
use logship_cli::exit::Failure;

use crate::settings::{check_file, default_checkpoint, invalid};

/// The `config` subcommands.
#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Validate a config file (with LOGSHIP_* variables over it) and print the effective
    /// configuration with the source of each value. Exits 2 when it is invalid.
    Check(CheckArgs),
    /// Print an annotated example config file for a vendor.
    Example(ExampleArgs),
    /// List every configuration key: its type, default, variable, flag, file key and
    /// attribute.
    Keys(KeysArgs),
}

/// Options of `logship config check`.
#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The TOML file to check.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
}

/// Options of `logship config example`.
#[derive(Debug, Args)]
pub struct ExampleArgs {
    /// ndjson, json, datadog, splunk, newrelic, dynatrace, loki, elasticsearch or otlp.
    #[arg(long, value_name = "VENDOR", default_value = "ndjson", value_parser = parse_vendor)]
    pub vendor: Vendor,
}

/// Options of `logship config keys`.
#[derive(Debug, Args)]
pub struct KeysArgs {
    /// `table` (aligned columns, for people) or `json` (an array of objects with the
    /// fields name, type, default, doc, env, flag, file_key, log4rs_key, attribute,
    /// section).
    #[arg(long, value_enum, default_value_t = KeysFormat::Table)]
    pub format: KeysFormat,
}

/// How `config keys` prints the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum KeysFormat {
    /// Aligned columns.
    Table,
    /// A JSON array, one object per key.
    Json,
}

fn parse_vendor(s: &str) -> Result<Vendor, logship::ConfigError> {
    s.parse()
}

/// Runs `logship config`.
pub fn run(cmd: ConfigCommand) -> Result<ExitCode, Failure> {
    match cmd {
        ConfigCommand::Check(args) => check(args),
        ConfigCommand::Example(args) => {
            print!("{}", logship::example_toml(args.vendor));
            Ok(ExitCode::SUCCESS)
        }
        ConfigCommand::Keys(args) => {
            let keys: Vec<KeySpec> = logship::keys().collect();
            match args.format {
                KeysFormat::Json => {
                    let all: Vec<serde_json::Value> = keys.iter().map(KeySpec::to_json).collect();
                    let json = serde_json::to_string_pretty(&all)
                        .map_err(|e| Failure::runtime(format!("cannot encode the keys: {e}")))?;
                    println!("{json}");
                }
                KeysFormat::Table => print!("{}", table(&keys)),
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Widest a type or default is shown in `config keys`' table (longer ones end in `...`;
/// `--format json` has them whole).
const CELL: usize = 32;

/// `text`, cut to [`CELL`] characters.
fn cell(text: &str) -> String {
    if text.chars().count() <= CELL {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(CELL - 3).collect();
    cut.push_str("...");
    cut
}

/// The key table in aligned columns: key, flag, variable, type, default, what it does.
fn table(keys: &[KeySpec]) -> String {
    let flag = |k: &KeySpec| match k.flag().off() {
        Some(off) => format!("{} | {off}", k.flag().long()),
        None => k.flag().long().to_owned(),
    };
    let rows: Vec<[String; 6]> = keys
        .iter()
        .map(|k| {
            [
                k.name().to_owned(),
                flag(k),
                k.env(),
                cell(&k.type_name()),
                cell(&k.default_value().replace('`', "")),
                k.doc().replace('`', ""),
            ]
        })
        .collect();
    let head = ["KEY", "FLAG", "ENV", "TYPE", "DEFAULT", "WHAT IT DOES"].map(str::to_owned);
    let mut widths = [0usize; 5];
    for row in std::iter::once(&head).chain(&rows) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&head).chain(&rows) {
        for (w, cell) in widths.iter().zip(row) {
            out.push_str(&format!("{cell:<w$}  "));
        }
        out.push_str(&row[5]);
        out.push('\n');
    }
    out
}

fn check(args: CheckArgs) -> Result<ExitCode, Failure> {
    // Every problem of the file at once, in its order: its values, the [follow] and
    // [listen] values as `ship --config FILE` checks them, and the combinations.
    let settings = check_file(&args.file)?;
    // As `build` does: the API key may come from the vendor's own variable.
    let mut effective = settings.config.clone();
    effective.api_key = effective.resolve_api_key(|v| std::env::var(v).ok());
    // Certificates and the proxy are loaded as `build` loads them (a missing file fails).
    let network = logship::NetworkSummary::of(&effective).map_err(invalid)?;
    for warning in &network.warnings {
        eprintln!("logship: {warning}");
    }
    let mut out = format!(
        "# {}: valid. Effective configuration (value  # source):\n",
        args.file.display()
    );
    out.push_str(&format!("# endpoint: {}\n", network.endpoint));
    out.push_str(&format!("# TLS trust: {}\n", network.trust));
    if let Some(cert) = &network.client_cert {
        out.push_str(&format!("# TLS client certificate: {cert}\n"));
    }
    out.push_str(&format!("# proxy: {}\n", network.proxy));
    for warning in &network.warnings {
        out.push_str(&format!("# {warning}\n"));
    }
    let mut section = None;
    for (key, value) in settings.config.effective_values() {
        let (in_section, short) = match key.split_once('.') {
            Some((s, k)) => (Some(s), k),
            None => (None, key),
        };
        if in_section != section {
            section = in_section;
            if let Some(s) = section {
                out.push_str(&format!("\n[{s}]\n"));
            }
        }
        let origin = settings.origin_text(key);
        match value {
            Some(v) => out.push_str(&format!("{short} = {v}  # {origin}\n")),
            None if key == "follow.checkpoint" => out.push_str(&format!(
                "{short} = {:?}  # {origin} (beside the spill directory)\n",
                default_checkpoint(&settings.config).display().to_string()
            )),
            None => out.push_str(&format!("# {short} (unset)  # {origin}\n")),
        }
    }
    print!("{out}");
    Ok(ExitCode::SUCCESS)
}
