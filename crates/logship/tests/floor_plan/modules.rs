//! The module tree of one crate target, read from its sources: which file each module
//! lives in, what each module defines at its top level, and what it imports.
//!
//! Why it exists: to tell which file a path such as `super::deliver::Delivery` or
//! `crate::record::Level` lands in, the checks need Rust's own rules for `mod` lines
//! (`x.rs` or `x/mod.rs`, `#[path]`, inline `mod x { .. }`) and for `use` trees
//! (groups, `self`, aliases, globs). Only what names a file is modelled: no macros, no
//! traits, no method calls.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::lexer::{tokens, Tok};

/// Index of a module in [`Tree::modules`].
pub type ModId = usize;

/// One `use` leaf: `path` (as written) imported as `name` (or all of it, for a glob).
#[derive(Clone, Debug)]
pub struct Import {
    pub path: Vec<String>,
    /// `None` for a glob (`path::*`).
    pub name: Option<String>,
    /// `pub use` (of any visibility): a re-export, the module's face, not a use of its own.
    pub reexport: bool,
}

/// A path written in code (outside `use`), with at least one `::`.
#[derive(Clone, Debug)]
pub struct CodePath {
    pub segments: Vec<String>,
}

/// One module: a file, or an inline `mod x { .. }` inside one.
#[derive(Debug, Default)]
pub struct Module {
    pub file: PathBuf,
    pub parent: Option<ModId>,
    pub children: BTreeMap<String, ModId>,
    /// Names of the items defined at this module's top level.
    pub items: Vec<String>,
    pub imports: Vec<Import>,
    pub paths: Vec<CodePath>,
    /// Every identifier in the module's own code (for names that a glob brings in).
    pub idents: Vec<String>,
}

/// The modules of one crate target.
#[derive(Debug, Default)]
pub struct Tree {
    pub modules: Vec<Module>,
}

/// Where source text comes from (the disk, or a test's map of files).
pub trait Sources {
    fn read(&self, path: &Path) -> Option<String>;
}

const ITEM_KEYWORDS: &[&str] = &[
    "fn", "struct", "enum", "trait", "const", "static", "type", "union",
];

impl Tree {
    /// The tree of the target whose root file is `root`.
    pub fn read(root: &Path, sources: &dyn Sources) -> Tree {
        let mut tree = Tree::default();
        tree.modules.push(Module {
            file: root.to_path_buf(),
            ..Module::default()
        });
        let dir = root.parent().map(Path::to_path_buf).unwrap_or_default();
        tree.read_file(0, root, dir, sources, 0);
        tree
    }

    /// Reads `file` as module `id`, whose child modules live in `child_dir`.
    fn read_file(
        &mut self,
        id: ModId,
        file: &Path,
        child_dir: PathBuf,
        sources: &dyn Sources,
        depth: usize,
    ) {
        let Some(text) = sources.read(file) else {
            return;
        };
        if depth > 32 {
            return;
        }
        let toks = tokens(&text);
        let mut pending: Vec<(ModId, String, PathBuf, Option<String>)> = Vec::new();
        self.scan(id, file, &toks, child_dir, &mut pending);
        for (parent, name, dir, path_attr) in pending {
            let (candidates, next_dir) = match path_attr {
                Some(p) => {
                    let f = normalise(&file.parent().unwrap_or(Path::new("")).join(p));
                    let d = f.parent().unwrap_or(Path::new("")).to_path_buf();
                    (vec![f], d)
                }
                None => (
                    vec![
                        dir.join(format!("{name}.rs")),
                        dir.join(&name).join("mod.rs"),
                    ],
                    dir.join(&name),
                ),
            };
            let Some(found) = candidates.into_iter().find(|c| sources.read(c).is_some()) else {
                continue;
            };
            let child = self.add(parent, &name, &found);
            self.read_file(child, &found, next_dir.clone(), sources, depth + 1);
        }
    }

    fn add(&mut self, parent: ModId, name: &str, file: &Path) -> ModId {
        let id = self.modules.len();
        self.modules.push(Module {
            file: file.to_path_buf(),
            parent: Some(parent),
            ..Module::default()
        });
        self.modules[parent].children.insert(name.to_owned(), id);
        id
    }

