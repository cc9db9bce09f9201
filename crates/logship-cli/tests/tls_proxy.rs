//! TLS and proxies through the real executable, where the environment is the user's:
//! `SSL_CERT_FILE` trusted as OpenSSL users expect, `https_proxy` / `no_proxy` honoured
//! by curl's rules (and `--proxy none`), `config check` saying which trust store and
//! proxy are in use and warning about `tls_verify = false`, and no secret (API key,
//! proxy password) on stderr. Every target is 127.0.0.1.

mod common;

use std::process::Output;
use std::time::Duration;

use common::{logship, run_with_stdin, temp_path};
use logship_intake::external;
use logship_intake::{Intake, IntakeConfig, ThrowawayCa, TlsServer};

const KEY: &str = "cli-tls-api-key-55e0";
const PROXY_PASSWORD: &str = "cli-proxy-pw-c3d2";

/// Runs `logship args` with exactly the proxy and certificate variables in `env`.
fn run(args: &[&str], env: &[(&str, &str)], stdin: &[u8]) -> Output {
    let mut command = logship();
    for var in [
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "https_proxy",
        "HTTPS_PROXY",
        "http_proxy",
        "HTTP_PROXY",
        "all_proxy",
        "ALL_PROXY",
        "no_proxy",
        "NO_PROXY",
    ] {
        command.env_remove(var);
    }
    for (var, _) in std::env::vars() {
        if var.starts_with("LOGSHIP_") {
            command.env_remove(var);
        }
    }
    command.envs(env.iter().copied());
    run_with_stdin(command.args(args), stdin, Duration::from_secs(120))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn lines(n: usize) -> Vec<u8> {
    (0..n)
        .map(|i| format!("line {i}\n"))
        .collect::<String>()
        .into_bytes()
}

/// An HTTPS intake and a file holding its CA's certificate.
fn https_intake() -> (Intake, std::path::PathBuf) {
    let ca = ThrowawayCa::new("cli-ca").unwrap();
    let cert = ca.server_cert(&["127.0.0.1"]).unwrap();
    let intake = Intake::start(IntakeConfig {
        tls: Some(TlsServer::from_pem(&cert.cert_pem, &cert.key_pem, None).unwrap()),
        ..IntakeConfig::default()
    })
    .unwrap();
    let path = temp_path("ca").with_extension("pem");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, ca.cert_pem()).unwrap();
    (intake, path)
}

#[test]
fn ssl_cert_file_is_trusted_and_without_it_the_error_says_what_to_do() {
    let (intake, ca) = https_intake();
    let url = intake.url("/logs");
    let spill = temp_path("spill");
    let spill_arg = spill.to_string_lossy().into_owned();
    let ca_env = ca.to_string_lossy().into_owned();
    let args = [
        "ship",
        "--endpoint",
        &url,
        "--api-key",
        KEY,
        "--spill-dir",
        &spill_arg,
        "--max-retries",
        "0",
        "--shutdown-timeout-ms",
        "3000",
    ];
    let out = run(&args, &[], &lines(10));
    let err = text(&out.stderr);
    assert!(
        err.contains("signed by a CA this machine does not trust") && err.contains("tls_ca_file"),
        "{err}"
    );
    assert!(!err.contains(KEY), "{err}");
    assert_eq!(intake.stats().events, 0);

    // The same run with SSL_CERT_FILE: trusted.
    let out = run(&args, &[("SSL_CERT_FILE", &ca_env)], &lines(10));
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(intake.wait_for_events(10, Duration::from_secs(30)), "{err}");
    assert!(!err.contains(KEY), "{err}");
}

