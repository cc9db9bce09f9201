//! Vendor tables and encoders checked against docs/wire-formats.md.

use super::*;
use crate::capture::record::Level;

fn config(vendor: Vendor) -> Config {
    Config {
        vendor,
        api_key: Some(Secret::new("k-123")),
        hostname: Some("web-1".into()),
        service: Some("checkout".into()),
        tags: vec!["env:prod".into(), "team:pay".into()],
        ..Config::default()
    }
}

fn with_endpoint(vendor: Vendor, endpoint: &str) -> Config {
    Config {
        endpoint: Some(endpoint.into()),
        ..config(vendor)
    }
}

fn sample() -> Record {
    let mut r = Record::new(Level::Warn, "app::pay");
    r.set_id(Some(crate::capture::record::EventId::from_parts(0xabc, 1)))
        .set_timestamp_nanos(1_717_171_717_123_456_789)
        .message("paid \"x\"")
        .field("order_id", 42u64)
        .field("status", "shadowed")
        .span("request")
        .field("id", 7i64);
    r
}

/// The id of [`sample`], as every vendor writes it.
const SAMPLE_ID: &str = "0000000000000abc0000000000000001";

fn body(vendor: Vendor, endpoint: Option<&str>) -> String {
    let mut c = config(vendor);
    c.endpoint = endpoint.map(str::to_owned);
    let codec = Codec::new(&c).unwrap();
    String::from_utf8(codec.encode(&[sample(), sample()])).unwrap()
}

#[test]
fn response_tables_match_vendors_md() {
    use Outcome::*;
    let cases: &[(Vendor, u16, Outcome)] = &[
        (Vendor::Datadog, 202, Delivered),
        (Vendor::Datadog, 400, Permanent),
        (Vendor::Datadog, 401, Permanent),
        (Vendor::Datadog, 403, Permanent),
        (Vendor::Datadog, 408, Retry),
        (Vendor::Datadog, 413, TooLarge),
        (Vendor::Datadog, 429, Retry),
        (Vendor::Datadog, 500, Retry),
        (Vendor::Datadog, 503, Retry),
        (Vendor::Splunk, 200, Delivered),
        (Vendor::Splunk, 401, Permanent),
        (Vendor::Splunk, 403, Permanent),
        (Vendor::Splunk, 400, Permanent),
        (Vendor::Splunk, 413, TooLarge),
        (Vendor::Splunk, 500, Retry),
        (Vendor::Splunk, 503, Retry),
        (Vendor::NewRelic, 202, Delivered),
        (Vendor::NewRelic, 400, Permanent),
        (Vendor::NewRelic, 403, Permanent),
        (Vendor::NewRelic, 404, Permanent),
        (Vendor::NewRelic, 408, Retry),
        (Vendor::NewRelic, 411, Permanent),
        (Vendor::NewRelic, 413, TooLarge),
        (Vendor::NewRelic, 415, Permanent),
        (Vendor::NewRelic, 429, Retry),
        (Vendor::NewRelic, 500, Retry),
        (Vendor::Dynatrace, 204, Delivered),
        (Vendor::Dynatrace, 200, Partial),
        (Vendor::Dynatrace, 400, Permanent),
        (Vendor::Dynatrace, 401, Permanent),
        (Vendor::Dynatrace, 402, Permanent),
        (Vendor::Dynatrace, 413, TooLarge),
        (Vendor::Dynatrace, 429, Retry),
        (Vendor::Dynatrace, 501, Permanent),
        (Vendor::Dynatrace, 502, Retry),
        (Vendor::Dynatrace, 503, Retry),
        (Vendor::Dynatrace, 504, Retry),
    ];
    for &(vendor, status, want) in cases {
        let endpoint = "https://intake.example";
        let codec = Codec::new(&with_endpoint(vendor, endpoint)).unwrap();
        assert_eq!(codec.classify(status, b""), want, "{vendor:?} {status}");
    }
}

