//! The specification of configuration: every key from every source, layering and
//! origins, exact error messages, secrets, examples, and the docs' reference.
//!
//! Why it exists: these tests read as the rules users rely on; they are split by concern
//! (one file each) and share the helpers below. They must never need the network.

mod defaults;
mod every_key;
mod file;
mod layered;
mod reference;
mod surfaces;

use std::collections::HashMap;

use crate::config::{Config, Layered, Resolved};
use crate::error::ConfigError;

pub(super) fn env_of(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + 'static {
    let map: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    move |var| map.get(var).cloned()
}

pub(super) fn from_file(text: &str, env: &[(&str, &str)]) -> Result<Resolved, ConfigError> {
    Layered::new()
        .env(env_of(env))
        .toml_str("logship.toml", text)
        .resolve()
}

pub(super) type Check = fn(&Config) -> bool;