#[test]
fn config_check_names_the_trust_store_and_the_proxy_and_warns_when_verification_is_off() {
    let (_intake, ca) = https_intake();
    let dir = temp_path("check");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("logship.toml");
    std::fs::write(
        &file,
        format!(
            "endpoint = \"https://127.0.0.1:9/logs\"\ntls_ca_file = \"{}\"\n",
            ca.display()
        ),
    )
    .unwrap();
    let path = file.to_string_lossy().into_owned();
    let proxy = format!("http://bob:{PROXY_PASSWORD}@127.0.0.1:3128");
    let out = run(&["config", "check", &path], &[("https_proxy", &proxy)], b"");
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stdout.contains("# TLS trust: the system trust store"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("+ tls_ca_file {}", ca.display())),
        "{stdout}"
    );
    assert!(
        stdout.contains("# proxy: http://[redacted]@127.0.0.1:3128 (from https_proxy)"),
        "{stdout}"
    );
    assert!(!stdout.contains(PROXY_PASSWORD) && !stderr.contains(PROXY_PASSWORD));

    let ca_env = ca.to_string_lossy().into_owned();
    let out = run(
        &["config", "check", &path],
        &[
            ("SSL_CERT_FILE", &ca_env),
            ("https_proxy", &proxy),
            ("no_proxy", "127.0.0.0/8"),
        ],
        b"",
    );
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(&format!("SSL_CERT_FILE={ca_env} (1 certificates)")),
        "{stdout}"
    );
    assert!(
        stdout.contains("# proxy: direct (no_proxy entry `127.0.0.0/8`"),
        "{stdout}"
    );

    std::fs::write(
        &file,
        "endpoint = \"https://127.0.0.1:9/logs\"\ntls_verify = false\n",
    )
    .unwrap();
    let out = run(&["config", "check", &path], &[], b"");
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("tls_verify = false") && stderr.contains("NOT verified"),
        "{stderr}"
    );
    assert!(stdout.contains("# TLS trust: NONE"), "{stdout}");

    // A missing CA file fails the check naming the option and the file.
    std::fs::write(
        &file,
        "endpoint = \"https://127.0.0.1:9/logs\"\ntls_ca_file = \"/nonexistent/ca.pem\"\n",
    )
    .unwrap();
    let out = run(&["config", "check", &path], &[], b"");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("tls_ca_file = /nonexistent/ca.pem"),
        "{stderr}"
    );
}

/// The CONNECT requests tinyproxy logged for `port`.
fn connects(proxy: &external::ExternalServer, port: u16) -> usize {
    let log = std::fs::read_to_string(proxy.dir.join("tinyproxy.log")).unwrap_or_default();
    log.lines()
        .filter(|l| l.contains(&format!("CONNECT 127.0.0.1:{port}")))
        .count()
}

#[test]
fn https_proxy_is_used_and_no_proxy_or_proxy_none_bypass_it() {
    let Some(program) = external::require("tinyproxy") else {
        return;
    };
    let proxy = external::tinyproxy(&program, Some(("shipper", PROXY_PASSWORD))).unwrap();
    let (intake, ca) = https_intake();
    let url = intake.url("/logs");
    let ca_arg = ca.to_string_lossy().into_owned();
    let port = intake.addr().port();
    let via = format!("http://shipper:{PROXY_PASSWORD}@127.0.0.1:{}", proxy.port);
    let args = [
        "ship",
        "--endpoint",
        &url,
        "--tls-ca-file",
        &ca_arg,
        "--no-spill",
    ];

    let out = run(&args, &[("HTTPS_PROXY", &via)], &lines(10));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(intake.stats().events, 10);
    assert_eq!(connects(&proxy, port), 1, "{}", proxy.logs());

    for env in [
        [
            ("HTTPS_PROXY", via.as_str()),
            ("NO_PROXY", "localhost,127.0.0.1"),
        ],
        [("https_proxy", via.as_str()), ("no_proxy", "*")],
    ] {
        let out = run(&args, &env, &lines(10));
        assert!(out.status.success(), "{}", text(&out.stderr));
    }
    let mut none = args.to_vec();
    none.extend(["--proxy", "none"]);
    let out = run(&none, &[("https_proxy", &via)], &lines(10));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(intake.stats().events, 40);
    assert_eq!(connects(&proxy, port), 1, "bypassed: {}", proxy.logs());

    // A plain-http endpoint reads http_proxy, not https_proxy.
    let plain = Intake::start(IntakeConfig::default()).unwrap();
    let plain_url = plain.url("/logs");
    let out = run(
        &["ship", "--endpoint", &plain_url, "--no-spill"],
        &[("http_proxy", &via), ("https_proxy", "http://127.0.0.1:1")],
        &lines(5),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(connects(&proxy, plain.addr().port()), 1, "{}", proxy.logs());

    // An unreachable proxy is named on stderr, without its password.
    let dead = format!("http://shipper:{PROXY_PASSWORD}@127.0.0.1:1");
    let out = run(
        &[
            "ship",
            "--endpoint",
            &url,
            "--tls-ca-file",
            &ca_arg,
            "--no-spill",
            "--max-retries",
            "0",
            "--api-key",
            KEY,
        ],
        &[("https_proxy", &dead)],
        &lines(3),
    );
    let err = text(&out.stderr);
    assert!(err.contains("proxy 127.0.0.1:1 is unreachable"), "{err}");
    assert!(!err.contains(PROXY_PASSWORD) && !err.contains(KEY), "{err}");
}
