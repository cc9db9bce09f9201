//! Which file uses which, across one crate target, and the circles among them.
//!
//! A file uses another when its code names an item the other file defines: through a
//! `use` (not a re-export: `pub use` is the module's face, like its `mod` lines), a path
//! in code (`super::settle::live_then`, `crate::record::Level`), or a name a glob import
//! brings in. Paths are followed through re-exports to the file that defines the item,
//! so `use super::Delivery` in a child lands where `Delivery` is written, not in the
//! `mod.rs` that re-exports it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use super::modules::{ModId, Tree};

/// What a path names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    Module(ModId),
    /// An item defined at the top level of this module.
    Item(ModId),
}

/// File -> file -> the names the first takes from the second.
pub type Graph = BTreeMap<PathBuf, BTreeMap<PathBuf, BTreeSet<String>>>;

/// Adds the uses among `tree`'s files to `graph`.
pub fn add_uses(tree: &Tree, graph: &mut Graph) {
    for (id, module) in tree.modules.iter().enumerate() {
        let from = module.file.clone();
        graph.entry(from.clone()).or_default();
        let mut add = |target: Option<Target>, name: &str| {
            if let Some(Target::Item(m)) = target {
                let to = tree.modules[m].file.clone();
                if to != from {
                    graph
                        .entry(from.clone())
                        .or_default()
                        .entry(to)
                        .or_default()
                        .insert(name.to_owned());
                }
            }
        };
        for import in module.imports.iter().filter(|i| !i.reexport) {
            match &import.name {
                Some(name) => add(resolve(tree, id, &import.path, 0), name),
                None => {
                    // A glob: every identifier of this module that the glob's module holds.
                    let Some(Target::Module(source)) = resolve(tree, id, &import.path, 0) else {
                        continue;
                    };
                    let idents: BTreeSet<&String> = module.idents.iter().collect();
                    for ident in idents {
                        if let Some(t) = lookup(tree, source, ident, 0) {
                            add(Some(t), ident);
                        }
                    }
                }
            }
        }
        for path in &module.paths {
            let name = path.segments.last().cloned().unwrap_or_default();
            add(resolve(tree, id, &path.segments, 0), &name);
        }
    }
}

/// What `segments`, written in module `from`, names; `None` for a path out of the crate
/// (std, a dependency) or one this reading cannot follow.
fn resolve(tree: &Tree, from: ModId, segments: &[String], depth: usize) -> Option<Target> {
    if depth > 16 || segments.is_empty() {
        return None;
    }
    let mut at = from;
    let mut rest = segments;
    match rest[0].as_str() {
        "crate" => {
            at = 0;
            rest = &rest[1..];
        }
        "self" => rest = &rest[1..],
        "super" => {
            while rest.first().map(String::as_str) == Some("super") {
                at = tree.modules[at].parent?;
                rest = &rest[1..];
            }
        }
        "Self" => return None,
        _ => {
            // The first segment is a name in scope here (or a crate outside).
            let first = lookup(tree, at, &rest[0], depth)?;
            return walk(tree, first, &rest[1..], depth);
        }
    }
    walk(tree, Target::Module(at), rest, depth)
}

/// Follows `rest` down from `target`.
fn walk(tree: &Tree, mut target: Target, rest: &[String], depth: usize) -> Option<Target> {
    for segment in rest {
        match target {
            Target::Item(_) => return Some(target), // an enum's variant, an associated item
            Target::Module(m) => match lookup(tree, m, segment, depth) {
                Some(t) => target = t,
                // A name not seen (a macro, something generated): the module's file.
                None => return Some(Target::Item(m)),
            },
        }
    }
    Some(target)
}

/// What `name` means inside module `m`: a child module, an item defined there, or what an
/// import of `m` binds to it.
fn lookup(tree: &Tree, m: ModId, name: &str, depth: usize) -> Option<Target> {
    if depth > 16 {
        return None;
    }
    let module = &tree.modules[m];
    if let Some(&child) = module.children.get(name) {
        return Some(Target::Module(child));
    }
    if module.items.iter().any(|i| i == name) {
        return Some(Target::Item(m));
    }
    for import in &module.imports {
        if import.name.as_deref() == Some(name) {
            if let Some(t) = resolve(tree, m, &import.path, depth + 1) {
                return Some(t);
            }
        }
    }
    for import in module.imports.iter().filter(|i| i.name.is_none()) {
        if let Some(Target::Module(source)) = resolve(tree, m, &import.path, depth + 1) {
            if source != m {
                if let Some(t) = lookup(tree, source, name, depth + 1) {
                    return Some(t);
                }
            }
        }
    }
    None
}

/// The circles of `graph`: groups of two or more files that reach each other (strongly
/// connected components), each with the uses inside it.
pub fn circles(graph: &Graph) -> Vec<Vec<(PathBuf, PathBuf, BTreeSet<String>)>> {
    let nodes: Vec<&PathBuf> = graph.keys().collect();
    let index: BTreeMap<&PathBuf, usize> = nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let edges: Vec<Vec<usize>> = nodes
        .iter()
        .map(|n| {
            graph[*n]
                .keys()
                .filter_map(|t| index.get(t).copied())
                .collect()
        })
        .collect();
    let components = strongly_connected(&edges);
    components
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            let members: BTreeSet<usize> = c.into_iter().collect();
            let mut uses = Vec::new();
            for &a in &members {
                for (to, names) in &graph[nodes[a]] {
                    if index.get(to).is_some_and(|b| members.contains(b)) {
                        uses.push((nodes[a].clone(), to.clone(), names.clone()));
                    }
                }
            }
            uses
        })
        .collect()
}

/// Tarjan's algorithm, iterative (no recursion depth to worry about).
fn strongly_connected(edges: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = edges.len();
    let (mut index, mut low) = (vec![usize::MAX; n], vec![0; n]);
    let (mut on_stack, mut stack, mut out) = (vec![false; n], Vec::new(), Vec::new());
    let mut next = 0;
    for start in 0..n {
        if index[start] != usize::MAX {
            continue;
        }
        let mut work = vec![(start, 0usize)];
        while let Some(&(v, edge)) = work.last() {
            if edge == 0 && index[v] == usize::MAX {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on_stack[v] = true;
            }
            if let Some(&w) = edges[v].get(edge) {
                if let Some(top) = work.last_mut() {
                    top.1 += 1;
                }
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on_stack[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(parent, _)) = work.last() {
                low[parent] = low[parent].min(low[v]);
            }
            if low[v] == index[v] {
                let mut component = Vec::new();
                while let Some(w) = stack.pop() {
                    on_stack[w] = false;
                    component.push(w);
                    if w == v {
                        break;
                    }
                }
                out.push(component);
            }
        }
    }
    out
}