#[test]
fn default_urls_per_site_and_region() {
    let dd = |site: Option<&str>| {
        let mut c = config(Vendor::Datadog);
        c.site = site.map(str::to_owned);
        Codec::new(&c).unwrap().url().to_owned()
    };
    assert_eq!(
        dd(None),
        "https://http-intake.logs.datadoghq.com/api/v2/logs"
    );
    assert_eq!(
        dd(Some("datadoghq.eu")),
        "https://http-intake.logs.datadoghq.eu/api/v2/logs"
    );
    assert_eq!(
        dd(Some("us2.ddog-gov.com")),
        "https://http-intake.logs.us2.ddog-gov.com/api/v2/logs"
    );
    let nr = |region: &str| {
        let mut c = config(Vendor::NewRelic);
        c.region = Some(region.into());
        Codec::new(&c).unwrap().url().to_owned()
    };
    assert_eq!(nr("us"), "https://log-api.newrelic.com/log/v1");
    assert_eq!(nr("eu"), "https://log-api.eu.newrelic.com/log/v1");
    assert_eq!(nr("jp"), "https://log-api.jp.nr-data.net/log/v1");
    assert_eq!(nr("fedramp"), "https://gov-log-api.newrelic.com/log/v1");
}

#[test]
fn an_endpoint_without_a_path_gets_the_vendor_path() {
    let url = |v, e| Codec::new(&with_endpoint(v, e)).unwrap().url().to_owned();
    assert_eq!(
        url(Vendor::Splunk, "https://hec:8088"),
        "https://hec:8088/services/collector/event"
    );
    assert_eq!(
        url(Vendor::Splunk, "https://hec:8088/"),
        "https://hec:8088/services/collector/event"
    );
    assert_eq!(
        url(Vendor::Dynatrace, "https://x.live.dynatrace.com"),
        "https://x.live.dynatrace.com/api/v2/logs/ingest"
    );
    assert_eq!(
        url(Vendor::Datadog, "http://127.0.0.1:9"),
        "http://127.0.0.1:9/api/v2/logs"
    );
    assert_eq!(
        url(Vendor::NewRelic, "http://127.0.0.1:9/custom"),
        "http://127.0.0.1:9/custom"
    );
}

#[test]
fn validation_names_the_field_and_the_fix() {
    let mut c = config(Vendor::Datadog);
    c.api_key = None;
    assert_eq!(
        c.validate().unwrap_err().to_string(),
        "api_key = (none): vendor datadog needs an API key (set api_key or DD_API_KEY)"
    );
    let mut c = config(Vendor::Datadog);
    c.site = Some("datadog.com".into());
    assert!(c
        .validate()
        .unwrap_err()
        .to_string()
        .starts_with("site = datadog.com: is not a Datadog site (use one of: datadoghq.com,"));
    let mut c = config(Vendor::NewRelic);
    c.region = Some("asia".into());
    assert_eq!(
        c.validate().unwrap_err().to_string(),
        "region = asia: is not a New Relic region (use one of: us, eu, jp, fedramp)"
    );
    let c = config(Vendor::Splunk);
    assert!(c.validate().unwrap_err().to_string().starts_with("endpoint = (none): an endpoint URL is required (set endpoint to the intake's URL, e.g. https://splunk.example.com:8088"));
}

#[test]
fn api_key_comes_from_the_vendors_own_variable_then_logship_api_key() {
    let mut c = config(Vendor::Splunk);
    c.api_key = None;
    let env = |vars: &'static [(&'static str, &'static str)]| {
        move |k: &str| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    };
    assert_eq!(
        c.resolve_api_key(env(&[("SPLUNK_HEC_TOKEN", "a"), ("LOGSHIP_API_KEY", "b")]))
            .unwrap()
            .expose(),
        "a"
    );
    assert_eq!(
        c.resolve_api_key(env(&[("LOGSHIP_API_KEY", "b")]))
            .unwrap()
            .expose(),
        "b"
    );
    assert!(c.resolve_api_key(env(&[("DD_API_KEY", "c")])).is_none());
    c.api_key = Some("explicit".into());
    assert_eq!(
        c.resolve_api_key(env(&[("SPLUNK_HEC_TOKEN", "a")]))
            .unwrap()
            .expose(),
        "explicit"
    );
}

#[test]
fn datadog_body_is_an_array_of_documented_entries() {
    let v: serde_json::Value = serde_json::from_str(&body(Vendor::Datadog, None)).unwrap();
    let e = &v[0];
    assert_eq!(v.as_array().unwrap().len(), 2);
    assert_eq!(e["message"], "paid \"x\"");
    assert_eq!(e["status"], "warning");
    assert_eq!(e["timestamp"], 1_717_171_717_123u64);
    assert_eq!(e["service"], "checkout");
    assert_eq!(e["ddsource"], "rust");
    assert_eq!(e["hostname"], "web-1");
    assert_eq!(e["ddtags"], "env:prod,team:pay");
    assert_eq!(e["logger.name"], "app::pay");
    assert_eq!(e["order_id"], 42);
    assert_eq!(e["field.status"], "shadowed");
    assert_eq!(e["id"], 7, "span fields at the root");
}

