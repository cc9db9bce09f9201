//! End-to-end tests of `logship config` and `--config`: each runs the real executable;
//! `ship` talks real HTTP to a `logship_intake::Intake` in the test process. Every child
//! gets its own XDG_CACHE_HOME and an environment without LOGSHIP_* or vendor key
//! variables, so the developer's environment cannot change the outcome.

mod common;

use std::path::PathBuf;
use std::process::Output;

use common::{logship, row, run_with_stdin, temp_path};
use logship_intake::{Intake, IntakeConfig};
use serde_json::Value;

const SECRET: &str = "sk-live-config-test-0123";

/// Writes `text` to a fresh `.toml` file.
fn config_file(text: &str) -> PathBuf {
    let path = temp_path("logship").with_extension("toml");
    std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
    std::fs::write(&path, text).expect("write config");
    path
}

/// Runs `logship args...` with `env` (and nothing of the caller's LOGSHIP_* or keys).
fn run(args: &[&str], env: &[(&str, &str)], stdin: &[u8]) -> Output {
    let mut command = logship();
    for (var, _) in std::env::vars() {
        if var.starts_with("LOGSHIP_")
            || [
                "DD_API_KEY",
                "SPLUNK_HEC_TOKEN",
                "NEW_RELIC_LICENSE_KEY",
                "DT_API_TOKEN",
            ]
            .contains(&var.as_str())
        {
            command.env_remove(var);
        }
    }
    command.envs(env.iter().copied());
    run_with_stdin(
        command.args(args),
        stdin,
        std::time::Duration::from_secs(120),
    )
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn config_check_prints_the_effective_configuration_and_its_sources() {
    let file = config_file(&format!(
        "vendor = \"datadog\"\napiKey = \"{SECRET}\"\nservice = \"pay\"\nmaxBatchRecords = 50\n\
         [headers]\nX-Token = \"{SECRET}\"\n"
    ));
    let path = file.to_string_lossy().into_owned();
    let out = run(
        &["config", "check", &path],
        &[("LOGSHIP_LINGER_MS", "250")],
        b"",
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    for line in [
        format!("vendor = \"datadog\"  # file {path}"),
        format!("api_key = \"[redacted]\"  # file {path}"),
        format!("headers = {{ \"X-Token\" = \"[redacted]\" }}  # file {path}"),
        format!("max_batch_records = 50  # file {path}"),
        "linger_ms = 250  # env LOGSHIP_LINGER_MS".to_owned(),
        "queue_capacity = 10000  # default".to_owned(),
        "# endpoint (unset)  # default".to_owned(),
    ] {
        assert!(
            stdout.lines().any(|l| l == line),
            "missing {line:?} in\n{stdout}"
        );
    }
    assert!(
        !stdout.contains(SECRET) && !stderr.contains(SECRET),
        "{stdout}{stderr}"
    );
}

#[test]
fn config_check_shows_datadog_variables_as_sources_under_logship_variables() {
    let file = config_file("vendor = \"datadog\"\nversion = \"from-file\"\n");
    let path = file.to_string_lossy().into_owned();
    let out = run(
        &["config", "check", &path],
        &[
            ("DD_API_KEY", SECRET),
            ("DD_SERVICE", "from-dd"),
            ("DD_ENV", "prod"),
            ("DD_VERSION", "2.0.0"),
            ("DD_TAGS", "team:core region:eu"),
            ("DD_SITE", "datadoghq.eu"),
            ("LOGSHIP_SERVICE", "from-logship"),
        ],
        b"",
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    for line in [
        "api_key = \"[redacted]\"  # env DD_API_KEY",
        "service = \"from-logship\"  # env LOGSHIP_SERVICE",
        "env = \"prod\"  # env DD_ENV",
        "version = \"2.0.0\"  # env DD_VERSION",
        "tags = [\"team:core\", \"region:eu\"]  # env DD_TAGS",
        "site = \"datadoghq.eu\"  # env DD_SITE",
        "# endpoint: https://http-intake.logs.datadoghq.eu/api/v2/logs",
    ] {
        assert!(
            stdout.lines().any(|l| l == line),
            "missing {line:?} in\n{stdout}"
        );
    }
    assert!(!stdout.contains(SECRET), "{stdout}");
}

#[test]
fn config_check_rejects_bad_files_with_exit_2_and_the_reason() {
    type Vars<'a> = &'a [(&'a str, &'a str)];
    let cases: &[(&str, Vars, &str)] = &[
        (
            "lingerms = 5\n",
            &[],
            "key = lingerms: is not a logship option (did you mean linger_ms?)",
        ),
        (
            "linger_ms = -5\n",
            &[],
            "linger_ms = -5: must be 0..=600000 milliseconds",
        ),
        (
            "spill_fsync = \"often\"\n",
            &[],
            "spill_fsync = \"often\": must be one of on_segment_close, always, never",
        ),
        (
            "endpoint = \"http://127.0.0.1:9/x\"\n",
            &[("LOGSHIP_MAX_IN_FLIGHT", "100")],
            "max_in_flight = 100: must be 1..=64 (set max_in_flight to a whole number from 1 to 64) [from env LOGSHIP_MAX_IN_FLIGHT]",
        ),
        (
            // Valid values, invalid whole: checked as `ship` would.
            &format!("vendor = \"datadog\"\napi_key = \"{SECRET}\"\nsite = \"example.com\"\n"),
            &[],
            "site = example.com",
        ),
        (
            &format!("api_key = \"{SECRET}\"\nendpoint = \"${{env:INTAKE_URL}}\"\n"),
            &[],
            "endpoint = ${env:INTAKE_URL}: environment variable INTAKE_URL is not set",
        ),
    ];
    for (contents, env, want) in cases {
        let file = config_file(contents);
        let out = run(&["config", "check", &file.to_string_lossy()], env, b"");
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{contents}: {stderr}");
        assert!(
            stderr.starts_with("logship: invalid logship configuration: ") && stderr.contains(want),
            "{contents}: want {want:?}, got {stderr}"
        );
        assert!(text(&out.stdout).is_empty());
        assert!(!stderr.contains(SECRET), "{stderr}");
    }
    let out = run(&["config", "check", "/nonexistent/logship.toml"], &[], b"");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("cannot be read"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn config_example_passes_check_for_every_vendor() {
    for (vendor, key_var) in [
        ("datadog", Some("DD_API_KEY")),
        ("ndjson", None),
        ("json", None),
        ("splunk", Some("SPLUNK_HEC_TOKEN")),
        ("newrelic", Some("NEW_RELIC_LICENSE_KEY")),
        ("dynatrace", Some("DT_API_TOKEN")),
        ("otlp", None),
    ] {
        let out = run(&["config", "example", "--vendor", vendor], &[], b"");
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let example = text(&out.stdout);
        assert!(
            example.contains(&format!("vendor = \"{vendor}\"")),
            "{example}"
        );
        let file = config_file(&example);
        // As a user runs it: with the vendor's key variable set.
        let env: Vec<(&str, &str)> = key_var
            .map(|var| (var, "0123456789abcdef0123456789abcdef"))
            .into_iter()
            .collect();
        let check = run(&["config", "check", &file.to_string_lossy()], &env, b"");
        assert_eq!(
            check.status.code(),
            Some(0),
            "{vendor}: {}",
            text(&check.stderr)
        );
        // Without it, the example's placeholder key is refused, naming the variable.
        if let Some(var) = key_var {
            let bare = run(&["config", "check", &file.to_string_lossy()], &[], b"");
            let err = text(&bare.stderr);
            assert_eq!(bare.status.code(), Some(2), "{vendor}: {err}");
            assert!(
                err.contains("placeholder") && err.contains(var),
                "{vendor}: {err}"
            );
        }
    }
}

#[test]
fn ship_with_config_delivers_and_flags_beat_env_beat_file() {
    let key = "cli-config-key-0123";
    let intake = Intake::start(IntakeConfig {
        api_key: Some(key.into()),
        ..IntakeConfig::default()
    })
    .expect("start intake");
    // The file's endpoint is wrong: the environment's must win. The file's service loses
    // to the environment's, which loses to the flag.
    let file = config_file(
        "vendor = \"datadog\"\nendpoint = \"http://127.0.0.1:9\"\napi_key = \"${env:MY_KEY}\"\n\
         service = \"from-file\"\nhostname = \"file-host\"\ntags = [\"env:file\"]\n\
         max_batch_records = 2\nspill_enabled = false\ngzip = false\n",
    );
    let endpoint = intake.url("");
    let out = run(
        &[
            "ship",
            "--config",
            &file.to_string_lossy(),
            "--service",
            "from-flag",
        ],
        &[
            ("LOGSHIP_ENDPOINT", endpoint.as_str()),
            ("LOGSHIP_SERVICE", "from-env"),
            ("MY_KEY", key),
        ],
        b"one\ntwo\nthree\n",
    );
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("shipped 3 of 3 events"), "{stderr}");
    // The summary tells the file's `gzip = false`, not only a --no-gzip flag.
    assert!(stderr.contains(" uncompressed) in "), "{stderr}");
    assert!(!stderr.contains(key));
    assert_eq!(intake.stats().events, 3);
    assert_eq!(intake.stats().auth_failures, 0);
    assert!(intake.violations().is_empty(), "{:?}", intake.violations());
    assert!(
        intake.requests().len() >= 2,
        "max_batch_records = 2 from the file"
    );
    for e in intake.events() {
        assert_eq!(e.value["service"], Value::from("from-flag"));
        assert_eq!(e.value["hostname"], Value::from("file-host"));
        assert_eq!(e.value["ddtags"], Value::from("env:file"));
    }
}

#[test]
fn ship_with_an_invalid_config_exits_2_before_reading_input() {
    let file = config_file("max_batch_records = \"lots\"\n");
    let out = run(&["ship", "--config", &file.to_string_lossy()], &[], b"x\n");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr)
            .contains("max_batch_records = \"lots\": must be a whole number 1..=1000000"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn demo_takes_settings_from_the_config_but_keeps_its_own_intake() {
    // The file's endpoint is ignored: the demo always ships to its embedded intake.
    let file = config_file(
        "vendor = \"datadog\"\nendpoint = \"http://127.0.0.1:9\"\nmax_batch_records = 20\n",
    );
    let out = run(
        &[
            "demo",
            "--config",
            &file.to_string_lossy(),
            "--duration",
            "0.5",
            "--rate",
            "400",
            "--threads",
            "1",
        ],
        &[],
        b"",
    );
    let table = text(&out.stdout);
    assert!(out.status.success(), "{table}\n{}", text(&out.stderr));
    assert_eq!(row(&table, "events logged"), 200, "{table}");
    assert_eq!(row(&table, "events delivered"), 200, "{table}");
    assert!(
        row(&table, "batches") >= 10,
        "max_batch_records = 20: {table}"
    );
}

#[test]
fn config_check_shows_the_follow_section_with_each_values_source() {
    let file = config_file(
        "service = \"pay\"\nendpoint = \"http://127.0.0.1:9/x\"\nspill_dir = \"/var/lib/logship/spill\"\n\
         [follow]\npaths = [\"/var/log/pay/*.log\", \"/var/log/pay/audit.json\"]\n\
         start_at = \"end\"\nmultiline = \"java\"\nmax_open_files = 64\n",
    );
    let path = file.to_string_lossy().into_owned();
    let out = run(
        &["config", "check", &path],
        &[("LOGSHIP_FOLLOW_ROTATE_WAIT_MS", "3000")],
        b"",
    );
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    for line in [
        // The library's options are still read from the same file.
        format!("service = \"pay\"  # file {path}"),
        // What `ship --config FILE` would use: it follows, so the service's defaults.
        "max_batch_records = 1000  # default (logship)".to_owned(),
        // The library's own default since issue #34's round 4 (was the command's).
        "gzip_level = 2  # default".to_owned(),
        "shutdown_timeout_ms = 30000  # default (logship)".to_owned(),
        "[follow]".to_owned(),
        "rotate_wait_ms = 3000  # env LOGSHIP_FOLLOW_ROTATE_WAIT_MS".to_owned(),
        format!("paths = [\"/var/log/pay/*.log\", \"/var/log/pay/audit.json\"]  # file {path}"),
        format!("start_at = \"end\"  # file {path}"),
        format!("multiline = \"java\"  # file {path}"),
        format!("max_open_files = 64  # file {path}"),
        "format = \"text\"  # default".to_owned(),
        "poll_interval_ms = 250  # default".to_owned(),
        "checkpoint = \"/var/lib/logship/spill.follow.json\"  # default (beside the spill directory)"
            .to_owned(),
    ] {
        assert!(
            stdout.lines().any(|l| l == line),
            "missing {line:?} in\n{stdout}"
        );
    }
    // Without a section: the defaults, and no paths.
    let bare = config_file("service = \"pay\"\nendpoint = \"http://127.0.0.1:9/x\"\n");
    let out = run(&["config", "check", &bare.to_string_lossy()], &[], b"");
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    for line in [
        "# paths (unset)  # default",
        "checkpoint_interval_ms = 1000  # default",
        "max_batch_records = 200  # default",
        "block_timeout_ms = 60000  # default (logship)",
        "[listen]",
        "# inputs (unset)  # default",
        "# token (unset)  # default",
        "ack = \"queued\"  # default",
    ] {
        assert!(
            stdout.lines().any(|l| l == line),
            "missing {line:?} in\n{stdout}"
        );
    }
}

#[test]
fn a_bad_follow_section_is_refused_naming_the_key_the_value_and_the_fix() {
    let cases: &[(&str, &str)] = &[
        (
            "[follow]\npahts = [\"/x/*.log\"]\n",
            "follow.pahts: is not a follow option (did you mean paths?)",
        ),
        (
            "[folow]\npaths = [\"/x/*.log\"]\n",
            "[folow]: is not a logship section (did you mean [follow]?)",
        ),
        (
            "follow = \"/x/*.log\"\n",
            "follow = \"/x/*.log\": must be a table (write the options under a [follow] header)",
        ),
        (
            "[follow]\npaths = [\"/x/*.log\"]\nstart_at = \"begining\"\n",
            "follow.start_at = \"begining\": must be one of beginning, end (did you mean beginning?)",
        ),
        (
            "[follow]\nformat = \"xml\"\n",
            "follow.format = \"xml\": must be one of text, json, docker, cri",
        ),
        (
            "[follow]\npoll_interval_ms = 0\n",
            "follow.poll_interval_ms = 0: must be 1..=3600000 milliseconds (set follow.poll_interval_ms to a whole number from 1 to 3600000)",
        ),
        (
            "[follow]\nmax_open_files = \"many\"\n",
            "follow.max_open_files = \"many\": must be a whole number 1..=1000000 files, got a string",
        ),
        (
            "[follow]\nrotate_wait_ms = -1\n",
            "follow.rotate_wait_ms = -1: must be 0..=3600000 milliseconds",
        ),
        (
            "[follow]\npaths = [\"/x/[.log\"]\n",
            "is not a valid glob pattern",
        ),
        ("[follow]\npaths = []\n", "follow.paths = []: is empty"),
        (
            "[follow]\npaths = [\"/x/*.log\", 3]\n",
            "follow.paths = 3: each item must be a \"path or glob\" string, got an integer",
        ),
        (
            "[follow]\nmultiline = \"start:(\"\n",
            "follow.multiline = \"start:(\": invalid regular expression",
        ),
        (
            "[follow]\nmultiline = \"jvaa\"\n",
            "expected java, timestamp, start:REGEX or continue:REGEX",
        ),
        (
            "[follow]\ncheckpoint = true\n",
            "follow.checkpoint = true: must be a path, or false for none",
        ),
    ];
    for (contents, want) in cases {
        let file = config_file(contents);
        let path = file.to_string_lossy().into_owned();
        for args in [
            vec!["config", "check", &path],
            vec![
                "ship",
                "--config",
                &path,
                "--endpoint",
                "http://127.0.0.1:9/x",
            ],
        ] {
            let out = run(&args, &[], b"never read\n");
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{contents} {args:?}: {stderr}");
            assert!(
                stderr.starts_with("logship: invalid logship configuration: ")
                    && stderr.contains(want)
                    && stderr.contains(&format!("[from file {path}]")),
                "{contents} {args:?}: want {want:?}, got {stderr}"
            );
            assert!(!stderr.contains("shipped"), "{stderr}");
        }
    }
}

#[test]
fn follow_flags_are_checked_like_the_file_and_name_the_flag() {
    for (args, want) in [
        (
            &["--follow", "/x/*.log", "--poll-interval-ms", "0"][..],
            "follow.poll_interval_ms = 0: must be 1..=3600000 milliseconds (set follow.poll_interval_ms to a whole number from 1 to 3600000) [from flag --poll-interval-ms]",
        ),
        (
            &["--follow", "/x/*.log", "--max-open-files", "0"][..],
            "follow.max_open_files = 0: must be 1..=1000000 files (set follow.max_open_files to a whole number from 1 to 1000000) [from flag --max-open-files]",
        ),
        (
            &["--follow", "/x/[.log"][..],
            "follow.paths = [\"/x/[.log\"]: \"/x/[.log\" is not a valid glob pattern",
        ),
        (
            &["--follow", "/x/*.log", "--multiline", "start:("][..],
            "follow.multiline = \"start:(\": invalid regular expression",
        ),
    ] {
        let mut all = vec!["ship", "--endpoint", "http://127.0.0.1:9/x", "--no-spill"];
        all.extend_from_slice(args);
        let out = run(&all, &[], b"");
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(want),
            "{args:?}: want {want:?}, got {stderr}"
        );
    }
}

#[test]
fn config_check_reports_every_error_of_the_file_in_the_order_of_the_file() {
    // Alphabetical order would be lingerms, spill_fsync, zlinger; the file's is not.
    let file = config_file(
        "spill_fsync = \"often\"\n\
         zlinger = 1\n\
         linger_ms = -5\n\
         endpoint = \"http://127.0.0.1:9/x\"\n\
         [follow]\n\
         paths = [\"\"]\n\
         multiline = \"start:(\"\n",
    );
    let out = run(&["config", "check", &file.to_string_lossy()], &[], b"");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    let wanted = [
        "spill_fsync = \"often\"",
        "zlinger: is not a logship option",
        "linger_ms = -5",
        "follow.paths = ",
        "follow.multiline = ",
    ];
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), wanted.len(), "one line per error: {stderr}");
    for (line, want) in lines.iter().zip(wanted) {
        assert!(
            line.starts_with("logship: invalid logship configuration: ") && line.contains(want),
            "want {want:?} in {line:?}; all: {stderr}"
        );
    }
}
