//! The `[listen]` section of the config file and the `--listen` flags, resolved into one
//! set of options (flags > file > defaults).
//!
//! Why it exists: a sidecar is configured by a file, so what it listens on belongs in it
//! next to the pipeline options. Like `[follow]`, the section is the CLI's: it is taken
//! out of the file before the library reads the rest (`follow::settings::ConfigFile`)
//! and checked here: an unknown key names the closest one, a bad value names the field,
//! what is allowed and where it came from.
//!
//! Must never: accept a value it would ignore, or print the token (`describe` and every
//! error show `token = "<set>"`, never its text).

use std::time::Duration;

use clap::{Args, ValueEnum};
use logship::Origin;

use super::{http, Spec};
use crate::exit::Failure;
use crate::follow::settings::{invalid_in_file, ConfigFile};

/// The section's name in the file.
pub const SECTION: &str = "listen";

/// When an HTTP request is answered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Ack {
    /// Once its events are in logship's queue (the default: fast; a crash of logship can
    /// lose what is queued and not yet spilled).
    Queued,
    /// Once its events are delivered or durably spilled (`flush`); 503 with
    /// `Retry-After` when that takes longer than --listen-ack-timeout-ms.
    Delivered,
}

/// Options of `ship --listen` (each overrides its key in the `[listen]` section).
#[derive(Args, Debug, Clone, Default)]
pub struct ListenArgs {
    /// Listen on URL and ship what arrives: `http://HOST:PORT` (JSON, NDJSON or text
    /// bodies, Log4j2's Http appender, vendor push APIs), `tcp://HOST:PORT` (JSON or
    /// text lines), `syslog+tcp://HOST:PORT`, `syslog+udp://HOST:PORT`. Repeatable;
    /// combinable with --follow; runs until SIGTERM/SIGINT. Port 0 picks a free port.
    /// See docs/listen.md.
    #[arg(long = "listen", value_name = "URL", conflicts_with = "inputs")]
    pub listen: Vec<String>,

    /// With --listen http: require this token (`Authorization: Bearer TOKEN`,
    /// `X-Logship-Token: TOKEN`, or where each vendor API's clients send their key);
    /// wrong or missing: 401. Never printed.
    #[arg(long, value_name = "TOKEN")]
    pub listen_token: Option<String>,

    /// With --listen http: when a request is answered. [default: queued]
    #[arg(long, value_enum)]
    pub listen_ack: Option<Ack>,

    /// With --listen-ack delivered: longest a request waits for delivery before 503.
    /// [default: 10000]
    #[arg(long, value_name = "MS")]
    pub listen_ack_timeout_ms: Option<u64>,

    /// With --listen http: largest request body, compressed or decompressed (413 beyond).
    /// [default: 10485760]
    #[arg(long, value_name = "BYTES")]
    pub listen_max_body_bytes: Option<u64>,

    /// With --listen: most connections open at once per listener (more are answered 503
    /// and closed). [default: 256]
    #[arg(long, value_name = "N")]
    pub listen_max_connections: Option<u64>,

    /// With --listen http: longest wait for a request's head once it began (408 and
    /// close beyond: a slow client cannot hold a thread). [default: 10000]
    #[arg(long, value_name = "MS")]
    pub listen_header_timeout_ms: Option<u64>,

    /// With --listen http: longest wait for a request's body. [default: 30000]
    #[arg(long, value_name = "MS")]
    pub listen_body_timeout_ms: Option<u64>,

    /// With --listen: a connection idle this long is closed. [default: 60000]
    #[arg(long, value_name = "MS")]
    pub listen_idle_timeout_ms: Option<u64>,
}

/// The listen options as the listeners use them.
#[derive(Clone, Debug)]
pub struct Listen {
    /// Where to listen (empty: not listening).
    pub specs: Vec<Spec>,
    /// Most connections per listener.
    pub max_connections: usize,
    /// Idle connections are closed after this.
    pub idle_timeout: Duration,
    /// The HTTP server's options.
    pub http: http::Options,
}

/// One integer option: (key, flag, min, max, default).
type IntKey = (&'static str, &'static str, u64, u64, u64);

const HOUR_MS: u64 = 3_600_000;
const INTS: &[IntKey] = &[
    (
        "ack_timeout_ms",
        "--listen-ack-timeout-ms",
        1,
        HOUR_MS,
        10_000,
    ),
    (
        "max_body_bytes",
        "--listen-max-body-bytes",
        1024,
        1 << 30,
        10 << 20,
    ),
    (
        "max_connections",
        "--listen-max-connections",
        1,
        100_000,
        256,
    ),
    (
        "header_timeout_ms",
        "--listen-header-timeout-ms",
        1,
        HOUR_MS,
        10_000,
    ),
    (
        "body_timeout_ms",
        "--listen-body-timeout-ms",
        1,
        HOUR_MS,
        30_000,
    ),
    (
        "idle_timeout_ms",
        "--listen-idle-timeout-ms",
        1,
        HOUR_MS,
        60_000,
    ),
];
/// Every key of the section.
const KEYS: &[&str] = &[
    "inputs",
    "token",
    "ack",
    "ack_timeout_ms",
    "max_body_bytes",
    "max_connections",
    "header_timeout_ms",
    "body_timeout_ms",
    "idle_timeout_ms",
];