#[test]
fn splunk_body_is_concatenated_events_with_seconds() {
    let text = body(Vendor::Splunk, Some("https://hec:8088"));
    assert!(!text.starts_with('['));
    let events: Vec<serde_json::Value> = serde_json::Deserializer::from_str(&text)
        .into_iter()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(events.len(), 2);
    let e = &events[0];
    assert_eq!(e["time"].as_f64().unwrap(), 1_717_171_717.123);
    assert_eq!(e["host"], "web-1");
    assert_eq!(e["source"], "rust");
    assert_eq!(e["sourcetype"], "_json");
    assert_eq!(e["event"]["message"], "paid \"x\"");
    assert_eq!(e["event"]["level"], "WARN");
    assert_eq!(e["event"]["order_id"], 42);
    assert_eq!(
        e["fields"],
        serde_json::json!({"service": "checkout", "env": "prod", "team": "pay", "logship.id": SAMPLE_ID})
    );
}

#[test]
fn new_relic_body_is_the_detailed_format_in_milliseconds() {
    let v: serde_json::Value = serde_json::from_str(&body(Vendor::NewRelic, None)).unwrap();
    let block = &v[0];
    assert_eq!(
        block["common"]["attributes"],
        serde_json::json!({"hostname": "web-1", "service": "checkout", "logtype": "rust", "env": "prod", "team": "pay"})
    );
    let log = &block["logs"][0];
    assert_eq!(log["timestamp"], 1_717_171_717_123u64);
    assert_eq!(log["message"], "paid \"x\"");
    assert_eq!(log["attributes"]["level"], "WARN");
    assert_eq!(log["attributes"]["status"], "shadowed");
    assert_eq!(log["attributes"]["id"], 7);
    for value in log["attributes"].as_object().unwrap().values() {
        assert!(!value.is_array() && !value.is_object());
    }
}

#[test]
fn dynatrace_body_is_an_array_of_records() {
    let v: serde_json::Value =
        serde_json::from_str(&body(Vendor::Dynatrace, Some("https://x"))).unwrap();
    let r = &v[1];
    assert_eq!(r["content"], "paid \"x\"");
    assert_eq!(r["timestamp"], "2024-05-31T16:08:37.123Z");
    assert_eq!(r["severity"], "WARN");
    assert_eq!(r["log.source"], "rust");
    assert_eq!(r["service.name"], "checkout");
    assert_eq!(r["host.name"], "web-1");
    assert_eq!(r["field.status"], "shadowed");
    assert_eq!(r["env"], "prod");
}

#[test]
fn auth_headers_carry_the_key_and_debug_never_shows_it() {
    let expect = [
        (Vendor::Datadog, "DD-API-KEY", "k-123"),
        (Vendor::Splunk, "Authorization", "Splunk k-123"),
        (Vendor::NewRelic, "Api-Key", "k-123"),
        (Vendor::Dynatrace, "Authorization", "Api-Token k-123"),
    ];
    for (vendor, name, value) in expect {
        let codec = Codec::new(&with_endpoint(vendor, "https://x")).unwrap();
        let header = codec.headers().iter().find(|(n, _)| n == name).unwrap();
        assert_eq!(header.1.expose(), value);
        assert!(!format!("{codec:?}").contains("k-123"));
    }
}

#[test]
fn batches_for_a_wire_limited_intake_follow_the_observed_compression_ratio() {
    let mut c = config(Vendor::NewRelic);
    c.max_batch_bytes = 64 << 20;
    let codec = Codec::new(&c).unwrap();
    // Before any compression is seen, a batch may not exceed the wire limit raw.
    assert_eq!(codec.body_budget(), 1_000_000);
    codec.note_compression(6_000_000, 1_000_000);
    assert_eq!(codec.body_budget(), 5_100_000, "6x ratio with 15% headroom");
    codec.note_compression(1_000, 2_000); // incompressible: never below the wire limit
    assert_eq!(codec.body_budget(), 1_000_000);
    // Intakes without a wire limit keep their raw limit.
    let dd = Codec::new(&config(Vendor::Datadog)).unwrap();
    dd.note_compression(6_000_000, 1_000_000);
    assert_eq!(dd.body_budget(), 1 << 20);
}

