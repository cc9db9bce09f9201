//! A string that never shows itself.
//!
//! Why it exists: API keys and authorisation headers travel through configuration, the
//! builder, error paths and stats. Wrapping them makes `Debug` and `Display` print
//! `[redacted]`, so a key cannot leak into logs, panics or files by accident.

use std::fmt;

/// A secret value (an API key, a token, an authorisation header).
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Secret(String);

impl Secret {
    /// Wraps a value.
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    /// The value itself: call only where it is put on the wire.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The secret held in the file at `path` (`api_key_file`, `listen.token_file`): its
    /// whole text, surrounding white space (a final newline) trimmed. A file keeps the
    /// secret out of the command line (`/proc/PID/cmdline`) and the environment. The
    /// error never holds the file's content: it names what is wrong with the file.
    pub fn from_file(path: &std::path::Path) -> Result<Secret, String> {
        use std::io::Read as _;
        const MAX_BYTES: u64 = 64 * 1024;
        let file = std::fs::File::open(path).map_err(|e| format!("cannot be read ({e})"))?;
        let mut bytes = Vec::new();
        file.take(MAX_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot be read ({e})"))?;
        if bytes.len() as u64 > MAX_BYTES {
            return Err("is larger than 64 KiB, too large to hold a key".to_owned());
        }
        let text = String::from_utf8(bytes).map_err(|_| "is not UTF-8 text".to_owned())?;
        let value = text.trim();
        if value.is_empty() {
            return Err("is empty".to_owned());
        }
        if value.contains(['\r', '\n']) {
            return Err("holds more than one line".to_owned());
        }
        Ok(Secret::new(value))
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

impl From<String> for Secret {
    fn from(v: String) -> Self {
        Secret(v)
    }
}

impl From<&str> for Secret {
    fn from(v: &str) -> Self {
        Secret(v.to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_and_display_never_show_the_value() {
        let s = Secret::new("sk-live-123");
        assert_eq!(format!("{s:?} {s}"), "[redacted] [redacted]");
        assert_eq!(s.expose(), "sk-live-123");
    }
}
