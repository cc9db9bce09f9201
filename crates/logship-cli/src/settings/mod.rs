//! The command's settings engine: one set of flags, variables and config keys for `ship`
//! (stdin, `--input`, `--follow`, `--listen`), `demo` and `spill replay`, driven by the
//! library's key table (`logship::keys()`).
//!
//! Why it exists: every option is one row of the key table, which names its flag, its
//! `LOGSHIP_*` variable and its config key. The command builds its flags from the rows
//! (`args`, `help`), hands what was given to `logship::Layered` (which reads files,
//! variables and flags in one precedence order and names the key and its origin in an
//! error), applies its own few defaults (`defaults`), and checks what only it can judge
//! (`follow`, `listen`: patterns, rules, URLs, the token). Adding an option is one row in
//! the library plus the code that uses it; nothing here changes.
//!
//! The flow: `args` (clap) -> `resolve` (library layers, then `defaults`) -> `follow` /
//! `listen` (the sidecar's own types, checked, `problem` for what is wrong).
//!
//! Must never: keep a copy of a key's facts (name, flag, type, default, doc), read a
//! value itself, or show a secret.

mod args;
mod defaults;
mod follow;
mod help;
mod kafka_input;
mod listen;
mod problem;
mod resolve;

pub use args::{AllKeys, PipelineKeys, SettingsArgs};
pub use defaults::Use;
pub use follow::{default_checkpoint, Follow};
pub use problem::invalid;
pub use resolve::{check_file, Settings};

#[cfg(test)]
mod test_config;
#[cfg(test)]
mod tests;
