//! Reading the workspace's sources for the architecture checks (`tests/architecture.rs`):
//! its crates and their targets, each target's module tree, and the uses among files.

pub mod graph;
pub mod lexer;
pub mod modules;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use graph::Graph;
use modules::{normalise, Sources, Tree};

/// The workspace root (two levels above this crate's manifest).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the workspace root")
}

/// Sources read from the disk.
pub struct Disk;

impl Sources for Disk {
    fn read(&self, path: &Path) -> Option<String> {
        std::fs::read_to_string(path).ok()
    }
}

/// Sources held in memory (the checker's own tests).
pub struct InMemory(pub BTreeMap<PathBuf, String>);

impl Sources for InMemory {
    fn read(&self, path: &Path) -> Option<String> {
        self.0.get(&normalise(path)).cloned()
    }
}

/// The workspace's member crates (directories), from the root `Cargo.toml`.
pub fn members(root: &Path) -> Vec<PathBuf> {
    let manifest = std::fs::read_to_string(root.join("Cargo.toml")).expect("Cargo.toml");
    let start = manifest.find("members").expect("a members list");
    let list = &manifest[start..];
    let list = &list[list.find('[').expect("[")..=list.find(']').expect("]")];
    list.split('"')
        .skip(1)
        .step_by(2)
        .map(|m| root.join(m))
        .collect()
}

/// The root files of a crate's targets: the library, binaries, benches, tests, examples.
pub fn target_roots(krate: &Path) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = ["src/lib.rs", "src/main.rs"]
        .iter()
        .map(|f| krate.join(f))
        .filter(|f| f.is_file())
        .collect();
    for dir in ["src/bin", "benches", "tests", "examples"] {
        let Ok(entries) = std::fs::read_dir(krate.join(dir)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "rs"))
            .collect();
        files.sort();
        roots.extend(files);
    }
    roots
}

/// The uses among the files of every target of `krate`.
pub fn crate_graph(krate: &Path, sources: &dyn Sources) -> Graph {
    let mut graph = Graph::new();
    for root in target_roots(krate) {
        graph::add_uses(&Tree::read(&root, sources), &mut graph);
    }
    graph
}

/// Every `.rs` file under `dir`, sorted.
pub fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}
