//! The `logship` command.
//!
//! - `logship ship`: read log lines from stdin or files and ship them to an HTTP intake,
//!   with backpressure instead of drops, and a one-line delivery summary at the end.
//! - `logship demo`: run a synthetic multi-threaded service that logs through `tracing`
//!   into logship and a local in-process intake, and print what it cost and what arrived.
//!   Needs no network and no account.
//! - `logship config check FILE` / `logship config example` / `logship config keys`:
//!   validate a config file and show where each value comes from, print an annotated
//!   example, or list every key of the key table.
//!
//! `logship intake` and `logship bench` moved to their own binaries, `logship-intake` and
//! `logship-lab` (the product carries no test or lab code); the hidden subcommands left
//! here only say so (`moved`).
//!
//! This file holds the clap definitions and the dispatch; each command lives in its own
//! module. The flags of every configuration key are generated from the library's key
//! table (`settings`); the shared end of a `ship` run (summary line, `--stats-json`, exit
//! code) is `summary`, its signals `signals`. The few modules the benchmark lab shares
//! (`exit`, `histogram`, `memory`, `units`) are the doc-hidden library target
//! `logship_cli`. Exit codes: 0 success, 1 delivery or runtime failure, 2 bad usage or
//! configuration.

// Every line the command prints goes through these two: unlike the standard macros, they
// never panic when stdout or stderr is closed or full (`logship config example | head`, a
// supervisor that stopped reading), because logship's own output must not take it down.
macro_rules! println {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}
macro_rules! eprintln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

mod allocator;
mod config;
mod demo;
mod follow;
mod kafka;
mod lines;
mod listen;
mod moved;
mod service;
mod settings;
mod ship;
mod signals;
mod spill;
mod summary;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Command-line interface of `logship`.
#[derive(Debug, Parser)]
#[command(
    name = "logship",
    version,
    about = "Ship application logs to HTTP log intakes in batches, without slowing the application down."
)]
struct Cli {
    /// What to do.
    #[command(subcommand)]
    command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
enum Command {
    /// Ship log lines from stdin (or --input files) to an HTTP intake.
    Ship(ship::ShipArgs),
    /// Moved to the `logship-intake` binary: says so and exits 2.
    #[command(hide = true, disable_help_flag = true)]
    Intake(moved::MovedArgs),
    /// Run a synthetic service logging through logship into a local intake, and report.
    Demo(demo::DemoArgs),
    /// Inspect, verify, replay or remove a spill directory.
    #[command(subcommand)]
    Spill(spill::SpillCommand),
    /// Check a config file, or print an annotated example.
    #[command(subcommand)]
    Config(config::ConfigCommand),
    /// Moved to the `logship-lab` binary: says so and exits 2.
    #[command(hide = true, disable_help_flag = true)]
    Bench(moved::MovedArgs),
}

fn main() -> ExitCode {
    allocator::fix_the_mmap_threshold();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Ship(args) => ship::run(args),
        Command::Intake(_) => moved::run(&moved::INTAKE),
        Command::Demo(args) => demo::run(args),
        Command::Spill(cmd) => spill::run(cmd),
        Command::Config(cmd) => config::run(cmd),
        Command::Bench(_) => moved::run(&moved::BENCH),
    };
    match result {
        Ok(code) => code,
        Err(failure) => {
            eprintln!("logship: {}", failure.message);
            ExitCode::from(failure.code)
        }
    }
}