#[test]
fn elasticsearch_body_is_create_pairs_with_a_final_newline() {
    let text = body(Vendor::Elasticsearch, Some("http://es:9200"));
    assert!(text.ends_with("}\n"), "the last line ends with a newline");
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 4, "an action and a source line per event");
    assert_eq!(
        lines[0],
        serde_json::json!({"create": {"_index": "logs-logship-default", "_id": SAMPLE_ID}})
    );
    let d = &lines[1];
    assert_eq!(d["@timestamp"], "2024-05-31T16:08:37.123Z");
    assert_eq!(d["message"], "paid \"x\"");
    assert_eq!(d["log.level"], "WARN");
    assert_eq!(d["log.logger"], "app::pay");
    assert_eq!(d["service.name"], "checkout");
    assert_eq!(d["host.name"], "web-1");
    assert_eq!(d["event.dataset"], "rust");
    assert_eq!(
        d["labels"],
        serde_json::json!({"env": "prod", "team": "pay"})
    );
    assert_eq!(d["order_id"], 42);
    assert_eq!(d["status"], "shadowed", "status is not reserved in ECS");
    assert_eq!(d["id"], 7);
    let codec = Codec::new(&with_endpoint(Vendor::Elasticsearch, "http://es:9200")).unwrap();
    assert_eq!(
        codec.url(),
        "http://es:9200/_bulk?filter_path=errors,items.*.status,items.*.error.type,items.*.error.reason"
    );
    let codec = Codec::new(&with_endpoint(
        Vendor::Elasticsearch,
        "http://es:9200?pipeline=logs",
    ))
    .unwrap();
    assert!(
        codec
            .url()
            .starts_with("http://es:9200/_bulk?pipeline=logs&filter_path=errors,items.*.status,"),
        "{}",
        codec.url()
    );
    assert_eq!(codec.content_type(), "application/x-ndjson");
}

#[test]
fn elasticsearch_reserved_and_metadata_fields_are_renamed() {
    let mut r = Record::new(Level::Info, "t");
    r.message("m")
        .field("_id", "mine")
        .field("log", "text")
        .field("message", "dup")
        .field("@timestamp", "x");
    let codec = Codec::new(&with_endpoint(Vendor::Elasticsearch, "http://es:9200")).unwrap();
    let text = String::from_utf8(codec.encode(&[r])).unwrap();
    let doc: serde_json::Value = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
    assert_eq!(doc["field._id"], "mine");
    assert_eq!(doc["field.log"], "text");
    assert_eq!(doc["field.message"], "dup");
    assert_eq!(doc["field.@timestamp"], "x");
    assert_eq!(doc["message"], "m");
    assert!(doc.get("_id").is_none());
}

#[test]
fn elasticsearch_auth_is_basic_or_api_key_or_none_and_never_shown() {
    let es = |username: Option<&str>, password: Option<&str>, key: Option<&str>| Config {
        username: username.map(str::to_owned),
        password: password.map(Secret::new),
        api_key: key.map(Secret::new),
        ..with_endpoint(Vendor::Elasticsearch, "http://es:9200")
    };
    let auth = |c: &Config| {
        c.validate().unwrap();
        let codec = Codec::new(c).unwrap();
        assert!(!format!("{codec:?} {c:?}").contains("s3cret"));
        codec
            .headers()
            .iter()
            .find(|(n, _)| n == "Authorization")
            .map(|(_, v)| v.expose().to_owned())
    };
    assert_eq!(
        auth(&es(Some("elastic"), Some("s3cret"), None)).as_deref(),
        Some("Basic ZWxhc3RpYzpzM2NyZXQ=")
    );
    assert_eq!(
        auth(&es(None, None, Some("s3cret=="))).as_deref(),
        Some("ApiKey s3cret==")
    );
    assert_eq!(auth(&es(None, None, None)), None, "auth is optional");
    for (c, want) in [
        (
            es(Some("elastic"), None, None),
            "password = (none): basic auth needs a password",
        ),
        (
            es(None, Some("s3cret"), None),
            "username = (none): basic auth needs a username",
        ),
        (
            es(Some("elastic"), Some("s3cret"), Some("k")),
            "api_key = [redacted]: both an API key and a username/password are set",
        ),
        (
            es(Some("a:b"), Some("s3cret"), None),
            "username = a:b: may not contain ':'",
        ),
    ] {
        let err = c.validate().unwrap_err().to_string();
        assert!(err.starts_with(want), "{err}");
        assert!(!err.contains("s3cret"), "{err}");
    }
}

