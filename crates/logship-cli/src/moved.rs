//! `logship intake` and `logship bench`, which moved out of the product binary.
//!
//! Why it exists: the `logship` binary that users install carries no test or lab code
//! (the test intake is `logship-intake`, in its own package; the benchmark lab is
//! `logship-lab`). Old scripts still call the old subcommands: these hidden ones take
//! any arguments and fail with one line that says where the command lives now and how to
//! run it, instead of clap's "unrecognized subcommand". Must never run anything.

use std::ffi::OsString;
use std::process::ExitCode;

use clap::Args;

use logship_cli::exit::Failure;

/// Whatever an old script passes (`--help` included).
#[derive(Args, Debug)]
pub struct MovedArgs {
    /// Ignored.
    #[arg(num_args = 0.., trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<OsString>,
}

/// A command that moved to a binary of its own.
pub struct Moved {
    /// The old subcommand.
    pub command: &'static str,
    /// The binary it is now.
    pub binary: &'static str,
    /// The workspace package that builds it.
    pub package: &'static str,
}

/// `logship intake`: now `logship-intake`.
pub const INTAKE: Moved = Moved {
    command: "intake",
    binary: "logship-intake",
    package: "logship-intake",
};

/// `logship bench`: now `logship-lab`.
pub const BENCH: Moved = Moved {
    command: "bench",
    binary: "logship-lab",
    package: "logship-lab",
};

/// Fails with the line saying where `moved` lives now (exit code 2, as for bad usage).
pub fn run(moved: &Moved) -> Result<ExitCode, Failure> {
    let Moved {
        command,
        binary,
        package,
    } = moved;
    Err(Failure::usage(format!(
        "`logship {command}` moved to the {binary} binary (package {package}): run `cargo run --release -p {package} --bin {binary} -- ARGS` with the same options (docs/cli.md)"
    )))
}
