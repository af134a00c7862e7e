//! Which refactorings one side made, from its diff against base alone: renames
//! (module-level names, classes, methods, parameters with their keyword call sites,
//! locals) and moves of module-level definitions between modules.
//!
//! - **Candidates.** A rename shows as names the side spells differently at the same
//!   place ([`align::replaced_names`]); each such place proposes the rename kinds that
//!   could make it (a parameter or a local of each function around it, a module-level
//!   name of the file that defines it, a method of a class that has it). A move shows as
//!   a module-level `def`/`class` gone from its module and present, new, at the top of
//!   exactly one other module.
//! - **Proof.** A candidate is replayed on base with the refactoring intents' own
//!   transforms ([`crate::intent::Site::apply`]); it is kept when everything it changes,
//!   token for token, the side changed too ([`align::is_part_of`]).
//! - **Refusals.** A name the side replaced by a name new to the tree that no kept
//!   candidate explains (a partial rename, a name used for two things), a definition
//!   that left its module for several others, or a move the transform does not
//!   reproduce: each is listed with its reason, and a refusal means the rung gives up.

use std::collections::{BTreeMap, BTreeSet};

use rustpython_ast::{self as ast, Ranged};

use super::align::{self, Token};
use crate::intent::{Kind, Site, Workspace};
use crate::python::PyModule;
use crate::snapshot::{self, Snapshot};

/// What one side did, as far as the rung can tell.
#[derive(Debug, Default)]
pub(crate) struct Detected {
    /// The refactorings, each a site of the intent kind that makes it, relative to base.
    pub(crate) sites: Vec<Site>,
    /// Why some change could not be read as a refactoring the rung can replay.
    pub(crate) refusals: Vec<String>,
}

/// Base's parsed Python files and their tokens, read once.
struct Base<'a> {
    tree: &'a Snapshot,
    modules: BTreeMap<String, Option<PyModule>>,
    tokens: BTreeMap<String, Option<Vec<Token>>>,
}

impl<'a> Base<'a> {
    fn new(tree: &'a Snapshot) -> Self {
        Base { tree, modules: BTreeMap::new(), tokens: BTreeMap::new() }
    }

    fn module(&mut self, path: &str) -> Option<&PyModule> {
        let tree = self.tree;
        self.modules
            .entry(path.to_string())
            .or_insert_with(|| snapshot::text_of(tree, path).and_then(|t| PyModule::parse(path, t).ok()))
            .as_ref()
    }

    fn tokens(&mut self, path: &str) -> Option<&Vec<Token>> {
        let tree = self.tree;
        self.tokens.entry(path.to_string()).or_insert_with(|| snapshot::text_of(tree, path).and_then(align::code_tokens)).as_ref()
    }

    fn python_paths(&self) -> Vec<String> {
        self.tree.keys().filter(|p| p.ends_with(".py")).cloned().collect()
    }
}

