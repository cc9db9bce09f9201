//! The deployment examples in `docs/deploy/` are valid: the Kubernetes manifest parses as
//! YAML and its logship arguments are accepted by the real binary; the systemd unit passes
//! `systemd-analyze verify` (skipped when systemd-analyze is missing, except under
//! CI=true, where it fails).

mod common;

use std::path::PathBuf;

fn deploy(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../docs/deploy")
        .join(name)
}

/// The `ship` options in `args` are accepted: `--help` after them makes clap parse them
/// all first, and an unknown or malformed one fails with exit code 2.
fn accepted(args: &[String]) {
    let out = common::logship()
        .args(args)
        .arg("--help")
        .output()
        .expect("run logship");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn the_kubernetes_sidecar_manifest_parses_and_its_arguments_are_accepted() {
    let text = std::fs::read_to_string(deploy("k8s-sidecar.yaml")).unwrap();
    let docs: Vec<serde_yaml::Value> = serde_yaml::Deserializer::from_str(&text)
        .map(|d| serde::Deserialize::deserialize(d).expect("valid YAML"))
        .collect();
    assert_eq!(docs.len(), 2);
    let deployment = docs
        .iter()
        .find(|d| d["kind"] == "Deployment")
        .expect("a Deployment");
    let spec = &deployment["spec"]["template"]["spec"];
    // A native sidecar: stopped after the application's containers (issue 32, item 12).
    let logship = spec["initContainers"]
        .as_sequence()
        .expect("initContainers")
        .iter()
        .find(|c| c["name"] == "logship")
        .expect("the logship sidecar");
    assert_eq!(logship["restartPolicy"], "Always", "a native sidecar");
    assert!(spec["containers"]
        .as_sequence()
        .expect("containers")
        .iter()
        .all(|c| c["name"] != "logship"));
    let args: Vec<String> = logship["args"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_owned())
        .collect();
    assert_eq!(args[..2], ["ship", "--follow"]);
    accepted(&args);
    // The application's log volume is shared, read-only for logship.
    let mounts = logship["volumeMounts"].as_sequence().unwrap();
    assert!(mounts
        .iter()
        .any(|m| m["name"] == "logs" && m["readOnly"] == true));
}

#[test]
fn the_systemd_unit_verifies() {
    let unit = std::fs::read_to_string(deploy("logship-follow.service")).unwrap();
    // Started before the application, so stopped after it (issue 32, item 12).
    assert!(unit.contains("\nBefore=myapp.service\n"), "stop order");
    // Its arguments, as systemd would split them (the unit quotes only the glob).
    let exec: String = unit
        .lines()
        .skip_while(|l| !l.starts_with("ExecStart="))
        .take_while(|l| !l.starts_with("StateDirectory"))
        .map(|l| l.trim_end_matches('\\').trim())
        .collect::<Vec<_>>()
        .join(" ");
    let args: Vec<String> = exec
        .trim_start_matches("ExecStart=/usr/local/bin/logship ")
        .split_whitespace()
        .map(|a| a.trim_matches('\'').to_owned())
        .collect();
    accepted(&args);
    let Some(analyze) = which("systemd-analyze") else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "systemd-analyze is missing (CI installs the systemd package)"
        );
        eprintln!("skipped: systemd-analyze is not installed");
        return;
    };
    // Verified with the binary that was built, in place of /usr/local/bin/logship.
    let dir = common::temp_path("systemd");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("logship-follow.service");
    std::fs::write(
        &path,
        unit.replace("/usr/local/bin/logship", env!("CARGO_BIN_EXE_logship")),
    )
    .unwrap();
    let out = std::process::Command::new(analyze)
        .arg("verify")
        .arg(&path)
        .output()
        .expect("run systemd-analyze");
    let stderr = String::from_utf8_lossy(&out.stderr);
    // Outside a booted systemd (containers, CI) verify also reports on the host's own
    // units; only lines about this unit count.
    let ours: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("logship-follow.service"))
        .collect();
    assert!(ours.is_empty(), "{stderr}");
}

fn which(program: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|p| p.join(program))
            .find(|p| p.is_file())
    })
}
