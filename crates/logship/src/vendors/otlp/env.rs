//! The OpenTelemetry SDK's environment variables, read for `vendor = otlp`.
//!
//! Services that already export traces or metrics with an OpenTelemetry SDK have their
//! collector configured through `OTEL_EXPORTER_OTLP_*`, `OTEL_SERVICE_NAME` and
//! `OTEL_RESOURCE_ATTRIBUTES` (often injected by a Kubernetes operator). logship reads
//! the same variables so its logs go where the SDK's telemetry goes without a second
//! configuration. This module only translates the variables into logship options; the
//! layering (`LOGSHIP_*` over these, these over files) lives in `config/env.rs` and
//! `config/layered.rs`. It must never show a header value (they carry tokens).

use percent_encoding::percent_decode_str;

use super::options::OtlpEncoding;
use crate::config::env::{EnvSetting, EnvValue};
use crate::error::ConfigError;
use crate::support::secret::Secret;

/// The path the specification appends to `OTEL_EXPORTER_OTLP_ENDPOINT` for logs.
const LOGS_PATH: &str = "v1/logs";
/// Each setting's variables: the logs signal's own first, then the general one.
const HEADERS: [&str; 2] = [
    "OTEL_EXPORTER_OTLP_LOGS_HEADERS",
    "OTEL_EXPORTER_OTLP_HEADERS",
];
const PROTOCOL: [&str; 2] = [
    "OTEL_EXPORTER_OTLP_LOGS_PROTOCOL",
    "OTEL_EXPORTER_OTLP_PROTOCOL",
];
const TIMEOUT: [&str; 2] = [
    "OTEL_EXPORTER_OTLP_LOGS_TIMEOUT",
    "OTEL_EXPORTER_OTLP_TIMEOUT",
];
const CERTIFICATE: [&str; 2] = [
    "OTEL_EXPORTER_OTLP_LOGS_CERTIFICATE",
    "OTEL_EXPORTER_OTLP_CERTIFICATE",
];
const CLIENT_CERTIFICATE: [&str; 2] = [
    "OTEL_EXPORTER_OTLP_LOGS_CLIENT_CERTIFICATE",
    "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE",
];
const CLIENT_KEY: [&str; 2] = [
    "OTEL_EXPORTER_OTLP_LOGS_CLIENT_KEY",
    "OTEL_EXPORTER_OTLP_CLIENT_KEY",
];
const COMPRESSION: [&str; 2] = [
    "OTEL_EXPORTER_OTLP_LOGS_COMPRESSION",
    "OTEL_EXPORTER_OTLP_COMPRESSION",
];

/// The first of `vars` that is set and not blank, with its value.
fn first(
    env: &dyn Fn(&str) -> Option<String>,
    vars: &[&'static str],
) -> Option<(&'static str, String)> {
    vars.iter().find_map(|&var| {
        env(var)
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty())
            .map(|v| (var, v))
    })
}