/// The listen options, resolved, with where each came from (for `config check`).
pub struct Resolved {
    /// The options.
    pub listen: Listen,
    /// (key, value as shown, origin), in [`KEYS`] order; the token shown as `<set>`.
    shown: Vec<(&'static str, String, Origin)>,
}

impl Resolved {
    /// Resolves the flags `args` (none: `config check`) over the `[listen]` section of
    /// `file` over the defaults; the first bad value is a usage error naming the field.
    pub fn new(args: Option<&ListenArgs>, file: Option<&ConfigFile>) -> Result<Resolved, Failure> {
        let section = file.and_then(|f| f.listen.as_ref().map(|t| (f.label.as_str(), t)));
        let bad_file = |label: &str, what: String, problem: &str, fix: &str| {
            invalid_in_file(label, format_args!("{what}"), problem, fix)
        };
        if let Some((label, table)) = section {
            for given in table.keys() {
                if !KEYS.contains(&given.as_str()) {
                    let fix = match logship::did_you_mean(given, KEYS.iter().copied()) {
                        Some(s) => format!("did you mean {s}?"),
                        None => format!("the [listen] options are {}", KEYS.join(", ")),
                    };
                    return Err(bad_file(
                        label,
                        format!("listen.{given}"),
                        "is not a listen option",
                        &fix,
                    ));
                }
            }
        }
        let from_file = |key: &str| section.and_then(|(label, t)| t.get(key).map(|v| (label, v)));
        let mut shown = Vec::new();

        // inputs
        let (urls, origin) = match args.filter(|a| !a.listen.is_empty()) {
            Some(a) => (a.listen.clone(), Origin::Explicit),
            None => match from_file("inputs") {
                Some((label, v)) => {
                    let list = match v {
                        toml::Value::String(s) => Some(vec![s.clone()]),
                        toml::Value::Array(a) => a
                            .iter()
                            .map(|x| x.as_str().map(str::to_owned))
                            .collect::<Option<Vec<_>>>(),
                        _ => None,
                    };
                    let Some(list) = list else {
                        return Err(bad_file(
                            label,
                            format!("listen.inputs = {v}"),
                            "must be a URL or a list of URLs",
                            "write inputs = [\"http://127.0.0.1:8080\"]",
                        ));
                    };
                    (list, Origin::File(label.to_owned()))
                }
                None => (Vec::new(), Origin::Default),
            },
        };
        let mut specs = Vec::with_capacity(urls.len());
        for url in &urls {
            let spec = Spec::parse(url).map_err(|e| match &origin {
                Origin::File(label) => {
                    bad_file(label, format!("listen.inputs = {url:?}"), &e, "fix the URL")
                }
                _ => Failure::usage(e),
            })?;
            specs.push(spec);
        }
        shown.push((
            "inputs",
            toml::Value::from(urls.clone()).to_string(),
            origin,
        ));

        // token
        let (token, origin) = match args.and_then(|a| a.listen_token.clone()) {
            Some(t) => (Some(t), Origin::Explicit),
            None => match from_file("token") {
                Some((label, toml::Value::String(s))) => {
                    (Some(s.clone()), Origin::File(label.to_owned()))
                }
                Some((label, _)) => {
                    return Err(bad_file(
                        label,
                        "listen.token".into(),
                        "must be a string",
                        "write token = \"...\" (or leave it out for no token check)",
                    ))
                }
                None => (None, Origin::Default),
            },
        };
        if token
            .as_deref()
            .is_some_and(|t| t.trim().is_empty() || t.contains(['\r', '\n']))
        {
            return Err(match &origin {
                Origin::File(label) => bad_file(label, "listen.token".into(), "is empty or holds a line break", "give the token clients send, or leave it out"),
                _ => Failure::usage("--listen-token is empty or holds a line break (give the token clients send, or leave it out)"),
            });
        }
        shown.push((
            "token",
            if token.is_some() {
                "\"<set>\"".into()
            } else {
                "(unset: no token check)".into()
            },
            origin,
        ));

        // ack
        let (ack, origin) = match args.and_then(|a| a.listen_ack) {
            Some(a) => (a, Origin::Explicit),
            None => match from_file("ack") {
                Some((label, v)) => match v.as_str() {
                    Some("queued") => (Ack::Queued, Origin::File(label.to_owned())),
                    Some("delivered") => (Ack::Delivered, Origin::File(label.to_owned())),
                    _ => return Err(bad_file(
                        label,
                        format!("listen.ack = {v}"),
                        "must be \"queued\" or \"delivered\"",
                        "write ack = \"delivered\" to answer once events are delivered or spilled",
                    )),
                },
                None => (Ack::Queued, Origin::Default),
            },
        };
        shown.push((
            "ack",
            format!(
                "\"{}\"",
                if ack == Ack::Queued {
                    "queued"
                } else {
                    "delivered"
                }
            ),
            origin,
        ));

        // integers
        let mut ints = Vec::with_capacity(INTS.len());
        for &(key, flag, min, max, default) in INTS {
            let flag_value = args.and_then(|a| match key {
                "ack_timeout_ms" => a.listen_ack_timeout_ms,
                "max_body_bytes" => a.listen_max_body_bytes,
                "max_connections" => a.listen_max_connections,
                "header_timeout_ms" => a.listen_header_timeout_ms,
                "body_timeout_ms" => a.listen_body_timeout_ms,
                "idle_timeout_ms" => a.listen_idle_timeout_ms,
                _ => None,
            });
            let range = format!("must be {min}..={max}");
            let fix = format!(
                "set {key} to a whole number from {min} to {max}; the default is {default}"
            );
            let (n, origin) = match flag_value {
                Some(n) if n < min || n > max => {
                    return Err(Failure::usage(format!("{flag} {n}: {range} ({fix})")))
                }
                Some(n) => (n, Origin::Explicit),
                None => match from_file(key) {
                    Some((label, v)) => match v.as_integer().and_then(|n| u64::try_from(n).ok()) {
                        Some(n) if (min..=max).contains(&n) => (n, Origin::File(label.to_owned())),
                        _ => {
                            return Err(bad_file(
                                label,
                                format!("listen.{key} = {v}"),
                                &range,
                                &fix,
                            ))
                        }
                    },
                    None => (default, Origin::Default),
                },
            };
            shown.push((key, n.to_string(), origin));
            ints.push(n);
        }
        let ms = |i: usize| Duration::from_millis(ints[i]);
        let listen = Listen {
            specs,
            max_connections: ints[2] as usize,
            idle_timeout: ms(5),
            http: http::Options {
                token: token.map(http::Token::new),
                ack,
                ack_timeout: ms(0),
                max_body: ints[1] as usize,
                max_connections: ints[2] as usize,
                header_timeout: ms(3),
                body_timeout: ms(4),
                idle_timeout: ms(5),
                // The pipeline's queue_capacity, set once the configuration is built.
                max_events: usize::MAX,
                decoding: std::sync::Arc::new(http::DecodeGate::per_core()),
            },
        };
        Ok(Resolved { listen, shown })
    }

