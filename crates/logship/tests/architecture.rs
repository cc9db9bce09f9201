//! The library's floor plan, checked: dependencies run one way, no folder hides code from
//! tools, no file outgrows a screenful of concepts.
//!
//! Why it exists: "no module imports a module that imports it" is easy to break with one
//! `use` line and hard to see in review. This test reads the library's sources as text
//! (no build step, no extra tool), maps every `crate::…` path in non-test code to the
//! top-level module it names, and fails with the cycle spelled out. Test modules
//! (`tests.rs`, `tests/`, `testutil.rs`, a trailing `#[cfg(test)] mod tests`) may import
//! anything and are left out. Paths through the crate root's re-exports (`crate::Name`)
//! count as an import of the module the name comes from.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

const SRC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
/// The largest a library source file may grow (issue #11).
const MAX_LINES: usize = 800;

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("read src")
        .map(|e| e.expect("dir entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The path relative to `src/`, with `/` separators.
fn relative(path: &Path) -> String {
    path.strip_prefix(SRC)
        .expect("under src")
        .to_string_lossy()
        .replace('\\', "/")
}

/// True for files that only tests compile.
fn is_test_file(rel: &str) -> bool {
    rel.split('/')
        .any(|part| part == "tests" || part == "tests.rs" || part == "testutil.rs")
}

/// The top-level module a file belongs to (`send/deliver.rs` -> `send`); `None` for the
/// crate root.
fn module_of(rel: &str) -> Option<String> {
    if rel == "lib.rs" {
        return None;
    }
    let first = rel.split('/').next().expect("non-empty path");
    Some(first.trim_end_matches(".rs").to_owned())
}

/// The file's code without comments (doc links are not imports) and without its trailing
/// test module.
fn non_test_code(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let mut code = String::with_capacity(text.len());
    for (i, line) in lines.iter().enumerate() {
        let next = lines.get(i + 1).map(|l| l.trim()).unwrap_or("");
        if line.trim() == "#[cfg(test)]" && next.starts_with("mod tests") {
            break;
        }
        let without_comment = match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        };
        code.push_str(without_comment);
        code.push('\n');
    }
    code
}

/// Identifiers after `crate::` in `code`, including those of `crate::{a, b::c}` groups.
fn crate_paths(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let after = &rest[at + "crate::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let name: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.push(name);
                }
            }
        } else {
            let name: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.push(name);
            }
        }
        rest = after;
    }
    out
}

/// Names the crate root re-exports, mapped to the module they come from.
fn root_reexports(lib: &str) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    // Statements, not lines: a re-export may span several lines.
    let code = non_test_code(lib);
    for statement in code.split(';') {
        let statement: String = statement.split_whitespace().collect::<Vec<_>>().join(" ");
        let Some(at) = statement.find("pub use ") else {
            continue;
        };
        let path = statement[at + "pub use ".len()..].replace(' ', "");
        let path = path.as_str();
        let Some((module, _)) = path.split_once("::") else {
            continue;
        };
        let names = match (path.find('{'), path.rfind('}')) {
            (Some(open), Some(close)) => path[open + 1..close]
                .split(',')
                .map(|n| n.trim().rsplit("::").next().unwrap_or("").to_owned())
                .collect::<Vec<_>>(),
            _ => vec![path.rsplit("::").next().unwrap_or("").to_owned()],
        };
        for name in names.into_iter().filter(|n| !n.is_empty()) {
            map.insert(name, module.to_owned());
        }
    }
    map
}

/// Top-level module -> the top-level modules its non-test code imports.
fn dependency_graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut files = Vec::new();
    rust_files(Path::new(SRC), &mut files);
    let lib = std::fs::read_to_string(Path::new(SRC).join("lib.rs")).expect("lib.rs");
    let reexports = root_reexports(&lib);
    let modules: BTreeSet<String> = files
        .iter()
        .filter_map(|f| module_of(&relative(f)))
        .collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in &files {
        let rel = relative(file);
        let Some(module) = module_of(&rel) else {
            continue;
        };
        graph.entry(module.clone()).or_default();
        if is_test_file(&rel) {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("read source");
        for name in crate_paths(&non_test_code(&text)) {
            let target = if modules.contains(&name) {
                Some(name)
            } else {
                reexports.get(&name).cloned()
            };
            if let Some(target) = target.filter(|t| *t != module) {
                graph.entry(module.clone()).or_default().insert(target);
            }
        }
    }
    graph
}

