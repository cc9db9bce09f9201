//! How a command fails: a message for stderr and the process exit code.
//!
//! Every command returns `Result<ExitCode, Failure>`; `main` prints a failure as
//! `logship: <message>` and exits with its code, so all commands report errors the same way.

use logship::BuildError;

/// Exit code for a delivery or runtime failure: some events were lost, or logship could
/// not run.
pub const RUNTIME: u8 = 1;
/// Exit code when some events were lost (the same as [`RUNTIME`]).
pub const LOST: u8 = RUNTIME;
/// Exit code for bad usage or an invalid configuration, and for nothing else.
pub const USAGE: u8 = 2;
/// Exit code when nothing was lost but some events wait in the spill directory for the
/// next run (or `logship spill replay`).
pub const SPILLED: u8 = 3;

/// A command that could not do its job.
#[derive(Debug)]
pub struct Failure {
    /// Process exit code.
    pub code: u8,
    /// What went wrong and, where possible, what to do (printed after `logship: `).
    pub message: String,
}

impl Failure {
    /// Bad arguments or configuration (exit code 2).
    pub fn usage(message: impl Into<String>) -> Failure {
        Failure {
            code: USAGE,
            message: message.into(),
        }
    }

    /// A failure while running (exit code 1).
    pub fn runtime(message: impl Into<String>) -> Failure {
        Failure {
            code: RUNTIME,
            message: message.into(),
        }
    }
}

impl From<BuildError> for Failure {
    /// An invalid configuration is a usage error; the state of the machine (a spill
    /// directory that `--spill-required` insists on, a thread that could not start) is not.
    fn from(e: BuildError) -> Failure {
        match e {
            BuildError::Config(_) => Failure::usage(e.to_string()),
            _ => Failure::runtime(e.to_string()),
        }
    }
}
