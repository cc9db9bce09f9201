//! The two logging modes the lab compares.

use clap::ValueEnum;

/// A logging mode of the lab service.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Mode {
    /// Log4j2 async logger + HttpAppender model: ring, one thread, one POST per event.
    Stock,
    /// logship with its defaults.
    Batch,
}

impl Mode {
    /// The mode's name on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Stock => "stock",
            Mode::Batch => "batch",
        }
    }
}