/// Reads every supported OpenTelemetry variable that is set. Values that cannot mean
/// anything (a header without `=`, an unknown protocol) fail here, naming the variable.
pub(crate) fn read(env: &dyn Fn(&str) -> Option<String>) -> Result<Vec<EnvValue>, ConfigError> {
    let mut out = Vec::new();
    let mut push = |key, var, value| out.push(EnvValue { key, var, value });
    if let Some((var, url)) = first(env, &["OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"]) {
        // The signal's own endpoint is used as given.
        push("endpoint", var, EnvSetting::Text(url));
    } else if let Some((var, base)) = first(env, &["OTEL_EXPORTER_OTLP_ENDPOINT"]) {
        // The base endpoint gets the signal's path appended to whatever path it has.
        let url = format!("{}/{LOGS_PATH}", base.trim_end_matches('/'));
        push("endpoint", var, EnvSetting::Text(url));
    }
    if let Some((var, text)) = first(env, &HEADERS) {
        let headers = pairs("headers", var, &text, true)?
            .into_iter()
            .map(|(k, v)| (k, Secret::new(v)))
            .collect();
        push("headers", var, EnvSetting::Headers(headers));
    }
    if let Some((var, protocol)) = first(env, &PROTOCOL) {
        push(
            "otlp_encoding",
            var,
            EnvSetting::Text(encoding(var, &protocol)?.name().into()),
        );
    }
    if let Some((var, ms)) = first(env, &TIMEOUT) {
        push("request_timeout_ms", var, EnvSetting::Text(ms));
    }
    if let Some((var, compression)) = first(env, &COMPRESSION) {
        push(
            "gzip",
            var,
            EnvSetting::Text(gzip(var, &compression)?.into()),
        );
    }
    // TLS files, as the SDK reads them: the CA bundle, the client certificate and key.
    for (key, vars) in [
        ("tls_ca_file", &CERTIFICATE),
        ("tls_client_cert", &CLIENT_CERTIFICATE),
        ("tls_client_key", &CLIENT_KEY),
    ] {
        if let Some((var, path)) = first(env, vars) {
            push(key, var, EnvSetting::Text(path));
        }
    }
    let mut service = first(env, &["OTEL_SERVICE_NAME"]);
    if let Some((var, text)) = first(env, &["OTEL_RESOURCE_ATTRIBUTES"]) {
        let mut tags = Vec::new();
        for (k, v) in pairs("tags", var, &text, false)? {
            if k == "service.name" {
                service = service.or(Some((var, v)));
            } else {
                tags.push(format!("{k}:{v}"));
            }
        }
        if !tags.is_empty() {
            push("tags", var, EnvSetting::Tags(tags));
        }
    }
    if let Some((var, name)) = service {
        push("service", var, EnvSetting::Text(name));
    }
    Ok(out)
}

/// Parses the specification's `key1=value1,key2=value2` list (W3C Baggage without
/// properties; values percent-decoded). `secret` hides the values in errors.
fn pairs(
    key: &'static str,
    var: &'static str,
    text: &str,
    secret: bool,
) -> Result<Vec<(String, String)>, ConfigError> {
    let shown = if secret { "[redacted]" } else { text };
    text.split(',')
        .filter(|item| !item.trim().is_empty())
        .map(|item| {
            let (k, v) = item
                .split_once('=')
                .filter(|(k, _)| !k.trim().is_empty())
                .ok_or_else(|| {
                    ConfigError::new(key, shown, "each entry must be key=value")
                        .fix("separate entries with ',', e.g. 'key1=value1,key2=value2'")
                        .origin(from(var))
                })?;
            let decode = |s: &str| {
                percent_decode_str(s.trim())
                    .decode_utf8()
                    .map(|s| s.into_owned())
                    .map_err(|_| {
                        ConfigError::new(key, shown, "a percent-encoded value is not UTF-8")
                            .fix("percent-encode the UTF-8 bytes of the value")
                            .origin(from(var))
                    })
            };
            Ok((decode(k)?, decode(v)?))
        })
        .collect()
}

/// An error's origin, in the form `config_file::Origin` displays it.
fn from(var: &str) -> String {
    format!("env {var}")
}

/// The body encoding for an OTLP protocol name.
fn encoding(var: &'static str, protocol: &str) -> Result<OtlpEncoding, ConfigError> {
    match protocol {
        "http/protobuf" => Ok(OtlpEncoding::Protobuf),
        "http/json" => Ok(OtlpEncoding::Json),
        "grpc" => Err(ConfigError::new(
            "otlp_encoding",
            protocol,
            "logship speaks OTLP/HTTP, not OTLP/gRPC",
        )
        .fix(
            "point logship at the collector's OTLP/HTTP receiver (port 4318) and set \
             OTEL_EXPORTER_OTLP_LOGS_PROTOCOL=http/protobuf (or LOGSHIP_OTLP_ENCODING)",
        )
        .origin(from(var))),
        other => {
            Err(
                ConfigError::new("otlp_encoding", other, "must be http/protobuf or http/json")
                    .fix("set http/protobuf (the default) or http/json")
                    .origin(from(var)),
            )
        }
    }
}

