//! Datadog's unified service tagging variables, read for `vendor = datadog`.
//!
//! Every Datadog deployment (the Agent's admission controller, the Helm chart, the
//! tracers) sets `DD_SERVICE`, `DD_ENV`, `DD_VERSION` and `DD_TAGS`, and `DD_SITE` names
//! the account's site; logship reads them so its logs carry the same `service`, `env` and
//! `version` as the application's traces and metrics, which is what links them in
//! Datadog. Like every vendor's `env.rs`, this module only translates the
//! variables into logship options; the layering (`LOGSHIP_*` and explicit settings over
//! these, these over files) is `config/env.rs`'s. `DD_API_KEY` is the vendor's key
//! variable, read with `api_key` itself (`Vendor::api_key_env`). It must never
//! fail on a variable Datadog itself would accept.

use crate::config::env::{EnvSetting, EnvValue};

/// Each option and the variable it is read from.
const TEXT: [(&str, &str); 4] = [
    ("service", "DD_SERVICE"),
    ("env", "DD_ENV"),
    ("version", "DD_VERSION"),
    ("site", "DD_SITE"),
];

/// Reads every unified-service-tagging variable that is set and not blank.
pub(crate) fn read(env: &dyn Fn(&str) -> Option<String>) -> Vec<EnvValue> {
    let mut out = Vec::new();
    for (key, var) in TEXT {
        if let Some(value) = env(var)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
        {
            out.push(EnvValue {
                key,
                var,
                value: EnvSetting::Text(value),
            });
        }
    }
    if let Some(text) = env("DD_TAGS") {
        let tags = tags(&text);
        if !tags.is_empty() {
            out.push(EnvValue {
                key: "tags",
                var: "DD_TAGS",
                value: EnvSetting::Tags(tags),
            });
        }
    }
    out
}

/// `DD_TAGS` as the Datadog libraries read it: `key:value` entries separated by spaces or
/// commas (an entry without `:` is a tag of its own, kept as written).
fn tags(text: &str) -> Vec<String> {
    text.split(|c: char| c == ',' || c.is_whitespace())
        .map(str::trim)
        .filter(|t| !t.is_empty() && !t.starts_with(':'))
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_env(vars: &[(&str, &str)]) -> Vec<(&'static str, &'static str, String)> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        read(&|name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
            .into_iter()
            .map(|v| {
                let shown = match v.value {
                    EnvSetting::Text(t) => t,
                    EnvSetting::Tags(t) => t.join("|"),
                    other => format!("{other:?}"),
                };
                (v.key, v.var, shown)
            })
            .collect()
    }

    #[test]
    fn unified_service_tagging_variables_become_options() {
        let got = read_env(&[
            ("DD_SERVICE", " checkout "),
            ("DD_ENV", "prod"),
            ("DD_VERSION", "1.4.2"),
            ("DD_SITE", "datadoghq.eu"),
            ("DD_TAGS", "team:pay, region:eu-west-1 ,flag ,,"),
        ]);
        assert_eq!(
            got,
            [
                ("service", "DD_SERVICE", "checkout".to_owned()),
                ("env", "DD_ENV", "prod".to_owned()),
                ("version", "DD_VERSION", "1.4.2".to_owned()),
                ("site", "DD_SITE", "datadoghq.eu".to_owned()),
                (
                    "tags",
                    "DD_TAGS",
                    "team:pay|region:eu-west-1|flag".to_owned()
                ),
            ]
        );
        assert!(read_env(&[("DD_ENV", "  "), ("DD_TAGS", " , ")]).is_empty());
    }
}
