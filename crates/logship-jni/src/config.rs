//! An appender's attributes, as Java read them, turned into a started pipeline.
//!
//! Why it exists: Log4j2 and Logback hand over camelCase attributes (`lingerMillis`,
//! `apiKey`); the key table maps them to keys (`Layered::attributes`), so every option
//! is an attribute without a line here. What this file adds is the reference
//! appender's meaning of `site` (a host or a full URL), the JVM's own `ddsource`, and
//! `flush_on_panic` off by default: the hook it installs is process wide, and a panic
//! caught inside this library on a Java thread (never expected, but each entry point is
//! ready for it) must not make that thread flush every pipeline of the JVM, a wait of up
//! to 2 s each beyond the blocking policy. The JVM has its own exit paths (shutdown hooks)
//! and the appenders flush on them.
//! Must never: show an attribute's value in an error (it may be the API key).

use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use logship::{BuildError, Builder, ConfigError, Layered, Overflow};

use crate::handover;
use crate::slots::Slot;

/// The label errors name as the origin of a bad attribute.
pub const LABEL: &str = "the appender's attributes";

/// Why an appender could not start: a bad attribute, or a pipeline that did not build.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// An attribute is unknown or its value is invalid (the message names it and the fix).
    #[error("{0}")]
    Config(ConfigError),
    /// The configuration is valid but the pipeline could not start.
    #[error("{0}")]
    Build(BuildError),
}

/// The pairs as the pipeline reads them: `site` given as a URL becomes `endpoint`; a
/// host becomes `https://{host}` (the vendor's path is added), except a Datadog site name
/// (`datadoghq.eu`) for Datadog, which stays `site`; `source` is `java` and
/// `flush_on_panic` is `false` unless given (as `flushOnPanic` or `flush_on_panic`).
pub fn translate(pairs: Vec<(String, String)>) -> Vec<(String, String)> {
    let vendor = pairs
        .iter()
        .find(|(k, _)| k == "vendor")
        .map(|(_, v)| v.trim().to_ascii_lowercase());
    let datadog = vendor.as_deref().is_none_or(|v| v == "datadog");
    let mut out: Vec<(String, String)> = Vec::with_capacity(pairs.len() + 1);
    for (key, value) in pairs {
        if key == "site" {
            let v = value.trim();
            if v.is_empty() {
                continue;
            }
            if v.contains("://") {
                out.push(("endpoint".into(), v.to_owned()));
            } else if datadog && is_datadog_site(v) {
                out.push(("site".into(), v.to_owned()));
            } else {
                out.push(("endpoint".into(), format!("https://{v}")));
            }
        } else {
            out.push((key, value));
        }
    }
    if !out.iter().any(|(k, _)| k == "source") {
        out.push(("source".into(), "java".into()));
    }
    if !out.iter().any(|(k, _)| is_flush_on_panic(k)) {
        out.push(("flushOnPanic".into(), "false".into()));
    }
    out
}

/// The attribute naming `flush_on_panic`, in either spelling.
fn is_flush_on_panic(key: &str) -> bool {
    key == "flushOnPanic" || key == "flush_on_panic"
}

/// A Datadog site name (`datadoghq.com`, `us3.datadoghq.com`, `ddog-gov.com`), as the
/// `site` key takes it, rather than an intake host (`http-intake.logs.datadoghq.com`).
fn is_datadog_site(host: &str) -> bool {
    !host.starts_with("http-intake.")
        && (host.ends_with("datadoghq.com")
            || host.ends_with("datadoghq.eu")
            || host.ends_with("ddog-gov.com"))
}

/// The builder for an appender's attributes: defaults < attributes < `LOGSHIP_*`.
pub fn builder(pairs: Vec<(String, String)>) -> Result<Builder, ConfigError> {
    Layered::new()
        .attributes(LABEL, translate(pairs))
        .into_builder()
}

/// Starts the pipeline for an appender's attributes; its slot (the hand-over ring is
/// sized from `queue_capacity`, and producers wait for it as `block_timeout_ms` says).
pub fn open(pairs: Vec<(String, String)>) -> Result<Slot, OpenError> {
    let builder = builder(pairs).map_err(OpenError::Config)?;
    let ring_capacity = handover::capacity_for(builder.config().queue_capacity);
    let block = match builder.config().overflow {
        Overflow::Block(d) => d,
        _ => Duration::ZERO,
    };
    let (logship, guard) = builder.build().map_err(OpenError::Build)?;
    Ok(Slot {
        logship,
        guard,
        ring_capacity,
        block,
        handover: OnceLock::new(),
        ring_buffer: Mutex::new(None),
    })
}

#[cfg(test)]
mod tests {
    use super::translate;

    fn pairs(given: &[(&str, &str)]) -> Vec<(String, String)> {
        given
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn site_is_a_url_a_host_or_a_datadog_site_and_source_defaults_to_java() {
        assert_eq!(
            translate(pairs(&[("site", "http://127.0.0.1:9")])),
            pairs(&[
                ("endpoint", "http://127.0.0.1:9"),
                ("source", "java"),
                ("flushOnPanic", "false")
            ])
        );
        assert_eq!(
            translate(pairs(&[
                ("vendor", "datadog"),
                ("site", "http-intake.logs.datadoghq.eu")
            ])),
            pairs(&[
                ("vendor", "datadog"),
                ("endpoint", "https://http-intake.logs.datadoghq.eu"),
                ("source", "java"),
                ("flushOnPanic", "false")
            ])
        );
        assert_eq!(
            translate(pairs(&[("site", "us3.datadoghq.com"), ("source", "mule")])),
            pairs(&[
                ("site", "us3.datadoghq.com"),
                ("source", "mule"),
                ("flushOnPanic", "false")
            ])
        );
        assert_eq!(
            translate(pairs(&[("vendor", "splunk"), ("site", "hec.example.com")])),
            pairs(&[
                ("vendor", "splunk"),
                ("endpoint", "https://hec.example.com"),
                ("source", "java"),
                ("flushOnPanic", "false")
            ])
        );
    }

    #[test]
    fn flush_on_panic_is_off_unless_an_attribute_turns_it_on() {
        // The library's default is on (a Rust program's panic is usually its last act); a
        // JNI pipeline's is off, so that a panic caught on a Java thread never flushes
        // every pipeline of the JVM from that thread.
        assert!(logship::Logship::builder().config().flush_on_panic);
        let config = |given: &[(&str, &str)]| super::builder(pairs(given)).expect("valid");
        assert!(!config(&[]).config().flush_on_panic);
        assert!(!config(&[("vendor", "splunk")]).config().flush_on_panic);
        assert!(config(&[("flushOnPanic", "true")]).config().flush_on_panic);
        assert!(
            config(&[("flush_on_panic", "true")])
                .config()
                .flush_on_panic
        );
        assert!(!config(&[("flushOnPanic", "false")]).config().flush_on_panic);
    }

    #[test]
    fn a_bad_attribute_is_named_with_its_fix() {
        let err = super::builder(pairs(&[("lingerMillis", "soon")])).expect_err("invalid");
        let text = err.to_string();
        assert!(
            text.contains("linger_ms") && text.contains("whole number"),
            "{text}"
        );
        assert!(text.contains(super::LABEL), "{text}");
        let err = super::builder(pairs(&[("noSuchOption", "1")])).expect_err("unknown");
        assert!(err.to_string().contains("noSuchOption"), "{err}");
    }
}
