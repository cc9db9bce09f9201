//! How a command fails: a message for stderr and the process exit code.
//!
//! Every command returns `Result<ExitCode, Failure>`; `main` prints a failure as
//! `logship: <message>` and exits with its code, so all commands report errors the same way.

use logship::BuildError;

/// Exit code for a delivery or runtime failure.
pub const RUNTIME: u8 = 1;
/// Exit code for bad usage or an invalid configuration.
pub const USAGE: u8 = 2;

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
    /// An invalid configuration is a usage error; a thread that could not start is not.
    fn from(e: BuildError) -> Failure {
        match e {
            BuildError::Config(_) | BuildError::Spill(_) => Failure::usage(e.to_string()),
            _ => Failure::runtime(e.to_string()),
        }
    }
}