    /// Reads one file's tokens into module `top` (and the inline modules inside it);
    /// `mod x;` lines are left in `pending` for the caller to read their files.
    fn scan(
        &mut self,
        top: ModId,
        file: &Path,
        toks: &[Tok],
        child_dir: PathBuf,
        pending: &mut Vec<(ModId, String, PathBuf, Option<String>)>,
    ) {
        // (module, the brace depth its items are at, its children's directory)
        let mut scopes: Vec<(ModId, usize, PathBuf)> = vec![(top, 0, child_dir)];
        let mut depth = 0usize;
        let mut path_attr: Option<String> = None;
        // `#[cfg(test)]` seen: the next `mod` or `use` is test code, left out (tests may
        // drive a room from above: a vendor's test feeds its encoder through the batcher).
        let mut cfg_test = false;
        let mut i = 0;
        let ident = |i: usize| match toks.get(i) {
            Some(Tok::Ident(s)) => Some(s.as_str()),
            _ => None,
        };
        while i < toks.len() {
            let (scope, base, dir) = scopes.last().cloned().expect("the file's scope");
            match &toks[i] {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => {
                    depth = depth.saturating_sub(1);
                    if scopes.len() > 1 && depth < base {
                        scopes.pop();
                    }
                }
                Tok::Punct('#')
                    if toks.get(i + 1) == Some(&Tok::Punct('['))
                        && ident(i + 2) == Some("path")
                        && toks.get(i + 3) == Some(&Tok::Punct('=')) =>
                {
                    if let Some(Tok::Str(p)) = toks.get(i + 4) {
                        path_attr = Some(p.clone());
                    }
                }
                Tok::Punct('#')
                    if toks.get(i + 1) == Some(&Tok::Punct('['))
                        && ident(i + 2) == Some("cfg")
                        && toks.get(i + 3) == Some(&Tok::Punct('('))
                        && ident(i + 4) == Some("test")
                        && toks.get(i + 5) == Some(&Tok::Punct(')')) =>
                {
                    cfg_test = true;
                }
                Tok::Ident(word)
                    if (word == "mod" || word == "use") && std::mem::take(&mut cfg_test) =>
                {
                    i = skip_item(toks, i);
                    continue;
                }
                Tok::Ident(word) if word == "mod" && depth == base => {
                    if let Some(name) = ident(i + 1) {
                        match toks.get(i + 2) {
                            Some(Tok::Punct(';')) => {
                                pending.push((
                                    scope,
                                    name.to_owned(),
                                    dir.clone(),
                                    path_attr.take(),
                                ));
                                i += 3;
                                continue;
                            }
                            Some(Tok::Punct('{')) => {
                                let child = self.add(scope, name, file);
                                self.modules[scope].items.push(name.to_owned());
                                depth += 1;
                                scopes.push((child, depth, dir.join(name)));
                                path_attr = None;
                                i += 3;
                                continue;
                            }
                            _ => {}
                        }
                    }
                }
                // A `use` in a function body binds for that body only; taken as the module's,
                // which can only add an edge that the body's own paths would add anyway.
                Tok::Ident(word) if word == "use" => {
                    let reexport = is_pub_before(toks, i);
                    let end = (i..toks.len())
                        .find(|&j| toks[j] == Tok::Punct(';'))
                        .unwrap_or(toks.len());
                    let mut leaves = Vec::new();
                    parse_tree(&toks[i + 1..end], &mut Vec::new(), &mut leaves);
                    for (path, name) in leaves {
                        self.modules[scope].imports.push(Import {
                            path,
                            name,
                            reexport,
                        });
                    }
                    i = end + 1;
                    continue;
                }
                Tok::Ident(word) if depth == base && ITEM_KEYWORDS.contains(&word.as_str()) => {
                    cfg_test = false;
                    // `const fn f`, `unsafe fn`, `impl .. for`: the name is the next identifier
                    // that is not a keyword.
                    let mut j = i + 1;
                    while matches!(ident(j), Some("fn" | "unsafe" | "async" | "extern")) {
                        j += 1;
                    }
                    if let Some(name) = ident(j) {
                        self.modules[scope].items.push(name.to_owned());
                    }
                }
                Tok::Ident(word) if word == "macro_rules" && depth == base => {
                    if let Some(name) = ident(i + 2) {
                        self.modules[scope].items.push(name.to_owned());
                    }
                }
                Tok::Ident(first) => {
                    self.modules[scope].idents.push(first.clone());
                    if toks.get(i + 1) == Some(&Tok::PathSep)
                        && (i == 0 || toks[i - 1] != Tok::PathSep)
                    {
                        let mut segments = vec![first.clone()];
                        let mut j = i + 1;
                        while toks.get(j) == Some(&Tok::PathSep) {
                            match ident(j + 1) {
                                Some(s) => segments.push(s.to_owned()),
                                None => break,
                            }
                            j += 2;
                        }
                        if segments.len() > 1 {
                            self.modules[scope].paths.push(CodePath { segments });
                        }
                    }
                }
                _ => {}
            }
            i += 1;
        }
    }
}

