//! The message key of each event (`kafka_key`): none, a pipeline attribute, or a field.
//!
//! Why it exists: the key picks the partition, so events with one key stay in order; the
//! choice is read once at start-up and applied per event without allocating when the key
//! is fixed. Must never read anything but the record and the pipeline's attributes.

// Without a transport compiled in (no `kafka` feature) only the tests use these.
#![cfg_attr(not(feature = "kafka"), allow(dead_code))]

use crate::capture::record::{Entry, Record, Value};
use crate::error::ConfigError;
use crate::vendors::context::Context;

/// Where each message's key comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum KeySource {
    /// No key: the producer spreads messages over the partitions.
    None,
    /// The pipeline's `service`.
    Service,
    /// The pipeline's host name.
    Host,
    /// The event's level.
    Level,
    /// The event's target (logger name).
    Target,
    /// The value of the event's field of this name (no key where it has none).
    Field(String),
}

impl KeySource {
    /// Reads `kafka_key`.
    pub(crate) fn parse(text: &str) -> Result<KeySource, ConfigError> {
        Ok(match text {
            "" | "none" => KeySource::None,
            "service" => KeySource::Service,
            "host" => KeySource::Host,
            "level" => KeySource::Level,
            "target" => KeySource::Target,
            _ => match text.strip_prefix("field:") {
                Some(name) if !name.is_empty() => KeySource::Field(name.to_owned()),
                _ => return Err(
                    ConfigError::new("kafka_key", text, "is not a key source").fix(
                        "use none, service, host, level, target or field:NAME (e.g. field:user_id)",
                    ),
                ),
            },
        })
    }
}

/// The key source with the pipeline's fixed values resolved.
#[derive(Debug)]
pub(crate) struct Keyer {
    source: KeySource,
    fixed: Option<Vec<u8>>,
}

impl Keyer {
    /// The keyer of a validated `kafka_key`.
    pub(crate) fn new(source: KeySource, ctx: &Context) -> Keyer {
        let fixed = match &source {
            KeySource::Service => ctx.service.clone().map(String::into_bytes),
            KeySource::Host => Some(ctx.hostname.clone().into_bytes()),
            _ => None,
        };
        Keyer { source, fixed }
    }

    /// Writes the key of `record` into `out` (cleared first); false when it has none.
    pub(crate) fn key(&self, record: &Record, out: &mut Vec<u8>) -> bool {
        out.clear();
        match &self.source {
            KeySource::None => return false,
            KeySource::Service | KeySource::Host => match &self.fixed {
                Some(k) => out.extend_from_slice(k),
                None => return false,
            },
            KeySource::Level => out.extend_from_slice(record.level().as_str().as_bytes()),
            KeySource::Target => out.extend_from_slice(record.target().as_bytes()),
            KeySource::Field(name) => {
                let found = record.entries().find_map(|e| match e {
                    Entry::Field(k, v) if k == name => Some(v),
                    _ => None,
                });
                match found {
                    Some(Value::Str(s)) => out.extend_from_slice(s.as_bytes()),
                    Some(v) => crate::support::json::value(out, v),
                    None => return false,
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capture::record::Level;
    use crate::config::Config;

    fn ctx() -> Context {
        Context::of(&Config {
            service: Some("checkout".into()),
            hostname: Some("web-1".into()),
            ..Config::default()
        })
    }

    #[test]
    fn each_source_keys_as_documented() {
        let mut r = Record::new(Level::Warn, "app::pay");
        r.message("m").field("user", "u-7").field("n", 42u64);
        let mut out = Vec::new();
        let key = |text: &str, out: &mut Vec<u8>| {
            Keyer::new(KeySource::parse(text).unwrap(), &ctx()).key(&r, out)
        };
        assert!(!key("none", &mut out));
        for (text, want) in [
            ("service", "checkout"),
            ("host", "web-1"),
            ("level", "WARN"),
            ("target", "app::pay"),
            ("field:user", "u-7"),
            ("field:n", "42"),
        ] {
            assert!(key(text, &mut out), "{text}");
            assert_eq!(out, want.as_bytes(), "{text}");
        }
        assert!(!key("field:absent", &mut out));
        assert!(KeySource::parse("field:").is_err());
        assert!(KeySource::parse("tenant").is_err());
    }
}
