//! The `logship` binary that users install carries no test or lab code: neither it nor
//! any workspace crate it depends on (normal dependencies, followed through their own
//! manifests) depends on the test intake, the benchmark lab or the benches. Test code
//! belongs in `[dev-dependencies]`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Packages the product must never pull in.
const TEST_AND_LAB: [&str; 3] = ["logship-intake", "logship-lab", "logship-bench"];

fn manifest(dir: &Path) -> toml::Table {
    let path = dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    text.parse()
        .unwrap_or_else(|e| panic!("{path:?} is not TOML: {e}"))
}

/// The normal dependencies of the package in `dir` (`[dependencies]` and every
/// `[target.*.dependencies]`): name, and the directory of a path dependency.
fn normal_dependencies(dir: &Path, workspace: &toml::Table) -> Vec<(String, Option<PathBuf>)> {
    let package = manifest(dir);
    let mut tables: Vec<&toml::Table> = package
        .get("dependencies")
        .and_then(toml::Value::as_table)
        .into_iter()
        .collect();
    if let Some(targets) = package.get("target").and_then(toml::Value::as_table) {
        tables.extend(
            targets
                .values()
                .filter_map(|t| t.get("dependencies")?.as_table()),
        );
    }
    let shared = workspace
        .get("workspace")
        .and_then(|w| w.get("dependencies"))
        .and_then(toml::Value::as_table);
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut found = Vec::new();
    for table in tables {
        for (name, spec) in table {
            let name = spec
                .get("package")
                .and_then(toml::Value::as_str)
                .unwrap_or(name)
                .to_owned();
            let path = if spec.get("workspace").and_then(toml::Value::as_bool) == Some(true) {
                shared
                    .and_then(|s| s.get(&name)?.get("path")?.as_str())
                    .map(|p| root.join(p))
            } else {
                spec.get("path")
                    .and_then(toml::Value::as_str)
                    .map(|p| dir.join(p))
            };
            found.push((name, path));
        }
    }
    found
}

#[test]
fn the_logship_binary_depends_on_no_test_or_lab_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let workspace = manifest(&root);
    let mut seen = BTreeSet::new();
    let mut to_visit = vec![(
        "logship-cli".to_owned(),
        PathBuf::from(env!("CARGO_MANIFEST_DIR")),
    )];
    while let Some((package, dir)) = to_visit.pop() {
        for (name, path) in normal_dependencies(&dir, &workspace) {
            assert!(
                !TEST_AND_LAB.contains(&name.as_str()),
                "{package} depends on {name} in [dependencies]: the logship binary must not carry test or lab code; make it a dev-dependency"
            );
            if let Some(path) = path {
                if seen.insert(name.clone()) {
                    to_visit.push((name, path));
                }
            }
        }
    }
    // The walk reached the workspace crates the binary is made of.
    assert!(
        seen.contains("logship") && seen.contains("logship-http"),
        "{seen:?}"
    );
}

/// Test-only features: kill points (`fault-points`), fuzzing wrappers, the Kafka fault hook.
const TEST_FEATURES: [&str; 3] = ["fault-points", "fuzzing", "kafka-faults"];

#[test]
fn no_default_feature_turns_on_test_code() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for dir in [
        PathBuf::from(env!("CARGO_MANIFEST_DIR")),
        root.join("crates/logship"),
    ] {
        let package = manifest(&dir);
        let features = package.get("features").and_then(toml::Value::as_table);
        // Everything `default` turns on, followed through the features it names.
        let mut on: Vec<String> = vec!["default".into()];
        let mut seen = BTreeSet::new();
        while let Some(f) = on.pop() {
            if !seen.insert(f.clone()) {
                continue;
            }
            let named = features
                .and_then(|t| t.get(&f))
                .and_then(toml::Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(toml::Value::as_str);
            for n in named {
                let local = n.rsplit('/').next().unwrap_or(n);
                assert!(
                    !TEST_FEATURES.contains(&local),
                    "{dir:?}: the default features turn on the test-only feature {n}"
                );
                if !n.contains('/') && !n.starts_with("dep:") {
                    on.push(n.to_owned());
                }
            }
        }
        assert!(seen.contains("default"), "{dir:?}");
    }
}