/// The index just past the item starting at `i`: its `;`, or its `{ .. }` block.
fn skip_item(toks: &[Tok], i: usize) -> usize {
    let mut depth = 0usize;
    for (j, tok) in toks.iter().enumerate().skip(i) {
        match tok {
            Tok::Punct(';') if depth == 0 => return j + 1,
            Tok::Punct('{') => depth += 1,
            Tok::Punct('}') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
    }
    toks.len()
}

/// Whether the `use` at `i` is preceded by a visibility (`pub`, `pub(crate)`, ...).
fn is_pub_before(toks: &[Tok], i: usize) -> bool {
    let mut j = i;
    if j > 0 && toks[j - 1] == Tok::Punct(')') {
        while j > 0 && toks[j - 1] != Tok::Punct('(') {
            j -= 1;
        }
        j = j.saturating_sub(1);
    }
    j > 0 && toks[j - 1] == Tok::Ident("pub".into())
}

/// The leaves of a `use` tree: each imported path and the name it is bound to (`None`
/// for a glob). `prefix` is the path so far.
fn parse_tree(
    toks: &[Tok],
    prefix: &mut Vec<String>,
    out: &mut Vec<(Vec<String>, Option<String>)>,
) {
    let mut i = 0;
    let start_len = prefix.len();
    if toks.first() == Some(&Tok::PathSep) {
        i += 1;
    }
    while i < toks.len() {
        match &toks[i] {
            Tok::Ident(s) => {
                let is_last = toks.get(i + 1) != Some(&Tok::PathSep);
                if is_last {
                    let alias = match (toks.get(i + 1), toks.get(i + 2)) {
                        (Some(Tok::Ident(kw)), Some(Tok::Ident(a))) if kw == "as" => {
                            Some(a.clone())
                        }
                        _ => None,
                    };
                    let (path, bound) = if s == "self" {
                        (prefix.clone(), alias.or_else(|| prefix.last().cloned()))
                    } else {
                        let mut p = prefix.clone();
                        p.push(s.clone());
                        (p, alias.or_else(|| Some(s.clone())))
                    };
                    if bound.as_deref() != Some("_") {
                        out.push((path, bound));
                    }
                    break;
                }
                prefix.push(s.clone());
                i += 2;
            }
            Tok::Punct('*') => {
                out.push((prefix.clone(), None));
                break;
            }
            Tok::Punct('{') => {
                // Split the group at its top-level commas.
                let mut depth = 0;
                let mut part_start = i + 1;
                for j in i + 1..toks.len() {
                    match toks[j] {
                        Tok::Punct('{') => depth += 1,
                        Tok::Punct('}') if depth == 0 => {
                            if part_start < j {
                                parse_tree(&toks[part_start..j], prefix, out);
                            }
                            break;
                        }
                        Tok::Punct('}') => depth -= 1,
                        Tok::Punct(',') if depth == 0 => {
                            if part_start < j {
                                parse_tree(&toks[part_start..j], prefix, out);
                            }
                            part_start = j + 1;
                        }
                        _ => {}
                    }
                }
                break;
            }
            _ => break,
        }
    }
    prefix.truncate(start_len);
}

/// `path` with `.` and `..` components folded (for `#[path = "../x.rs"]`).
pub fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}
