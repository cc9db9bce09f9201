//! Loki's rules for labels, tenants and basic auth, checked at start-up.
//!
//! Why it exists: Loki's limits (label names and values, labels per stream, tenant IDs)
//! fail at start-up with an error naming the option and the fix, not as a 400 from the
//! server; the encoder reads the parsed labels from here. Must never build a request, and
//! never show a password.

use crate::capture::record::cut;
use crate::config::Config;
use crate::error::ConfigError;

/// Loki's `max_label_names_per_series` default (docs/wire-formats.md 6.2).
pub(crate) const MAX_LABELS: usize = 15;
/// Loki's `max_label_name_length` default.
const MAX_LABEL_NAME_BYTES: usize = 1024;
/// Loki's `max_label_value_length` default.
const MAX_LABEL_VALUE_BYTES: usize = 2048;
/// Loki's tenant ID limit (length) and alphabet, besides ASCII letters and digits.
const MAX_TENANT_BYTES: usize = 150;
const TENANT_PUNCTUATION: &str = "!-_.*'()";

/// Whether `name` is a valid Loki label name: `[a-zA-Z_][a-zA-Z0-9_]*`.
pub(crate) fn is_label_name(name: &str) -> bool {
    let mut bytes = name.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// The static labels of `config`, parsed; errors name `loki_labels` and the fix.
pub(crate) fn static_labels(config: &Config) -> Result<Vec<(String, String)>, ConfigError> {
    const FIELD: &str = "loki_labels";
    let mut labels: Vec<(String, String)> = Vec::new();
    for item in &config.loki.labels {
        let Some((name, value)) = item.split_once('=') else {
            return Err(
                ConfigError::new(FIELD, item, "each label must be name=value")
                    .fix("write loki_labels = [\"env=prod\", \"team=core\"]"),
            );
        };
        let (name, value) = (name.trim(), value.trim());
        if !is_label_name(name) {
            return Err(ConfigError::new(
                FIELD,
                item,
                format!("label name {name:?} must match [a-zA-Z_][a-zA-Z0-9_]*"),
            )
            .fix("use letters, digits and underscores, not starting with a digit, e.g. env=prod"));
        }
        if name.starts_with("__") {
            return Err(ConfigError::new(
                FIELD,
                item,
                format!("label name {name:?} starts with \"__\", which Loki reserves"),
            )
            .fix(format!("rename it, e.g. {}", name.trim_start_matches('_'))));
        }
        if name.len() > MAX_LABEL_NAME_BYTES || value.len() > MAX_LABEL_VALUE_BYTES {
            return Err(ConfigError::new(
                FIELD,
                item,
                format!(
                    "Loki allows label names up to {MAX_LABEL_NAME_BYTES} bytes and values up to {MAX_LABEL_VALUE_BYTES} bytes"
                ),
            )
            .fix("shorten the label"));
        }
        if value.is_empty() {
            return Err(ConfigError::new(FIELD, item, "label value is empty")
                .fix(format!("give {name} a value, or leave the label out")));
        }
        let taken = name == "level"
            || (name == "service" && config.service.is_some())
            || (name == "env" && config.env.is_some());
        if taken || labels.iter().any(|(n, _)| n == name) {
            let why = if taken {
                "logship sets it (level from each event, service from `service`, env from `env`)"
            } else {
                "it is given twice"
            };
            return Err(ConfigError::new(
                FIELD,
                item,
                format!("duplicate label name {name:?}: {why}"),
            )
            .fix("give each label a distinct name"));
        }
        labels.push((name.to_owned(), value.to_owned()));
    }
    let own = 1 + usize::from(config.service.is_some()) + usize::from(config.env.is_some());
    if labels.len() + own > MAX_LABELS {
        let mut names = String::from("level");
        if config.service.is_some() {
            names.push_str(", service");
        }
        if config.env.is_some() {
            names.push_str(", env");
        }
        return Err(ConfigError::new(
            FIELD,
            config.loki.labels.join(","),
            format!(
                "{} labels plus logship's {own} ({names}) exceed Loki's {MAX_LABELS} labels per stream",
                labels.len(),
            ),
        )
        .fix(format!(
            "keep at most {} static labels; send the rest as tags (structured metadata)",
            MAX_LABELS - own
        )));
    }
    Ok(labels)
}

/// Loki-specific checks: labels, tenant, basic auth, the service and env labels' length.
pub(crate) fn validate(config: &Config) -> Result<(), ConfigError> {
    static_labels(config)?;
    for (key, value) in [("service", &config.service), ("env", &config.env)] {
        if let Some(value) = value {
            if value.len() > MAX_LABEL_VALUE_BYTES {
                return Err(ConfigError::new(
                    key,
                    cut(value, 64),
                    format!("is the Loki label {key}, at most {MAX_LABEL_VALUE_BYTES} bytes"),
                ));
            }
        }
    }
    if let Some(tenant) = &config.loki.tenant_id {
        let ok = tenant.len() <= MAX_TENANT_BYTES
            && tenant
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || TENANT_PUNCTUATION.contains(c))
            && tenant != "."
            && tenant != "..";
        if !ok {
            return Err(ConfigError::new(
                "tenant_id",
                tenant,
                format!(
                    "Loki tenant IDs are up to {MAX_TENANT_BYTES} of: letters, digits and {TENANT_PUNCTUATION}"
                ),
            )
            .fix("use the tenant (X-Scope-OrgID) your Loki expects, e.g. team-a"));
        }
    }
    match (&config.username, &config.password) {
        (Some(_), None) => Err(ConfigError::new(
            "password",
            "(none)",
            "basic auth needs a password with the username",
        )
        .fix("set password or LOGSHIP_PASSWORD (Grafana Cloud: an access token)")),
        (None, Some(_)) => Err(ConfigError::new(
            "username",
            "(none)",
            "basic auth needs a username with the password",
        )
        .fix("set username or LOGSHIP_USERNAME (Grafana Cloud: the instance ID)")),
        (Some(user), Some(_)) if user.contains(':') || user.chars().any(char::is_control) => {
            Err(ConfigError::new(
                "username",
                user,
                "a basic-auth user name may not contain ':' or control characters",
            ))
        }
        _ => Ok(()),
    }
}
