//! Test helper of the settings engine: a configuration with some keys set by name.

use logship::Config;

/// The default configuration with each `(key, value)` set as its variable would set it.
pub(super) fn config(set: &[(&str, &str)]) -> Config {
    let mut c = Config::default();
    for (k, v) in set {
        c.set(k, v).expect("a valid value");
    }
    c
}
