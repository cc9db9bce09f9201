//! Where an option's effective value came from, for `config check` and for messages.
//!
//! Why it exists: every layer (files, the environment, explicit settings) records it, so it
//! is its own small concept. An origin names files and variables, never values.

use std::fmt;

/// Where an option's effective value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Nobody set it.
    Default,
    /// A config file (its path as given).
    File(String),
    /// An environment variable (its name).
    Env(String),
    /// An explicit setting (builder call or command-line flag).
    Explicit,
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Default => f.write_str("default"),
            Origin::File(p) => write!(f, "file {p}"),
            Origin::Env(v) => write!(f, "env {v}"),
            Origin::Explicit => f.write_str("explicit"),
        }
    }
}
