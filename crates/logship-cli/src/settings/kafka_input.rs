//! The checks of the Kafka inputs' SASL and TLS keys (`listen.kafka_*`) that only the
//! command can make: the password from the environment, the file or a password file, never
//! the command line; readable files; no value it would ignore.
//!
//! Why it exists: a wrong or missing piece of security is a start-up error naming the key
//! and the fix, not a consumer that logs in and fails forever. Must never: show the password
//! (its value is `[redacted]` in every problem), or accept a value it would ignore.

use logship::{Config, Origin, Secret};

use super::problem::quoted;
use crate::kafka::security::Security;

/// What `listen()` does with a problem: key, value as shown, what is wrong, the fix.
type Report<'a> = &'a mut dyn FnMut(&'static str, String, String, String);

/// The checked security of the Kafka inputs; `used` says whether any `kafka://` input
/// exists. Problems go to `problem`.
pub(super) fn kafka_security(
    config: &Config,
    origin: &dyn Fn(&str) -> Origin,
    used: bool,
    problem: Report<'_>,
) -> Security {
    let k = &config.kafka_input;
    // Set: given a value other than the default (whatever its origin).
    let set = |key: &str| match key {
        "listen.kafka_sasl_mechanism" => k.sasl_mechanism != "none",
        "listen.kafka_username" => k.username.is_some(),
        "listen.kafka_password" => k.password.is_some(),
        "listen.kafka_password_file" => k.password_file.is_some(),
        "listen.kafka_tls" => k.tls,
        "listen.kafka_tls_ca_file" => k.tls_ca_file.is_some(),
        "listen.kafka_tls_client_cert" => k.tls_client_cert.is_some(),
        _ => k.tls_client_key.is_some(),
    };
    let keys = [
        "listen.kafka_sasl_mechanism",
        "listen.kafka_username",
        "listen.kafka_password",
        "listen.kafka_password_file",
        "listen.kafka_tls",
        "listen.kafka_tls_ca_file",
        "listen.kafka_tls_client_cert",
        "listen.kafka_tls_client_key",
    ];
    if !used {
        for key in keys.into_iter().filter(|k| set(k)) {
            problem(
                key,
                shown(config, key),
                "is set but no kafka:// input would use it".into(),
                "add a kafka://host:port/topic input to listen.inputs, or remove the key".into(),
            );
        }
        return Security::default();
    }
    if k.password.is_some() && origin("listen.kafka_password") == Origin::Explicit {
        problem(
            "listen.kafka_password",
            shown(config, "listen.kafka_password"),
            "is given on the command line, where every user of the machine can read it (/proc/PID/cmdline)".into(),
            "set LOGSHIP_LISTEN_KAFKA_PASSWORD, the config file's [listen] kafka_password, or listen.kafka_password_file".into(),
        );
    }
    let mut password = k.password.clone();
    if let Some(path) = &k.password_file {
        let shown = quoted(&path.display().to_string());
        if password.is_some() {
            problem(
                "listen.kafka_password_file",
                shown,
                "is set together with listen.kafka_password".into(),
                "keep only one of them".into(),
            );
        } else {
            match Secret::from_file(path) {
                Ok(secret) => password = Some(secret),
                Err(what) => problem(
                    "listen.kafka_password_file",
                    shown,
                    what,
                    "give a readable file holding only the password (mode 0600)".into(),
                ),
            }
        }
    }
    let sasl = k.sasl_mechanism != "none";
    if sasl && (k.username.is_none() || (password.is_none() && k.password_file.is_none())) {
        problem(
            "listen.kafka_sasl_mechanism",
            quoted(k.sasl_mechanism),
            "needs listen.kafka_username and a password".into(),
            "set listen.kafka_username, and the password through LOGSHIP_LISTEN_KAFKA_PASSWORD or listen.kafka_password_file".into(),
        );
    }
    if !sasl {
        for key in [
            "listen.kafka_username",
            "listen.kafka_password",
            "listen.kafka_password_file",
        ] {
            if set(key) {
                problem(
                    key,
                    shown(config, key),
                    "is ignored without a SASL mechanism".into(),
                    "set listen.kafka_sasl_mechanism (plain, scram_sha_256, scram_sha_512), or remove the key".into(),
                );
            }
        }
    }
    let files = [
        ("listen.kafka_tls_ca_file", &k.tls_ca_file),
        ("listen.kafka_tls_client_cert", &k.tls_client_cert),
        ("listen.kafka_tls_client_key", &k.tls_client_key),
    ];
    for (key, file) in files {
        let Some(path) = file else { continue };
        let shown = quoted(&path.display().to_string());
        if !k.tls {
            problem(
                key,
                shown,
                "is ignored without TLS".into(),
                "set listen.kafka_tls = true (--listen-kafka-tls), or remove the key".into(),
            );
        } else if let Err(e) = std::fs::File::open(path) {
            problem(
                key,
                shown,
                format!("cannot be read ({e})"),
                "give a readable PEM file".into(),
            );
        }
    }
    if k.tls && k.tls_client_cert.is_some() != k.tls_client_key.is_some() {
        let (key, missing) = match k.tls_client_cert {
            Some(_) => (
                "listen.kafka_tls_client_cert",
                "listen.kafka_tls_client_key",
            ),
            None => (
                "listen.kafka_tls_client_key",
                "listen.kafka_tls_client_cert",
            ),
        };
        problem(
            key,
            shown(config, key),
            format!("needs {missing}"),
            format!("set {missing} too (a client certificate and its key go together)"),
        );
    }
    Security(k.client_settings(password.as_ref()))
}

/// `key`'s value as shown in a problem (`[redacted]` for the password).
fn shown(config: &Config, key: &str) -> String {
    let k = &config.kafka_input;
    let file = |p: &Option<std::path::PathBuf>| {
        p.as_ref()
            .map(|p| quoted(&p.display().to_string()))
            .unwrap_or_default()
    };
    match key {
        "listen.kafka_sasl_mechanism" => quoted(k.sasl_mechanism),
        "listen.kafka_username" => quoted(k.username.as_deref().unwrap_or_default()),
        "listen.kafka_password" => "\"[redacted]\"".to_owned(),
        "listen.kafka_password_file" => file(&k.password_file),
        "listen.kafka_tls" => k.tls.to_string(),
        "listen.kafka_tls_ca_file" => file(&k.tls_ca_file),
        "listen.kafka_tls_client_cert" => file(&k.tls_client_cert),
        _ => file(&k.tls_client_key),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::test_config::config;

    /// The problems of `set` (keys set from the file, `flag` from the command line), as
    /// text.
    fn problems(set: &[(&str, &str)], flag: &[&str], used: bool) -> (Security, Vec<String>) {
        let c = config(set);
        let given: Vec<&str> = set.iter().map(|(k, _)| *k).collect();
        let origin = |key: &str| {
            if flag.contains(&key) {
                Origin::Explicit
            } else if given.contains(&key) {
                Origin::File("logship.toml".into())
            } else {
                Origin::Default
            }
        };
        let mut found = Vec::new();
        let mut report = |key: &'static str, value: String, what: String, fix: String| {
            found.push(format!("{key} = {value}: {what}; {fix}"));
        };
        let s = kafka_security(&c, &origin, used, &mut report);
        (s, found)
    }

    #[test]
    fn a_password_on_the_command_line_is_refused_and_never_shown() {
        let set = [
            ("listen.kafka_sasl_mechanism", "plain"),
            ("listen.kafka_username", "u"),
            ("listen.kafka_password", "pw-on-argv-1"),
        ];
        let (_, found) = problems(&set, &["listen.kafka_password"], true);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].contains("LOGSHIP_LISTEN_KAFKA_PASSWORD"),
            "{found:?}"
        );
        assert!(!found[0].contains("pw-on-argv-1"), "{found:?}");
        let (s, found) = problems(&set, &[], true);
        assert!(found.is_empty(), "from the file it is fine: {found:?}");
        assert!(s.0.contains(&("sasl.mechanism", "PLAIN".to_owned())));
    }

    #[test]
    fn missing_pieces_and_ignored_values_are_named_with_the_fix() {
        let (_, found) = problems(
            &[("listen.kafka_sasl_mechanism", "scram_sha_512")],
            &[],
            true,
        );
        assert!(
            found[0].contains("needs listen.kafka_username and a password"),
            "{found:?}"
        );
        let (_, found) = problems(&[("listen.kafka_tls_ca_file", "/etc/hosts")], &[], true);
        assert!(found[0].contains("ignored without TLS"), "{found:?}");
        let (_, found) = problems(
            &[
                ("listen.kafka_tls", "true"),
                ("listen.kafka_tls_client_cert", "/etc/hosts"),
            ],
            &[],
            true,
        );
        assert!(
            found[0].contains("needs listen.kafka_tls_client_key"),
            "{found:?}"
        );
        let (_, found) = problems(
            &[
                ("listen.kafka_tls", "true"),
                ("listen.kafka_tls_ca_file", "/nonexistent/ca.pem"),
            ],
            &[],
            true,
        );
        assert!(found[0].contains("cannot be read"), "{found:?}");
        let (_, found) = problems(&[("listen.kafka_username", "u")], &[], true);
        assert!(
            found[0].contains("ignored without a SASL mechanism"),
            "{found:?}"
        );
        let (_, found) = problems(&[("listen.kafka_tls", "true")], &[], false);
        assert!(found[0].contains("no kafka:// input"), "{found:?}");
    }

    #[test]
    fn a_password_file_is_read_and_goes_with_no_password_key() {
        let dir = std::env::temp_dir().join(format!("logship-kafka-pw-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let file = dir.join("pw");
        std::fs::write(&file, "from-file-1\n").expect("write");
        let path = file.to_string_lossy().into_owned();
        let set = [
            ("listen.kafka_sasl_mechanism", "scram_sha_256"),
            ("listen.kafka_username", "u"),
            ("listen.kafka_password_file", path.as_str()),
        ];
        let (s, found) = problems(&set, &[], true);
        assert!(found.is_empty(), "{found:?}");
        assert!(s.0.contains(&("sasl.password", "from-file-1".to_owned())));
        let mut both = set.to_vec();
        both.push(("listen.kafka_password", "x"));
        let (_, found) = problems(&both, &[], true);
        assert!(
            found[0].contains("together with listen.kafka_password"),
            "{found:?}"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