#[test]
fn elasticsearch_date_patterns_name_the_index_per_event() {
    let c = Config {
        elasticsearch: crate::config::ElasticsearchOptions {
            index: Some("logs-%Y.%m.%d".into()),
        },
        ..with_endpoint(Vendor::Elasticsearch, "http://es:9200")
    };
    c.validate().unwrap();
    let codec = Codec::new(&c).unwrap();
    let at = |nanos: u64| {
        let mut r = Record::new(Level::Info, "t");
        r.set_id(None).set_timestamp_nanos(nanos).message("m");
        r
    };
    // 2024-05-31T23:59:59.999Z and one millisecond later.
    let text = String::from_utf8(
        codec.encode(&[at(1_717_199_999_999_000_000), at(1_717_200_000_000_000_000)]),
    )
    .unwrap();
    let actions: Vec<&str> = text.lines().step_by(2).collect();
    assert_eq!(
        actions,
        [
            r#"{"create":{"_index":"logs-2024.05.31"}}"#,
            r#"{"create":{"_index":"logs-2024.06.01"}}"#
        ]
    );
    let bad = Config {
        elasticsearch: crate::config::ElasticsearchOptions {
            index: Some("Logs-%Y".into()),
        },
        ..c
    };
    assert!(bad
        .validate()
        .unwrap_err()
        .to_string()
        .starts_with("index = Logs-%Y: must be lower case"));
}

#[test]
fn every_vendor_writes_the_event_id_under_its_name_and_none_with_event_id_off() {
    for &vendor in Vendor::ALL {
        let mut c = with_endpoint(vendor, "http://intake:9");
        let name = match vendor {
            Vendor::Elasticsearch => "\"_id\":",
            Vendor::Otlp => "log.record.uid",
            Vendor::Loki => "\"logship_id\":",
            _ => "\"logship.id\":",
        };
        for otlp_json in [false, true] {
            c.otlp.encoding = if otlp_json {
                crate::config::OtlpEncoding::Json
            } else {
                crate::config::OtlpEncoding::Protobuf
            };
            for on in [true, false] {
                c.event_id = on;
                let codec = Codec::new(&c).unwrap();
                let body = String::from_utf8_lossy(&codec.encode(&[sample()])).into_owned();
                assert_eq!(
                    body.contains(SAMPLE_ID),
                    on,
                    "{vendor:?} event_id={on}: {body}"
                );
                assert_eq!(body.contains(name), on, "{vendor:?} event_id={on}: {body}");
            }
        }
    }
}

#[test]
fn an_event_without_a_logger_gets_no_made_up_one_and_every_body_stays_valid_json() {
    for &vendor in Vendor::ALL {
        let key = match vendor {
            Vendor::Datadog | Vendor::Dynatrace | Vendor::NewRelic => "\"logger.name\":",
            Vendor::Elasticsearch => "\"log.logger\":",
            Vendor::Splunk => "\"logger\":",
            Vendor::Otlp => "\"scope\":{\"name\":",
            _ => "\"target\":",
        };
        let mut c = with_endpoint(vendor, "http://intake:9");
        c.otlp.encoding = crate::config::OtlpEncoding::Json;
        let codec = Codec::new(&c).unwrap();
        for target in ["", "app.db"] {
            let mut r = Record::new(Level::Warn, target);
            r.message("m").field("k", "v");
            // Twice: a body of several events keeps its commas right too.
            let body = codec.encode(&[r.clone(), r]);
            let text = String::from_utf8_lossy(&body).into_owned();
            let docs: Result<Vec<serde_json::Value>, _> =
                serde_json::Deserializer::from_slice(&body)
                    .into_iter()
                    .collect();
            assert!(docs.is_ok(), "{vendor:?}, target {target:?}: {text}");
            let named = format!("{key}\"app.db\"");
            if target.is_empty() {
                // OTLP's scope has a name field of its own, empty.
                if vendor != Vendor::Otlp {
                    assert!(!text.contains(key), "{vendor:?}: {text}");
                }
            } else {
                assert!(text.contains(&named), "{vendor:?}: {text}");
            }
        }
    }
}
