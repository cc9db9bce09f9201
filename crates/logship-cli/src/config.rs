//! `logship config`: check a config file, or print an annotated example.
//!
//! `check` resolves the file with the `LOGSHIP_*` environment over it, validates the result
//! as `logship ship --config FILE` would, and prints every option's effective value with
//! where it came from (secrets as `[redacted]`), then the `[follow]` section the same way.
//! `example` prints a commented TOML file for a vendor that passes `check` as it is.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};
use logship::{Layered, Vendor};

use crate::exit::Failure;
use crate::follow::cli::default_checkpoint;
use crate::follow::settings::{ConfigFile, Resolved};

/// The `config` subcommands.
#[derive(Debug, Subcommand)]
pub enum ConfigCommand {
    /// Validate a config file (with LOGSHIP_* variables over it) and print the effective
    /// configuration with the source of each value. Exits 2 when it is invalid.
    Check(CheckArgs),
    /// Print an annotated example config file for a vendor.
    Example(ExampleArgs),
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
    /// ndjson, json, datadog, splunk, newrelic, dynatrace, loki or elasticsearch.
    #[arg(long, value_name = "VENDOR", default_value = "ndjson", value_parser = parse_vendor)]
    pub vendor: Vendor,
}

fn parse_vendor(s: &str) -> Result<Vendor, logship::ConfigError> {
    s.parse()
}

/// Runs `logship config`.
pub fn run(cmd: ConfigCommand) -> Result<ExitCode, Failure> {
    match cmd {
        ConfigCommand::Check(args) => check(&args),
        ConfigCommand::Example(args) => {
            print!(
                "{}{}{}",
                logship::example_toml(args.vendor),
                crate::follow::settings::example(),
                crate::listen::settings::example()
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn check(args: &CheckArgs) -> Result<ExitCode, Failure> {
    let invalid =
        |e: logship::ConfigError| Failure::usage(format!("invalid logship configuration: {e}"));
    let file = ConfigFile::read(&args.file)?;
    // The [follow] section (`ship` follows its paths), as `ship --config FILE` with no
    // flags would use it.
    let follow = Resolved::new(None, Some(&file))?;
    let listen = crate::listen::settings::Resolved::new(None, Some(&file))?;
    let layered = match &file.library_text {
        Some(text) => Layered::new().toml_str(file.label.clone(), text.clone()),
        None => Layered::new().file(args.file.clone()),
    };
    let resolved = layered.resolve().map_err(invalid)?;
    // As `build` does: the API key may come from the vendor's own variable.
    let mut effective = resolved.config.clone();
    effective.api_key = effective.resolve_api_key(|v| std::env::var(v).ok());
    effective.validate().map_err(invalid)?;
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
    for (key, value) in resolved.config.effective_values() {
        let origin = resolved.origin(key);
        match value {
            Some(v) => out.push_str(&format!("{key} = {v}  # {origin}\n")),
            None => out.push_str(&format!("# {key} (unset)  # {origin}\n")),
        }
    }
    out.push('\n');
    out.push_str(&follow.describe(&default_checkpoint(&effective)));
    out.push('\n');
    out.push_str(&listen.describe());
    print!("{out}");
    Ok(ExitCode::SUCCESS)
}
