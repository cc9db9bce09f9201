//! A level as JSON logs write it: a name in any case (`WARN`, `warning`), or a bunyan/pino
//! number.
//!
//! Why it exists: every JSON input reads levels the same way. Must never: allocate a
//! lowercased copy per event (names are compared in place).

use logship::Level;

use super::json::Json;

/// Level names as commonly written in JSON logs.
const LEVEL_NAMES: &[(&str, Level)] = &[
    ("info", Level::Info),
    ("warn", Level::Warn),
    ("error", Level::Error),
    ("debug", Level::Debug),
    ("trace", Level::Trace),
    ("warning", Level::Warn),
    ("information", Level::Info),
    ("err", Level::Error),
    ("fatal", Level::Error),
    ("critical", Level::Error),
    ("severe", Level::Error),
    ("fine", Level::Debug),
    ("finer", Level::Trace),
    ("finest", Level::Trace),
];

/// A level name as commonly written in JSON logs, case-insensitive (compared in place:
/// no lowercased copy per event).
pub(crate) fn parse_level(s: &str) -> Option<Level> {
    let s = s.trim();
    LEVEL_NAMES
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(s))
        .map(|&(_, level)| level)
}

/// A level name, or a bunyan/pino level number (10 trace, 20 debug, 30 info, 40 warn, 50
/// error, 60 fatal).
pub(crate) fn parse_level_value(v: &Json<'_>) -> Option<Level> {
    match v {
        Json::String(s) => parse_level(s),
        Json::Number(n) => Some(match n.as_u64()? {
            10 => Level::Trace,
            20 => Level::Debug,
            30 => Level::Info,
            40 => Level::Warn,
            50 | 60 => Level::Error,
            _ => return None,
        }),
        _ => None,
    }
}
