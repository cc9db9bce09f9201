//! `env` and `version` at every vendor's strict intake, in each vendor's own field
//! (docs/vendors.md, "Environment and version"): Datadog's `env:`/`version:` tags (which
//! win over a tag of the same name, as `DD_ENV` does over `DD_TAGS`), OTLP
//! `deployment.environment.name`/`service.version`, ECS `service.environment`/
//! `service.version`, Loki's `env` label and `service_version` metadata, and the OTel
//! names at New Relic, Dynatrace and Splunk. `DD_*` variables reach the same fields
//! through the layered configuration.

mod common;

use common::vendors::*;
use common::*;
use logship::{Layered, OtlpEncoding, Vendor};
use serde_json::Value;

fn ship_one(builder: logship::Builder, intake: &logship_intake::Intake) -> Value {
    let (logship, guard) = builder.build().unwrap();
    logship.push(event(1, 0)).unwrap();
    logship.flush(WAIT).unwrap();
    assert_clean(intake, &logship, 1);
    drop(guard);
    intake.events().remove(0).value
}

fn prepared(
    intake: &logship_intake::Intake,
    vendor: Vendor,
    encoding: Option<OtlpEncoding>,
) -> logship::Builder {
    for_vendor(vendor_builder(intake, vendor), vendor, encoding)
}

/// Where each vendor's intake shows the environment and the version of `v`.
fn env_and_version(vendor: Vendor, v: &Value) -> (Value, Value) {
    match vendor {
        Vendor::Datadog => {
            let tags: Vec<&str> = v["ddtags"].as_str().unwrap_or("").split(',').collect();
            let find = |k: &str| {
                let found: Vec<&str> = tags.iter().filter_map(|t| t.strip_prefix(k)).collect();
                assert!(found.len() <= 1, "{k} tagged twice: {tags:?}");
                found.first().map_or(Value::Null, |s| Value::from(*s))
            };
            (find("env:"), find("version:"))
        }
        Vendor::Splunk => (
            v["fields"]["deployment.environment.name"].clone(),
            v["fields"]["service.version"].clone(),
        ),
        Vendor::Loki => (
            v["labels"]["env"].clone(),
            v["metadata"]["service_version"].clone(),
        ),
        Vendor::Elasticsearch => (
            v["service.environment"].clone(),
            v["service.version"].clone(),
        ),
        Vendor::Otlp => (
            v["resource"]["deployment.environment.name"].clone(),
            v["resource"]["service.version"].clone(),
        ),
        Vendor::NewRelic => (
            v["common"]["deployment.environment.name"].clone(),
            v["common"]["service.version"].clone(),
        ),
        _ => (
            v["deployment.environment.name"].clone(),
            v["service.version"].clone(),
        ),
    }
}

#[test]
fn env_and_version_arrive_in_each_vendors_own_fields() {
    for &(vendor, encoding) in VENDOR_INTAKES {
        let intake = vendor_intake();
        // vendor_builder tags `env:prod`: the option must win over it where the names meet.
        let builder = prepared(&intake, vendor, encoding)
            .env("staging")
            .version("1.4.2");
        let v = ship_one(builder, &intake);
        let (env, version) = env_and_version(vendor, &v);
        assert_eq!(env, "staging", "{vendor:?} {encoding:?}: {v:#}");
        assert_eq!(version, "1.4.2", "{vendor:?} {encoding:?}: {v:#}");
        // Unset, nothing is written.
        let intake = vendor_intake();
        let v = ship_one(prepared(&intake, vendor, encoding), &intake);
        let (env, version) = env_and_version(vendor, &v);
        if vendor != Vendor::Datadog && vendor != Vendor::Loki {
            assert_eq!(env, Value::Null, "{vendor:?}: {v:#}");
        }
        assert_eq!(version, Value::Null, "{vendor:?}: {v:#}");
    }
}

/// The environment of a Datadog deployment, with `LOGSHIP_SERVICE` set too.
fn dd_env(var: &str) -> Option<String> {
    match var {
        "DD_SERVICE" => Some("from-dd".into()),
        "DD_ENV" => Some("prod".into()),
        "DD_VERSION" => Some("2.0.0".into()),
        "DD_TAGS" => Some("team:core region:eu".into()),
        "DD_SITE" => Some("datadoghq.eu".into()),
        // LOGSHIP_* wins over DD_*.
        "LOGSHIP_SERVICE" => Some("from-logship".into()),
        _ => None,
    }
}

#[test]
fn dd_variables_sit_under_logship_variables_and_over_files() {
    let file =
        "vendor = \"datadog\"\nversion = \"from-file\"\ntags = [\"team:file\", \"tier:web\"]\n";
    let resolved = Layered::new()
        .env(dd_env)
        .toml_str("test.toml", file)
        .resolve()
        .unwrap();
    let origin = |key: &str| resolved.origin(key).to_string();
    assert_eq!(origin("service"), "env LOGSHIP_SERVICE");
    assert_eq!(origin("env"), "env DD_ENV");
    assert_eq!(origin("version"), "env DD_VERSION");
    assert_eq!(origin("tags"), "env DD_TAGS");
    assert_eq!(origin("site"), "env DD_SITE");
    let c = &resolved.config;
    assert_eq!(c.service.as_deref(), Some("from-logship"));
    assert_eq!(c.env.as_deref(), Some("prod"));
    assert_eq!(c.version.as_deref(), Some("2.0.0"));
    assert_eq!(c.site.as_deref(), Some("datadoghq.eu"));
    // DD_TAGS wins per key over the file's tags; the file's other tags stay.
    assert_eq!(c.tags, ["tier:web", "team:core", "region:eu"]);

    // An explicit setting wins over DD_*; other vendors never read DD_*.
    let resolved = Layered::new()
        .env(dd_env)
        .toml_str("test.toml", file)
        .explicit_config(|c| c.env = Some("explicit".into()))
        .resolve()
        .unwrap();
    assert_eq!(resolved.config.env.as_deref(), Some("explicit"));
    assert_eq!(resolved.origin("env").to_string(), "explicit");
    let resolved = Layered::new()
        .env(dd_env)
        .toml_str("test.toml", "vendor = \"otlp\"\n")
        .resolve()
        .unwrap();
    assert_eq!(resolved.config.env, None);
    assert_eq!(resolved.config.version, None);
    assert_eq!(resolved.config.site, None);
}
