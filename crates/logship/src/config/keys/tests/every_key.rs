//! Every key of the table is read from a file, the environment, `Config::apply_env` and
//! log4rs YAML and JSON files, and lands in its field.

use std::path::PathBuf;
use std::time::Duration;

use super::{env_of, from_file, Check};
use crate::config::keys;
use crate::config::{Config, Origin, Overflow, SpanFields, Vendor};
use crate::spill::{SpillFsync, SpillFull};
use crate::support::secret::Secret;
use crate::OtlpEncoding;

/// Every key: its TOML value, the same as an environment variable, and the field.
pub(super) const EVERY_KEY: &[(&str, &str, &str, Check)] = &[
    ("vendor", "\"splunk\"", "splunk", |c| {
        c.vendor == Vendor::Splunk
    }),
    ("endpoint", "\"http://h:1/x\"", "http://h:1/x", |c| {
        c.endpoint.as_deref() == Some("http://h:1/x")
    }),
    (
        "headers",
        "{ X-A = \"1\", X-B = \"2\" }",
        "X-A: 1; X-B: 2",
        |c| {
            c.headers.len() == 2
                && c.headers[0].0 == "X-A"
                && c.headers[0].1.expose() == "1"
                && c.headers[1].1.expose() == "2"
        },
    ),
    ("api_key", "\"k-123\"", "k-123", |c| {
        c.api_key.as_ref().map(Secret::expose) == Some("k-123")
    }),
    ("api_key_file", "\"/tmp/k\"", "/tmp/k", |c| {
        c.api_key_file == Some(PathBuf::from("/tmp/k"))
    }),
    ("username", "\"u1\"", "u1", |c| {
        c.username.as_deref() == Some("u1")
    }),
    ("password", "\"pw-1\"", "pw-1", |c| {
        c.password.as_ref().map(Secret::expose) == Some("pw-1")
    }),
    ("site", "\"datadoghq.eu\"", "datadoghq.eu", |c| {
        c.site.as_deref() == Some("datadoghq.eu")
    }),
    ("region", "\"eu\"", "eu", |c| {
        c.region.as_deref() == Some("eu")
    }),
    ("service", "\"svc\"", "svc", |c| {
        c.service.as_deref() == Some("svc")
    }),
    ("env", "\"prod\"", "prod", |c| {
        c.env.as_deref() == Some("prod")
    }),
    ("version", "\"1.4.2\"", "1.4.2", |c| {
        c.version.as_deref() == Some("1.4.2")
    }),
    ("source", "\"src\"", "src", |c| {
        c.source.as_deref() == Some("src")
    }),
    ("hostname", "\"h1\"", "h1", |c| {
        c.hostname.as_deref() == Some("h1")
    }),
    (
        "tags",
        "[\"env:prod\", \"team:pay\"]",
        "env:prod,team:pay",
        |c| c.tags == ["env:prod", "team:pay"],
    ),
    ("span_fields", "\"prefixed\"", "prefixed", |c| {
        c.span_fields == SpanFields::Prefixed
    }),
    ("event_id", "false", "false", |c| !c.event_id),
    ("splunk_index", "\"main\"", "main", |c| {
        c.splunk.index.as_deref() == Some("main")
    }),
    ("splunk_sourcetype", "\"st\"", "st", |c| {
        c.splunk.sourcetype.as_deref() == Some("st")
    }),
    ("splunk_channel", "\"auto\"", "auto", |c| {
        c.splunk.channel.as_deref() == Some("auto")
    }),
    ("splunk_ack", "true", "true", |c| c.splunk.ack),
    ("splunk_ack_timeout_ms", "4500", "4500", |c| {
        c.splunk.ack_timeout == Duration::from_millis(4500)
    }),
    ("tenant_id", "\"team-a\"", "team-a", |c| {
        c.loki.tenant_id.as_deref() == Some("team-a")
    }),
    (
        "loki_labels",
        "[\"env=prod\", \"team=core\"]",
        "env=prod,team=core",
        |c| c.loki.labels == ["env=prod", "team=core"],
    ),
    ("max_line_bytes", "2048", "2048", |c| {
        c.loki.max_line_bytes == 2048
    }),
    ("index", "\"logs-%Y.%m.%d\"", "logs-%Y.%m.%d", |c| {
        c.elasticsearch.index.as_deref() == Some("logs-%Y.%m.%d")
    }),
    ("otlp_encoding", "\"json\"", "json", |c| {
        c.otlp.encoding == OtlpEncoding::Json
    }),
    ("kafka_key", "\"service\"", "service", |c| {
        c.kafka.key == "service"
    }),
    ("kafka_acks", "\"1\"", "1", |c| c.kafka.acks == 1),
    ("kafka_idempotence", "false", "false", |c| {
        !c.kafka.idempotence
    }),
    ("kafka_compression", "\"lz4\"", "lz4", |c| {
        c.kafka.compression == "lz4"
    }),
    ("kafka_max_message_bytes", "20000", "20000", |c| {
        c.kafka.max_message_bytes == 20000
    }),
    ("kafka_message_timeout_ms", "5000", "5000", |c| {
        c.kafka.message_timeout_ms == 5000
    }),
    ("kafka_tls", "true", "true", |c| c.kafka.tls),
    (
        "kafka_sasl_mechanism",
        "\"scram-sha-512\"",
        "scram-sha-512",
        |c| c.kafka.sasl_mechanism == 3,
    ),
    ("max_request_bytes", "20000", "20000", |c| {
        c.max_request_bytes == Some(20_000)
    }),
    ("max_batch_records", "7", "7", |c| c.max_batch_records == 7),
    ("max_batch_bytes", "2048", "2048", |c| {
        c.max_batch_bytes == 2048
    }),
    ("linger_ms", "250", "250", |c| {
        c.linger == Duration::from_millis(250)
    }),
    ("queue_capacity", "99", "99", |c| c.queue_capacity == 99),
    ("queue_max_bytes", "100000", "100000", |c| {
        c.queue_max_bytes == 100_000
    }),
    ("block_timeout_ms", "40", "40", |c| {
        c.overflow == Overflow::Block(Duration::from_millis(40))
    }),
    ("max_in_flight", "5", "5", |c| c.max_in_flight == 5),
    ("adaptive_concurrency", "false", "false", |c| {
        !c.adaptive_concurrency
    }),
    ("gzip", "false", "false", |c| !c.gzip),
    ("gzip_level", "9", "9", |c| c.gzip_level == 9),
    ("max_retries", "0", "0", |c| c.max_retries == 0),
    ("retry_initial_backoff_ms", "11", "11", |c| {
        c.retry_initial_backoff == Duration::from_millis(11)
    }),
    ("retry_max_backoff_ms", "12000", "12000", |c| {
        c.retry_max_backoff == Duration::from_millis(12_000)
    }),
    ("connect_timeout_ms", "13", "13", |c| {
        c.connect_timeout == Duration::from_millis(13)
    }),
    ("request_timeout_ms", "14", "14", |c| {
        c.request_timeout == Duration::from_millis(14)
    }),
    ("shutdown_timeout_ms", "15", "15", |c| {
        c.shutdown_timeout == Duration::from_millis(15)
    }),
    ("tls_ca_file", "\"/tmp/ca.pem\"", "/tmp/ca.pem", |c| {
        c.tls_ca_file == Some(PathBuf::from("/tmp/ca.pem"))
    }),
    ("tls_client_cert", "\"/tmp/c.pem\"", "/tmp/c.pem", |c| {
        c.tls_client_cert == Some(PathBuf::from("/tmp/c.pem"))
    }),
    ("tls_client_key", "\"/tmp/c.key\"", "/tmp/c.key", |c| {
        c.tls_client_key == Some(PathBuf::from("/tmp/c.key"))
    }),
    ("tls_verify", "false", "false", |c| !c.tls_verify),
    ("proxy", "\"http://p:3128\"", "http://p:3128", |c| {
        c.proxy.as_deref() == Some("http://p:3128")
    }),
    ("max_event_bytes", "4096", "4096", |c| {
        c.max_event_bytes == 4096
    }),
    ("report_to_stderr", "false", "false", |c| {
        !c.report_to_stderr
    }),
    ("spill_enabled", "false", "false", |c| !c.spill_enabled),
    ("spill_required", "true", "true", |c| c.spill_required),
    ("spill_in_flight_after_ms", "1500", "1500", |c| {
        c.spill_in_flight_after == Duration::from_millis(1500)
    }),
    ("flush_on_panic", "false", "false", |c| !c.flush_on_panic),
    ("spill_dir", "\"/tmp/sp\"", "/tmp/sp", |c| {
        c.spill_dir == Some(PathBuf::from("/tmp/sp"))
    }),
    ("spill_max_bytes", "1000000", "1000000", |c| {
        c.spill_max_bytes == 1_000_000
    }),
    ("spill_segment_bytes", "70000", "70000", |c| {
        c.spill_segment_bytes == 70_000
    }),
    ("spill_full", "\"drop_newest\"", "drop_newest", |c| {
        c.spill_full == SpillFull::DropNewest
    }),
    ("spill_fsync", "\"always\"", "always", |c| {
        c.spill_fsync == SpillFsync::Always
    }),
    ("redact", "true", "true", |c| c.redaction.enabled),
    ("redact_fields", "[\"pin\", \"ssn\"]", "pin,ssn", |c| {
        c.redaction.fields == ["pin", "ssn"]
    }),
    (
        "redact_patterns",
        "[\"card\", \"email\"]",
        "card,email",
        |c| c.redaction.patterns == ["card", "email"],
    ),
    (
        "redact_regexes",
        "[\"order-[0-9]+\"]",
        "order-[0-9]+",
        |c| c.redaction.regexes == ["order-[0-9]+"],
    ),
    ("redact_action", "\"hash\"", "hash", |c| {
        c.redaction.action == crate::config::RedactAction::Hash
    }),
    (
        "redact_hash_key",
        "\"0123456789abcdef0\"",
        "0123456789abcdef0",
        |c| c.redaction.hash_key.as_ref().map(Secret::expose) == Some("0123456789abcdef0"),
    ),
    // Issue #17 parts 1, 2, 5 (control at the source).
    (
        "burst_limits",
        "[\"info=100/1000\"]",
        "info=100/1000",
        |c| c.control.burst_limits == ["info=100/1000"],
    ),
    ("burst_sites", "64", "64", |c| c.control.burst_sites == 64),
    ("burst_summary_interval_ms", "2500", "2500", |c| {
        c.control.burst_summary_interval == Duration::from_millis(2500)
    }),
    ("sample_rates", "[\"debug=10%\"]", "debug=10%", |c| {
        c.control.sample_rates == ["debug=10%"]
    }),
    ("sample_by_trace", "false", "false", |c| {
        !c.control.sample_by_trace
    }),
    ("drop_notices", "true", "true", |c| c.control.drop_notices),
    (
        "budget_level_hour_bytes",
        "[\"debug=4096\"]",
        "debug=4096",
        |c| c.budget.level_hour_bytes == ["debug=4096"],
    ),
    (
        "budget_level_day_bytes",
        "[\"info=8192\"]",
        "info=8192",
        |c| c.budget.level_day_bytes == ["info=8192"],
    ),
    ("budget_hour_bytes", "5000", "5000", |c| {
        c.budget.hour_bytes == Some(5000)
    }),
    ("budget_day_bytes", "6000", "6000", |c| {
        c.budget.day_bytes == Some(6000)
    }),
    ("budget_hour_events", "70", "70", |c| {
        c.budget.hour_events == Some(70)
    }),
    ("budget_day_events", "80", "80", |c| {
        c.budget.day_events == Some(80)
    }),
    ("budget_overdraft_percent", "0", "0", |c| {
        c.budget.overdraft_percent == 0
    }),
    ("budget_sample_percent", "25", "25", |c| {
        c.budget.sample_percent == 25
    }),
    ("budget_state_file", "\"/tmp/b.json\"", "/tmp/b.json", |c| {
        c.budget.state_file == Some(PathBuf::from("/tmp/b.json"))
    }),
    ("stall_after_ms", "2500", "2500", |c| {
        c.observe.stall_after == Some(Duration::from_millis(2500))
    }),
    ("metrics_interval_ms", "300", "300", |c| {
        c.observe.metrics_interval == Duration::from_millis(300)
    }),
    (
        "follow.paths",
        "[\"/var/log/a/*.log\", \"/b.log\"]",
        "/var/log/a/*.log,/b.log",
        |c| c.follow.paths == ["/var/log/a/*.log", "/b.log"],
    ),
    ("follow.start_at", "\"end\"", "end", |c| {
        c.follow.start_at == "end"
    }),
    ("follow.format", "\"cri\"", "cri", |c| {
        c.follow.format == "cri"
    }),
    ("follow.multiline", "\"java\"", "java", |c| {
        c.follow.multiline.as_deref() == Some("java")
    }),
    ("follow.multiline_max_lines", "7", "7", |c| {
        c.follow.multiline_max_lines == 7
    }),
    ("follow.multiline_timeout_ms", "70", "70", |c| {
        c.follow.multiline_timeout_ms == 70
    }),
    ("follow.max_open_files", "9", "9", |c| {
        c.follow.max_open_files == 9
    }),
    ("follow.poll_interval_ms", "90", "90", |c| {
        c.follow.poll_interval_ms == 90
    }),
    ("follow.rotate_wait_ms", "0", "0", |c| {
        c.follow.rotate_wait_ms == 0
    }),
    ("follow.checkpoint", "false", "false", |c| {
        c.follow.checkpoint == Some(None)
    }),
    ("follow.checkpoint_interval_ms", "11", "11", |c| {
        c.follow.checkpoint_interval_ms == 11
    }),
    (
        "listen.inputs",
        "[\"http://127.0.0.1:1\", \"tcp://127.0.0.1:2\"]",
        "http://127.0.0.1:1,tcp://127.0.0.1:2",
        |c| c.listen.inputs == ["http://127.0.0.1:1", "tcp://127.0.0.1:2"],
    ),
    ("listen.token", "\"t-1\"", "t-1", |c| {
        c.listen.token.as_ref().map(Secret::expose) == Some("t-1")
    }),
    ("listen.token_file", "\"/tmp/t\"", "/tmp/t", |c| {
        c.listen.token_file == Some(PathBuf::from("/tmp/t"))
    }),
    ("listen.ack", "\"delivered\"", "delivered", |c| {
        c.listen.ack == "delivered"
    }),
    ("listen.ack_timeout_ms", "12", "12", |c| {
        c.listen.ack_timeout_ms == 12
    }),
    ("listen.max_body_bytes", "2048", "2048", |c| {
        c.listen.max_body_bytes == 2048
    }),
    ("listen.max_connections", "3", "3", |c| {
        c.listen.max_connections == 3
    }),
    ("listen.header_timeout_ms", "13", "13", |c| {
        c.listen.header_timeout_ms == 13
    }),
    ("listen.body_timeout_ms", "14", "14", |c| {
        c.listen.body_timeout_ms == 14
    }),
    ("listen.idle_timeout_ms", "15", "15", |c| {
        c.listen.idle_timeout_ms == 15
    }),
    (
        "listen.udp_receive_buffer_bytes",
        "4194304",
        "4194304",
        |c| c.listen.udp_receive_buffer_bytes == 4 << 20,
    ),
    (
        "listen.kafka_sasl_mechanism",
        "\"SCRAM-SHA-256\"",
        "scram_sha_256",
        |c| c.kafka_input.sasl_mechanism == "scram_sha_256",
    ),
    ("listen.kafka_username", "\"u\"", "u", |c| {
        c.kafka_input.username.as_deref() == Some("u")
    }),
    ("listen.kafka_password", "\"p-1\"", "p-1", |c| {
        c.kafka_input.password.as_ref().map(Secret::expose) == Some("p-1")
    }),
    ("listen.kafka_password_file", "\"/tmp/p\"", "/tmp/p", |c| {
        c.kafka_input.password_file == Some(PathBuf::from("/tmp/p"))
    }),
    ("listen.kafka_tls", "true", "true", |c| c.kafka_input.tls),
    ("listen.kafka_tls_ca_file", "\"/tmp/ca\"", "/tmp/ca", |c| {
        c.kafka_input.tls_ca_file == Some(PathBuf::from("/tmp/ca"))
    }),
    (
        "listen.kafka_tls_client_cert",
        "\"/tmp/c\"",
        "/tmp/c",
        |c| c.kafka_input.tls_client_cert == Some(PathBuf::from("/tmp/c")),
    ),
    ("listen.kafka_tls_client_key", "\"/tmp/k\"", "/tmp/k", |c| {
        c.kafka_input.tls_client_key == Some(PathBuf::from("/tmp/k"))
    }),
];