    /// The section as `logship config check` prints it (the token never shown).
    pub fn describe(&self) -> String {
        let mut out = format!("[{SECTION}]\n");
        for (key, value, origin) in &self.shown {
            out.push_str(&format!("{key} = {value}  # {origin}\n"));
        }
        out
    }
}

/// The commented `[listen]` section `logship config example` appends.
pub fn example() -> String {
    let mut out = String::from(
        "\n# Listeners (`logship ship --config FILE` serves them; flags override; docs/listen.md):\n# [listen]\n# inputs = [\"http://127.0.0.1:8080\", \"syslog+udp://127.0.0.1:5514\"]\n# token = \"...\"  (unset: no token check)\n# ack = \"queued\"  (or \"delivered\")\n",
    );
    for (key, _, _, _, default) in INTS {
        out.push_str(&format!("# {key} = {default}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> ConfigFile {
        let path = std::env::temp_dir().join(format!("logship-listen-{}.toml", std::process::id()));
        std::fs::write(&path, text).unwrap();
        let f = ConfigFile::read(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        f
    }

    #[test]
    fn flags_override_the_file_and_bad_values_name_the_field() {
        let f = file("[listen]\ninputs = [\"http://127.0.0.1:0\"]\nmax_connections = 7\ntoken = \"s3cret\"\n");
        assert!(f
            .library_text
            .as_deref()
            .is_some_and(|t| !t.contains("listen")));
        let r = Resolved::new(None, Some(&f)).unwrap();
        assert_eq!(r.listen.specs.len(), 1);
        assert_eq!(r.listen.max_connections, 7);
        assert!(!r.describe().contains("s3cret"), "{}", r.describe());
        let args = ListenArgs {
            listen_max_connections: Some(3),
            ..Default::default()
        };
        assert_eq!(
            Resolved::new(Some(&args), Some(&f))
                .unwrap()
                .listen
                .max_connections,
            3
        );
        for (text, says) in [
            (
                "[listen]\nmax_conections = 3\n",
                "did you mean max_connections",
            ),
            (
                "[listen]\ninputs = [\"htp://127.0.0.1:1\"]\n",
                "listen.inputs",
            ),
            ("[listen]\nack = \"always\"\n", "listen.ack"),
            (
                "[listen]\nheader_timeout_ms = 0\n",
                "listen.header_timeout_ms = 0",
            ),
            ("[listen]\ntoken = 3\n", "listen.token"),
            ("[lissen]\n", "did you mean [listen]"),
        ] {
            let e = match ConfigFile::read_text(text) {
                Ok(f) => Resolved::new(None, Some(&f)).err().expect(text).message,
                Err(e) => e.message,
            };
            assert!(e.contains(says), "{text}: {e}");
        }
    }
}
