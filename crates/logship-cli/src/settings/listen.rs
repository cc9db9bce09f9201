//! What `ship --listen` listens on, from the resolved `[listen]` keys (`config.listen`),
//! with the checks only the command can make: the listen URLs and the token.
//!
//! Why it exists: the library reads and range-checks every `listen.*` key from flags,
//! `LOGSHIP_LISTEN_*` variables and the file's `[listen]` section, but it never listens,
//! so it cannot judge a URL; this turns its values into the listeners' options and
//! reports what is wrong with the key, the value, the fix and where the value came from.
//! Must never: show the token (its value is `[redacted]` in every problem), or accept a
//! value it would ignore.

use std::sync::Arc;
use std::time::Duration;

use logship::{Config, Origin};

use super::problem::{origin_text, quoted, Problem};
use crate::kafka::spec::{KafkaSpec, HOW as KAFKA_HOW};
use crate::listen::http::{Ack, DecodeGate, Options, Token};
use crate::listen::{Listen, Spec};

/// The listen options of `config`, checked; `origin` says where each key's value came
/// from. Every problem found is returned, in the table's order.
pub fn listen(config: &Config, origin: impl Fn(&str) -> Origin) -> Result<Listen, Vec<Problem>> {
    let l = &config.listen;
    let mut problems = Vec::new();
    let mut problem = |key: &'static str, value: String, what: String, fix: String| {
        problems.push(Problem {
            key,
            value,
            problem: what,
            fix,
            origin: origin_text(key, &origin(key)),
        });
    };
    let mut specs = Vec::with_capacity(l.inputs.len());
    let mut kafka = Vec::new();
    for url in &l.inputs {
        if KafkaSpec::is_kafka(url) {
            match KafkaSpec::parse(url) {
                Ok(_) if !cfg!(feature = "kafka") => problem(
                    "listen.inputs",
                    quoted(url),
                    "this logship was built without Kafka support".into(),
                    "build it with the cargo feature `kafka` (cargo install logship-cli --features kafka)".into(),
                ),
                Ok(spec) => kafka.push(spec),
                Err(what) => problem("listen.inputs", quoted(url), what, KAFKA_HOW.into()),
            }
            continue;
        }
        match Spec::parse(url) {
            Ok(spec) => specs.push(spec),
            Err(bad) => problem("listen.inputs", quoted(url), bad.problem, bad.fix),
        }
    }
    let kafka_security =
        super::kafka_input::kafka_security(config, &origin, !kafka.is_empty(), &mut problem);
    let mut token = l.token.as_ref().map(|t| t.expose().to_owned());
    let set_but_empty = token.is_none() && origin("listen.token") != Origin::Default;
    if let Some(path) = &l.token_file {
        let shown = quoted(&path.display().to_string());
        if token.is_some() || set_but_empty {
            problem(
                "listen.token_file",
                shown,
                "is set together with listen.token".into(),
                "keep only listen.token_file: a file keeps the token out of the command line"
                    .into(),
            );
        } else {
            match logship::Secret::from_file(path) {
                Ok(secret) => token = Some(secret.expose().to_owned()),
                Err(what) => problem(
                    "listen.token_file",
                    shown,
                    what,
                    "give a readable file holding only the token (mode 0600)".into(),
                ),
            }
        }
    }
    if set_but_empty || token.as_deref().is_some_and(|t| t.contains(['\r', '\n'])) {
        problem(
            "listen.token",
            "\"[redacted]\"".into(),
            "is empty or holds a line break".into(),
            "give the token clients send, or leave it out".into(),
        );
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let ms = Duration::from_millis;
    let max_connections = usize::try_from(l.max_connections).unwrap_or(usize::MAX);
    Ok(Listen {
        specs,
        kafka,
        kafka_security,
        max_connections,
        idle_timeout: ms(l.idle_timeout_ms),
        udp_receive_buffer: usize::try_from(l.udp_receive_buffer_bytes).unwrap_or(usize::MAX),
        http: Options {
            token: token.map(Token::new),
            ack: match l.ack {
                "delivered" => Ack::Delivered,
                _ => Ack::Queued,
            },
            ack_timeout: ms(l.ack_timeout_ms),
            max_body: usize::try_from(l.max_body_bytes).unwrap_or(usize::MAX),
            max_connections,
            header_timeout: ms(l.header_timeout_ms),
            body_timeout: ms(l.body_timeout_ms),
            idle_timeout: ms(l.idle_timeout_ms),
            // A request of more events than the queue holds could never be admitted.
            max_events: config.queue_capacity,
            max_bytes: config.queue_max_bytes,
            decoding: Arc::new(DecodeGate::per_core()),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::test_config::config;

    #[test]
    fn the_keys_become_the_listeners_options() {
        let c = config(&[
            (
                "listen.inputs",
                "http://127.0.0.1:0,syslog+udp://127.0.0.1:0",
            ),
            ("listen.max_connections", "7"),
            ("listen.ack", "delivered"),
            ("listen.token", "s3cret"),
            ("queue_capacity", "500"),
        ]);
        let l = listen(&c, |_| Origin::Default).expect("valid");
        assert_eq!(l.specs.len(), 2);
        assert_eq!((l.max_connections, l.http.max_connections), (7, 7));
        assert_eq!(l.http.ack, Ack::Delivered);
        assert_eq!(l.http.max_events, 500);
        assert!(l.http.token.is_some());
        assert!(!format!("{l:?}").contains("s3cret"));
    }

    #[test]
    fn kafka_inputs_are_read_apart_and_named_with_the_fix_when_wrong() {
        let c = config(&[(
            "listen.inputs",
            "tcp://127.0.0.1:0,kafka://127.0.0.1:9092/logs?group=g",
        )]);
        match listen(&c, |_| Origin::Default) {
            Ok(l) if cfg!(feature = "kafka") => {
                assert_eq!((l.specs.len(), l.kafka.len()), (1, 1));
                assert_eq!(l.kafka[0].group, "g");
            }
            Err(p) if !cfg!(feature = "kafka") => {
                assert!(p[0].to_string().contains("feature `kafka`"), "{}", p[0]);
            }
            other => panic!("{:?}", other.map(|l| l.kafka)),
        }
        let bad = config(&[("listen.inputs", "kafka://127.0.0.1:9092")]);
        let p = listen(&bad, |_| Origin::Default).expect_err("no topic");
        let text = p[0].to_string();
        assert!(
            text.contains("names no topic") || text.contains("feature `kafka`"),
            "{text}"
        );
    }

    #[test]
    fn bad_urls_and_tokens_are_named_with_their_origin_and_the_token_never_shown() {
        let c = config(&[
            ("listen.inputs", "htp://127.0.0.1:1"),
            ("listen.token", "a\nb-s3cret"),
        ]);
        let flag = |_: &str| Origin::Explicit;
        let all: Vec<String> = listen(&c, flag)
            .expect_err("bad values")
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(all.len(), 2, "{all:?}");
        assert!(all[0].starts_with("listen.inputs = \"htp://127.0.0.1:1\": unknown scheme"));
        assert!(
            all[0].contains("did you mean http://?") && all[0].ends_with("[from flag --listen]")
        );
        assert!(all[1].contains("is empty or holds a line break") && !all[1].contains("s3cret"));
        let empty = config(&[("listen.token", "")]);
        assert!(listen(&empty, |_| Origin::Env("LOGSHIP_LISTEN_TOKEN".into())).is_err());
        assert!(listen(&empty, |_| Origin::Default).is_ok());
    }
}