#[test]
fn every_key_is_read_from_a_file_and_from_the_environment() {
    let mut covered: Vec<&str> = EVERY_KEY.iter().map(|(k, ..)| *k).collect();
    let mut all: Vec<&str> = keys::all().map(|k| k.name).collect();
    covered.sort_unstable();
    all.sort_unstable();
    assert_eq!(covered, all, "the table covers every key");
    for (key, toml_value, env_value, check) in EVERY_KEY {
        let file = from_file(&format!("{key} = {toml_value}\n"), &[])
            .unwrap_or_else(|e| panic!("{key} from file: {e}"));
        assert!(check(&file.config), "{key} from file: {:?}", file.config);
        assert!(
            !check(&Config::default()),
            "{key}: the value is not the default"
        );
        assert_eq!(
            file.origin(key),
            Origin::File("logship.toml".into()),
            "{key}"
        );

        let var = keys::find(key).expect("a key").env_var();
        let env = from_file("", &[(var.as_str(), env_value)])
            .unwrap_or_else(|e| panic!("{key} from env: {e}"));
        assert!(check(&env.config), "{key} from {var}: {:?}", env.config);
        assert_eq!(env.origin(key), Origin::Env(var.clone()), "{key}");

        let mut direct = Config::default();
        direct
            .apply_env(env_of(&[(var.as_str(), env_value)]))
            .unwrap_or_else(|e| panic!("{key} from apply_env: {e}"));
        assert!(check(&direct), "{key} via Config::apply_env");
    }
}

