//! Every key reaches every surface: a flag, a variable, an attribute, a typed setter,
//! `Builder::set`, files (sections included) and appender maps, `config keys` JSON; and no
//! two keys share a name on any surface.

use std::collections::BTreeSet;

use super::every_key::EVERY_KEY;
use super::{env_of, from_file};
use crate::config::{keys, Given, Layered, Origin};
use crate::Builder;

#[test]
fn every_key_has_its_own_flag_variable_attribute_and_setter() {
    let (mut flags, mut vars, mut attributes) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    for key in keys::keys() {
        let name = key.name();
        assert!(
            key.flag().long().starts_with("--"),
            "{name}: {:?}",
            key.flag()
        );
        assert!(
            flags.insert(key.flag().long()),
            "{name}: flag {} twice",
            key.flag().long()
        );
        if let Some(off) = key.flag().off() {
            assert!(flags.insert(off), "{name}: flag {off} twice");
        }
        assert!(
            vars.insert(key.env()),
            "{name}: variable {} twice",
            key.env()
        );
        assert!(
            !key.doc().is_empty() && !key.default_value().is_empty(),
            "{name}"
        );
        match key.section() {
            None => {
                let attribute = key.attribute().expect("a pipeline key has an attribute");
                assert!(
                    attribute.chars().all(|c| c.is_ascii_alphanumeric()),
                    "{name}: attribute {attribute} is not camelCase"
                );
                assert!(
                    attributes.insert(attribute.clone()),
                    "{name}: {attribute} twice"
                );
                assert!(key.setter().is_some(), "{name} has no typed setter");
                assert_eq!(key.log4rs_key(), Some(name));
            }
            Some(section) => {
                assert!(name.starts_with(&format!("{section}.")), "{name}");
                assert_eq!((key.attribute(), key.log4rs_key()), (None, None), "{name}");
            }
        }
        let json = key.to_json();
        for field in [
            "name",
            "type",
            "default",
            "doc",
            "env",
            "flag",
            "file_key",
            "attribute",
        ] {
            assert!(json.get(field).is_some(), "{name}: no {field} in {json}");
        }
    }
    // The reference appender's names, as its users write them.
    for (name, attribute) in [
        ("linger_ms", "lingerMillis"),
        ("max_batch_records", "maxBatchRecords"),
        ("max_batch_bytes", "maxBatchBytes"),
        ("queue_capacity", "queueCapacity"),
        ("spill_enabled", "spillEnabled"),
        ("api_key", "apiKey"),
        ("max_retries", "maxRetries"),
        ("gzip", "gzip"),
    ] {
        let key = keys::keys().find(|k| k.name() == name).expect(name);
        assert_eq!(key.attribute().as_deref(), Some(attribute));
    }
}

#[test]
fn every_key_is_set_by_name_through_the_builder_and_by_flag_through_the_layers() {
    for (key, _, env_value, check) in EVERY_KEY {
        let builder = Builder::default()
            .set(key, env_value)
            .unwrap_or_else(|e| panic!("Builder::set({key}): {e}"));
        assert!(check(builder.config()), "Builder::set({key}, {env_value})");

        let resolved = Layered::new()
            .env(env_of(&[]))
            .flag(*key, Given::Text((*env_value).to_owned()))
            .resolve()
            .unwrap_or_else(|e| panic!("flag {key}: {e}"));
        assert!(check(&resolved.config), "flag {key}");
        assert_eq!(resolved.origin(key), Origin::Explicit, "{key}");
    }
}

#[test]
fn a_flag_overrides_the_file_and_the_environment_and_a_bad_one_names_its_flag() {
    let resolved = Layered::new()
        .env(env_of(&[("LOGSHIP_LINGER_MS", "20")]))
        .toml_str("f.toml", "linger_ms = 10\n[follow]\nformat = \"json\"\n")
        .flag("linger_ms", Given::Text("30".into()))
        .flag("follow.format", Given::Text("cri".into()))
        .flag(
            "redact_regexes",
            Given::Items(vec!["a,b".into(), "c".into()]),
        )
        .resolve()
        .expect("valid");
    assert_eq!(resolved.config.linger.as_millis(), 30);
    assert_eq!(resolved.config.follow.format, "cri");
    assert_eq!(
        resolved.config.redaction.regexes,
        ["a,b", "c"],
        "items are never split"
    );
    let err = Layered::new()
        .env(env_of(&[]))
        .flag("linger_ms", Given::Text("soon".into()))
        .resolve()
        .expect_err("not a number")
        .to_string();
    assert!(
        err.contains("linger_ms") && err.contains("flag --linger-ms"),
        "{err}"
    );
}

#[test]
fn appender_attributes_take_camel_case_names_and_refuse_the_commands_own_keys() {
    let resolved = Layered::new()
        .env(env_of(&[]))
        .attributes(
            "log4j2.xml",
            [
                ("lingerMillis".to_owned(), "250".to_owned()),
                ("gzip".into(), "false".into()),
            ],
        )
        .resolve()
        .expect("valid");
    assert_eq!(resolved.config.linger.as_millis(), 250);
    assert!(!resolved.config.gzip);
    assert_eq!(
        resolved.origin("linger_ms"),
        Origin::File("log4j2.xml".into())
    );
    let err = Layered::new()
        .env(env_of(&[]))
        .attributes("log4j2.xml", [("follow.paths".to_owned(), "/x".to_owned())])
        .resolve()
        .expect_err("a command's key");
    assert!(err.to_string().contains("is not a logship option"), "{err}");
}

#[test]
fn a_section_of_the_file_is_checked_like_the_top_level() {
    for (text, says) in [
        ("[follow]\nstart_at = \"middle\"\n", "follow.start_at"),
        ("[follow]\nstrat_at = \"end\"\n", "did you mean start_at"),
        ("[lissen]\ninputs = []\n", "did you mean [listen]"),
        ("follow = 3\n", "[follow] header"),
        ("[listen]\nmax_connections = 0\n", "listen.max_connections"),
        ("[follow]\ncheckpoint = true\n", "or false"),
    ] {
        let err = from_file(text, &[]).expect_err(text).to_string();
        assert!(err.contains(says), "{text}: {err}");
    }
    let ok = from_file("[follow]\npaths = \"/a.log\"\ncheckpoint = false\n", &[]).expect("ok");
    assert_eq!(ok.config.follow.paths, ["/a.log"]);
    assert_eq!(ok.config.follow.checkpoint, Some(None));
    assert_eq!(
        ok.origin("follow.paths"),
        Origin::File("logship.toml".into())
    );
}
