//! The Kafka endpoint: `kafka://host:port[,host:port]/topic`, read into brokers and topic.
//!
//! Why it exists: the brokers and the topic are one value the user writes once (like an
//! HTTP intake's URL), checked at start-up with a message that names the fix. Must never
//! connect to anything.

use crate::config::Config;
use crate::error::ConfigError;

/// The brokers and topic of a `kafka://` endpoint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Target {
    /// `host:port,host:port`, as librdkafka's `bootstrap.servers` takes it.
    pub brokers: String,
    /// The topic events are produced to.
    pub topic: String,
}

/// The fix of every endpoint error.
const FIX: &str =
    "write endpoint = \"kafka://host:port[,host:port]/topic\", e.g. kafka://127.0.0.1:9092/logs";

impl Target {
    /// Reads `endpoint`; an error names what is wrong and the fix.
    pub(crate) fn parse(endpoint: &str) -> Result<Target, ConfigError> {
        let bad = |why: &str| ConfigError::new("endpoint", endpoint, why).fix(FIX);
        let rest = endpoint
            .strip_prefix("kafka://")
            .ok_or_else(|| bad("must start with kafka:// for vendor kafka"))?;
        let (brokers, topic) = rest
            .split_once('/')
            .ok_or_else(|| bad("names no topic (the path after the brokers)"))?;
        if brokers.is_empty() {
            return Err(bad("names no broker"));
        }
        for broker in brokers.split(',') {
            let port = broker.rsplit_once(':').map(|(_, p)| p);
            if broker.contains('@') || port.is_none_or(|p| p.parse::<u16>().is_err()) {
                return Err(bad(&format!("broker '{broker}' is not host:port")));
            }
        }
        // Kafka's own rule for topic names.
        if topic.is_empty()
            || topic.len() > 249
            || !topic
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
            || topic == "."
            || topic == ".."
        {
            return Err(bad(&format!(
                "topic '{topic}' is not a Kafka topic name (1 to 249 of a-z A-Z 0-9 . _ -)"
            )));
        }
        Ok(Target {
            brokers: brokers.to_owned(),
            topic: topic.to_owned(),
        })
    }
}

/// The Kafka output's rules on the configuration: the endpoint, the key, and the options
/// that only work together.
pub(crate) fn validate(config: &Config) -> Result<(), ConfigError> {
    if let Some(endpoint) = &config.endpoint {
        Target::parse(endpoint)?;
    }
    super::key::KeySource::parse(&config.kafka.key)?;
    let k = &config.kafka;
    if k.idempotence && super::options::ACKS[k.acks] != "all" {
        return Err(ConfigError::new(
            "kafka_acks",
            super::options::ACKS_NAMES[k.acks],
            "the idempotent producer needs acks = all",
        )
        .fix("set kafka_acks = \"all\", or kafka_idempotence = false"));
    }
    if k.sasl_mechanism != 0 && (config.username.is_none() || config.password.is_none()) {
        return Err(ConfigError::new(
            "kafka_sasl_mechanism",
            super::options::SASL_NAMES[k.sasl_mechanism],
            "needs username and password",
        )
        .fix("set username, and the password through LOGSHIP_PASSWORD or the config file"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoint_gives_brokers_and_topic() {
        assert_eq!(
            Target::parse("kafka://a:9092,b:9093/app.logs").unwrap(),
            Target {
                brokers: "a:9092,b:9093".into(),
                topic: "app.logs".into()
            }
        );
    }

    #[test]
    fn bad_endpoints_name_the_fix() {
        for bad in [
            "http://a:9092/t",
            "kafka://a:9092",
            "kafka:///t",
            "kafka://a/t",
            "kafka://a:x/t",
            "kafka://a:9092/",
            "kafka://a:9092/t/u",
            "kafka://a:9092/bad topic",
            "kafka://user:pw@a:9092/t",
        ] {
            let e = Target::parse(bad).unwrap_err().to_string();
            assert!(
                e.contains("endpoint") && e.contains("kafka://host:port"),
                "{bad}: {e}"
            );
        }
    }
}