/// The refactorings `side` made from `base` (`label` names the side in refusals).
pub(crate) fn detect(base_tree: &Snapshot, side: &Snapshot, label: &str) -> Detected {
    let mut base = Base::new(base_tree);
    let mut out = Detected::default();
    // Every name a side replaced, by file, with the candidates each place proposes.
    let mut replaced: Vec<(String, align::Replaced)> = Vec::new();
    for path in base.python_paths() {
        let Some(after) = snapshot::text_of(side, &path) else { continue };
        if snapshot::text_of(base_tree, &path) == Some(after) {
            continue;
        }
        let (Some(before), Some(after)) = (base.tokens(&path).cloned(), align::code_tokens(after)) else { continue };
        replaced.extend(align::replaced_names(&before, &after).into_iter().map(|r| (path.clone(), r)));
    }
    let mut candidates: Vec<Site> = Vec::new();
    for (path, r) in &replaced {
        for site in rename_candidates(&mut base, path, r) {
            if !candidates.contains(&site) {
                candidates.push(site);
            }
        }
    }
    let (moves, move_refusals) = move_candidates(&mut base, side, label);
    out.refusals.extend(move_refusals);
    // Each candidate replayed on base: kept with the places it renames when the side did
    // everything it does.
    let mut proven: Vec<(Site, BTreeSet<(String, usize)>)> = Vec::new();
    for site in candidates.iter().chain(&moves) {
        match prove(&mut base, side, site) {
            Some(explained) => proven.push((site.clone(), explained)),
            None if site.kind == Kind::Move => out.refusals.push(format!(
                "{label} moves `{}` from {} to {}, but moving it does not reproduce {label}'s edits",
                site.symbol,
                site.path,
                site.target.as_deref().unwrap_or_default()
            )),
            None => {}
        }
    }
    // Each replaced place takes the proven candidate that explains the most places.
    let mut chosen: Vec<Site> = proven.iter().filter(|(s, _)| s.kind == Kind::Move).map(|(s, _)| s.clone()).collect();
    let mut unexplained: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    let fresh = |base: &mut Base, name: &str| {
        base.python_paths().iter().all(|p| base.tokens(p).is_none_or(|t| t.iter().all(|t| t.text != name)))
    };
    for (path, r) in &replaced {
        let best = proven
            .iter()
            .filter(|(_, explained)| explained.contains(&(path.clone(), r.index)))
            .max_by_key(|(_, explained)| explained.len());
        match best {
            Some((site, _)) if !chosen.contains(site) => chosen.push(site.clone()),
            Some(_) => {}
            None if fresh(&mut base, &r.new) => {
                let line = base.module(path).map_or(0, |m| m.line_of(r.at));
                unexplained.entry((r.old.clone(), r.new.clone())).or_default().push(format!("{path}:{line}"));
            }
            None => {}
        }
    }
    for ((old, new), places) in unexplained {
        out.refusals.push(format!(
            "{label} renames `{old}` to `{new}` at {}, but no rename of one thing reproduces it (a partial rename, or a name used for two things)",
            places.join(", ")
        ));
    }
    out.sites = chosen;
    out
}

/// A site of `kind` renaming `symbol` in `path` to `new`.
fn site(kind: Kind, path: &str, symbol: String, target: &str) -> Site {
    Site {
        kind,
        path: path.to_string(),
        symbol,
        lines: 0..0,
        uses: BTreeSet::new(),
        target: Some(target.to_string()),
        tests: Vec::new(),
    }
}

/// The renames that could have replaced `r.old` by `r.new` at its place in `path`: a
/// parameter or local of each function around it (innermost first), the module-level
/// name of each file that defines it, the method of each class that has one of that
/// name.
fn rename_candidates(base: &mut Base, path: &str, r: &align::Replaced) -> Vec<Site> {
    let mut out = Vec::new();
    if let Some(module) = base.module(path) {
        for qual in functions_around(&module.suite, r.at) {
            out.push(site(Kind::RenameParam, path, format!("{qual}.{}", r.old), &r.new));
            out.push(site(Kind::RenameLocal, path, format!("{qual}.{}", r.old), &r.new));
        }
    }
    for file in base.python_paths() {
        let Some(module) = base.module(&file) else { continue };
        if top_level_names(&module.suite, true).contains(&r.old) {
            out.push(site(Kind::Rename, &file, r.old.clone(), &r.new));
        }
        for class in classes_with_method(&module.suite, &r.old) {
            out.push(site(Kind::RenameMethod, &file, format!("{class}.{}", r.old), &r.new));
        }
    }
    out
}

/// The qualified names (`f`, `Class.method`, `outer.inner`) of the functions whose
/// `def` holds byte `at`, innermost first.
fn functions_around(suite: &[ast::Stmt], at: usize) -> Vec<String> {
    fn walk(block: &[ast::Stmt], prefix: &str, at: usize, out: &mut Vec<String>) {
        for stmt in block {
            let range = stmt.range();
            if !(usize::from(range.start()) <= at && at < usize::from(range.end())) {
                continue;
            }
            let (name, body, is_function) = match stmt {
                ast::Stmt::FunctionDef(f) => (f.name.as_str(), &f.body, true),
                ast::Stmt::AsyncFunctionDef(f) => (f.name.as_str(), &f.body, true),
                ast::Stmt::ClassDef(c) => (c.name.as_str(), &c.body, false),
                other => {
                    for inner in crate::python::walk::child_blocks(other) {
                        walk(inner, prefix, at, out);
                    }
                    continue;
                }
            };
            let qual = if prefix.is_empty() { name.to_string() } else { format!("{prefix}.{name}") };
            if is_function {
                out.push(qual.clone());
            }
            walk(body, &qual, at, out);
        }
    }
    let mut out = Vec::new();
    walk(suite, "", at, &mut out);
    out.reverse();
    out
}

