//! THE table: every configuration key, once.
//!
//! Why it exists: a key's name, how its value is read, its range, its documented
//! default, its environment variable, its Java alias, its builder setter and CLI flag,
//! its meaning, and how it is stored in and read back from [`super::Config`] are facts about one
//! key; [`all`] keeps them in one row so that files, the environment, `config check`,
//! `config example`, validation, "did you mean" and `docs/configuration.md` cannot
//! disagree. The order of the rows is the order `config check` shows keys in. A getter
//! must never return a secret: secret keys show `[redacted]`.
//!
//! The table is crate-private on purpose: the CLI reads it only through
//! [`Config::effective_values`], [`super::Resolved`] and [`super::example_toml`], and the
//! reference users read is `docs/configuration.md`, rendered from it. (The former
//! crate-root helpers `config_keys` and `env_var_name` had no caller outside the crate;
//! keeping the table private means a new column is never a breaking change.)

pub(crate) use super::key::{Key, Kind, When};

mod budget;
mod control;
mod delivery;
mod observe;
mod privacy;

/// The groups of rows, in the order `config check` and `config example` show them. A new
/// concern gets its own file and one entry here, so that no file of the table grows past
/// what one reader can hold.
const GROUPS: &[&[Key]] = &[
    delivery::DELIVERY,
    privacy::PRIVACY,
    control::CONTROL,
    budget::BUDGET,
    observe::OBSERVE,
];

/// Every key, in the order `config check` and `config example` show them.
pub(crate) fn all() -> impl Iterator<Item = &'static Key> {
    GROUPS.iter().flat_map(|group| group.iter())
}

/// The row named `name`.
pub(crate) fn find(name: &str) -> Option<&'static Key> {
    all().find(|k| k.name == name)
}

/// The row whose name or Java alias is `given`.
pub(crate) fn find_by_any_name(given: &str) -> Option<&'static Key> {
    all().find(|k| k.name == given || k.alias() == Some(given))
}