/// The `gzip` option's text for an OTLP compression name.
fn gzip(var: &'static str, compression: &str) -> Result<&'static str, ConfigError> {
    match compression {
        "gzip" => Ok("true"),
        "none" => Ok("false"),
        other => Err(ConfigError::new("gzip", other, "must be gzip or none")
            .fix("set gzip (logship's default) or none")
            .origin(from(var))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_env(vars: &[(&str, &str)]) -> Result<Vec<EnvValue>, ConfigError> {
        let vars: Vec<(String, String)> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        read(&move |name: &str| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()))
    }

    fn text_of(values: &[EnvValue], key: &str) -> Option<(String, &'static str)> {
        values
            .iter()
            .find(|v| v.key == key)
            .map(|v| match &v.value {
                EnvSetting::Text(t) => (t.clone(), v.var),
                other => panic!("{key} is not text: {other:?}"),
            })
    }

    #[test]
    fn the_base_endpoint_gets_the_logs_path_and_the_logs_endpoint_is_used_as_given() {
        let base = |url| {
            text_of(
                &read_env(&[("OTEL_EXPORTER_OTLP_ENDPOINT", url)]).unwrap(),
                "endpoint",
            )
        };
        assert_eq!(
            base("http://collector:4318"),
            Some((
                "http://collector:4318/v1/logs".into(),
                "OTEL_EXPORTER_OTLP_ENDPOINT"
            ))
        );
        assert_eq!(
            base("https://gw.example/otlp/").unwrap().0,
            "https://gw.example/otlp/v1/logs"
        );
        let both = read_env(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://a:4318"),
            (
                "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
                "http://b:4318/custom/logs",
            ),
        ])
        .unwrap();
        assert_eq!(
            text_of(&both, "endpoint"),
            Some((
                "http://b:4318/custom/logs".into(),
                "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT"
            ))
        );
    }

    #[test]
    fn headers_are_percent_decoded_and_the_logs_headers_win() {
        let values = read_env(&[
            ("OTEL_EXPORTER_OTLP_HEADERS", "x-generic=1"),
            (
                "OTEL_EXPORTER_OTLP_LOGS_HEADERS",
                "Authorization=Bearer%20s3cret , x-tenant=a%2Cb",
            ),
        ])
        .unwrap();
        let headers = values.iter().find(|v| v.key == "headers").unwrap();
        assert_eq!(headers.var, "OTEL_EXPORTER_OTLP_LOGS_HEADERS");
        let EnvSetting::Headers(h) = &headers.value else {
            panic!("{headers:?}")
        };
        let plain: Vec<(&str, &str)> = h.iter().map(|(k, v)| (k.as_str(), v.expose())).collect();
        assert_eq!(
            plain,
            [("Authorization", "Bearer s3cret"), ("x-tenant", "a,b")]
        );
        assert!(!format!("{values:?}").contains("s3cret"));
    }

    #[test]
    fn a_bad_header_list_names_the_variable_and_hides_the_values() {
        let e = read_env(&[("OTEL_EXPORTER_OTLP_HEADERS", "Authorization: Bearer s3cret")])
            .unwrap_err();
        let msg = e.to_string();
        assert!(msg.starts_with("headers = [redacted]"), "{msg}");
        assert!(
            msg.contains("[from env OTEL_EXPORTER_OTLP_HEADERS]"),
            "{msg}"
        );
        assert!(msg.contains("key=value"), "{msg}");
        assert!(!msg.contains("s3cret"), "{msg}");
    }

    #[test]
    fn protocols_map_to_encodings_and_grpc_is_refused_with_the_fix() {
        let enc = |p| match read_env(&[("OTEL_EXPORTER_OTLP_PROTOCOL", p)])
            .map(|v| v.into_iter().next().map(|v| v.value))
        {
            Ok(Some(EnvSetting::Text(e))) => Ok(e.parse::<OtlpEncoding>().expect("a name")),
            Ok(other) => panic!("{other:?}"),
            Err(e) => Err(e.to_string()),
        };
        assert_eq!(enc("http/protobuf"), Ok(OtlpEncoding::Protobuf));
        assert_eq!(enc("http/json"), Ok(OtlpEncoding::Json));
        let grpc = enc("grpc").unwrap_err();
        assert!(
            grpc.starts_with("otlp_encoding = grpc: logship speaks OTLP/HTTP"),
            "{grpc}"
        );
        assert!(
            grpc.ends_with("[from env OTEL_EXPORTER_OTLP_PROTOCOL]"),
            "{grpc}"
        );
        assert!(grpc.contains("port 4318"), "{grpc}");
        assert!(enc("thrift")
            .unwrap_err()
            .contains("must be http/protobuf or http/json"));
    }

    #[test]
    fn the_service_name_comes_from_its_variable_before_the_resource_attributes() {
        let attrs = (
            "OTEL_RESOURCE_ATTRIBUTES",
            "service.name=from-attrs,deployment.environment=prod,team=pay%20ments",
        );
        let values = read_env(&[attrs]).unwrap();
        assert_eq!(
            text_of(&values, "service"),
            Some(("from-attrs".into(), "OTEL_RESOURCE_ATTRIBUTES"))
        );
        let tags = values.iter().find(|v| v.key == "tags").unwrap();
        assert!(
            matches!(&tags.value, EnvSetting::Tags(t) if t == &["deployment.environment:prod", "team:pay ments"])
        );
        let values = read_env(&[attrs, ("OTEL_SERVICE_NAME", "checkout")]).unwrap();
        assert_eq!(
            text_of(&values, "service"),
            Some(("checkout".into(), "OTEL_SERVICE_NAME"))
        );
    }

    #[test]
    fn timeout_and_compression_become_their_options() {
        let values = read_env(&[
            ("OTEL_EXPORTER_OTLP_TIMEOUT", "10000"),
            ("OTEL_EXPORTER_OTLP_LOGS_TIMEOUT", "2500"),
            ("OTEL_EXPORTER_OTLP_COMPRESSION", "none"),
        ])
        .unwrap();
        assert_eq!(
            text_of(&values, "request_timeout_ms"),
            Some(("2500".into(), "OTEL_EXPORTER_OTLP_LOGS_TIMEOUT"))
        );
        assert_eq!(text_of(&values, "gzip").unwrap().0, "false");
        let e = read_env(&[("OTEL_EXPORTER_OTLP_COMPRESSION", "zstd")]).unwrap_err();
        assert!(e.to_string().contains("must be gzip or none"), "{e}");
    }

    #[test]
    fn certificate_variables_set_the_tls_files_the_logs_forms_first() {
        let values = read_env(&[
            ("OTEL_EXPORTER_OTLP_CERTIFICATE", "/etc/ca.pem"),
            ("OTEL_EXPORTER_OTLP_LOGS_CERTIFICATE", "/etc/logs-ca.pem"),
            ("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE", "/etc/client.pem"),
            ("OTEL_EXPORTER_OTLP_LOGS_CLIENT_KEY", "/etc/client.key"),
        ])
        .unwrap();
        assert_eq!(
            text_of(&values, "tls_ca_file"),
            Some((
                "/etc/logs-ca.pem".into(),
                "OTEL_EXPORTER_OTLP_LOGS_CERTIFICATE"
            ))
        );
        assert_eq!(
            text_of(&values, "tls_client_cert"),
            Some((
                "/etc/client.pem".into(),
                "OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE"
            ))
        );
        assert_eq!(
            text_of(&values, "tls_client_key"),
            Some((
                "/etc/client.key".into(),
                "OTEL_EXPORTER_OTLP_LOGS_CLIENT_KEY"
            ))
        );
    }

    #[test]
    fn nothing_set_reads_nothing() {
        assert!(read_env(&[("OTEL_SERVICE_NAME", "  ")]).unwrap().is_empty());
    }
}