/// The names a module defines at its top level: `def` and `class` statements, and with
/// `assignments` the names assigned there too.
pub(crate) fn top_level_names(suite: &[ast::Stmt], assignments: bool) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for stmt in suite {
        match stmt {
            ast::Stmt::FunctionDef(f) => {
                out.insert(f.name.to_string());
            }
            ast::Stmt::AsyncFunctionDef(f) => {
                out.insert(f.name.to_string());
            }
            ast::Stmt::ClassDef(c) => {
                out.insert(c.name.to_string());
            }
            ast::Stmt::Assign(a) if assignments => {
                out.extend(a.targets.iter().filter_map(|t| t.as_name_expr()).map(|n| n.id.to_string()));
            }
            ast::Stmt::AnnAssign(a) if assignments => {
                out.extend(a.target.as_name_expr().map(|n| n.id.to_string()));
            }
            _ => {}
        }
    }
    out
}

/// The top-level classes of a module that define a method `name`.
fn classes_with_method(suite: &[ast::Stmt], name: &str) -> Vec<String> {
    suite
        .iter()
        .filter_map(|s| s.as_class_def_stmt())
        .filter(|c| {
            c.body.iter().any(|s| match s {
                ast::Stmt::FunctionDef(f) => f.name.as_str() == name,
                ast::Stmt::AsyncFunctionDef(f) => f.name.as_str() == name,
                _ => false,
            })
        })
        .map(|c| c.name.to_string())
        .collect()
}

/// The moves the side shows: a top-level `def`/`class` of a base module that the side's
/// version of that module lacks, new at the top of exactly one other module (which base
/// has). A definition that appears in several is a refusal.
fn move_candidates(base: &mut Base, side: &Snapshot, label: &str) -> (Vec<Site>, Vec<String>) {
    let mut side_defs: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (path, _) in side.iter().filter(|(p, _)| p.ends_with(".py")) {
        let Some(module) = snapshot::text_of(side, path).and_then(|t| PyModule::parse(path, t).ok()) else { continue };
        side_defs.insert(path.clone(), top_level_names(&module.suite, false));
    }
    let (mut out, mut refusals) = (Vec::new(), Vec::new());
    for path in base.python_paths() {
        let Some(module) = base.module(&path) else { continue };
        let before = top_level_names(&module.suite, false);
        let Some(after) = side_defs.get(&path) else { continue };
        for name in before.difference(after) {
            let mut targets = Vec::new();
            for (other, defs) in &side_defs {
                if *other == path || !defs.contains(name) {
                    continue;
                }
                let had = base.module(other).is_some_and(|m| top_level_names(&m.suite, false).contains(name));
                if !had {
                    targets.push(other.clone());
                }
            }
            match targets.as_slice() {
                [] => {}
                [target] => out.push(site(Kind::Move, &path, name.clone(), target)),
                _ => refusals.push(format!(
                    "{label} takes `{name}` out of {path} and defines it in {}: an ambiguous move",
                    targets.join(" and ")
                )),
            }
        }
    }
    (out, refusals)
}

/// `site` replayed on base, when everything it changes the side changed too: the
/// places (file, token index) whose name it replaced. `None` when it does not apply
/// or changes something the side did not.
fn prove(base: &mut Base, side: &Snapshot, site: &Site) -> Option<BTreeSet<(String, usize)>> {
    let workspace = Workspace { tree: base.tree, modules: &[], coverage: None, probe: None };
    let replayed = site.apply(&workspace, base.tree)?;
    let mut explained = BTreeSet::new();
    let mut changed = false;
    for (path, content) in &replayed {
        if base.tree.get(path) == Some(content) {
            continue;
        }
        changed = true;
        let theirs = side.get(path)?;
        if !path.ends_with(".py") {
            if theirs != content {
                return None;
            }
            continue;
        }
        let part = align::code_tokens(std::str::from_utf8(content).ok()?)?;
        let whole = align::code_tokens(std::str::from_utf8(theirs).ok()?)?;
        let before = match base.tree.contains_key(path) {
            true => base.tokens(path)?.clone(),
            false => Vec::new(),
        };
        if !align::is_part_of(&before, &part, &whole) {
            return None;
        }
        explained.extend(align::replaced_names(&before, &part).into_iter().map(|r| (path.clone(), r.index)));
    }
    let removed = base.tree.keys().any(|p| !replayed.contains_key(p));
    (changed && !removed).then_some(explained)
}