/// Every cycle's modules (strongly connected components of more than one module).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let reaches = |from: &str, to: &str| -> bool {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.to_owned()];
        while let Some(m) = stack.pop() {
            for next in graph.get(&m).into_iter().flatten() {
                if next == to {
                    return true;
                }
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        false
    };
    let mut found: Vec<Vec<String>> = Vec::new();
    let mut placed = BTreeSet::new();
    for m in graph.keys() {
        if placed.contains(m) {
            continue;
        }
        let group: Vec<String> = graph
            .keys()
            .filter(|o| *o == m || (reaches(m, o) && reaches(o, m)))
            .cloned()
            .collect();
        if group.len() > 1 {
            placed.extend(group.iter().cloned());
            found.push(group);
        }
    }
    found
}

fn describe(graph: &BTreeMap<String, BTreeSet<String>>) -> String {
    graph
        .iter()
        .map(|(m, deps)| {
            let deps: Vec<&str> = deps.iter().map(String::as_str).collect();
            format!("  {m} -> {}", deps.join(", "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn no_module_imports_a_module_that_imports_it() {
    let graph = dependency_graph();
    let found = cycles(&graph);
    assert!(
        found.is_empty(),
        "import cycles between the library's modules: {found:?}\nthe graph:\n{}",
        describe(&graph)
    );
}

#[test]
fn the_checker_sees_a_cycle_and_paths_through_root_reexports() {
    // The checker itself: a cycle is found, and `crate::Name` counts as its module.
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    graph.insert("a".into(), ["b".into()].into());
    graph.insert("b".into(), ["c".into()].into());
    graph.insert("c".into(), ["a".into()].into());
    graph.insert("d".into(), ["a".into()].into());
    assert_eq!(
        cycles(&graph),
        vec![vec!["a".to_owned(), "b".into(), "c".into()]]
    );
    let map = root_reexports(
        "pub use pipeline::{Builder, Guard};\npub use stats::Stats;\npub use spill::{\n    inspect,\n    SpillFull,\n};\n",
    );
    assert_eq!(map.get("SpillFull").map(String::as_str), Some("spill"));
    assert_eq!(map.get("Guard").map(String::as_str), Some("pipeline"));
    assert_eq!(map.get("Stats").map(String::as_str), Some("stats"));
    assert_eq!(
        crate_paths("use crate::{queue::Memory, stats};\nlet x = crate::send::gzip(b);"),
        vec!["queue", "stats", "send"]
    );
    let code = "use crate::a;\n#[cfg(test)]\nmod tests {\n    use crate::b;\n}\n";
    assert_eq!(crate_paths(&non_test_code(code)), vec!["a"]);
    assert!(crate_paths(&non_test_code("/// see [`crate::Builder`]\nfn f() {}\n")).is_empty());
}

#[test]
fn no_folder_is_named_vendor() {
    let mut files = Vec::new();
    rust_files(Path::new(SRC), &mut files);
    let vendored: Vec<String> = files
        .iter()
        .map(|f| relative(f))
        .filter(|rel| rel.split('/').any(|p| p == "vendor"))
        .collect();
    assert!(
        vendored.is_empty(),
        "a folder named vendor/ means vendored third-party code to common tools: {vendored:?}"
    );
}

#[test]
fn no_library_source_file_is_over_800_lines() {
    let mut files = Vec::new();
    rust_files(Path::new(SRC), &mut files);
    let long: Vec<(String, usize)> = files
        .iter()
        .map(|f| {
            let lines = std::fs::read_to_string(f)
                .expect("read source")
                .lines()
                .count();
            (relative(f), lines)
        })
        .filter(|(_, lines)| *lines > MAX_LINES)
        .collect();
    assert!(
        long.is_empty(),
        "split these by concern (at most {MAX_LINES} lines each): {long:?}"
    );
}