/// Captures an appender's map as log4rs hands it over, instead of building it.
#[cfg(feature = "log4rs")]
#[derive(Clone, Default)]
struct Capture(std::sync::Arc<std::sync::Mutex<Option<toml::Table>>>);

#[cfg(feature = "log4rs")]
impl log4rs::config::Deserialize for Capture {
    type Trait = dyn log4rs::append::Append;
    type Config = toml::Table;
    fn deserialize(
        &self,
        config: toml::Table,
        _: &log4rs::config::Deserializers,
    ) -> anyhow::Result<Box<dyn log4rs::append::Append>> {
        *self.0.lock().unwrap() = Some(config);
        Ok(Box::new(Noop))
    }
}

#[cfg(feature = "log4rs")]
#[derive(Debug)]
struct Noop;

#[cfg(feature = "log4rs")]
impl log4rs::append::Append for Noop {
    fn append(&self, _: &log::Record<'_>) -> anyhow::Result<()> {
        Ok(())
    }
    fn flush(&self) {}
}

#[cfg(feature = "log4rs")]
#[test]
fn every_key_is_read_from_a_log4rs_yaml_and_json_file() {
    let dir = std::env::temp_dir().join(format!("logship-log4rs-keys-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (key, toml_value, _, check) in EVERY_KEY {
        if keys::find(key).is_some_and(|k| k.section.is_some()) {
            // The `logship` command's own keys are not an appender's.
            continue;
        }
        // The TOML literals are YAML and JSON too, but for the inline table's `=`.
        let value = toml_value
            .replace(" = ", ": ")
            .replace("X-A", "\"X-A\"")
            .replace("X-B", "\"X-B\"");
        let files = [
            (
                "log4rs.yaml",
                format!("appenders:\n  ship:\n    kind: batch_http\n    {key}: {value}\n"),
            ),
            (
                "log4rs.json",
                format!(
                    r#"{{"appenders": {{"ship": {{"kind": "batch_http", "{key}": {value}}}}}}}"#
                ),
            ),
        ];
        for (name, text) in files {
            let path = dir.join(name);
            std::fs::write(&path, &text).unwrap();
            let capture = Capture::default();
            let mut deserializers = log4rs::config::Deserializers::empty();
            deserializers.insert("batch_http", capture.clone());
            let _ = log4rs::config::load_config_file(&path, deserializers);
            let table = capture
                .0
                .lock()
                .unwrap()
                .take()
                .unwrap_or_else(|| panic!("{key}: log4rs did not read {text}"));
            let builder = crate::log4rs::BatchHttpAppenderDeserializer::with_env(env_of(&[]))
                .builder(table)
                .unwrap_or_else(|e| panic!("{key} from {name}: {e}"));
            assert!(
                check(builder.config()),
                "{key} from {name}: {:?}",
                builder.config()
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
