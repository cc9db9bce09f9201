//! `--listen kafka://host:port[,host:port]/topic[,topic]?group=NAME`: what to consume.
//!
//! Why it exists: the Kafka input is named like every other input (one URL of `--listen`),
//! and a mistake in it is a usage error naming the fix before anything starts. Must never:
//! accept a value it would ignore.

/// One Kafka input, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct KafkaSpec {
    /// `host:port,host:port`.
    pub brokers: String,
    /// The topics consumed.
    pub topics: Vec<String>,
    /// The consumer group (default `logship`): instances with one group share the
    /// partitions.
    pub group: String,
}

/// How to write a Kafka input URL.
pub(crate) const HOW: &str =
    "write kafka://host:port[,host:port]/topic[,topic][?group=NAME], e.g. kafka://127.0.0.1:9092/logs?group=shippers";

impl KafkaSpec {
    /// True when `url` names a Kafka input (its scheme is `kafka`).
    pub(crate) fn is_kafka(url: &str) -> bool {
        url.get(..8)
            .is_some_and(|s| s.eq_ignore_ascii_case("kafka://"))
    }

    /// Parses a `kafka://` URL; the error says what is wrong.
    pub(crate) fn parse(url: &str) -> Result<KafkaSpec, String> {
        let rest = url.get(8..).unwrap_or_default();
        let (path, query) = match rest.split_once('?') {
            Some((p, q)) => (p, Some(q)),
            None => (rest, None),
        };
        let Some((brokers, topics)) = path.split_once('/') else {
            return Err("names no topic (the path after the brokers)".into());
        };
        if brokers.is_empty() {
            return Err("names no broker".into());
        }
        for broker in brokers.split(',') {
            let port = broker.rsplit_once(':').map(|(_, p)| p);
            if port.is_none_or(|p| p.parse::<u16>().is_err()) {
                return Err(format!("broker {broker:?} is not host:port"));
            }
        }
        let topics: Vec<String> = topics.split(',').map(str::to_owned).collect();
        for t in &topics {
            if t.is_empty()
                || t.len() > 249
                || !t
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b))
            {
                return Err(format!("topic {t:?} is not a Kafka topic name"));
            }
        }
        let mut group = "logship".to_owned();
        for pair in query
            .unwrap_or_default()
            .split('&')
            .filter(|p| !p.is_empty())
        {
            match pair.split_once('=') {
                Some(("group", g)) if !g.is_empty() => group = g.to_owned(),
                _ => return Err(format!("unknown parameter {pair:?} (only group=NAME)")),
            }
        }
        Ok(KafkaSpec {
            brokers: brokers.to_owned(),
            topics,
            group,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_give_brokers_topics_and_group() {
        assert_eq!(
            KafkaSpec::parse("kafka://a:9092,b:9093/app,audit?group=g1").unwrap(),
            KafkaSpec {
                brokers: "a:9092,b:9093".into(),
                topics: vec!["app".into(), "audit".into()],
                group: "g1".into()
            }
        );
        assert_eq!(KafkaSpec::parse("kafka://a:1/t").unwrap().group, "logship");
        for bad in [
            "kafka://a:1",
            "kafka:///t",
            "kafka://a/t",
            "kafka://a:1/",
            "kafka://a:1/t t",
            "kafka://a:1/t?grp=x",
            "kafka://a:1/t?group=",
        ] {
            assert!(KafkaSpec::parse(bad).is_err(), "{bad}");
        }
        assert!(KafkaSpec::is_kafka("KAFKA://a:1/t") && !KafkaSpec::is_kafka("tcp://a:1"));
    }
}
